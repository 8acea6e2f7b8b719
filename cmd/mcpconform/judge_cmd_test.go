package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestJudgeHelpAndReport: help judge is the judge usage (exit 0), and a
// report given to judge in place of evidence is named for what it is.
func TestJudgeHelpAndReport(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "help", "judge")
	if r.code != exitConformant || !strings.Contains(r.stdout, "usage: mcpconform judge") || !strings.Contains(r.stdout, "--redact-env") {
		t.Errorf("help judge: got %v", r)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(`{"schemaVersion":2,"tool":{"name":"mcpconform"},"summary":{"verdict":"conformant"},"results":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLIIn(t, dir, "judge", "report.json")
	if want := "mcpconform judge: report.json is a report, not an evidence file (write evidence with --evidence)\n"; r.code != exitUsage || r.stderr != want {
		t.Errorf("judge of a report: got %v; want exit 2 and %q", r, want)
	}
}

// TestRedactEnv: --redact-env takes the value of a variable out of the
// evidence, every report and the console, wherever the server wrote it
// (here on stderr, which the reports quote), and judge does the same with
// evidence recorded without it.
func TestRedactEnv(t *testing.T) {
	t.Parallel()
	const secret = "sk-test-0123456789abcdef"
	dir := t.TempDir()
	server := []string{"sh", "-c", `echo "starting with token $MCPCONFORM_TEST_SECRET" >&2; exec "$0" mock`, cliBinary(t)}
	flags := []string{"--env", "MCPCONFORM_TEST_SECRET=" + secret, "--only", "area:ping", "--report-dir", "out", "--json", "r.json"}
	r := runCLIIn(t, dir, append(append(flags, "--redact-env", "MCPCONFORM_TEST_SECRET", "--evidence", "run.json", "-v", "--"), server...)...)
	if r.code != exitConformant {
		t.Fatalf("got %v", r)
	}
	leaks := func(what string) {
		t.Helper()
		for _, name := range []string{"run.json", "r.json", "out/report.json", "out/report.md", "out/report.html", "out/junit.xml"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), secret) {
				t.Errorf("%s: %s holds the secret", what, name)
			}
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s: the console shows the secret", what)
		}
	}
	leaks("--redact-env")
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "starting with token [redacted:MCPCONFORM_TEST_SECRET]") {
		t.Errorf("the report does not show the stderr line redacted:\n%s", tail(string(data), 2000))
	}
	judged := runCLIIn(t, dir, "judge", "--json", "judged.json", "run.json")
	if judged.code != exitConformant {
		t.Errorf("judging the redacted evidence: %v", judged)
	}

	// Recorded without it, the secret is in the evidence; judge takes it
	// out of the reports.
	r = runCLIIn(t, dir, append(append(flags, "--evidence", "run.json", "--"), server...)...)
	if data, _ := os.ReadFile(filepath.Join(dir, "run.json")); !strings.Contains(string(data), secret) {
		t.Fatal("without --redact-env the evidence should hold the secret the server wrote")
	}
	r = runCLIIn(t, dir, "judge", "--env", "MCPCONFORM_TEST_SECRET="+secret, "--redact-env", "MCPCONFORM_TEST_SECRET", "--report-dir", "out", "--json", "r.json", "-v", "run.json")
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	leaks("judge --redact-env")
}
