package plan

import "github.com/mcpconform/mcpconform/evidence"

// TransportGate returns why what is judged does not apply to a run over
// transport run, or "". only is the one transport a check or test judges
// ("": any); whatever it says, the stdio area is about the stdio
// transport alone (framing on stdout, stderr, the process's end on stdin
// EOF), which a server reached over HTTP does not speak. A run whose
// evidence names no transport spoke stdio.
func TransportGate(area, only, run string) string {
	if run == "" {
		run = evidence.TransportStdio
	}
	if only == "" && area == "stdio" {
		only = evidence.TransportStdio
	}
	if only != "" && only != run {
		return only + " only: the server was reached over " + run
	}
	return ""
}
