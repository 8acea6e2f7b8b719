package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseJUnit decodes a JUnit document strictly and returns it; any
// well-formedness error fails the test.
func parseJUnit(t *testing.T, b []byte) *junitSuites {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
	var doc junitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("decoding junit: %v", err)
	}
	return &doc
}

func TestWriteJUnitStructure(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, b.Bytes())
	type suite struct {
		Name                             string
		Tests, Failures, Errors, Skipped int
	}
	var got []suite
	for _, s := range doc.Suites {
		got = append(got, suite{s.Name, s.Tests, s.Failures, s.Errors, s.Skipped})
	}
	want := []suite{
		{"lifecycle", 2, 0, 1, 0},
		{"resources", 4, 1, 0, 1},
		{"stdio", 1, 0, 0, 0},
		{"jsonrpc", 1, 0, 0, 0},
		{"general", 1, 0, 0, 0},
		{"baseline", 1, 1, 0, 0}, // the stale entry
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suites (-want +got):\n%s", diff)
	}
	if doc.Tests != 10 || doc.Failures != 2 || doc.Errors != 1 || doc.Skipped != 1 {
		t.Errorf("totals: got tests=%d failures=%d errors=%d skipped=%d, want 10 2 1 1", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	stale := doc.Suites[5].Cases[0]
	if stale.Name != "resources-list-cursor-opaque" || stale.Classname != "mcpconform.baseline" || stale.Failure == nil || stale.Failure.Type != "stale-baseline" {
		t.Errorf("stale baseline entry: got %+v", stale)
	}
	res := doc.Suites[1].Cases
	if res[1].Name != "resources-list-pagination-terminates [2025-11-25]" || res[1].Classname != "mcpconform.resources" {
		t.Errorf("testcase: got %q %q", res[1].Name, res[1].Classname)
	}
	if res[1].Time != "0.012" || doc.Suites[1].Time != "0.012" {
		t.Errorf("times: got case %q and suite %q, want the result's 12 ms in both", res[1].Time, doc.Suites[1].Time)
	}
	f := res[1].Failure
	if f == nil || f.Type != "RES-LIST-03" || !strings.Contains(f.Body, "Expected:") || !strings.Contains(f.Body, "Actual:") ||
		!strings.Contains(f.Body, "https://modelcontextprotocol.io/") {
		t.Errorf("failure: got %+v", f)
	}
	if !strings.Contains(res[1].SystemOut, "cursor repeated") {
		t.Errorf("failing check has no transcript in system-out: %q", res[1].SystemOut)
	}
	if !strings.Contains(res[0].SystemOut, "WARN: ") {
		t.Errorf("warning not in system-out: %q", res[0].SystemOut)
	}
	if res[2].Skipped == nil || !strings.Contains(res[2].Skipped.Message, "resources.subscribe") {
		t.Errorf("skip: got %+v", res[2].Skipped)
	}
}

func TestWriteJUnitHostile(t *testing.T) {
	for name, r := range map[string]*Report{"sample": sampleReport(), "hostile": hostileReport(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJUnit(&b, r); err != nil {
				t.Fatal(err)
			}
			doc := parseJUnit(t, b.Bytes())
			if len(doc.Suites) == 0 {
				t.Error("no testsuite")
			}
			for i, c := range b.Bytes() {
				if c < 0x20 && c != '\n' && c != '\t' {
					t.Fatalf("control byte %#x at %d", c, i)
				}
			}
			// No CDATA is used and encoding/xml escapes every < and >, so
			// neither can appear literally, whatever the strings held.
			for _, bad := range []string{"<![CDATA[", "]]>", "<script", "<img"} {
				if strings.Contains(b.String(), bad) {
					t.Errorf("output contains %q", bad)
				}
			}
			if err := validateJUnitXSD(t, b.Bytes()); err != nil {
				t.Error(err)
			}
		})
	}
}

// validateJUnitXSD checks a document against testdata/junit.xsd with
// xmllint (Debian: libxml2-utils). Without xmllint the check is skipped,
// except in CI (CI=true), which installs it.
func validateJUnitXSD(t *testing.T, doc []byte) error {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint not found on PATH; CI must install Debian's libxml2-utils")
		}
		t.Skip("xmllint not found on PATH (Debian: apt-get install libxml2-utils); XSD validation skipped")
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join("testdata", "junit.xsd"), path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint: %v\n%s", err, out)
	}
	return nil
}

// TestJUnitXSDRejects makes sure the XSD check can fail.
func TestJUnitXSDRejects(t *testing.T) {
	for _, doc := range []string{
		`<testsuites><testsuite name="a" tests="1"><testcase classname="x"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="-1"/></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="x"><bogus/></testcase></testsuite></testsuites>`,
	} {
		if err := validateJUnitXSD(t, []byte(doc)); err == nil {
			t.Errorf("junit.xsd accepts %s", doc)
		}
	}
}

// TestWriteJUnitStrict: under --strict a warning fails the run, so JUnit
// counts it as a failure and a CI test tab agrees with the exit code.
func TestWriteJUnitStrict(t *testing.T) {
	r := &Report{Strict: true, Results: []Result{
		{ID: "a-warning", Requirement: "RES-READ-05", Level: "SHOULD", Verdict: Warn, Message: "answered -32603", Area: "resources"},
		{ID: "a-pass", Requirement: "RES-READ-01", Level: "MUST", Verdict: Pass, Area: "resources"},
		{ID: "an-xfail", Requirement: "RES-READ-02", Level: "SHOULD", Verdict: XFail, Message: "known warning", Area: "resources"},
	}}
	r.Summary.Verdict = Nonconformant
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, b.Bytes())
	if doc.Failures != 1 || doc.Suites[0].Failures != 1 {
		t.Fatalf("got %d failures (suite %d), want 1", doc.Failures, doc.Suites[0].Failures)
	}
	f := doc.Suites[0].Cases[0].Failure
	if f == nil || f.Type != "warning" || !strings.Contains(f.Body, "--strict") || !strings.Contains(f.Body, "RES-READ-05") {
		t.Errorf("the warning's failure: got %+v", f)
	}
	if c := doc.Suites[0].Cases[2]; c.Failure != nil {
		t.Errorf("an accepted warning (xfail) is a failure: %+v", c.Failure)
	}

	r.Strict = false
	var lax bytes.Buffer
	if err := WriteJUnit(&lax, r); err != nil {
		t.Fatal(err)
	}
	if doc := parseJUnit(t, lax.Bytes()); doc.Failures != 0 {
		t.Errorf("without --strict: got %d failures, want 0", doc.Failures)
	}
	if err := validateJUnitXSD(t, b.Bytes()); err != nil {
		t.Error(err)
	}
}
