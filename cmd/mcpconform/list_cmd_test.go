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
	if code := runList(nil, &out, &errOut); code != exitConformant || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	text := out.String()
	for _, r := range catalog.All() {
		if want := strings.ReplaceAll(r.Summary, "`", ""); !strings.Contains(text, "\n"+strings.Repeat(" ", len("REQUIREMENT  "))+want+"\n") {
			t.Errorf("%s: summary %q is not under its row", r.ID, want)
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
	if code := runList([]string{"--checks"}, &out, &errOut); code != exitConformant || !strings.Contains(out.String(), "Levels (") {
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
		runList(args, &out, &errOut)
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

// TestListClientChecks: `mcpconform list --client` shows every check of
// client mode with its requirement and spec link, and the requirement
// listing counts them as testing their requirements.
func TestListClientChecks(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList([]string{"--client"}, &out, &errOut); code != exitConformant || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, c := range checks.ClientChecks() {
		r, _ := catalog.Get(c.Requirement)
		vs := r.VersionList()
		url := catalog.URL(vs[len(vs)-1], r.Versions[vs[len(vs)-1]])
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.ID) + ` +` + regexp.QuoteMeta(c.Requirement) + ` .*` + regexp.QuoteMeta(url) + `$`).MatchString(out.String()) {
			t.Errorf("list --client has no row for %s with %s and %s", c.ID, c.Requirement, url)
		}
	}
	out.Reset()
	runList(nil, &out, &errOut)
	if !regexp.MustCompile(`(?m)^LIFE-07 .*client-initialized-sent`).MatchString(out.String()) {
		t.Errorf("list does not name client-initialized-sent as testing LIFE-07")
	}
}
