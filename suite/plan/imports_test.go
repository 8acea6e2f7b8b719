package plan_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpconform/mcpconform"

// TestDrivingAndJudgingMeetOnlyInPlan: the executor does not import the
// checks, the checks and the suite do not import the client that drives
// a server, and the plan imports neither side. The compiler keeps
// judging apart from driving only as long as the imports do.
func TestDrivingAndJudgingMeetOnlyInPlan(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the imports with")
	}
	for pkg, forbidden := range map[string][]string{
		"suite/execute": {"suite/checks", "suite", "reports"},
		"suite/checks":  {"suite/execute", "mockclient", "transport"},
		"suite":         {"suite/execute", "mockclient", "transport"},
		"suite/plan":    {"suite/execute", "suite/checks", "suite", "mockclient", "transport"},
	} {
		out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, f := range forbidden {
			if slices.Contains(deps, module+"/"+f) {
				t.Errorf("%s imports %s", pkg, f)
			}
		}
	}
}
