package suite_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// TestSelectionStartsOnlyTheProcessesItNeeds: a run of a few checks
// (--only) starts only the processes those checks judge, and each of them
// still judges what it must: a pass on the correct mock, the broken rule
// on a faulty one.
func TestSelectionStartsOnlyTheProcessesItNeeds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		faults    []string
		want      []string
		processes int
		verdicts  map[string]reports.Verdict
	}{
		{"a shared test alone", nil, []string{"ping-empty-result"}, 1,
			map[string]reports.Verdict{"ping-empty-result": reports.Pass}},
		{"a test before initialize", nil, []string{"ping-empty-result", "ping-before-initialize"}, 2,
			map[string]reports.Verdict{"ping-empty-result": reports.Pass, "ping-before-initialize": reports.Pass}},
		{"the counter-offer", nil, []string{"initialize-counter-offer"}, 3,
			map[string]reports.Verdict{"initialize-counter-offer": reports.Pass}},
		// The probe process and its window for server requests stay when
		// a check of server requests is selected.
		{"a server request before initialized", []string{"early-server-request"}, []string{"no-requests-before-initialized"}, 2,
			map[string]reports.Verdict{"no-requests-before-initialized": reports.Warn}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := faultConfig(tc.faults...)
			only(&cfg, tc.want...)
			run, err := execute.Execute(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(run.AllProcesses()); n != tc.processes {
				t.Errorf("%d processes started, want %d", n, tc.processes)
			}
			files, err := suite.VectorFiles(run)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]reports.Verdict{}
			for _, r := range suite.Judge(run, files) {
				if _, ok := tc.verdicts[r.ID]; ok {
					got[r.ID] = r.Verdict
					if r.Verdict != tc.verdicts[r.ID] {
						t.Errorf("%s: %s: %s; want %s", r.ID, r.Verdict, r.Message, tc.verdicts[r.ID])
					}
				}
			}
			for id := range tc.verdicts {
				if _, ok := got[id]; !ok {
					t.Errorf("%s: no result", id)
				}
			}
		})
	}
}

// only selects the checks and vector tests named, as --only does.
func only(cfg *execute.Config, ids ...string) {
	selected := func(id string) bool { return slices.Contains(ids, id) }
	cfg.Tests, cfg.Needs = selected, suite.Needs(selected)
}

// TestEverySelectionJudgesAlike: selecting one check or one vector test
// (--only ID) sends only what it needs (a check's Needs, a vector test's
// place), and still judges it as the whole run does: the same verdict in
// every version, on the reference server with every tool called, and on
// the legal variations that show what the reference server's defaults
// do not. A check missing a probe in its Needs fails here.
func TestEverySelectionJudgesAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per check and vector test")
	}
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range checks.All() {
		ids = append(ids, c.ID)
	}
	for _, f := range files {
		for _, x := range f.Tests {
			ids = append(ids, x.ID)
		}
	}
	if raceEnabled {
		// A sample under -race; all of them without (.ci/run).
		var sample []string
		for i, id := range ids {
			if i%raceSample == 0 {
				sample = append(sample, id)
			}
		}
		ids = sample
	}
	// The variations besides the defaults: those that trigger a check the
	// reference server's defaults cannot.
	variants := []string{""}
	for _, rt := range rarelyTriggered {
		if rt.variant != "" && !slices.Contains(variants, rt.variant) {
			variants = append(variants, rt.variant)
		}
	}
	for _, variant := range variants {
		config := func() execute.Config {
			cfg := mockConfig()
			if variant != "" {
				cfg = mockConfig("--variant", variant)
			}
			cfg.SpecVersion = "all"
			cfg.Timeout = 4 * time.Second
			return cfg
		}
		t.Run(cmp.Or(variant, "default"), func(t *testing.T) {
			t.Parallel()
			_, all := executeAndJudge(t, config())
			whole := map[string]reports.Result{}
			for _, r := range all {
				whole[r.ID+"@"+r.ProtocolVersion] = r
			}
			for _, id := range ids {
				t.Run(id, func(t *testing.T) {
					t.Parallel()
					cfg := config()
					only(&cfg, id)
					_, results := executeAndJudge(t, cfg)
					n := 0
					for _, r := range results {
						if r.ID != id {
							continue
						}
						n++
						w, ok := whole[r.ID+"@"+r.ProtocolVersion]
						switch {
						case !ok:
							t.Errorf("%s: no result of the whole run", r.ProtocolVersion)
						case r.Verdict != w.Verdict:
							t.Errorf("%s alone: %s: %s; in the whole run: %s: %s", r.ProtocolVersion, r.Verdict, r.Message, w.Verdict, w.Message)
						}
					}
					if n == 0 {
						t.Errorf("no result")
					}
				})
			}
		})
	}
}

// TestEveryProbeIsNeeded: every probe is needed by some check, or no run
// would send it; and the checks need no probe the plan does not know.
func TestEveryProbeIsNeeded(t *testing.T) {
	got, want := suite.Needs(nil), plan.Every()
	for p := range want {
		if !got.Has(p) {
			t.Errorf("no check needs %s: no run sends it", p)
		}
	}
	for p := range got {
		if !want.Has(p) {
			t.Errorf("a check needs %s, which is not among plan.Probes", p)
		}
	}
}
