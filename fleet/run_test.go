package fleet_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
)

// environ is the environment the test fleets run in: the one variable
// that makes this binary serve the reference server, and nothing the
// targets require.
var environ = []string{serveEnv + "=1", "PATH=" + os.Getenv("PATH")}

// writeList writes a target list into a folder of its own and loads it.
func writeList(t *testing.T, text string) *fleet.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "targets.yaml")
	text = strings.ReplaceAll(text, "SERVER", fmt.Sprintf("%q", os.Args[0]))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := fleet.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	return f
}

// fourClasses is a list with a target of each class, and more than one way
// of being a setup-error: a server that conforms (judged on a few areas),
// one that breaks a MUST, one cut short by its run budget, one whose
// program does not exist, one that needs a variable the environment lacks,
// one whose setup fails, one that exits before writing a byte, and one
// over HTTP.
const fourClasses = `
targets:
  - id: conforms
    command: [SERVER]
    env: [` + serveEnv + `]
    only: [area:ping, area:lifecycle]
    spec-version: 2025-11-25
  - id: breaks-ping
    command: [SERVER, --fault, ping-not-empty]
    env: [` + serveEnv + `]
    only: [area:ping, area:lifecycle]
    spec-version: 2025-11-25
  - id: cut-short
    command: [SERVER, --fault, slow]
    env: [` + serveEnv + `]
    run-timeout: 1s
  - id: does-not-start
    command: [./no-such-server, --stdio]
  - id: needs-a-key
    command: [SERVER]
    env: [` + serveEnv + `]
    requires: [MCPCONFORM_FLEET_TEST_KEY]
  - id: setup-fails
    command: [SERVER]
    setup: {command: [sh, -c, "echo compiling; echo 'error: no such package' >&2; exit 2"]}
  - id: exits-silently
    command: [sh, -c, "echo 'fatal: NOTES_DB_URL is not set' >&2; exit 1"]
  - id: over-http
    url: http://127.0.0.1:9/mcp
`

// TestFleetClasses: every target ends in the class its run deserves, with
// its exit code and a reason from what was observed; what a server that
// never spoke MCP did counts as no violation; the fleet takes the most
// severe class; and every format holds every target.
func TestFleetClasses(t *testing.T) {
	f := writeList(t, fourClasses)
	dir := t.TempDir()
	var mu sync.Mutex // Done is called from several goroutines
	var done []string
	fl, err := fleet.Run(context.Background(), f, fleet.Options{Parallel: 3, ReportDir: dir, Tool: "test", Environ: environ,
		Done: func(ft reports.FleetTarget) {
			mu.Lock()
			defer mu.Unlock()
			done = append(done, ft.ID)
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		class  reports.Class
		reason string
	}{
		"conforms":       {reports.ClassConformant, "nothing failed"},
		"breaks-ping":    {reports.ClassNonconformant, "ping-empty-result"},
		"cut-short":      {reports.ClassIncomplete, "--run-timeout 1s"},
		"does-not-start": {reports.ClassSetupError, "the command could not be started"},
		"needs-a-key":    {reports.ClassSetupError, "requires MCPCONFORM_FLEET_TEST_KEY, which is not set"},
		"setup-fails":    {reports.ClassSetupError, "the setup command exited with status 2"},
		"exits-silently": {reports.ClassSetupError, "exited with status 1"},
		"over-http":      {reports.ClassSetupError, "nothing answers at http://127.0.0.1:9/mcp"},
	}
	if len(fl.Targets) != len(want) || len(done) != len(want) {
		t.Fatalf("got %d targets (%d reported done), want %d", len(fl.Targets), len(done), len(want))
	}
	for _, ft := range fl.Targets {
		w := want[ft.ID]
		if ft.Class != w.class || !strings.Contains(ft.Reason, w.reason) {
			t.Errorf("%s: got %s (%q), want %s with %q", ft.ID, ft.Class, ft.Reason, w.class, w.reason)
		}
		if ft.ExitCode != w.class.ExitCode() {
			t.Errorf("%s: exit code %d, want %d", ft.ID, ft.ExitCode, w.class.ExitCode())
		}
		if ft.Class == reports.ClassSetupError && ft.Report.Summary.Fail > 0 {
			t.Errorf("%s: a setup error counts %d failures", ft.ID, ft.Report.Summary.Fail)
		}
		if _, err := os.Stat(filepath.Join(dir, ft.Dir, reports.JSONFile)); err != nil {
			t.Errorf("%s: its own report: %v", ft.ID, err)
		}
	}
	if s := fl.Summary; s.Class != reports.ClassNonconformant || s.Conformant != 1 || s.Nonconformant != 1 || s.Incomplete != 1 || s.SetupError != 5 {
		t.Errorf("summary: got %+v", s)
	}
	byID := map[string]reports.FleetTarget{}
	for _, ft := range fl.Targets {
		byID[ft.ID] = ft
	}
	// What the fleet infers is labelled so, apart from what it observed.
	if inf := byID["exits-silently"].Inferred; len(inf) == 0 || !strings.Contains(strings.Join(inf, " "), "taken for the command's, the environment's or the setup's") {
		t.Errorf("exits-silently: inferred %q, want the classification labelled as inferred", inf)
	}
	if inf := byID["does-not-start"].Inferred; len(inf) != 0 {
		t.Errorf("does-not-start: inferred %q; a program that does not exist is observed, not inferred", inf)
	}
	if s := byID["setup-fails"].Setup; s == nil || s.ExitCode != 2 || !strings.Contains(strings.Join(s.OutputTail, "\n"), "error: no such package") {
		t.Errorf("setup-fails: setup record %+v, want exit 2 and its output", s)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "targets", "setup-fails", "setup.log")); err != nil || !strings.Contains(string(log), "compiling") {
		t.Errorf("setup-fails: setup.log: %q, %v", log, err)
	}
	if err := reports.WriteFleetDir(dir, fl); err != nil {
		t.Fatal(err)
	}
	checkFormats(t, dir, fl)
}

// checkFormats checks that every format of the fleet's report holds every
// target in its class, and no setup-error as a failure.
func checkFormats(t *testing.T, dir string, fl *reports.Fleet) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	back, err := reports.ReadFleetJSON(bytes.NewReader(read(reports.FleetJSONFile)))
	if err != nil {
		t.Fatalf("fleet.json: %v", err)
	}
	if len(back.Targets) != len(fl.Targets) || back.Summary != fl.Summary {
		t.Errorf("fleet.json: %d targets, summary %+v; want %d, %+v", len(back.Targets), back.Summary, len(fl.Targets), fl.Summary)
	}
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Props    []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(read(reports.FleetJUnitFile), &doc); err != nil {
		t.Fatalf("fleet-junit.xml: %v", err)
	}
	if len(doc.Suites) != len(fl.Targets) {
		t.Errorf("fleet-junit.xml: %d testsuites, want one per target (%d)", len(doc.Suites), len(fl.Targets))
	}
	for i, s := range doc.Suites {
		ft := fl.Targets[i]
		class := ""
		for _, p := range s.Props {
			if p.Name == "class" {
				class = p.Value
			}
		}
		if s.Name != ft.ID || class != string(ft.Class) {
			t.Errorf("fleet-junit.xml: suite %d is %s (%s), want %s (%s)", i, s.Name, class, ft.ID, ft.Class)
		}
		if ft.Class == reports.ClassSetupError && (s.Failures != 0 || s.Errors != 1) {
			t.Errorf("fleet-junit.xml: %s: %d failures, %d errors; a setup error is one error and no failure", ft.ID, s.Failures, s.Errors)
		}
	}
	md, html := string(read(reports.FleetMarkdownFile)), string(read(reports.FleetHTMLFile))
	for _, ft := range fl.Targets {
		if !strings.Contains(md, "| "+string(ft.Class)+" |") || !strings.Contains(md, "## "+ft.ID) {
			t.Errorf("fleet.md lacks %s in its class %s", ft.ID, ft.Class)
		}
		if !strings.Contains(html, `id="t-`+ft.ID+`" data-class="`+string(ft.Class)+`"`) {
			t.Errorf("fleet.html lacks %s in its class %s", ft.ID, ft.Class)
		}
	}
	if !strings.Contains(md, "Inferred, not observed") || !strings.Contains(html, "inferred, not observed") {
		t.Error("the Markdown and HTML reports do not label what was inferred")
	}
}

// volatile are the parts of a fleet's text that differ from run to run:
// durations in messages, the nonce in probe URIs and request ids, the line
// of the Markdown that says when the run started.
var volatile = []*regexp.Regexp{
	regexp.MustCompile(`\b[0-9]+(\.[0-9]+)? ?(ns|µs|ms|s)\b`),
	regexp.MustCompile(`mcpconform-[a-z]+://[0-9a-f]+`),
	regexp.MustCompile(`mcpconform-[a-z]+-[0-9a-f]{12}`),
	regexp.MustCompile(`(?m)^Run by .*$`),
}

func mask(s string) string {
	for _, re := range volatile {
		s = re.ReplaceAllString(s, "<volatile>")
	}
	return s
}

// masked is the fleet's JSON with its times zeroed and its volatile text
// masked, and without what says how it was split.
func masked(t *testing.T, fl *reports.Fleet) string {
	t.Helper()
	c := *fl
	c.Shard, c.Merged, c.Missing, c.Notes = "", nil, nil, nil
	c.StartedAt, c.DurationMs = time.Time{}, 0
	c.Targets = slices.Clone(fl.Targets)
	for i := range c.Targets {
		ft := &c.Targets[i]
		ft.DurationMs = 0
		if ft.Setup != nil {
			s := *ft.Setup
			s.DurationMs = 0
			ft.Setup = &s
		}
		r := *ft.Report
		r.StartedAt, r.DurationMs = time.Time{}, 0
		r.Results = slices.Clone(r.Results)
		for j := range r.Results {
			r.Results[j].DurationMs = 0
		}
		ft.Report = &r
	}
	var b bytes.Buffer
	if err := reports.WriteFleetJSON(&b, &c); err != nil {
		t.Fatal(err)
	}
	return mask(b.String())
}

// TestShardsMergeToTheWhole: the shards 1/3, 2/3 and 3/3 of a list, each
// run on its own and merged, give the report of the whole list run at
// once, times aside; as a CI matrix and a Kubernetes Indexed Job would run
// them. Merging a shard twice keeps it once; leaving one out makes the
// merge incomplete.
func TestShardsMergeToTheWhole(t *testing.T) {
	f := writeList(t, `
targets:
  - {id: a-conforms, command: [SERVER], env: [`+serveEnv+`], only: [area:ping], spec-version: 2025-11-25}
  - {id: b-breaks, command: [SERVER, --fault, ping-not-empty], env: [`+serveEnv+`], only: [area:ping], spec-version: 2025-11-25}
  - {id: c-absent, command: [./no-such-server]}
  - {id: d-needs-key, command: [SERVER], requires: [MCPCONFORM_FLEET_TEST_KEY]}
  - {id: e-older, command: [SERVER], env: [`+serveEnv+`], only: [area:ping], spec-version: 2025-06-18}
`)
	whole, err := fleet.Run(context.Background(), f, fleet.Options{Parallel: 2, ReportDir: t.TempDir(), Tool: "test", Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	var parts []fleet.Part
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		dir := t.TempDir()
		shard := fleet.Shard{Index: i, Count: 3}
		fl, err := fleet.Run(context.Background(), f, fleet.Options{Parallel: 2, Shard: shard, ReportDir: dir, Tool: "test", Environ: environ})
		if err != nil {
			t.Fatal(err)
		}
		for _, ft := range fl.Targets {
			seen[ft.ID]++
		}
		if err := reports.WriteFleetDir(dir, fl); err != nil {
			t.Fatal(err)
		}
		p, err := fleet.ReadPart(dir)
		if err != nil {
			t.Fatal(err)
		}
		if p.Fleet.Shard != shard.String() {
			t.Errorf("shard %s says it is %q", shard, p.Fleet.Shard)
		}
		parts = append(parts, p)
	}
	for _, id := range f.IDs() {
		if seen[id] != 1 {
			t.Errorf("%s ran in %d shards, want exactly one", id, seen[id])
		}
	}
	merged, err := fleet.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(masked(t, whole), masked(t, merged)); diff != "" {
		t.Errorf("the merged shards differ from the whole run (-whole +merged):\n%s", diff)
	}
	if merged.Summary.Class != reports.ClassNonconformant || len(merged.Missing) != 0 || strings.Join(merged.Merged, ",") != "1/3,2/3,3/3" {
		t.Errorf("merged: class %s, merged %v, missing %v", merged.Summary.Class, merged.Merged, merged.Missing)
	}
	var md, wholeMD bytes.Buffer
	if err := reports.WriteFleetMarkdown(&md, merged); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteFleetMarkdown(&wholeMD, whole); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mask(wholeMD.String()), mask(md.String())); diff != "" {
		t.Errorf("the merged Markdown differs from the whole run's (-whole +merged):\n%s", diff)
	}

	again, err := fleet.Merge(append(parts, parts[1]))
	if err != nil {
		t.Fatalf("a shard given twice: %v", err)
	}
	if len(again.Targets) != len(whole.Targets) || len(again.Notes) == 0 {
		t.Errorf("a shard given twice: %d targets (want %d), notes %q", len(again.Targets), len(whole.Targets), again.Notes)
	}
	short, err := fleet.Merge(parts[:2])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(short.Missing, ",") != "3/3" || short.Summary.Class != reports.ClassNonconformant && short.Summary.Class != reports.ClassIncomplete {
		t.Errorf("without shard 3/3: missing %v, class %s", short.Missing, short.Summary.Class)
	}
	if err := fleet.AddAbsent(short, f.IDs()); err != nil {
		t.Fatal(err)
	}
	if len(short.Targets) != len(whole.Targets) {
		t.Errorf("with the list, the merge lists %d targets, want every one (%d)", len(short.Targets), len(whole.Targets))
	}
}
