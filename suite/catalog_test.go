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

// TestCoverage: every server-testable requirement has a check or a reason,
// and no check cites an unknown requirement.
func TestCoverage(t *testing.T) {
	by := checkedRequirements(t)
	known := map[string]bool{}
	tested, reasons := 0, 0
	for _, r := range catalog.All() {
		known[r.ID] = true
		switch {
		case len(by[r.ID]) == 0 && r.Untested == "":
			t.Errorf("%s has neither a check nor a reason it is not tested", r.ID)
		case len(by[r.ID]) > 0:
			tested++
		default:
			reasons++
		}
	}
	for id, cs := range by {
		if !known[id] {
			t.Errorf("checks %v cite %s, which is not in the catalogue", cs, id)
		}
	}
	t.Logf("%d requirements: %d tested, %d with a reason", len(catalog.All()), tested, reasons)
}
