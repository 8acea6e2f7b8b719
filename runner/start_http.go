package runner

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/transcript"
)

// diagnoseHTTP says why an HTTP run established no session: the launched
// server's end and its last words, or what the endpoint answered to the
// first initialize (a status that needs a token, a wrong path).
func diagnoseHTTP(run *evidence.Run, f *reports.StartFailure) {
	if run.Server != nil {
		f.StderrTail = lastLines(run.Server.StderrTail, 8)
	}
	if f.Stage == "start" {
		if run.Server != nil && run.Server.StartError == "" && strings.HasPrefix(f.What, "nothing listened") {
			f.Hint = "the server must listen on the port mcpconform gives it in place of {port}; a server that chooses its own is judged at its URL instead (mcpconform http://host:port/mcp)"
		}
		return
	}
	status, why := firstAnswer(run)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		f.What = fmt.Sprintf("the endpoint %s answered initialize with HTTP %d %s", run.URL, status, http.StatusText(status))
		f.Hint = "a protected server needs a token: pass it with --header 'Authorization: Bearer TOKEN'"
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		f.What = fmt.Sprintf("nothing serves MCP at %s: it answered initialize with HTTP %d %s", run.URL, status, http.StatusText(status))
		f.Hint = "is the endpoint's path right? (a launched server's endpoint is --http-path, /mcp by default)"
	case status > 0:
		f.What = fmt.Sprintf("%s answered initialize with HTTP %d %s and no JSON-RPC answer (%s)", run.URL, status, http.StatusText(status), run.Fatal.Message)
	case why != "":
		f.What = fmt.Sprintf("no answer from %s: %s", run.URL, why)
	}
}

// firstAnswer returns the status of the first response of the run's
// first session, or why no response came.
func firstAnswer(run *evidence.Run) (int, string) {
	for _, p := range run.Processes {
		for _, e := range p.Entries() {
			switch ev := e.Event; {
			case ev == nil:
			case ev.HTTPResponse != nil:
				return ev.HTTPResponse.Status, ""
			case ev.HTTPBody != nil && ev.HTTPBody.Response && ev.HTTPBody.Err != "":
				return 0, strings.TrimPrefix(ev.HTTPBody.Err, "no response: ")
			case ev.Exit != nil && ev.Exit.Stage == transcript.BeforeShutdown:
				return 0, "the server is gone"
			}
		}
	}
	return 0, ""
}
