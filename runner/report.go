package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/plan"
)

// target is what the report says about the server: its command, what it
// said of itself, and how it was driven.
// specOf names the spec a run was judged against: the commit of the spec
// repository its schemas come from, and the schema of each version judged.
func specOf(run *evidence.Run) *reports.Spec {
	return reports.SpecOf(checks.JudgedVersions(run))
}

func target(run *evidence.Run) reports.Target {
	t := reports.Target{Command: run.Command, Versions: run.Versions, Processes: len(run.Processes), ToolCalls: checks.ToolCallsOf(run)}
	if run.Transport == evidence.TransportHTTP {
		t.Transport, t.URL = run.Transport, run.URL
	}
	if len(t.ToolCalls) > 0 {
		t.CallTools = plan.RecordedToolPolicy(run.CallTools).String()
	}
	if len(run.Versions) > 0 {
		if s := run.Session(run.Versions[0]); s != nil {
			t.ProtocolVersion = s.Negotiated
			// What the server sent, cut to a kilobyte per string.
			t.ServerInfo = reports.ClipJSON(s.InitResult()["serverInfo"], 1<<10, 64<<10)
			t.Capabilities = reports.ClipJSON(s.InitResult()["capabilities"], 1<<10, 64<<10)
			if p := s.Shared(); p != nil {
				t.StderrTail = p.StderrTail
			}
		}
	}
	if run.Server != nil {
		t.StderrTail = run.Server.StderrTail
	}
	if t.StderrTail == nil && len(run.Processes) > 0 {
		t.StderrTail = run.Processes[0].StderrTail
	}
	return t
}

// unlistedReport is the report of a run that stopped at discovery because
// --call-tools named a tool the server does not list: nothing is judged,
// and the report says why.
func unlistedReport(run *evidence.Run, tool string) *reports.Report {
	rep := reports.NewReport(tool, run.Started, run.Duration, unlistedText(run), false)
	rep.Target, rep.Results = target(run), []reports.Result{}
	for i := range rep.Target.ToolCalls {
		rep.Target.ToolCalls[i].Why = "the run stopped after discovery: --call-tools names a tool the server does not list"
	}
	rep.Count()
	rep.Summary.Verdict = reports.ErrorVerdict
	return rep
}

// unlistedText says which tools --call-tools named that the server does
// not list, and what it lists.
func unlistedText(run *evidence.Run) string {
	u := run.Unlisted
	quoted := make([]string, len(u.Names))
	for i, n := range u.Names {
		quoted[i] = strconv.Quote(n)
	}
	lists := "lists " + strings.Join(u.Listed, ", ")
	switch {
	case u.NoTools:
		lists = "declares no tools capability"
	case len(u.Listed) == 0:
		lists = "lists no tools"
	}
	return reports.Escape(fmt.Sprintf("--call-tools %s: the server lists no tool named %s (in its %s session it %s). The run stopped after discovery; name tools it lists, or write --call-tools none, readonly or all",
		plan.RecordedToolPolicy(run.CallTools), strings.Join(quoted, " or "), u.Version, lists))
}
