package fleet

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

// TestClassifyCutShortStart: a run the harness's budget ended before
// initialize completed is incomplete and names the budget, whether or not
// the server had spoken yet: a slow start on a busy machine is not the
// server's environment failing it.
func TestClassifyCutShortStart(t *testing.T) {
	const budget = "the run took longer than --run-timeout 1s"
	for _, spoke := range []bool{false, true} {
		rep := &reports.Report{Interrupted: budget, DidNotStart: &reports.StartFailure{Stage: "initialize", What: "the run was stopped before initialize completed", Spoke: spoke}}
		class, reason, _ := classify(rep, runner.Outcome{Status: runner.NotStarted})
		if class != reports.ClassIncomplete || !strings.Contains(reason, "--run-timeout 1s") {
			t.Errorf("spoke %v: got %s (%q), want %s naming --run-timeout 1s", spoke, class, reason, reports.ClassIncomplete)
		}
	}
	// Not cut short, a server that never spoke is a setup error still.
	rep := &reports.Report{DidNotStart: &reports.StartFailure{Stage: "initialize", What: "the server exited with status 1"}}
	if class, _, _ := classify(rep, runner.Outcome{Status: runner.NotStarted}); class != reports.ClassSetupError {
		t.Errorf("not cut short: got %s, want %s", class, reports.ClassSetupError)
	}
}
