package compat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/internal/testservers"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

var recordConsole = flag.Bool("record-console", false, "run the console servers again (default and --spec-version all) and rewrite testdata/console/*.report.json")

// consoleRuns are the real runs whose console is kept as a golden: a
// server on the TypeScript SDK with many warnings, and one on go-sdk that
// dies on malformed lines, each judged by default and under every version.
var consoleRuns = []struct {
	name, server, specVersion string
}{
	{"everything-default", "everything", ""},
	{"everything-all", "everything", "all"},
	{"gosdk-default", "gosdk", ""},
	{"gosdk-all", "gosdk", "all"},
}

// consoleMaxLines is the most a default console may print against a real
// server: two screens.
const consoleMaxLines = 80

// TestConsole renders the reports of real runs (recorded by
// -record-console) through the console writer and compares them with the
// goldens (rewritten by -update). Every console fits two screens, and
// names every check that failed, warned or could not be judged.
func TestConsole(t *testing.T) {
	for _, c := range consoleRuns {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join("testdata", "console", c.name+".report.json")
			if *recordConsole {
				recordRun(t, path, c.server, c.specVersion)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./internal/compat -run TestConsole -record-console records it)", err)
			}
			var rep reports.Report
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			for _, quiet := range []bool{false, true} {
				write, suffix := reports.WriteConsole, ".console"
				if quiet {
					write, suffix = reports.WriteQuiet, ".quiet"
				}
				var b bytes.Buffer
				if err := write(&b, &rep, reports.ConsoleOptions{}); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				if n := strings.Count(out, "\n"); n > consoleMaxLines {
					t.Errorf("%s: %d lines, want at most %d", suffix, n, consoleMaxLines)
				}
				for _, res := range rep.Results {
					if res.Verdict == reports.Fail || res.Verdict == reports.Warn || res.Verdict == reports.Error {
						if !strings.Contains(out, res.ID) {
							t.Errorf("%s: %s (%s in %s) is not named", suffix, res.ID, res.Verdict, res.ProtocolVersion)
						}
					}
				}
				goldenFile(t, filepath.Join("testdata", "console", c.name+suffix+".golden"), out)
			}
		})
	}
}

// recordRun runs the command's own flow against a real server and keeps
// what the console reads of its report: the problems without the matchers
// and transcripts (but the stderr and exit lines of a transcript, which
// show why a server died), the other results by their names alone, and no
// absolute path of this machine.
func recordRun(t *testing.T, path, server, specVersion string) {
	t.Helper()
	rep, _, err := runner.Run(context.Background(), runner.Config{
		Command:     argv[server](t),
		SpecVersion: specVersion,
		// See runSuite: a start on a loaded machine is slow.
		StartTimeout: time.Minute,
		Tool:         "(recorded)",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Results {
		res := &rep.Results[i]
		res.Expected, res.Actual, res.DurationMs = nil, nil, 0
		if res.Verdict == reports.Pass || res.Verdict == reports.Skip || res.Verdict == reports.Info {
			// Counted, not shown.
			*res = reports.Result{ID: res.ID, Requirement: res.Requirement, Level: res.Level, Verdict: res.Verdict, ProtocolVersion: res.ProtocolVersion, Area: res.Area}
			continue
		}
		var kept []reports.TranscriptLine
		for _, l := range res.Transcript {
			if l.Dir == "stderr" || l.Dir == "note" && strings.HasPrefix(l.Text, "server ") {
				kept = append(kept, l)
			}
		}
		res.Transcript = kept
	}
	// One result a line: the file stays small and its diffs readable.
	results := rep.Results
	rep.Results = nil
	head, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(bytes.TrimSuffix(head, []byte("\n \"results\": null\n}")))
	b.WriteString("\n \"results\": [")
	for i, res := range results {
		line, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.Write(line)
	}
	b.WriteString("\n ]\n}\n")
	out := b.String()
	root, err := testservers.Dir()
	if err != nil {
		t.Fatal(err)
	}
	// The servers' paths, as a checkout names them.
	out = strings.ReplaceAll(out, filepath.Dir(filepath.Dir(root))+string(filepath.Separator), "")
	out = strings.ReplaceAll(out, filepath.Dir(rep.Target.Command[0])+string(filepath.Separator), "")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenFile compares got with the file at path, or rewrites it with
// -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/compat -run TestConsole -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
