package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

// An evidence file is input like any other: LoadEvidence names a report
// given in its place, refuses vectors that pass whatever the server did,
// and says where the vectors that judge it come from.
func TestLoadEvidence(t *testing.T) {
	dir := t.TempDir()
	var recorded *evidence.Run
	rep, _, err := runner.Run(context.Background(), runner.Config{
		Command: []string{os.Args[0]}, Env: []string{serveEnv + "=1"}, SpecVersion: "2025-11-25",
		Only: []string{"area:ping"}, Recorded: func(r *evidence.Run) { recorded = r },
	})
	if err != nil {
		t.Fatal(err)
	}
	save := func(name string, run *evidence.Run) string {
		path := filepath.Join(dir, name)
		if err := run.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	live := save("run.json", recorded)

	ping, err := os.ReadFile(filepath.Join("..", "vectors", "ping", "ping.json"))
	if err != nil {
		t.Fatal(err)
	}
	withVectors := func(name string, file []byte) string {
		recorded.Vectors = []evidence.VectorFile{{Name: "ping.json", JSON: file}}
		defer func() { recorded.Vectors = nil }()
		return save(name, recorded)
	}
	var vf map[string]any
	if err := json.Unmarshal(ping, &vf); err != nil {
		t.Fatal(err)
	}
	for _, x := range vf["tests"].([]any) {
		x.(map[string]any)["expect"] = []any{map[string]any{"verdict": "pass", "result": map[string]any{}}}
	}
	forgedJSON, _ := json.Marshal(vf)

	report := filepath.Join(dir, "report.json")
	f, err := os.Create(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, tc := range []struct {
		name, path string
		source     string // the source wanted, or ""
		err        string // a part of the error wanted, or ""
	}{
		{"this mcpconform's vectors", live, "embedded in mcpconform T1", ""},
		{"the file's own vectors, ours word for word", withVectors("own.json", ping), "read from the evidence file (1 files, not necessarily this mcpconform's)", ""},
		{"vectors that pass anything", withVectors("forged.json", forgedJSON), "", "forged.json: refused: vectors in the evidence pass whatever the server did: ping-"},
		{"a report", report, "", report + " is a report, not an evidence file (write evidence with --evidence)"},
		{"no file", filepath.Join(dir, "none.json"), "", "none.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, source, err := runner.LoadEvidence(tc.path, "T1")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || run != nil {
					t.Errorf("got %v, want an error with %q and no run", err, tc.err)
				}
				if tc.path != report && err != nil && strings.Contains(err.Error(), "is a report") {
					t.Errorf("got %v: not a report", err)
				}
				return
			}
			if err != nil || run == nil {
				t.Fatalf("got %v, want the run", err)
			}
			if source != tc.source {
				t.Errorf("source: got %q, want %q", source, tc.source)
			}
		})
	}
}
