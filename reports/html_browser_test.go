//go:build unix

package reports

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests open the HTML report in a real headless browser: Debian's
// chromium package. Without it they skip, except in CI (CI=true), which
// installs it.

func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found on PATH; CI must install Debian's chromium package")
	}
	t.Skip("chromium not found on PATH (Debian: apt-get install chromium); browser tests skipped")
	return ""
}

// dumpDOM loads url in headless chromium and returns the DOM after the
// page's script ran. The browser runs in its own process group, killed
// whole when the run ends or times out.
func dumpDOM(t *testing.T, chromium, url string) string {
	t.Helper()
	return dumpDOMAt(t, chromium, url, "")
}

// dumpDOMAt is dumpDOM in a window of size "WIDTH,HEIGHT" (chromium's
// default when "").
func dumpDOMAt(t *testing.T, chromium, url, size string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=2000",
		"--window-size="+cmp.Or(size, "800,600"), "--dump-dom", url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind, if any
	}
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", url, err, lastLines(stderr.String(), 20))
	}
	if stdout.Len() == 0 {
		t.Fatalf("chromium dumped no DOM\n%s", lastLines(stderr.String(), 20))
	}
	return stdout.String()
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// writeHTMLFile writes the HTML report of r to a temporary file and returns
// its file: URL.
func writeHTMLFile(t *testing.T, r *Report) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), HTMLFile)
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(path)
}

var resultTag = regexp.MustCompile(`<details class="result"[^>]*>`)

// rows returns the start tags of the result rows in a dumped DOM.
func rows(dom string) []string {
	return resultTag.FindAllString(dom, -1)
}

func TestHTMLInBrowserHostile(t *testing.T) {
	chromium := chromiumPath(t)
	r := hostileReport()
	dom := dumpDOM(t, chromium, writeHTMLFile(t, r))

	if !strings.Contains(dom, `data-ready="true"`) {
		t.Error("the page's script did not run to its end (no data-ready)")
	}
	if !strings.Contains(dom, `id="summary"`) {
		t.Error("no summary element")
	}
	if got := len(rows(dom)); got != len(r.Results) {
		t.Errorf("got %d result rows, want %d", got, len(r.Results))
	}
	if !strings.Contains(dom, "Showing all 7 results") {
		t.Error("the filter status was not written by the script")
	}
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(dom)
	if title == nil || !strings.HasPrefix(title[1], "mcpconform report") || title[1] == "pwned" {
		t.Errorf("title changed: %q", title)
	}
	if n := strings.Count(dom, "<script"); n != 1 {
		t.Errorf("got %d script elements in the DOM, want 1", n)
	}
	for _, bad := range []string{"<img", "<iframe", "<svg"} {
		if strings.Contains(dom, bad) {
			t.Errorf("the DOM contains %q", bad)
		}
	}
	if tags := activeTags(dom); len(tags) > 0 {
		t.Errorf("the DOM has elements with event handlers or sources: %q", tags)
	}
	if !strings.Contains(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile check id is not shown as text")
	}
}

func TestHTMLInBrowserFilterFromURL(t *testing.T) {
	chromium := chromiumPath(t)
	url := writeHTMLFile(t, sampleReport())
	for _, tc := range []struct {
		fragment string
		visible  func(tag string) bool
		want     int
	}{
		{"", func(string) bool { return true }, 9},
		{"#verdict=fail", func(tag string) bool { return strings.Contains(tag, `data-verdict="fail"`) }, 1},
		{"#verdict=warn,error&level=SHOULD", func(tag string) bool {
			return strings.Contains(tag, `data-verdict="warn"`) || strings.Contains(tag, `data-verdict="error"`)
		}, 2},
		{"#area=resources&q=baseline", func(tag string) bool { return strings.Contains(tag, `id="r3"`) }, 1},
		{"#version=2025-11-25", func(tag string) bool { return strings.Contains(tag, `data-version="2025-11-25"`) }, 3},
	} {
		t.Run(tc.fragment, func(t *testing.T) {
			dom := dumpDOM(t, chromium, url+tc.fragment)
			tags := rows(dom)
			if len(tags) != 9 {
				t.Fatalf("got %d result rows, want 9", len(tags))
			}
			shown := 0
			for _, tag := range tags {
				hidden := strings.Contains(tag, " hidden")
				if hidden == tc.visible(tag) {
					t.Errorf("row %s: hidden=%v", tag, hidden)
				}
				if !hidden {
					shown++
				}
			}
			if shown != tc.want {
				t.Errorf("%d rows shown, want %d", shown, tc.want)
			}
		})
	}
}

var (
	domTag  = regexp.MustCompile(`<[a-zA-Z][^\s>]*(?:\s+[^\s="<>/]+(?:="[^"]*")?)*\s*/?>`)
	domAttr = regexp.MustCompile(`\s([^\s="<>/]+)(?:="[^"]*")?`)
)

// activeTags returns the tags of a serialized DOM that carry an event
// handler (on...) or load something (src, srcdoc). The browser serializes
// every attribute value in double quotes, with " as &quot; and < and > as
// entities, so attribute names can be read off each tag.
func activeTags(dom string) []string {
	var out []string
	for _, tag := range domTag.FindAllString(dom, -1) {
		for _, m := range domAttr.FindAllStringSubmatch(tag, -1) {
			if name := strings.ToLower(m[1]); strings.HasPrefix(name, "on") || name == "src" || name == "srcdoc" {
				out = append(out, tag)
				break
			}
		}
	}
	return out
}

func TestActiveTags(t *testing.T) {
	dom := `<p class="x" title="a onerror=b">t &lt;img src=x onerror=y&gt;</p><input value="&lt;img onerror=1&gt;" checked="">` +
		`<img src="x" onerror="alert(1)"><div hidden="" onclick="f()"></div>`
	got := activeTags(dom)
	want := []string{`<img src="x" onerror="alert(1)">`, `<div hidden="" onclick="f()">`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// measureScript runs in the page after its own script, in a copy of the
// report whose policy allows it, and writes into #measure, as JSON, what a
// reader at that width would see: the rows shown, every cell of a row's
// heading that sits on another line than the others or is cut below its
// text's width (the message may be cut: it is whole when the row opens),
// and the counts each filter shows. A heading on one line has its cells
// left to right; one that wraps is taller.
const measureScript = `(function () {
  var out = {rows: 0, visible: 0, bad: [], status: document.getElementById('status').textContent, facets: {}};
  Array.prototype.forEach.call(document.querySelectorAll('#results > details.result'), function (row) {
    out.rows++;
    if (!row.hidden) { out.visible++; }
    var cells = Array.prototype.slice.call(row.querySelector('summary').children);
    if (cells.length !== 6) { out.bad.push(row.id + ': ' + cells.length + ' cells'); }
    var summary = row.querySelector('summary').getBoundingClientRect();
    if (summary.height > 48) { out.bad.push(row.id + ': a heading of ' + summary.height + 'px, more than one line'); }
    var left = -1;
    cells.forEach(function (c) {
      var r = c.getBoundingClientRect();
      if (r.left <= left) { out.bad.push(row.id + ' .' + c.className + ': not in a column of its own'); }
      left = r.left;
      if (c.className !== 'msg' && c.scrollWidth > c.clientWidth + 1) {
        out.bad.push(row.id + ' .' + c.className + ': ' + c.clientWidth + 'px for ' + c.scrollWidth + 'px of text');
      }
    });
    var msg = row.querySelector('summary .msg');
    if (msg.clientWidth < 300) { out.bad.push(row.id + ' .msg: ' + msg.clientWidth + 'px'); }
  });
  ['verdict', 'level', 'area', 'version'].forEach(function (d) {
    var sum = 0;
    Array.prototype.forEach.call(document.querySelectorAll('input[data-dim="' + d + '"]'), function (b) {
      sum += parseInt(b.parentNode.querySelector('.c').textContent, 10);
    });
    out.facets[d] = sum;
  });
  var pre = document.createElement('pre');
  pre.id = 'measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}());`

// TestHTMLInBrowserLayout opens a report of real-sized ids, requirements,
// levels and versions (and skips that name no level) at 1280 px: every
// cell of every row's heading is readable on one line, every row shows on
// load, and the counts add up: the status says all rows, and each filter's
// counts sum to them.
func TestHTMLInBrowserLayout(t *testing.T) {
	chromium := chromiumPath(t)
	r := sampleReport()
	for i, x := range []struct{ id, req, level, version string }{
		{"resources-read-unknown-uri-not-empty-success", "RES-READ-05", "SHOULD", "2026-07-28"},
		{"completion-served-only-if-declared-template", "COMPL-04", "MUST NOT", "2025-03-26"},
		{"resources-templates-list-invalid-cursor", "PAG-05", "schema-should", "2024-11-05"},
		{"tools-list-cache-hints", "TOOLS-17", "unspecified", "2025-06-18"},
		{"listen-acknowledged-first", "", "", "2025-11-25"},
		{"stdio-no-server-requests", "STDIO-10", "", ""},
	} {
		v := []Verdict{Skip, Warn, Fail, Info, Skip, Skip}[i]
		r.Results = append(r.Results, Result{ID: x.id, Requirement: x.req, Level: x.level, Verdict: v, ProtocolVersion: x.version,
			Area: "resources", Message: "a message long enough to fill what is left of the row and more, as the real ones are: " + strings.Repeat("words ", 30)})
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	hash := scriptHash(measureScript)
	html = strings.Replace(html, "script-src &#39;", "script-src &#39;"+hash+"&#39; &#39;", 1)
	if !strings.Contains(html, hash) {
		t.Fatal("the page's policy was not found to allow the measuring script")
	}
	html = strings.Replace(html, "</body>", "<script>"+measureScript+"</script>\n</body>", 1)
	path := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOMAt(t, chromium, "file://"+filepath.ToSlash(path), "1280,1000")
	m := regexp.MustCompile(`<pre id="measure">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script wrote nothing:\n%s", lastLines(dom, 5))
	}
	var got struct {
		Rows, Visible int
		Bad           []string
		Status        string
		Facets        map[string]int
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(m[1], "&amp;", "&")), &got); err != nil {
		t.Fatal(err)
	}
	n := len(r.Results)
	if got.Rows != n || got.Visible != n {
		t.Errorf("%d rows, %d shown on load; want %d and %d", got.Rows, got.Visible, n, n)
	}
	if want := fmt.Sprintf("Showing all %d results", n); got.Status != want {
		t.Errorf("status %q, want %q", got.Status, want)
	}
	for dim, sum := range got.Facets {
		if sum != n {
			t.Errorf("the %s filter counts %d results, want %d", dim, sum, n)
		}
	}
	if len(got.Facets) != 4 {
		t.Errorf("counts of %d filters, want 4: %v", len(got.Facets), got.Facets)
	}
	for _, b := range got.Bad {
		t.Errorf("at 1280 px: %s", b)
	}
}
