package suite_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
)

// executeAndJudge runs the suite with cfg, within two minutes, and judges
// the run; a target that never started fails the test.
func executeAndJudge(t *testing.T, cfg execute.Config) (*evidence.Run, []reports.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := execute.Execute(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Fatal != nil {
		t.Fatalf("the server did not start: %s", run.Fatal.Message)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	return run, suite.Judge(run, files)
}

// TestLegalVariationsAreConformant: every legal variation of the mock
// server (behaviour a correct server may show, however unusual) is judged
// in every version it serves with no fail and no harness error, and warns
// only under the SHOULD rules the variation declares it breaks. A check
// that accuses legal behaviour fails here.
func TestLegalVariationsAreConformant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per variation")
	}
	t.Parallel()
	var variants []mockserver.Variant
	for i, v := range mockserver.Variants() {
		if raceEnabled && i%raceSample != 0 {
			continue // a sample under -race; all of them without (.ci/run)
		}
		variants = append(variants, v)
	}
	for _, v := range longestFirst(variants, func(v mockserver.Variant) string { return v.Name }) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			cfg := mockConfig("--variant", v.Name)
			cfg.SpecVersion = "all"
			cfg.Timeout = 5 * time.Second
			run, results := executeAndJudge(t, cfg)
			if len(v.Versions) > 0 {
				for _, want := range v.Versions {
					if !slices.Contains(run.Versions, want) {
						t.Errorf("the run judged %v, not every version the variation serves (%v)", run.Versions, v.Versions)
					}
				}
			}
			judgeVariant(t, v, results)
		})
	}
}

// judgeVariant fails the test for a fail or an error, and for a warning
// under a rule the variation does not declare it breaks.
func judgeVariant(t *testing.T, v mockserver.Variant, results []reports.Result) {
	t.Helper()
	for _, r := range results {
		switch {
		case r.Verdict == reports.Fail, r.Verdict == reports.Error:
			t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		case r.Verdict == reports.Warn && !slices.Contains(v.Breaks, r.Requirement):
			t.Errorf("warn %s [%s, %s], a rule the variation does not break: %s", r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
}
