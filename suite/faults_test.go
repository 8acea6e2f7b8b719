package suite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
)

// faultVersion names faults whose rule only shows in a session of a given
// version.
var faultVersion = map[string]string{
	"newer-fields":                 "2024-11-05",
	"batch-unsupported":            "2025-03-26",
	"batch-after-2025-03":          "2025-06-18",
	"elicitation-code-old-version": "2025-06-18",
	// The faults of the 2026-07-28 era act on requests in its envelope only.
	"modern-no-discover":                "2026-07-28",
	"discover-bad-shape":                "2026-07-28",
	"no-result-type":                    "2026-07-28",
	"bad-result-type":                   "2026-07-28",
	"no-server-info-meta":               "2026-07-28",
	"envelope-not-required":             "2026-07-28",
	"client-capabilities-not-required":  "2026-07-28",
	"unsupported-version-served":        "2026-07-28",
	"unsupported-version-no-data":       "2026-07-28",
	"stateful-version":                  "2026-07-28",
	"modern-ping-served":                "2026-07-28",
	"modern-subscribe-served":           "2026-07-28",
	"no-cache-hints":                    "2026-07-28",
	"negative-ttl":                      "2026-07-28",
	"cache-scope-varies":                "2026-07-28",
	"not-found-32002-modern":            "2026-07-28",
	"not-found-empty-contents-modern":   "2026-07-28",
	"server-request-modern":             "2026-07-28",
	"server-request-modern-stdio":       "2026-07-28",
	"client-info-required":              "2026-07-28",
	"input-required-empty":              "2026-07-28",
	"input-required-sampling":           "2026-07-28",
	"stream-notification-before-listen": "2026-07-28",
	"read-no-cache-hints":               "2026-07-28",
	"templates-no-cache-hints":          "2026-07-28",
	"log-without-level":                 "2026-07-28",
	"legacy-code-range":                 "2026-07-28",
	"header-mismatch-code":              "2026-07-28",
	"list-varies":                       "2026-07-28",
	"extension-bad-key":                 "2026-07-28",
	"bad-traceparent":                   "2026-07-28",
	"legacy-initialize-unexplained":     "2026-07-28",
	"no-ack":                            "2026-07-28",
	"ack-grants-more":                   "2026-07-28",
	"ack-after-update":                  "2026-07-28",
	"subscription-id-as-string":         "2026-07-28",
	"stream-after-cancel":               "2026-07-28",
	"list-changed-unrequested":          "2026-07-28",
	"list-changed-outside-stream":       "2026-07-28",
	"cancelled-not-listen":              "2026-07-28",
}

// runMock runs the whole suite against the reference server with faults.
func runMock(t *testing.T, version string, faults ...string) (*evidence.Run, []reports.Result) {
	t.Helper()
	cfg := mockConfig(faults...)
	cfg.SpecVersion = version
	// Generous for a loaded CI machine under -race; hung methods cost two
	// deadlines at most (mockclient stops sending to a hung method).
	cfg.Timeout = 4 * time.Second
	// The run's own deadline; ending within it (plus the shutdown grace of
	// its processes) is what "within its deadlines" means here.
	const runDeadline = 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	start := time.Now()
	run, err := execute.Execute(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > runDeadline+10*time.Second {
		t.Errorf("the run took %s, beyond its deadline of %s", d, runDeadline)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	return run, suite.Judge(run, files)
}

func summarize(results []reports.Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Verdict != reports.Pass && r.Verdict != reports.Skip {
			fmt.Fprintf(&b, "\n  %s %s %s: %s", r.Verdict, r.ID, r.Requirement, r.Message)
		}
	}
	return b.String()
}

// TestReferenceServerIsConformant: against the correct mock nothing fails,
// warns or errors, in any version.
func TestReferenceServerIsConformant(t *testing.T) {
	_, results := runMock(t, "all")
	for _, r := range results {
		switch r.Verdict {
		case reports.Fail, reports.Warn, reports.Error:
			t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
	if len(results) < 100 {
		t.Errorf("got %d results, want the whole suite", len(results))
	}
}

// TestEveryFaultIsDetected is the self-test score: for every fault of the
// mock server's catalogue, the suite reports the requirement it breaks
// (fail for MUST rules, warn for SHOULD rules) and the run ends within its
// deadlines. INFO faults exercise the harness only: nothing may error.
func TestEveryFaultIsDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per fault")
	}
	faults := mockserver.Faults()
	for _, f := range faults {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			run, results := runMock(t, faultVersion[f.Name], f.Name)
			want := map[string]reports.Verdict{mockserver.LevelMust: reports.Fail, mockserver.LevelShould: reports.Warn}[f.Level]
			if want == "" {
				for _, r := range results {
					if r.Verdict == reports.Error {
						t.Errorf("harness error on an INFO fault: %s: %s", r.ID, r.Message)
					}
				}
				return
			}
			found := false
			for _, r := range results {
				if r.Requirement == f.Requirement && r.Verdict == want {
					found = true
				}
			}
			if !found {
				var same []string
				for _, r := range results {
					if r.Requirement == f.Requirement {
						same = append(same, fmt.Sprintf("%s=%s (%s)", r.ID, r.Verdict, r.Message))
					}
				}
				t.Errorf("fault %s breaks %s (%s) but no result for %s is %s; fatal=%v; results for it: %v; non-passing results:%s",
					f.Name, f.Requirement, f.Level, f.Requirement, want, run.Fatal, same, summarize(results))
			}
		})
	}
}

// TestExampleFixturesAreConformant: the mock server serves every example
// fixture it ships, and the whole suite passes against each, in every
// version the fixture serves.
func TestExampleFixturesAreConformant(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "mockserver", "testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example fixtures found: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg := mockConfig()
			cfg.Env = append(cfg.Env, "MCPCONFORM_TEST_FIXTURE="+abs)
			cfg.SpecVersion = "all"
			cfg.Timeout = 5 * time.Second
			run, err := execute.Execute(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if run.Fatal != nil {
				t.Fatalf("the mock did not start with %s: %s", p, run.Fatal.Message)
			}
			files, err := suite.VectorFiles(run)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range suite.Judge(run, files) {
				switch r.Verdict {
				case reports.Fail, reports.Warn, reports.Error:
					t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
				}
			}
		})
	}
}
