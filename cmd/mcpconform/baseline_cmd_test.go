package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/baseline"
)

// failingFault breaks MUST rules of the ping checks, so a run against it
// fails (exit 1) and a baseline has something to list.
const failingFault = "ping-not-empty"

// TestBaselineRoundTrip: write a baseline from a failing run, rerun with it
// (exit 0, the failures are xfail), then run it against a server that
// passes (exit 1, every entry is stale and named on stderr, on the console
// and in every report).
func TestBaselineRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	r := runCLIIn(t, dir, append([]string{"baseline", "--write", "b.yaml", "--"}, mockArgs(t, failingFault)...)...)
	if r.code != exitConformant || !strings.HasPrefix(r.stdout, "wrote ") {
		t.Fatalf("baseline --write: %v", r)
	}
	b, err := baseline.Load(filepath.Join(dir, "b.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range b.Entries {
		ids[e.ID] = true
		if e.Reason == "" {
			t.Errorf("entry %s has no reason", e.Key())
		}
	}
	if !ids["ping-empty-result"] {
		t.Fatalf("the baseline does not list ping-empty-result: %v", b.Entries)
	}

	// Without the baseline the run fails; with it, it passes with xfails.
	if r := runCLIIn(t, dir, against(t, nil, failingFault)...); r.code != exitNonconformant {
		t.Fatalf("without the baseline: got exit %d, want 1", r.code)
	}
	r = runCLIIn(t, dir, against(t, []string{"--baseline", "b.yaml", "--json", "xfail.json"}, failingFault)...)
	if r.code != exitConformant {
		t.Fatalf("with the baseline: got exit %d, want 0\n%v", r.code, r)
	}
	rep := readJSONReport(t, filepath.Join(dir, "xfail.json"))
	if rep.Summary.Fail != 0 || rep.Summary.XFail != len(b.Entries) || len(rep.Stale) != 0 {
		t.Errorf("with the baseline: got summary %+v and stale %v, want 0 fail, %d xfail, none stale", rep.Summary, rep.Stale, len(b.Entries))
	}
	for _, res := range rep.Results {
		if ids[res.ID] && res.Verdict != "xfail" {
			t.Errorf("%s: got verdict %s, want xfail", res.ID, res.Verdict)
		}
	}
	if !strings.Contains(r.stdout, "XFAIL") {
		t.Errorf("the console does not show the xfails:\n%s", tail(r.stdout, 1000))
	}

	// The server is fixed: every entry is stale, and that fails the run.
	r = runCLIIn(t, dir, against(t, []string{"--baseline", "b.yaml", "--report-dir", "stale"})...)
	if r.code != exitNonconformant {
		t.Fatalf("stale baseline: got exit %d, want 1\n%v", r.code, r)
	}
	if !strings.Contains(r.stderr, "stale baseline entries") || !strings.Contains(r.stderr, "ping-empty-result") {
		t.Errorf("stderr does not name the stale entry: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "stale baseline entries") || !strings.Contains(r.stdout, "  ping-empty-result\n") {
		t.Errorf("the console does not list the stale entry:\n%s", tail(r.stdout, 800))
	}
	out := filepath.Join(dir, "stale")
	checkReportDir(t, out)
	rep = readJSONReport(t, filepath.Join(out, "report.json"))
	if rep.Summary.Verdict != "nonconformant" || !slices.Contains(rep.Stale, "ping-empty-result") || len(rep.Stale) != len(b.Entries) {
		t.Errorf("report.json: got verdict %q and stale %v, want nonconformant and the %d entries", rep.Summary.Verdict, rep.Stale, len(b.Entries))
	}
	for _, f := range []string{"junit.xml", "report.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "ping-empty-result") || !strings.Contains(strings.ToLower(string(data)), "stale") {
			t.Errorf("%s does not show the stale entry", f)
		}
	}

	// Rewriting from a run with the old baseline keeps its entries; after
	// the fix the new baseline is empty.
	r = runCLIIn(t, dir, append([]string{"baseline", "--write", "b2.json", "--baseline", "b.yaml", "--"}, mockArgs(t, failingFault)...)...)
	if r.code != exitConformant {
		t.Fatalf("baseline --write with --baseline: %v", r)
	}
	b2, err := baseline.Load(filepath.Join(dir, "b2.json"))
	if err != nil || len(b2.Entries) != len(b.Entries) {
		t.Errorf("rewritten baseline: got %v, %v; want %d entries", b2, err, len(b.Entries))
	}
	r = runCLIIn(t, dir, append([]string{"baseline", "--write", "b3.yaml", "--"}, mockArgs(t)...)...)
	if r.code != exitConformant || !strings.HasPrefix(r.stdout, "wrote 0 entries") {
		t.Errorf("baseline of a conformant server: %v", r)
	}
}

// TestBaselineOnlyFiltersStale: an entry whose check --only leaves out is
// not stale (there is no evidence), one whose check is selected is.
func TestBaselineOnlyFiltersStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "b.yaml", "entries:\n  - id: ping-empty-result\n    reason: r\n  - group: stdio\n    reason: r\n")
	r := runCLIIn(t, dir, against(t, []string{"--baseline", "b.yaml", "--only", "area:ping"})...)
	if r.code != exitNonconformant || !strings.Contains(r.stderr, "ping-empty-result") || strings.Contains(r.stderr, "group:stdio") {
		t.Errorf("got %v, want exit 1 naming ping-empty-result only", r)
	}
	r = runCLIIn(t, dir, against(t, []string{"--baseline", "b.yaml", "--only", "area:stdio", "--quiet"}, "banner")...)
	if r.code != exitConformant || !strings.Contains(r.stdout, "1 xfail, 0 stale") {
		t.Errorf("got %v, want exit 0 with one xfail", r)
	}
}

// TestBaselineErrors: a baseline that cannot be read is a configuration
// error (exit 2) named by file and entry or line, found before anything runs.
func TestBaselineErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
		file      string // b.yaml when empty
	}{
		{"unknown field", "entries:\n  - id: ping-empty-result\n    reason: r\n    ticket: 12\n", []string{"b.yaml: entry 1", `unknown field "ticket"`}, ""},
		{"missing reason", "entries:\n  - id: ping-empty-result\n    reason: r\n  - id: ping-string-id\n", []string{"b.yaml: entry 2 (ping-string-id)", "reason is required"}, ""},
		{"yaml syntax", "entries:\n  - id: ping-empty-result\n    reason: [unclosed\n", []string{"b.yaml: yaml: line 3"}, ""},
		{"unknown check", "entries:\n  - id: ping-emtpy-result\n    reason: typo\n", []string{"b.yaml: entry 1", `no check has the id "ping-emtpy-result"`}, ""},
		{"unknown group", "entries:\n  - group: resource\n    reason: typo\n", []string{"b.yaml: entry 1", `no area is called "resource"`}, ""},
		{"missing file", "", []string{"reading baseline", "b.yaml"}, ""},
		{"unknown protocol version", "entries:\n  - id: ping-empty-result\n    reason: r\n  - id: ping-empty-result\n    reason: r\n    protocolVersion: 2025-13-01\n",
			[]string{"b.yaml: entry 2 (ping-empty-result@2025-13-01)", `unknown protocolVersion "2025-13-01"`, "2024-11-05"}, ""},
		{"json syntax", "{\"entries\": [\n  {\"id\": \"ping-empty-result\",\n   \"reason\": \"r\",}\n]}\n",
			[]string{"b.json: JSON syntax error at line 3, column 18", "invalid character '}'"}, "b.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := tc.file
			if file == "" {
				file = "b.yaml"
			}
			if tc.doc != "" {
				writeFile(t, dir, file, tc.doc)
			}
			// The server would fail; a configuration error must stop the
			// run before it starts.
			r := runCLIIn(t, dir, "--baseline", file, "/nonexistent/server")
			if r.code != exitUsage {
				t.Fatalf("got exit %d, want 2\n%v", r.code, r)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Errorf("stderr: got %d lines, want 1: %q", len(lines), r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not contain %q", r.stderr, w)
				}
			}
		})
	}
}

func TestBaselineCommandUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"baseline", "--", "/bin/true"}, "give --write FILE"},
		{[]string{"baseline", "--write", "b.yaml"}, "give the server command"},
		{[]string{"baseline", "--write"}, "flag needs an argument: -write"},
	} {
		r := runCLI(t, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: got %v, want exit 2 and %q", tc.args, r, tc.want)
		}
	}
	// A server argument that looks like --write belongs to the server.
	dir := t.TempDir()
	r := runCLIIn(t, dir, "baseline", "--write", "b.yaml", "--", "/nonexistent/server", "--write", "x")
	if r.code != exitTarget {
		t.Errorf("got %v, want exit 3", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.yaml")); err == nil {
		t.Error("a baseline was written although the server never started")
	}
}

type jsonReport struct {
	Summary struct {
		Pass, Fail, Warn, XFail int
		Verdict                 string
	}
	Stale  []string
	Target struct {
		Transport, URL string
	}
	Results []struct {
		ID, Requirement, Level, Verdict, Area, Message string
		Labels                                         []string
	}
}

func readJSONReport(t *testing.T, path string) jsonReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	validateReport(t, data)
	var rep jsonReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBaselineStrict: under --strict, baseline --write records warnings
// too; a run with that baseline accepts them (xfail, not stale) and
// passes; without it, a run that fails only on warnings writes JUnit with
// those warnings as failures, so the CI test tab agrees with the exit code.
func TestBaselineStrict(t *testing.T) {
	t.Parallel()
	const warningFault = "unknown-uri-internal" // breaks SHOULD rules only
	dir := t.TempDir()

	r := runCLIIn(t, dir, append([]string{"baseline", "--write", "plain.yaml", "--"}, mockArgs(t, warningFault)...)...)
	if r.code != exitConformant || !strings.HasPrefix(r.stdout, "wrote 0 entries") {
		t.Fatalf("baseline without --strict: got %v, want no entries", r)
	}
	r = runCLIIn(t, dir, append([]string{"baseline", "--write", "b.yaml", "--strict", "--"}, mockArgs(t, warningFault)...)...)
	if r.code != exitConformant || strings.HasPrefix(r.stdout, "wrote 0 ") {
		t.Fatalf("baseline --strict: got %v, want the warnings listed", r)
	}
	b, err := baseline.Load(filepath.Join(dir, "b.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// Without the baseline the strict run fails on warnings alone, and JUnit
	// says so.
	r = runCLIIn(t, dir, against(t, []string{"--strict", "--junit", "fail.xml", "--json", "fail.json"}, warningFault)...)
	if r.code != exitNonconformant {
		t.Fatalf("--strict without the baseline: got exit %d, want 1\n%v", r.code, r)
	}
	if rep := readJSONReport(t, filepath.Join(dir, "fail.json")); rep.Summary.Fail != 0 || rep.Summary.Warn == 0 {
		t.Fatalf("want warnings and no failure, got %+v", rep.Summary)
	}
	if n := junitFailures(t, filepath.Join(dir, "fail.xml")); n == 0 {
		t.Error("a --strict run that fails on warnings wrote JUnit without failures")
	}
	validateJUnit(t, filepath.Join(dir, "fail.xml"))

	// With it, the warnings are accepted.
	r = runCLIIn(t, dir, against(t, []string{"--strict", "--baseline", "b.yaml", "--junit", "ok.xml", "--json", "ok.json"}, warningFault)...)
	if r.code != exitConformant {
		t.Fatalf("--strict with the baseline: got exit %d, want 0\n%v", r.code, r)
	}
	rep := readJSONReport(t, filepath.Join(dir, "ok.json"))
	if rep.Summary.Warn != 0 || rep.Summary.XFail == 0 || len(rep.Stale) != 0 {
		t.Errorf("with the baseline: got %+v, stale %v; want the warnings as xfail, none stale", rep.Summary, rep.Stale)
	}
	if n := junitFailures(t, filepath.Join(dir, "ok.xml")); n != 0 {
		t.Errorf("accepted warnings are %d JUnit failures", n)
	}

	// Once the server is fixed, the entries are stale.
	r = runCLIIn(t, dir, against(t, []string{"--strict", "--baseline", "b.yaml", "--quiet"})...)
	if r.code != exitNonconformant || !strings.Contains(r.stdout, fmt.Sprintf("%d stale", len(b.Entries))) {
		t.Errorf("fixed server: got %v, want exit 1 and %d stale", r, len(b.Entries))
	}
}

// junitFailures returns the failures attribute of a JUnit document's root.
func junitFailures(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Failures
}

// TestBaselineWriteKeepsReasons: baseline --write onto an existing file
// keeps the reasons written there for the entries that remain, and drops
// the entries whose checks pass now.
func TestBaselineWriteKeepsReasons(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append([]string{"baseline", "--write", "b.yaml", "--"}, mockArgs(t, failingFault)...)
	if r := runCLIIn(t, dir, args...); r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	b, err := baseline.Load(filepath.Join(dir, "b.yaml"))
	if err != nil || len(b.Entries) == 0 {
		t.Fatalf("got %v, %v", b, err)
	}
	for i := range b.Entries {
		b.Entries[i].Reason = "our reason " + b.Entries[i].ID
	}
	b.Entries = append(b.Entries, baseline.Entry{ID: "resources-list-result-shape", Reason: "fixed since"})
	if err := b.Write(filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	if r := runCLIIn(t, dir, args...); r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	got, err := baseline.Load(filepath.Join(dir, "b.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != len(b.Entries)-1 {
		t.Errorf("got %d entries, want %d", len(got.Entries), len(b.Entries)-1)
	}
	for _, e := range got.Entries {
		if e.Reason != "our reason "+e.ID {
			t.Errorf("%s: reason %q was not kept", e.Key(), e.Reason)
		}
	}

	// A file that is not a baseline is neither read nor overwritten.
	writeFile(t, dir, "notes.yaml", "- a list\n")
	r := runCLIIn(t, dir, append([]string{"baseline", "--write", "notes.yaml", "--"}, mockArgs(t, failingFault)...)...)
	if r.code != exitUsage || !strings.Contains(r.stderr, "notes.yaml") {
		t.Errorf("got %v, want exit 2 naming notes.yaml", r)
	}
}
