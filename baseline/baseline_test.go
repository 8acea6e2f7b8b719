package baseline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/reports"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // substrings of the error
	}{
		{"syntax", "entries:\n  - id: a\n    reason: [x\n", []string{"b.yaml", "line 3"}},
		{"unknown field", "entries:\n  - id: a\n    reason: r\n  - id: b\n    reasn: r\n", []string{"b.yaml", "entry 2", `unknown field "reasn"`}},
		{"unknown top-level field", "entrys: []\n", []string{"b.yaml", `unknown field "entrys"`}},
		{"missing reason", "entries:\n  - id: a\n", []string{"b.yaml", "entry 1", "(a)", "reason is required"}},
		{"blank reason", "entries:\n  - group: stdio\n    reason: '  '\n", []string{"entry 1", "(group:stdio)", "reason"}},
		{"neither id nor group", "entries:\n  - reason: r\n", []string{"entry 1", "give an id or a group"}},
		{"both", "entries:\n  - {id: a, group: stdio, reason: r}\n", []string{"entry 1", "not both"}},
		{"wrong type", "entries:\n  - {id: 7, reason: r}\n", []string{"entry 1", "id", "want string"}},
		{"not an object", "- id: a\n", []string{"b.yaml", "want an object"}},
		{"duplicate", "entries:\n  - {id: a, reason: r}\n  - {id: a, reason: s}\n", []string{"entry 2", "the same as entry 1"}},
		{"json in a .yaml file", "{\"entries\": [\n  {\"id\": \"a\" \"reason\": \"r\"}]}", []string{"b.yaml", "yaml: line "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("b.yaml", []byte(tc.doc))
			if err == nil {
				t.Fatal("got no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestParseJSONSyntax: a JSON baseline's syntax errors are JSON's, with
// line and column, whatever the file is called (unless it says YAML).
func TestParseJSONSyntax(t *testing.T) {
	for _, tc := range []struct {
		name, file, doc string
		want            []string
	}{
		{"missing comma", "b.json", "{\"entries\": [\n  {\"id\": \"a\" \"reason\": \"r\"}]}", []string{"b.json: JSON syntax error at line 2, column 14", "invalid character"}},
		{"trailing comma", "b.json", "{\"entries\": [\n  {\"id\": \"a\", \"reason\": \"r\"},\n]}", []string{"JSON syntax error at line 3, column 1"}},
		{"cut short", "baseline", "{\"entries\": [\n  {\"id\": \"a\"", []string{"baseline: JSON syntax error at line 2", "unexpected end"}},
		{"after a BOM", "b.json", "\uFEFF{\"entries\": [}", []string{"JSON syntax error at line 1, column 14"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.doc))
			if err == nil {
				t.Fatal("got no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "yaml") {
				t.Errorf("a JSON error in YAML's words: %q", err)
			}
		})
	}
	// Content errors of JSON still name the entry.
	_, err := Parse("b.json", []byte(`{"entries": [{"id": "a", "reason": "r"}, {"id": "b", "reasn": "r"}]}`))
	if err == nil || !strings.Contains(err.Error(), `b.json: entry 2: unknown field "reasn"`) {
		t.Errorf("got %v", err)
	}
}

func TestParseJSONAndYAML(t *testing.T) {
	want := []Entry{{ID: "a", Reason: "r"}, {Group: "stdio", Reason: "s", ProtocolVersion: "2024-11-05"}}
	for _, doc := range []string{
		"entries:\n  - id: a\n    reason: r\n  - group: stdio\n    reason: s\n    protocolVersion: 2024-11-05\n",
		`{"entries": [{"id": "a", "reason": "r"}, {"group": "stdio", "reason": "s", "protocolVersion": "2024-11-05"}]}`,
	} {
		b, err := Parse("b", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, b.Entries); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
	}
	if b, err := Parse("b.json", []byte("\uFEFF"+`{"entries": [{"id": "a", "reason": "r"}]}`)); err != nil || len(b.Entries) != 1 {
		t.Errorf("JSON after a byte order mark: got %v, %v", b, err)
	}
	b, err := Parse("empty", nil)
	if err != nil || len(b.Entries) != 0 {
		t.Errorf("empty baseline: got %v, %v; want no entries and no error", b, err)
	}
}

func TestCheckNames(t *testing.T) {
	b, err := Parse("b.yaml", []byte("entries:\n  - {id: known, reason: r}\n  - {group: stdoi, reason: r}\n"))
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]bool{"2024-11-05": true, "2025-11-25": true}
	err = b.CheckNames(map[string]bool{"known": true}, map[string]bool{"stdio": true, "jsonrpc": true}, versions)
	if err == nil || !strings.Contains(err.Error(), `b.yaml: entry 2 (group:stdoi): no area is called "stdoi" (want one of jsonrpc, stdio)`) {
		t.Errorf("got %v", err)
	}
	err = b.CheckNames(map[string]bool{}, map[string]bool{"stdoi": true}, versions)
	if err == nil || !strings.Contains(err.Error(), `entry 1: no check has the id "known"`) {
		t.Errorf("got %v", err)
	}
	b, err = Parse("b.yaml", []byte("entries:\n  - {id: known, reason: r, protocolVersion: 2024-11-05}\n  - {id: known, reason: r, protocolVersion: 2025-13-01}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = b.CheckNames(map[string]bool{"known": true}, nil, versions)
	if err == nil || !strings.Contains(err.Error(), `b.yaml: entry 2 (known@2025-13-01): unknown protocolVersion "2025-13-01" (want one of 2024-11-05, 2025-11-25)`) {
		t.Errorf("got %v", err)
	}
}

func res(id, area, version string, v reports.Verdict) reports.Result {
	return reports.Result{ID: id, Area: area, ProtocolVersion: version, Verdict: v, Message: "m"}
}

func TestApply(t *testing.T) {
	b := &Baseline{Entries: []Entry{
		{ID: "fails", Reason: "known"},
		{ID: "passes", Reason: "fixed since"},
		{ID: "skipped", Reason: "no evidence"},
		{ID: "errored", Reason: "no evidence"},
		{ID: "not-run", Reason: "filtered out"},
		{ID: "mixed", Reason: "fails in one version"},
		{Group: "stdio", Reason: "area"},
		{ID: "versioned", ProtocolVersion: "2024-11-05", Reason: "old only"},
		{ID: "warns", Reason: "a SHOULD we break"},
		{ID: "info", Reason: "was a warning"},
	}}
	results := []reports.Result{
		res("fails", "x", "2025-11-25", reports.Fail),
		res("passes", "x", "2025-11-25", reports.Pass),
		res("skipped", "x", "2025-11-25", reports.Skip),
		res("errored", "x", "2025-11-25", reports.Error),
		res("mixed", "x", "2025-11-25", reports.Pass),
		res("mixed", "x", "2024-11-05", reports.Fail),
		res("banner", "stdio", "2025-11-25", reports.Fail),
		res("utf8", "stdio", "2025-11-25", reports.Pass),
		res("versioned", "x", "2025-11-25", reports.Pass),
		res("versioned", "x", "2024-11-05", reports.Pass),
		res("warns", "x", "2025-11-25", reports.Warn),
		res("info", "x", "2025-11-25", reports.Info),
	}
	stale := b.Apply(results)
	if diff := cmp.Diff([]string{"info", "passes", "versioned@2024-11-05"}, stale); diff != "" {
		t.Errorf("stale (-want +got):\n%s", diff)
	}
	var got []string
	for _, r := range results {
		got = append(got, r.ID+"@"+r.ProtocolVersion+"="+string(r.Verdict))
	}
	want := []string{
		"fails@2025-11-25=xfail", "passes@2025-11-25=pass", "skipped@2025-11-25=skip", "errored@2025-11-25=error",
		"mixed@2025-11-25=pass", "mixed@2024-11-05=xfail", "banner@2025-11-25=xfail", "utf8@2025-11-25=pass",
		"versioned@2025-11-25=pass", "versioned@2024-11-05=pass", "warns@2025-11-25=xfail", "info@2025-11-25=info",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if m := results[0].Message; m != "known failure (known): m" {
		t.Errorf("xfail message: got %q", m)
	}
	if m := results[10].Message; m != "known warning (a SHOULD we break): m" {
		t.Errorf("accepted warning's message: got %q", m)
	}
}

func TestFromResultsKeepsEarlierEntries(t *testing.T) {
	prev := &Baseline{Entries: []Entry{{Group: "stdio", Reason: "logs to stdout"}, {ID: "gone", Reason: "fixed"}}}
	results := []reports.Result{
		res("a", "x", "v", reports.Fail),
		res("a", "x", "w", reports.Fail),
		res("b", "x", "v", reports.Pass),
		res("banner", "stdio", "v", reports.XFail),
		res("nul", "stdio", "v", reports.Fail),
	}
	got := FromResults(results, "new", false, prev).Entries
	want := []Entry{{ID: "a", Reason: "new"}, {Group: "stdio", Reason: "logs to stdout"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestFromResultsWarnings: with warnings (--strict) warnings are listed
// too; the first previous baseline that covers a result gives its entry.
func TestFromResultsWarnings(t *testing.T) {
	results := []reports.Result{
		res("fails", "x", "v", reports.Fail),
		res("warns", "x", "v", reports.Warn),
		res("old-warning", "x", "v", reports.XFail),
		res("passes", "x", "v", reports.Pass),
	}
	if got := FromResults(results, "new", false).Entries; len(got) != 2 {
		t.Errorf("without warnings: got %v, want fails and old-warning", got)
	}
	older := &Baseline{Entries: []Entry{{ID: "fails", Reason: "from --baseline"}}}
	onDisk := &Baseline{Entries: []Entry{{ID: "fails", Reason: "from the file"}, {ID: "warns", Reason: "written there"}, {ID: "passes", Reason: "gone"}}}
	got := FromResults(results, "new", true, nil, older, onDisk).Entries
	want := []Entry{{ID: "fails", Reason: "from --baseline"}, {ID: "warns", Reason: "written there"}, {ID: "old-warning", Reason: "new"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	dir := t.TempDir()
	b := &Baseline{Entries: []Entry{{ID: "a", Reason: "r: with a colon"}, {Group: "stdio", Reason: "s", ProtocolVersion: "2025-03-26"}}}
	for _, name := range []string{"b.yaml", "b.yml", "b.json"} {
		path := filepath.Join(dir, name)
		if err := b.Write(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(b.Entries, got.Entries); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := (&Baseline{}).Write(empty); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(empty)
	if !strings.Contains(string(data), "entries: []") {
		t.Errorf("empty baseline written as %q", data)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: got %v", err)
	}
}

// A Writer keeps the entries, and reasons, of the previous baseline first,
// then of the file it replaces; a new failure gets the reason of the mode.
func TestWriterKeepsReasons(t *testing.T) {
	dir := t.TempDir()
	prev, out := filepath.Join(dir, "prev.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(prev, []byte("entries:\n  - id: a\n    reason: from prev\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("entries:\n  - id: a\n    reason: from the file\n  - id: b\n    reason: kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(out, prev)
	if err != nil {
		t.Fatal(err)
	}
	results := []reports.Result{{ID: "a", Verdict: reports.Fail}, {ID: "b", Verdict: reports.XFail}, {ID: "c", Verdict: reports.Warn}, {ID: "d", Verdict: reports.Pass}}
	if _, err := w.Write(results, true); err != nil {
		t.Fatal(err)
	}
	got, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{ID: "a", Reason: "from prev"}, {ID: "b", Reason: "kept"}, {ID: "c", Reason: "known failure or warning, recorded by mcpconform baseline --strict"}}
	if diff := cmp.Diff(want, got.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	b, err := w.Write(results, false)
	if err != nil || len(b.Entries) != 2 {
		t.Errorf("without strict: got %v, %+v; want a and b, not the warning", err, b)
	}

	if err := os.WriteFile(out, []byte("not: a baseline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWriter(out, ""); err == nil || !strings.HasSuffix(err.Error(), "(the reasons of --write's existing file are kept: fix or remove it)") {
		t.Errorf("a file that is no baseline: got %v", err)
	}
	if _, err := NewWriter(filepath.Join(dir, "new.yaml"), filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("a missing previous baseline is not refused")
	}
}
