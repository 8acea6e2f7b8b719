package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestReportDir runs the binary with --report-dir against the reference
// server and against faulty ones, and checks every file it writes.
func TestReportDir(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []string
		code   int
	}{
		{"reference", nil, exitConformant},
		{"hostile-strings", []string{"hostile-strings"}, exitConformant}, // a SHOULD: warn
		{"banner", []string{"banner"}, exitNonconformant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runCLIIn(t, dir, against(t, []string{"--report-dir", "out/nested"}, tc.faults...)...)
			if r.code != tc.code {
				t.Fatalf("got exit %d, want %d\n%v", r.code, tc.code, r)
			}
			out := filepath.Join(dir, "out", "nested")
			checkReportDir(t, out)
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := "junit.xml report.html report.json report.md report.sarif"; strings.Join(names, " ") != want {
				t.Errorf("files in --report-dir: got %v, want %s (no temporary files left)", names, want)
			}
		})
	}
}

// checkReportDir validates the four files of a --report-dir.
func checkReportDir(t *testing.T, dir string) {
	t.Helper()
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	validateReport(t, read(reports.JSONFile))
	validateJUnit(t, filepath.Join(dir, reports.JUnitFile))
	checkMarkdown(t, read(reports.MarkdownFile))
	checkHTML(t, read(reports.HTMLFile))
	checkSARIF(t, read(reports.SARIFFile), read(reports.JSONFile))
}

// checkSARIF checks that the SARIF log names mcpconform, has a rule per
// check of the report and a result for each check that failed, warned or
// was recorded.
func checkSARIF(t *testing.T, data, report []byte) {
	t.Helper()
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct{ ID string }
				}
			}
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("report.sarif: %v", err)
	}
	var rep struct {
		Results []struct{ ID, Verdict string }
	}
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "mcpconform" {
		t.Fatalf("report.sarif: version %q, %d runs", log.Version, len(log.Runs))
	}
	rules, found := map[string]bool{}, map[string]bool{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		rules[r.ID] = true
	}
	for _, r := range log.Runs[0].Results {
		found[r.RuleID] = true
	}
	for _, r := range rep.Results {
		if !rules[r.ID] {
			t.Errorf("report.sarif: no rule for %s", r.ID)
		}
		if (r.Verdict == "fail" || r.Verdict == "warn" || r.Verdict == "info") && !found[r.ID] {
			t.Errorf("report.sarif: no result for %s (%s)", r.ID, r.Verdict)
		}
	}
}

// validateReport checks a JSON report against reports.ReportSchema.
func validateReport(t *testing.T, data []byte) {
	t.Helper()
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("report.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("report.json is not JSON: %v", err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("report.json does not validate against the report schema: %v", err)
	}
}

// validateJUnit checks that a JUnit file is well-formed XML with a
// testsuites root and, with xmllint on PATH (required when CI=true), that
// it is valid against reports/testdata/junit.xsd.
func validateJUnit(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("junit.xml is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "testsuites" {
		t.Errorf("junit.xml root element: got %q, want testsuites", root)
	}
	// A subtest, so that without xmllint only the XSD validation skips.
	t.Run("xsd", func(t *testing.T) {
		xmllint, err := exec.LookPath("xmllint")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("xmllint not found on PATH; CI must install Debian's libxml2-utils")
			}
			t.Skip("xmllint not found on PATH (Debian: libxml2-utils); the XSD validation needs it")
		}
		xsd := filepath.Join("..", "..", "reports", "testdata", "junit.xsd")
		if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, path).CombinedOutput(); err != nil {
			t.Errorf("junit.xml is not valid against junit.xsd: %v\n%s", err, out)
		}
	})
}

// checkMarkdown checks the layout a CI job summary relies on: the heading
// with the overall verdict, then the table of counts before anything else.
func checkMarkdown(t *testing.T, data []byte) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	var body []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			body = append(body, l)
		}
	}
	if len(body) < 3 {
		t.Fatalf("report.md is too short: %q", data)
	}
	if !regexp.MustCompile(`^# .*(CONFORMANT|NONCONFORMANT|ERROR)$`).MatchString(body[0]) {
		t.Errorf("report.md first line: got %q, want a heading with the overall verdict", body[0])
	}
	if body[1] != "| verdict | count |" || !strings.HasPrefix(body[2], "| ---") {
		t.Errorf("report.md: the summary table does not come first: %q", body[1:3])
	}
}

// specLink is the only kind of http(s) URL the HTML report may point to.
const specLink = "https://modelcontextprotocol.io/specification/"

// checkHTML checks that the HTML report is non-empty and self-contained:
// no element loads or links anything over http(s) except spec links, and
// the only script is the report's own inline one.
func checkHTML(t *testing.T, data []byte) {
	t.Helper()
	page := string(data)
	if len(page) < 1000 || !strings.Contains(page, "</html>") {
		t.Fatalf("report.html looks empty or cut: %d bytes", len(page))
	}
	attr := regexp.MustCompile(`(?i)\b(src|href|action|poster|srcset|data|formaction|xlink:href)\s*=\s*["']?\s*(https?:)?//[^"'\s>]*`)
	specLinks := 0
	for _, m := range attr.FindAllString(page, -1) {
		url := m[strings.IndexAny(m, "=")+1:]
		url = strings.TrimLeft(url, "\"' ")
		if !strings.HasPrefix(url, specLink) {
			t.Errorf("report.html refers to an outside URL that is not a spec link: %s", m)
		}
		specLinks++
	}
	if specLinks == 0 {
		t.Error("report.html has no spec link (or this test no longer finds links)")
	}
	if regexp.MustCompile(`(?i)url\(\s*["']?\s*(https?:)?//`).MatchString(page) {
		t.Error("report.html CSS loads an outside URL")
	}
	for _, tag := range []string{"<link", "<img", "<iframe", "<object", "<embed"} {
		if strings.Contains(strings.ToLower(page), tag) {
			t.Errorf("report.html holds a %s element", tag)
		}
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("report.html holds %d script elements, want 1 (its own, inline)", n)
	}
	if regexp.MustCompile(`(?i)<script[^>]*\bsrc\s*=`).MatchString(page) {
		t.Error("report.html loads a script")
	}
}

// TestEscapingEndToEnd runs the binary against a server whose strings carry
// markup, ANSI sequences and control characters, and checks that none of
// them acts on a terminal or a document.
func TestEscapingEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLIIn(t, dir, against(t, []string{"--verbose", "--report-dir", "out"}, "hostile-strings")...)
	if r.code != exitConformant {
		t.Fatalf("got exit %d, want 0\n%v", r.code, r)
	}
	if !strings.Contains(r.stdout, `\x1b[31m`) && !strings.Contains(r.stdout, `\u001b[31m`) {
		t.Errorf("the console does not show the server's escape sequences as text: %s", tail(r.stdout, 500))
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		for _, c := range []byte{0x1b, 0x07, '\r', 0x00} {
			if i := strings.IndexByte(out, c); i >= 0 {
				t.Errorf("%s holds the byte %#x at %d: %q", name, c, i, out[max(i-40, 0):min(i+40, len(out))])
			}
		}
	}
	out := filepath.Join(dir, "out")
	checkReportDir(t, out)
	page, err := os.ReadFile(filepath.Join(out, reports.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(page)), "<script>alert(1)</script>") {
		t.Error("report.html holds the server's <script>alert(1)</script> unescaped")
	}
	if !strings.Contains(string(page), "alert(1)") {
		t.Error("report.html does not show the hostile strings at all; the test proves nothing")
	}
	var rep struct {
		Results []json.RawMessage
	}
	data, _ := os.ReadFile(filepath.Join(out, reports.JSONFile))
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Results) == 0 {
		t.Errorf("report.json: %v, %d results", err, len(rep.Results))
	}
}
