package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJSON writes v to dir/name and returns the path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJudgeRefusesForgedEvidence: an evidence file may come from anywhere.
// One that records nothing, one too large or too deeply nested, and one
// whose vectors pass whatever the server did are refused (exit 2, saying
// why); a run that judged nothing is never conformant; and every report
// says where the vectors came from.
func TestJudgeRefusesForgedEvidence(t *testing.T) {
	dir := t.TempDir()
	live := runCLIIn(t, dir, against(t, []string{"--evidence", "run.json"}, "ping-not-empty")...)
	if live.code != exitNonconformant {
		t.Fatalf("recording: exit %d, want %d\n%v", live.code, exitNonconformant, live)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	ping, err := os.ReadFile(filepath.Join("..", "..", "vectors", "ping", "ping.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vf map[string]any
	if err := json.Unmarshal(ping, &vf); err != nil {
		t.Fatal(err)
	}
	withVectors := func(file map[string]any) map[string]any {
		raw, _ := json.Marshal(file)
		out := map[string]any{}
		for k, v := range run {
			out[k] = v
		}
		out["vectors"] = []any{map[string]any{"name": "ping.json", "json": json.RawMessage(raw)}}
		return out
	}
	// The same file with every expectation made to accept anything.
	forged := map[string]any{}
	for k, v := range vf {
		forged[k] = v
	}
	var tests []any
	for _, x := range vf["tests"].([]any) {
		test := map[string]any{}
		for k, v := range x.(map[string]any) {
			test[k] = v
		}
		test["expect"] = []any{map[string]any{"verdict": "pass", "result": map[string]any{}}}
		tests = append(tests, test)
	}
	forged["tests"] = tests

	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	writeFile(t, dir, "deep.json", `{"format":2,"processes":[],"x":`+deep+`}`)
	for _, tc := range []struct {
		name, file string
		code       int
		stderr     string
	}{
		{"format only", writeJSON(t, dir, "format.json", map[string]any{"format": 1}), exitUsage, "records no process"},
		{"deeply nested", filepath.Join(dir, "deep.json"), exitUsage, "nested deeper than"},
		{"vectors that pass anything", writeJSON(t, dir, "forged.json", withVectors(forged)), exitUsage, "pass whatever the server did: ping-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLIIn(t, dir, "judge", tc.file)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, want %d with %q on stderr\n%v", r.code, tc.code, tc.stderr, r)
			}
		})
	}

	t.Run("nothing recorded", func(t *testing.T) {
		empty := writeJSON(t, dir, "empty.json", map[string]any{"format": 2, "processes": []any{}})
		r := runCLIIn(t, dir, "judge", "--json", "empty-report.json", empty)
		if r.code == exitConformant || strings.Contains(r.stdout, "— CONFORMANT") {
			t.Errorf("a run that judged nothing is called conformant\n%v", r)
		}
	})

	t.Run("where the vectors came from", func(t *testing.T) {
		for _, tc := range []struct{ file, want string }{
			{filepath.Join(dir, "run.json"), "embedded in mcpconform"},
			{writeJSON(t, dir, "own.json", withVectors(vf)), "read from the evidence file"},
		} {
			out := filepath.Join(dir, "out-"+filepath.Base(tc.file))
			r := runCLIIn(t, dir, "judge", "--report-dir", out, tc.file)
			if r.code != exitNonconformant {
				t.Errorf("%s: exit %d, want %d (the recorded failure)\n%v", tc.file, r.code, exitNonconformant, r)
			}
			texts := map[string]string{"console": r.stdout}
			for _, name := range []string{"report.json", "report.md", "junit.xml", "report.html"} {
				b, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatal(err)
				}
				texts[name] = string(b)
			}
			for name, text := range texts {
				if !strings.Contains(text, tc.want) {
					t.Errorf("%s of %s does not say the vectors were %q", name, filepath.Base(tc.file), tc.want)
				}
			}
		}
	})
}
