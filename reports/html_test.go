package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

var htmlSample = flag.String("html-sample", "", "write the HTML report of the sample report to this file (for looking at the page)")

// TestWriteHTMLSample writes the sample page when asked to with -html-sample.
func TestWriteHTMLSample(t *testing.T) {
	if *htmlSample == "" {
		t.Skip("no -html-sample file given")
	}
	f, err := os.Create(*htmlSample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteHTML(f, sampleReport()); err != nil {
		t.Fatal(err)
	}
}

// htmlElement is one start tag seen by the tolerant tokenizer.
type htmlElement struct {
	Name  string
	Attrs []xml.Attr
}

// htmlElements tokenizes an HTML page with encoding/xml in its lenient
// HTML mode and returns every start tag. It is no HTML5 parser, but it does
// see every tag the browser would, which is what an injection would add.
func htmlElements(t *testing.T, page string) []htmlElement {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var out []htmlElement
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("tokenizing the page: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			out = append(out, htmlElement{strings.ToLower(se.Name.Local), se.Attr})
		}
	}
	return out
}

func writeHTML(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteHTMLHostile(t *testing.T) {
	page := writeHTML(t, hostileReport())

	// The hostile strings appear, but only escaped.
	for _, s := range []string{hostileScript, hostileImg, hostileBreakout} {
		if strings.Contains(page, s) {
			t.Errorf("page contains %q unescaped", s)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the escaped result name is missing")
	}

	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("page has %d <script tags, want 1 (our own)", n)
	}
	// Our script holds < and && that encoding/xml cannot take; its text is
	// checked by its CSP hash, so the tokenizer sees the page without it.
	start := strings.LastIndex(page, "<script>")
	end := strings.LastIndex(page, "</script>")
	if start < 0 || end < start {
		t.Fatal("no inline script at the end of the page")
	}
	markup := page[:start+len("<script>")] + page[end:]

	scripts := 0
	for _, el := range htmlElements(t, markup) {
		switch el.Name {
		case "script":
			scripts++
			if len(el.Attrs) != 0 {
				t.Errorf("script element with attributes %v", el.Attrs)
			}
		case "img", "iframe", "object", "embed", "link", "base", "form", "svg", "math":
			t.Errorf("injected <%s> element: %v", el.Name, el.Attrs)
		}
		for _, a := range el.Attrs {
			name := strings.ToLower(a.Name.Local)
			if strings.HasPrefix(name, "on") || name == "src" || name == "srcdoc" || name == "style" {
				t.Errorf("<%s> has attribute %s=%q", el.Name, name, a.Value)
			}
			if name == "href" && !strings.HasPrefix(a.Value, "#") && !isHTTPS(a.Value) {
				t.Errorf("<%s> links to %q", el.Name, a.Value)
			}
		}
	}
	if scripts != 1 {
		t.Errorf("got %d script elements, want 1 (our own)", scripts)
	}
	for i, c := range []byte(page) {
		if c < 0x20 && c != '\n' && c != '\t' {
			t.Fatalf("control byte %#x at %d", c, i)
		}
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	page := writeHTML(t, sampleReport())

	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no inline script")
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy meta tag")
	}
	policy := strings.ReplaceAll(csp[1], "&#39;", "'")
	for _, want := range []string{"default-src 'none'", "style-src 'unsafe-inline'", "img-src data:",
		"script-src '" + scriptHash(m[1]) + "'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}

	// Nothing is loaded from anywhere: the only URLs are the spec links.
	for _, bad := range []string{"src=", "url(", "@import", "//fonts.", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, u := range regexp.MustCompile(`https?://[^\s"<>]+`).FindAllString(page, -1) {
		if !strings.HasPrefix(u, "https://modelcontextprotocol.io/") {
			t.Errorf("page names URL %q", u)
		}
	}

	for _, want := range []string{`id="summary"`, `id="filters"`, `id="search"`, `data-verdict="fail"`, `class="diff"`,
		`<span class="del">`, `<span class="add">`, `class="transcript"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if n := strings.Count(page, `<details class="result"`); n != 9 {
		t.Errorf("got %d result rows, want 9", n)
	}
}

func TestLineDiff(t *testing.T) {
	got := lineDiff("a\nb\nc\nd", "a\nx\nc\nd\ne")
	var b strings.Builder
	for _, l := range got {
		b.WriteString(string(l.Op) + l.Text + "\n")
	}
	want := " a\n-b\n+x\n c\n d\n+e\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
