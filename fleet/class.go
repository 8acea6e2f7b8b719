package fleet

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

// classify places a run in its class and says why, from what was
// observed; what it infers (a failure to start taken for the
// environment's, the hint of why) it returns apart, to be labelled so.
func classify(rep *reports.Report, out runner.Outcome) (class reports.Class, reason string, inferred []string) {
	s := rep.Summary
	switch out.Status {
	case runner.Conformant:
		return reports.ClassConformant, fmt.Sprintf("nothing failed: %d pass, %d warn, %d info, %d skip", s.Pass, s.Warn, s.Info, s.Skip), nil
	case runner.Nonconformant:
		switch {
		case s.Fail > 0:
			return reports.ClassNonconformant, fmt.Sprintf("%d check%s failed: %s", s.Fail, plural(s.Fail, "", "s"), idsOf(rep, reports.Fail)), nil
		case len(rep.Stale) > 0:
			return reports.ClassNonconformant, "stale baseline entries (these checks pass now): " + strings.Join(rep.Stale, ", "), nil
		}
		return reports.ClassNonconformant, fmt.Sprintf("strict: %d warning%s fail the run: %s", s.Warn, plural(s.Warn, "", "s"), idsOf(rep, reports.Warn)), nil
	case runner.NotStarted:
		d := rep.DidNotStart
		if d == nil {
			return reports.ClassIncomplete, "no session could be established with the server", nil
		}
		if rep.Interrupted != "" {
			// The harness's budget (or a signal) ended the start: nothing
			// says the server or its environment could not have started.
			return reports.ClassIncomplete, rep.Interrupted + ", before the server completed initialize: " + d.What, nil
		}
		if d.Spoke {
			return reports.ClassIncomplete, "the server wrote JSON-RPC but never completed initialize: " + d.What, nil
		}
		if d.Hint != "" {
			inferred = append(inferred, d.Hint)
		}
		if d.Stage != "start" {
			inferred = append(inferred, "the server wrote no JSON-RPC message, so its failure to start is taken for the command's, the environment's or the setup's, not judged against the protocol")
		}
		return reports.ClassSetupError, "the server did not start: " + d.What, inferred
	}
	// Incomplete, and Misconfigured (a tool --call-tools names that the
	// server does not list: messages were exchanged, nothing judged).
	var why []string
	if rep.Interrupted != "" {
		why = append(why, rep.Interrupted)
	}
	why = append(why, rep.Incomplete...)
	if s.Error > 0 {
		why = append(why, fmt.Sprintf("%d check%s could not be judged: %s", s.Error, plural(s.Error, "", "s"), idsOf(rep, reports.Error)))
	}
	if len(why) == 0 {
		why = append(why, "the run could not judge everything")
	}
	return reports.ClassIncomplete, strings.Join(why, "; "), nil
}

// idsOf lists the distinct check ids of rep with verdict v, the first few.
func idsOf(rep *reports.Report, v reports.Verdict) string {
	const shown = 5
	var ids []string
	seen := map[string]bool{}
	for _, r := range rep.Results {
		if r.Verdict == v && !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > shown {
		return strings.Join(ids[:shown], ", ") + fmt.Sprintf(" and %d more", len(ids)-shown)
	}
	return strings.Join(ids, ", ")
}
