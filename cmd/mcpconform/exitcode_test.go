package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes pins the exit codes (a contract, in the README and in
// mcpconform --help): 0 conformant,
// 1 not conformant, 2 usage or configuration error, 3 the target could not
// be started or never completed initialize. TestStrictReport covers
// warnings with and without --strict, TestBaselineRoundTrip baselines.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		code int
		// oneLine: stderr must be exactly one line containing this.
		oneLine string
		// firstLine: stderr's first line must contain this; the lines
		// after it give the server's stderr and a hint.
		firstLine string
	}{
		{"reference server", func(*testing.T) []string { return nil }, exitConformant, "", ""},
		{"MUST fault", func(t *testing.T) []string { return against(t, nil, "ping-not-empty") }, exitNonconformant, "", ""},
		{"--strict without warnings", func(t *testing.T) []string { return against(t, []string{"--strict"}) }, exitConformant, "", ""},
		{"unknown flag", func(*testing.T) []string { return []string{"--no-such-flag"} }, exitUsage, "flag provided but not defined: -no-such-flag", ""},
		{"bad flag value", func(*testing.T) []string { return []string{"--timeout", "soon"} }, exitUsage, `invalid value "soon" for flag -timeout`, ""},
		{"unknown spec version", func(*testing.T) []string { return []string{"--spec-version", "1999-01-01"} }, exitUsage, `unknown --spec-version "1999-01-01"`, ""},
		{"unknown --only", func(*testing.T) []string { return []string{"--only", "no-such-check"} }, exitUsage, `--only "no-such-check" matches no check`, ""},
		{"bad glob", func(*testing.T) []string { return []string{"--skip", "res[ources"} }, exitUsage, "bad glob pattern", ""},
		{"report into a missing directory", func(*testing.T) []string { return []string{"--json", "no/such/dir/r.json"} }, exitUsage, "cannot write no/such/dir/r.json", ""},
		{"missing server binary", func(*testing.T) []string { return []string{"/nonexistent/server"} }, exitTarget, "", "the server did not start: the command could not be started: /nonexistent/server: no such file"},
		// Found and executable, but no program: the supervisor's exec
		// fails, and it reads as the harness's own failure would.
		{"server binary that cannot run", func(t *testing.T) []string {
			bad := filepath.Join(t.TempDir(), "bad")
			if err := os.WriteFile(bad, []byte("\x7fELFnot a program"), 0o755); err != nil {
				t.Fatal(err)
			}
			return []string{bad}
		}, exitTarget, "", "the server did not start: the command could not be started: fork/exec"},
		// Whether the server had read its input is a race it alone
		// decides: either wording is true.
		{"server exits before initialize", func(t *testing.T) []string { return against(t, nil, "crash-on-start") }, exitTarget, "",
			"the server did not start: it exited with status 3 before answering initialize" + orLine + "the server did not start: it read none of its input and exited with status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tc.args(t)...)
			if r.code != tc.code {
				t.Fatalf("got exit %d, want %d\n%v", r.code, tc.code, r)
			}
			if tc.oneLine != "" {
				lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], tc.oneLine) || !strings.HasPrefix(lines[0], "mcpconform: ") {
					t.Errorf("stderr: got %q, want one line starting with \"mcpconform: \" and containing %q", r.stderr, tc.oneLine)
				}
			}
			if first, _, _ := strings.Cut(r.stderr, "\n"); tc.firstLine != "" && (!strings.HasPrefix(first, "mcpconform: ") || !containsAny(first, strings.Split(tc.firstLine, orLine))) {
				t.Errorf("stderr: got %q, want a first line starting with \"mcpconform: \" and containing %q", r.stderr, tc.firstLine)
			}
			if tc.code == exitUsage && r.stdout != "" {
				t.Errorf("a usage error printed a report: %q", tail(r.stdout, 300))
			}
		})
	}
}

// TestTargetNeverStartedStillWritesReport: exit 3 still writes the reports
// asked for, with the overall verdict "error" and the reason.
func TestTargetNeverStartedStillWritesReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLIIn(t, dir, "--json", "r.json", "--report-dir", "out", "/nonexistent/server")
	if r.code != exitTarget {
		t.Fatalf("got exit %d, want 3\n%v", r.code, r)
	}
	for _, p := range []string{"r.json", "out/report.json", "out/junit.xml", "out/report.md", "out/report.html"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("report not written: %v", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	validateReport(t, data)
	var rep struct {
		Summary struct{ Verdict string }
		Results []struct{ ID, Verdict, Message string }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verdict != "error" && rep.Summary.Verdict != "nonconformant" {
		t.Errorf("summary verdict: got %q, want error or nonconformant", rep.Summary.Verdict)
	}
	if !strings.Contains(string(data), "/nonexistent/server") {
		t.Error("the report does not name the command")
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := runCLI(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Exit codes: 0 conformant") || !strings.Contains(r.stdout, "-baseline FILE") {
			t.Errorf("%v: got %v", args, r)
		}
	}
	r := runCLI(t, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "mcpconform ") {
		t.Errorf("--version: got %v", r)
	}
}

// TestStrictReport: with --strict a warning fails the run, and every report
// says so, not only the exit code.
func TestStrictReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, strict := range []bool{false, true} {
		flags := []string{"--json", "r.json"}
		if strict {
			flags = append(flags, "--strict")
		}
		r := runCLIIn(t, dir, against(t, flags, "unknown-uri-internal")...)
		rep := readJSONReport(t, filepath.Join(dir, "r.json"))
		if rep.Summary.Warn == 0 || rep.Summary.Fail != 0 {
			t.Fatalf("want warnings and no failure, got %+v", rep.Summary)
		}
		wantCode, wantVerdict := exitConformant, "conformant"
		if strict {
			wantCode, wantVerdict = exitNonconformant, "nonconformant"
		}
		if r.code != wantCode || rep.Summary.Verdict != wantVerdict {
			t.Errorf("strict=%v: got exit %d and verdict %q, want %d and %q", strict, r.code, rep.Summary.Verdict, wantCode, wantVerdict)
		}
		if strict && !strings.Contains(r.stderr, "--strict: ") {
			t.Errorf("stderr does not say why the run failed: %q", r.stderr)
		}
		if strict && !strings.Contains(r.stdout, "NONCONFORMANT") {
			t.Errorf("the console summary does not say NONCONFORMANT:\n%s", tail(r.stdout, 300))
		}
	}
}

// orLine separates the texts of which a first line must hold one.
const orLine = "\x00"

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestStartFailureFirstAndShort: a server that exits at once says why
// first (stderr's first line), and the whole output stays within 20
// lines: the block, the checks it failed on the way, the summary. The
// hint about the environment comes only when its stderr names a
// variable, and the failures it made on the way make the report
// nonconformant, not an error (exit 3 all the same).
func TestStartFailureFirstAndShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script, hint string
	}{
		{"names a variable", `echo "fatal: API_KEY is not set" >&2; exit 1`, "hint: its stderr names API_KEY, which is not set here either"},
		{"says nothing", `exit 1`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runCLIIn(t, dir, "--json", "r.json", "--", "sh", "-c", tc.script)
			if r.code != exitTarget {
				t.Fatalf("got %v, want exit 3", r)
			}
			if first, _, _ := strings.Cut(r.stderr, "\n"); !strings.HasPrefix(first, "mcpconform: the server did not start: it ") {
				t.Errorf("stderr does not start with the start failure: %q", r.stderr)
			}
			if n := strings.Count(r.stdout+r.stderr, "\n"); n > 20 {
				t.Errorf("%d lines, want at most 20:\n%s%s", n, r.stderr, r.stdout)
			}
			hinted := strings.Contains(r.stderr, "hint:")
			if tc.hint == "" && hinted || tc.hint != "" && !strings.Contains(r.stderr, tc.hint) {
				t.Errorf("stderr %q; want hint %q", r.stderr, tc.hint)
			}
			if strings.Contains(r.stdout, "Sent:") || strings.Contains(r.stdout, "sent {") {
				t.Errorf("the console details checks that could not run:\n%s", r.stdout)
			}
			rep := readJSONReport(t, filepath.Join(dir, "r.json"))
			if rep.Summary.Fail > 0 && (rep.Summary.Verdict != "nonconformant" || !strings.Contains(r.stdout, "— NONCONFORMANT")) {
				t.Errorf("%d failures, verdict %q: a failure is never hidden", rep.Summary.Fail, rep.Summary.Verdict)
			}
		})
	}
}
