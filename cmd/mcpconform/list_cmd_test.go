package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
)

// TestListShowsSummariesAndLevels: `mcpconform list` prints what each
// requirement says under its row and ends with a legend of the levels; the
// README explains the same levels.
func TestListShowsSummariesAndLevels(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList(nil, nil, &out, &errOut); code != exitConformant || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	text := out.String()
	lead := strings.Repeat(" ", len("REQUIREMENT  "))
	for _, r := range catalog.All() {
		// The lines under its row, joined: what it says, then what
		// tests it.
		i := strings.Index(text, "\n"+r.ID+" ")
		if i < 0 {
			t.Errorf("%s: no row", r.ID)
			continue
		}
		var under []string
		for _, l := range strings.Split(text[i+1:], "\n")[1:] {
			if !strings.HasPrefix(l, lead) {
				break
			}
			under = append(under, strings.TrimPrefix(l, lead))
		}
		if want := strings.ReplaceAll(r.Summary, "`", ""); !strings.HasPrefix(strings.Join(under, " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("%s: summary %q is not under its row: %q", r.ID, want, under)
			break
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"MUST", "SHOULD", "MAY", "schema", "derived", "unspecified", "schema-should"} {
		if !regexp.MustCompile(`(?m)^  [^\n]*` + regexp.QuoteMeta(level)).MatchString(text[strings.Index(text, "Levels ("):]) {
			t.Errorf("the legend of mcpconform list does not explain %s", level)
		}
		if !regexp.MustCompile("(?m)^\\| `?" + regexp.QuoteMeta(level)).Match(readme) {
			t.Errorf("the README's table of levels does not explain %s", level)
		}
	}
	out.Reset()
	if code := runList([]string{"--checks"}, nil, &out, &errOut); code != exitConformant || !strings.Contains(out.String(), "Levels (") {
		t.Errorf("list --checks: exit %d, no legend", code)
	}
}

// TestNoUnshippedCitations: the requirement and check listings and the
// help never cite a document the repository does not hold (section signs,
// ids of notes kept elsewhere).
func TestNoUnshippedCitations(t *testing.T) {
	unshipped := regexp.MustCompile(`§|\b[AE]-\d+\b|DESIGN|requirements\.md`)
	for _, args := range [][]string{nil, {"--checks"}, {"--client"}} {
		var out, errOut bytes.Buffer
		runList(args, nil, &out, &errOut)
		if m := unshipped.FindString(out.String()); m != "" {
			i := strings.Index(out.String(), m)
			t.Errorf("list %v cites %q: …%s…", args, m, out.String()[max(0, i-80):min(out.Len(), i+40)])
		}
	}
	var help bytes.Buffer
	usage(&help)
	mockUsage(&help)
	listUsage(&help)
	baselineUsage(&help)
	if m := unshipped.FindString(help.String()); m != "" {
		t.Errorf("the help cites %q", m)
	}
}

// TestListWraps: the listings wrap within the width they are given (the
// terminal's; 100 columns into a pipe), a link alone on its line aside.
func TestListWraps(t *testing.T) {
	for _, args := range [][]string{nil, {"--checks"}, {"--client"}} {
		var out, errOut bytes.Buffer
		if code := runList(args, nil, &out, &errOut); code != exitConformant {
			t.Fatalf("list %v: exit %d", args, code)
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if n := len([]rune(l)); n > 100 && !strings.HasPrefix(strings.TrimSpace(l), "https://") {
				t.Errorf("list %v: a line of %d columns: %q", args, n, l)
			}
		}
	}
}

// TestListClientChecks: `mcpconform list --client` shows every check of
// client mode with its requirement, and its spec link on the line below,
// and the requirement listing counts them as testing their requirements.
func TestListClientChecks(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList([]string{"--client"}, nil, &out, &errOut); code != exitConformant || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, c := range checks.ClientChecks() {
		r, _ := catalog.Get(c.Requirement)
		vs := r.VersionList()
		url := catalog.URL(vs[len(vs)-1], r.Versions[vs[len(vs)-1]])
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.ID) + ` +` + regexp.QuoteMeta(c.Requirement) + ` .*\n +` + regexp.QuoteMeta(url) + `$`).MatchString(out.String()) {
			t.Errorf("list --client has no row for %s with %s and %s", c.ID, c.Requirement, url)
		}
	}
	out.Reset()
	runList(nil, nil, &out, &errOut)
	if !regexp.MustCompile(`(?m)^LIFE-07 (.*\n {13}.*)*client-initialized-sent`).MatchString(out.String()) {
		t.Errorf("list does not name client-initialized-sent as testing LIFE-07")
	}
}
