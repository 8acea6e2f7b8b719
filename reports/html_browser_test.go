//go:build unix

package reports

import (
	"bytes"
	"context"
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=2000",
		"--dump-dom", url)
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
