package suite_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/vectors"
)

// checkedRequirements maps requirement ids to the checks that test them.
func checkedRequirements(t *testing.T) map[string][]string {
	t.Helper()
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	for _, c := range checks.All() {
		by[c.Requirement] = append(by[c.Requirement], c.ID)
	}
	for _, f := range files {
		for _, tt := range f.Tests {
			by[tt.Requirement] = append(by[tt.Requirement], tt.ID)
		}
	}
	return by
}

// Coverage is the tally the README states: server-testable requirements
// a check judges, and those that carry a reason instead.
type Coverage struct {
	Requirements, Testable, Tested, WithReason int
}

func coverage(t *testing.T) (Coverage, []string) {
	by := checkedRequirements(t)
	known := map[string]bool{}
	var c Coverage
	var problems []string
	for _, r := range catalog.All() {
		known[r.ID] = true
		c.Requirements++
		if !r.ServerTestable {
			continue // judged at most as a record: a client's rule, a definition, intent
		}
		c.Testable++
		switch {
		case len(by[r.ID]) > 0 && r.Untested != "":
			problems = append(problems, r.ID+" is tested but the catalogue says: "+r.Untested)
		case len(by[r.ID]) > 0:
			c.Tested++
		case r.Untested != "":
			c.WithReason++
		default:
			problems = append(problems, r.ID+" is server-testable and has neither a check nor a reason it is not tested")
		}
	}
	for id, cs := range by {
		if !known[id] {
			problems = append(problems, "checks "+cs[0]+"… cite "+id+", which is not in the catalogue")
		}
	}
	return c, problems
}

// TestCoverage: every server-testable requirement is judged by a check or
// carries the reason it cannot be, and no check cites an unknown
// requirement. A requirement that is not server-testable (a client's
// obligation, a definition, intent) is never counted as tested.
func TestCoverage(t *testing.T) {
	c, problems := coverage(t)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d requirements, %d server-testable: %d judged by checks, %d with a reason they cannot be", c.Requirements, c.Testable, c.Tested, c.WithReason)
}
