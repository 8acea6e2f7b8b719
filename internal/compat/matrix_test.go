package compat_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/internal/compat"
	"github.com/mcpconform/mcpconform/reports"
)

// TestCompatDocUpToDate fails when docs/compat.md is not what gencompat
// renders from the golden files.
func TestCompatDocUpToDate(t *testing.T) {
	if *update {
		t.Skip("-update rewrites the golden files; run `go run ./internal/compat/gencompat` afterwards")
	}
	var want bytes.Buffer
	if err := compat.RenderDoc(&want, "testdata"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "compat.md"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), string(got)); diff != "" {
		t.Errorf("docs/compat.md is stale; run `go run ./internal/compat/gencompat` (-want +got):\n%s", diff)
	}
}

func TestRender(t *testing.T) {
	g := &compat.Golden{
		Server: "gosdk",
		Verdicts: map[string]reports.Verdict{
			"parse-error@2024-11-05":                reports.Fail,
			"parse-error@2025-11-25":                reports.Fail,
			"resources-read-unknown-uri@2024-11-05": reports.Warn,
			"resources-read-unknown-uri@2025-11-25": reports.Pass,
			"not-a-check-any-more@2025-11-25":       reports.Skip,
		},
		Reasons: map[string]string{
			"parse-error@2024-11-05":                "the server | stopped <answering>",
			"parse-error@2025-11-25":                "the server | stopped <answering>",
			"resources-read-unknown-uri@2024-11-05": "-32602 in an older session",
			"not-a-check-any-more@2025-11-25":       "gone",
		},
	}
	var buf bytes.Buffer
	if err := compat.Render(&buf, []*compat.Golden{g}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| ERR-01 | `parse-error` | **fail** |",
		"| `resources-read-unknown-uri` |",
		"warn 24-11; pass 25-11 |",
		"| fail | `parse-error` | ERR-01 | 24-11, 25-11 | the server \\| stopped &lt;answering&gt; |",
		"| ? | `not-a-check-any-more` | skip |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered matrix lacks %q:\n%s", want, out)
		}
	}
}

func TestKey(t *testing.T) {
	id, v := compat.SplitKey(compat.Key("parse-error", "2025-06-18"))
	if id != "parse-error" || v != "2025-06-18" {
		t.Errorf("SplitKey(Key) = %q, %q, want parse-error, 2025-06-18", id, v)
	}
}
