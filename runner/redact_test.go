package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

// The value of a variable RedactEnv names is in neither the report nor
// the evidence SaveEvidence writes, wherever the server wrote it (here on
// stderr, which the report quotes); without RedactEnv both keep it.
func TestRedactEnv(t *testing.T) {
	const secret = "sk-test-0123456789abcdef"
	dir := t.TempDir()
	for _, redactEnv := range [][]string{nil, {"RUNNER_TEST_SECRET"}} {
		cfg := runner.Config{
			Command: []string{"sh", "-c", `echo "starting with token $RUNNER_TEST_SECRET" >&2; exec "$0"`, os.Args[0]},
			Env:     []string{serveEnv + "=1", "RUNNER_TEST_SECRET=" + secret}, SpecVersion: "2025-11-25",
			Only: []string{"area:ping"}, RedactEnv: redactEnv,
		}
		path := filepath.Join(dir, "run.json")
		var r *runner.Runner
		cfg.Recorded = func(run *evidence.Run) {
			if err := r.SaveEvidence(run, path); err != nil {
				t.Error(err)
			}
		}
		var err error
		if r, err = runner.New(cfg); err != nil {
			t.Fatal(err)
		}
		rep, _, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := reports.WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		redacting := redactEnv != nil
		for name, text := range map[string]string{"report": b.String(), "evidence": string(saved)} {
			if strings.Contains(text, secret) == redacting {
				t.Errorf("RedactEnv %q: the %s holds the secret: %v", redactEnv, name, !redacting)
			}
		}
		if redacting && !strings.Contains(b.String(), "starting with token [redacted:RUNNER_TEST_SECRET]") {
			t.Errorf("the report does not show the stderr line redacted:\n%s", b.String())
		}
		if _, err := evidence.LoadFile(path); err != nil {
			t.Errorf("RedactEnv %q: the evidence saved cannot be read again: %v", redactEnv, err)
		}
	}
}

// Tell writes the notes, then why the server did not start, escaped.
func TestOutcomeTell(t *testing.T) {
	out := runner.Outcome{Status: runner.NotStarted, Notes: []string{"first", "second"}}
	var b bytes.Buffer
	out.Tell(&b, &reports.Report{DidNotStart: &reports.StartFailure{What: "exec ./x: no such file\x1b[2J"}})
	want := "mcpconform: first\nmcpconform: second\nmcpconform: the server did not start: exec ./x: no such file" + reports.Escape("\x1b") + "[2J\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	runner.Outcome{}.Tell(&b, &reports.Report{})
	if b.Len() != 0 {
		t.Errorf("nothing to tell: got %q", b.String())
	}
}
