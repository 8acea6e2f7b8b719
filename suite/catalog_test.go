package suite_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/suite"
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
	for _, c := range suite.Checks() {
		by[c.Requirement] = append(by[c.Requirement], c.ID)
	}
	for _, f := range files {
		for _, tt := range f.Tests {
			by[tt.Requirement] = append(by[tt.Requirement], tt.ID)
		}
	}
	return by
}

// TestCoverage: every requirement of the handshake era has a check or a
// reason, no check cites an unknown requirement, and at most 25 of the
// handshake-era requirements carry a reason instead of a check.
func TestCoverage(t *testing.T) {
	by := checkedRequirements(t)
	known := map[string]bool{}
	reasons, era := 0, 0
	modern := 0
	for _, r := range suite.Requirements() {
		known[r.ID] = true
		if !r.HandshakeEra {
			if len(by[r.ID]) == 0 && r.Untested == "" {
				t.Errorf("%s (2026-07-28) has neither a check nor a reason it is not tested", r.ID)
			}
			if len(by[r.ID]) > 0 {
				modern++
			}
			continue
		}
		era++
		switch {
		case len(by[r.ID]) == 0 && r.Untested == "":
			t.Errorf("%s has neither a check nor a reason it is not tested", r.ID)
		case len(by[r.ID]) > 0 && r.Untested != "":
			t.Errorf("%s is tested by %v but the catalogue says: %s", r.ID, by[r.ID], r.Untested)
		case r.Untested != "":
			reasons++
		}
	}
	for id, checks := range by {
		if !known[id] {
			t.Errorf("checks %v cite %s, which is not in the catalogue", checks, id)
		}
	}
	if era != 117 {
		t.Errorf("got %d handshake-era requirements, want 117", era)
	}
	if reasons > 25 {
		t.Errorf("%d handshake-era requirements carry a reason instead of a check, want at most 25", reasons)
	}
	t.Logf("%d handshake-era requirements: %d tested, %d with a reason; %d 2026-07-28-only requirements tested", era, era-reasons, reasons, modern)
}
