package suite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
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
		for _, r := range c.Also {
			by[r] = append(by[r], c.ID)
		}
	}
	for _, f := range files {
		for _, tt := range f.Tests {
			by[tt.Requirement] = append(by[tt.Requirement], tt.ID)
			// An outcome may grade under a requirement of its own (a
			// wrong error code only a SHOULD names): that tests it too.
			for _, o := range tt.Expect {
				if o.Requirement != "" && o.Requirement != tt.Requirement && !slices.Contains(by[o.Requirement], tt.ID) {
					by[o.Requirement] = append(by[o.Requirement], tt.ID)
				}
			}
		}
	}
	return by
}

// Coverage is the tally the README states, for one era or both:
// server-testable requirements a check judges at a level that can fail or
// warn (Tested), those a check only records, as the catalogue gives them
// no such level there (Recorded: MAY, unspecified), and those that carry
// a reason no check can judge them (WithReason).
type Coverage struct {
	Requirements, Testable, Tested, Recorded, WithReason int
}

// eras of the tally: the handshake era (any of its four versions) and the
// 2026-07-28 era.
var eras = map[string][]string{
	"handshake": wire.LegacyVersions,
	"modern":    {wire.Modern},
}

// coverage counts the requirements that exist in one of versions (every
// version when none is given).
func coverage(t *testing.T, versions ...string) (Coverage, []string) {
	by := checkedRequirements(t)
	known := map[string]bool{}
	var c Coverage
	var problems []string
	for _, r := range catalog.All() {
		known[r.ID] = true
		judgeable := false // a level that fails or warns, in a version counted
		exists := false
		for v, st := range r.Versions {
			if len(versions) > 0 && !slices.Contains(versions, v) {
				continue
			}
			exists = true
			if catalog.SeverityOf(st.Level) != catalog.Info {
				judgeable = true
			}
		}
		if !exists {
			continue
		}
		c.Requirements++
		if !r.ServerTestable || r.Role == "client" || r.Role == "definition" {
			continue // judged at most as a record: a client's rule, a definition, intent
		}
		c.Testable++
		switch {
		case len(by[r.ID]) > 0 && r.Untested != "":
			problems = append(problems, r.ID+" is tested but the catalogue says: "+r.Untested)
		case len(by[r.ID]) > 0 && judgeable:
			c.Tested++
		case len(by[r.ID]) > 0:
			c.Recorded++
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
// obligation, a definition, intent) is never counted as tested, nor is
// one whose level lets a check only record what it saw (MAY,
// unspecified).
func TestCoverage(t *testing.T) {
	c, problems := coverage(t)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d requirements, %d server-testable: %d judged by checks, %d only recorded (MAY, unspecified), %d with a reason they cannot be", c.Requirements, c.Testable, c.Tested, c.Recorded, c.WithReason)
	for _, era := range []string{"handshake", "modern"} {
		e, _ := coverage(t, eras[era]...)
		t.Logf("%s era: %+v", era, e)
	}
}

// faultTally counts the fault catalogue as the README states it: graded
// faults (a rule broken, detected at its level in the version the fault
// is judged in) by that level, and the others (harness faults and silent
// ones, which prove no rule broken).
func faultTally() (total, graded int, byLevel map[reports.Verdict]int) {
	byLevel = map[reports.Verdict]int{}
	for _, f := range mockserver.Faults() {
		total++
		if f.Harness || f.Silent {
			continue
		}
		v := f.Version
		if v == "" {
			v = wire.Newest
		}
		want, ok := severityIn(f.Requirement, v)
		if !ok {
			continue
		}
		if f.Disputed && want == reports.Fail {
			want = reports.Warn
		}
		if f.Schema {
			want = reports.Fail
		}
		graded++
		byLevel[want]++
	}
	return total, graded, byLevel
}

// TestREADMETally: the figures the README gives for the catalogue's
// coverage and the self-test follow from the catalogue, the checks and
// the fault catalogue (the detections themselves are asserted by
// TestEveryFaultIsDetected).
func TestREADMETally(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(data)), " ")
	hs, _ := coverage(t, eras["handshake"]...)
	mo, _ := coverage(t, eras["modern"]...)
	total, graded, by := faultTally()
	want := []string{
		fmt.Sprintf("Of the %d requirements of the handshake era, %d can be seen broken from outside: %d are judged by checks, %d only recorded (the spec says MAY, or nothing) and %d with the reason no check can judge it.",
			hs.Requirements, hs.Testable, hs.Tested, hs.Recorded, hs.WithReason),
		fmt.Sprintf("Of the %d of the 2026-07-28 era, %d can: %d judged, %d recorded, %d with a reason.",
			mo.Requirements, mo.Testable, mo.Tested, mo.Recorded, mo.WithReason),
		fmt.Sprintf("**Self-test score: %d / %d** graded faults detected at their level (%d fail, %d warn, %d info); the other %d faults of the %d",
			graded, graded, by[reports.Fail], by[reports.Warn], by[reports.Info], total-graded, total),
	}
	for _, w := range want {
		if !strings.Contains(readme, w) {
			t.Errorf("the README does not say:\n%s", w)
		}
	}
}
