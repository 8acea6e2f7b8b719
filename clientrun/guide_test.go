package clientrun

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGuideTableListsEveryScenario keeps the table of what each
// scenario's mock offers, in docs/client-guide.md, in step with the
// catalogue.
func TestGuideTableListsEveryScenario(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "client-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	start := strings.Index(guide, "\n## Judging a client")
	if start < 0 {
		t.Fatal(`docs/client-guide.md has no section "## Judging a client"`)
	}
	section := guide[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var got []string
	name := regexp.MustCompile("`([a-z0-9_-]+)`")
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 && strings.HasPrefix(line, "| `") {
			for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
				got = append(got, m[1])
			}
		}
	}
	var want []string
	for _, sc := range Scenarios() {
		want = append(want, sc.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the guide's table names %q, the catalogue %q", got, want)
	}
}
