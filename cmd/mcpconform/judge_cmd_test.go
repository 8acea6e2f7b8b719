package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeEvidenceMatchesTheLiveRun: a run saved with --evidence and
// judged again with mcpconform judge gives the live run's results, verdict
// and exit code, on the reference server and on faulty ones (a MUST
// broken; a server that dies mid-run), in one version and in all; and so
// does the same file as format 1, the evidence before it named its
// transport.
func TestJudgeEvidenceMatchesTheLiveRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  []string
		faults []string
	}{
		{"reference", nil, nil},
		{"MUST fault", nil, []string{"ping-not-empty"}},
		{"crash on read, every version", []string{"--spec-version", "all"}, []string{"crash-on-read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			live := runCLIIn(t, dir, against(t, append([]string{"--evidence", "run.json", "--json", "live.json"}, tc.flags...), tc.faults...)...)
			judged := runCLIIn(t, dir, "judge", "--json", "judged.json", "run.json")
			if live.code != judged.code {
				t.Errorf("exit %d live, %d judged\nlive: %v\njudged: %v", live.code, judged.code, live, judged)
			}
			a, b := results(t, filepath.Join(dir, "live.json")), results(t, filepath.Join(dir, "judged.json"))
			if len(a) < 100 {
				t.Fatalf("the live run has %d results, want the whole suite", len(a))
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("results judged from the evidence differ from the live run's (-live +judged):\n%s", diff)
			}
			// The same run as format 1 wrote it (no transport named) is
			// judged the same.
			asFormat1(t, filepath.Join(dir, "run.json"), filepath.Join(dir, "run1.json"))
			old := runCLIIn(t, dir, "judge", "--json", "judged1.json", "run1.json")
			if old.code != live.code {
				t.Errorf("exit %d live, %d judged from format 1\njudged: %v", live.code, old.code, old)
			}
			if diff := cmp.Diff(a, results(t, filepath.Join(dir, "judged1.json"))); diff != "" {
				t.Errorf("results judged from format 1 differ from the live run's (-live +judged):\n%s", diff)
			}
		})
	}
}

// asFormat1 rewrites an evidence file as format 1 wrote it: format 1, and
// no transport on the run or its processes.
func asFormat1(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]json.RawMessage
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if _, ok := run["transport"]; !ok {
		t.Fatal("the evidence names no transport")
	}
	delete(run, "transport")
	run["format"] = json.RawMessage("1")
	var procs []map[string]json.RawMessage
	if err := json.Unmarshal(run["processes"], &procs); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		delete(p, "transport")
	}
	if run["processes"], err = json.Marshal(procs); err != nil {
		t.Fatal(err)
	}
	if data, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// results reads a JSON report's results and summary, without the fields
// that are about when the report was written.
func results(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary map[string]any   `json:"summary"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"summary": rep.Summary}
	for _, r := range rep.Results {
		out[r["id"].(string)+"@"+r["protocolVersion"].(string)] = r
	}
	return out
}
