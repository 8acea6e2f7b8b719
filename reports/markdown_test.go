package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestWriteMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md.golden", b.Bytes())
}

var fenceOpen = regexp.MustCompile("^(`{3,})([a-z]*)$")

// fencedBlocks parses the fenced code blocks of a Markdown document the way
// CommonMark does for backtick fences: a block opened by n backticks is
// closed only by a line of at least n backticks and nothing else. It fails
// the test if a block is left open.
func fencedBlocks(t *testing.T, md string) []string {
	t.Helper()
	var blocks []string
	var fence string
	var body []string
	for _, l := range strings.Split(md, "\n") {
		if fence == "" {
			if m := fenceOpen.FindStringSubmatch(l); m != nil {
				fence, body = m[1], nil
			}
			continue
		}
		if strings.HasPrefix(l, fence) && strings.Trim(l, "`") == "" {
			blocks = append(blocks, strings.Join(body, "\n"))
			fence = ""
			continue
		}
		body = append(body, l)
	}
	if fence != "" {
		t.Fatalf("a fenced block opened with %s is never closed", fence)
	}
	return blocks
}

func TestWriteMarkdownHostile(t *testing.T) {
	r := hostileReport()
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	blocks := fencedBlocks(t, md)

	// The failing check's message holds every hostile string; it must come
	// out whole, in one block, however many backticks it contains.
	want := sanitize(r.Results[0].Message, multiLine)
	found := false
	for _, blk := range blocks {
		if blk == want {
			found = true
		}
	}
	if !found {
		t.Errorf("the hostile message is not one intact fenced block; blocks:\n%q", blocks)
	}

	for i, c := range []byte(md) {
		if c < 0x20 && c != '\n' {
			t.Fatalf("control byte %#x at %d: %q", c, i, around(md, i))
		}
	}
	outside := md
	for _, blk := range blocks {
		outside = strings.Replace(outside, blk, "", 1)
	}
	outside = stripCodeSpans(outside)
	for _, bad := range []string{"<script", "<img", "javascript:", "](data:"} {
		if strings.Contains(outside, bad) {
			t.Errorf("outside code blocks the output contains %q", bad)
		}
	}
	for _, l := range strings.Split(outside, "\n") {
		if !strings.HasPrefix(l, "| ") {
			continue
		}
		// A row has as many unescaped pipes as the header: 3 or 7.
		n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(l, -1))
		if n != 3 && n != 7 {
			t.Errorf("table row with %d cell separators: %.120q", n, l)
		}
	}
}

func TestMarkdownEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a|b", `a\|b`},
		{"<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"},
		{"[x](javascript:y)", `\[x\](javascript:y)`},
		{"two\nlines", `two\\nlines`},
	} {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("mdText(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := mdCell("a\nb|c"), `a<br>b\|c`; got != want {
		t.Errorf("mdCell: got %q, want %q", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"```", "```` ``` ````"},
	} {
		if got := mdCode(tc.in); got != tc.want {
			t.Errorf("mdCode(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// stripCodeSpans removes CommonMark code spans: a run of n backticks up to
// the next run of exactly n backticks on the same line.
func stripCodeSpans(md string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		var out strings.Builder
		for {
			start := strings.IndexByte(l, '`')
			if start < 0 {
				break
			}
			n := start
			for n < len(l) && l[n] == '`' {
				n++
			}
			run := n - start
			end := -1
			for j := n; j < len(l); {
				if l[j] != '`' {
					j++
					continue
				}
				k := j
				for k < len(l) && l[k] == '`' {
					k++
				}
				if k-j == run {
					end = k
					break
				}
				j = k
			}
			if end < 0 {
				out.WriteString(l[:n])
				l = l[n:]
				continue
			}
			out.WriteString(l[:start])
			l = l[end:]
		}
		out.WriteString(l)
		lines[i] = out.String()
	}
	return strings.Join(lines, "\n")
}

// TestMarkdownLinksAndMentionsNothing: server text that GitHub would turn
// into a link or a mention (a URL, www., @name, an address) reaches
// report.md only inside code, where it stays text.
func TestMarkdownLinksAndMentionsNothing(t *testing.T) {
	hostile := "see https://evil.example/x and www.evil.example, ask @octocat or @org/team, mail a@evil.example"
	r := &Report{
		Tool:   Tool{Name: "mcpconform", Version: "0.1.0"},
		Target: Target{Command: []string{"./server"}, ServerInfo: json.RawMessage(`{"name":"` + hostile + `","version":"1"}`)},
		Results: []Result{
			{ID: "x", Requirement: "X-01", Level: "MUST", Verdict: Fail, Message: hostile, Area: "general"},
			{ID: "y", Requirement: "X-02", Level: "SHOULD", Verdict: Warn, Message: "in a cell | " + hostile, Area: "general"},
		},
	}
	r.Count()
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "`@octocat`") || !strings.Contains(md, "`https://evil.example/x`") {
		t.Errorf("the server's words are not shown as code:\n%s", md)
	}
	prose := regexp.MustCompile("`[^`]*`").ReplaceAllString(md, "")
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`https?://`), regexp.MustCompile(`www\.`), regexp.MustCompile(`(^|[^\\])@[A-Za-z0-9]`),
	} {
		if loc := bad.FindStringIndex(prose); loc != nil {
			t.Errorf("report.md links or mentions outside code: %q", prose[max(0, loc[0]-40):min(len(prose), loc[1]+40)])
		}
	}
}

// TestMarkdownStaysUnderStepSummaryLimit: a report of many failures with
// large values stays under 1 MiB (GitHub refuses a bigger step summary)
// and says what it left out; a small report is left whole.
func TestMarkdownStaysUnderStepSummaryLimit(t *testing.T) {
	big := &Report{}
	for i := range 3000 {
		big.Results = append(big.Results, Result{ID: fmt.Sprintf("p%d", i), Verdict: Pass, Message: strings.Repeat("p", 300)})
		if i < 400 {
			big.Results = append(big.Results, Result{ID: fmt.Sprintf("c%d", i), Verdict: Fail, Message: "m", Got: strings.Repeat("g", 60<<10)})
		}
	}
	var out bytes.Buffer
	if err := WriteMarkdown(&out, big); err != nil {
		t.Fatal(err)
	}
	if out.Len() > MarkdownMaxBytes {
		t.Errorf("report.md is %d bytes, over %d", out.Len(), MarkdownMaxBytes)
	}
	for _, want := range []string{"**Cut:**", "`c399`", "more results are left out"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report.md does not hold %q", want)
		}
	}
	small := &Report{Results: []Result{{ID: "c", Verdict: Fail, Message: "m", Got: "g"}}}
	out.Reset()
	if err := WriteMarkdown(&out, small); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Cut") || strings.Contains(out.String(), "left out") {
		t.Errorf("a small report.md says something was cut:\n%s", out.String())
	}
}
