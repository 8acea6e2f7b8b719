package suite_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
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
			cfg.Want = func(id string) bool { return slices.Contains(tc.want, id) }
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
