package checks_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/vectors"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want section of every case from what the checks say now")

// A case is testdata/<family>/<check-id>/<name>.txtar: a run as text, and
// what the check (or vector test) must say of it.
//
//	free text: what the case is about
//	-- run --                      optional JSON: {"specVersion": "", "versions": [...],
//	                               "fatal": {...}, "interrupted": "...", "timeoutNs": ...}
//	-- p1 shared 2025-11-25 --     a process: its id, role and version, then its
//	> {...}                        transcript in the text form of package transcript
//	< {...}
//	-- p2 probe 2025-11-25 --
//	...
//	-- p3 shared 2025-11-25 http --   a process spoken to over Streamable HTTP: its
//	# {"httpRequest":{...}}          HTTP events are notes (package transcript,
//	> {...}                          http.go), each message entry right after the
//	# {"httpResponse":{...}}         event that carries it
//	-- want --
//	2025-11-25 fail: the message the result had
//
// Each shared process opens the session of its version; replacement and
// probe processes join the session of theirs. The run judges the versions
// of its sessions unless the run section says otherwise. A want line
// gives the verdict under a version and, after the colon, the start of
// the message (-update writes the whole message).
type testCase struct {
	path  string
	arc   *txtar.Archive
	run   *evidence.Run
	wants []want
}

type want struct {
	version string
	verdict reports.Verdict
	message string
}

func loadCase(t *testing.T, path string) *testCase {
	t.Helper()
	arc, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &testCase{path: path, arc: arc}
	run := &evidence.Run{Format: evidence.Format, Nonce: "n0nce", Started: time.Unix(0, 0).UTC(), Timeout: 10 * time.Second}
	var versions []string
	for _, f := range arc.Files {
		fields := strings.Fields(f.Name)
		switch {
		case f.Name == "run":
			if err := json.Unmarshal(f.Data, run); err != nil {
				t.Fatalf("%s: run: %v", path, err)
			}
		case f.Name == "want":
			c.wants = parseWants(t, path, f.Data)
		case (len(fields) == 3 || len(fields) == 4 && fields[3] == evidence.TransportHTTP) && strings.HasPrefix(fields[0], "p"):
			var id int
			if _, err := fmt.Sscanf(fields[0], "p%d", &id); err != nil {
				t.Fatalf("%s: process section %q: want pN ROLE VERSION", path, f.Name)
			}
			tr, err := transcript.ParseText(string(f.Data))
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
			p := &evidence.Process{ID: id, Pid: 1000 + id, Role: evidence.Role(fields[1]), Version: fields[2], Transport: evidence.TransportStdio, Transcript: tr}
			if len(fields) == 4 {
				p.Transport, p.Pid, run.Transport = fields[3], 0, fields[3]
			}
			run.Processes = append(run.Processes, p)
			switch p.Role {
			case evidence.RoleShared:
				s := &evidence.Session{Version: p.Version, Processes: []int{id}, Requested: p.Version, Negotiated: p.Version, Modern: p.Version == "2026-07-28"}
				run.Sessions = append(run.Sessions, s)
				versions = append(versions, p.Version)
			case evidence.RoleReplacement, evidence.RoleProbe:
				for _, s := range run.Sessions {
					if s.Version == p.Version {
						if p.Role == evidence.RoleProbe {
							s.Probes = append(s.Probes, id)
						} else {
							s.Processes = append(s.Processes, id)
						}
					}
				}
			}
		default:
			t.Fatalf("%s: unknown section %q", path, f.Name)
		}
	}
	if run.Versions == nil {
		run.Versions = versions
	}
	run.Bind()
	c.run = run
	return c
}

// parseWants reads a want section: "VERSION VERDICT: message" per line.
func parseWants(t *testing.T, path string, data []byte) []want {
	var wants []want
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		head, msg, _ := strings.Cut(line, ":")
		hf := strings.Fields(head)
		if len(hf) != 2 {
			t.Fatalf("%s: want line %d: want \"VERSION VERDICT: message\", got %q", path, i+1, line)
		}
		wants = append(wants, want{version: hf[0], verdict: reports.Verdict(hf[1]), message: strings.TrimSpace(msg)})
	}
	return wants
}

// compareWants judges a case under the versions of its want section (or,
// with none yet and -update, under versions) and compares each result's
// verdict and the start of its message with the want line; -update
// rewrites the want section instead.
func compareWants(t *testing.T, path string, arc *txtar.Archive, wants []want, versions []string, judge func(v string) reports.Result) {
	t.Helper()
	if len(wants) == 0 && !*update {
		t.Fatalf("%s: no want section", path)
	}
	if len(wants) > 0 {
		versions = nil
		for _, w := range wants {
			versions = append(versions, w.version)
		}
	}
	var got []string
	for i, v := range versions {
		res := judge(v)
		got = append(got, fmt.Sprintf("%s %s: %s", v, res.Verdict, res.Message))
		if *update {
			continue
		}
		if w := wants[i]; res.Verdict != w.verdict || !strings.HasPrefix(res.Message, w.message) {
			t.Errorf("%s under %s: got %s: %q; want %s: %q…", path, v, res.Verdict, res.Message, w.verdict, w.message)
		}
	}
	if *update {
		writeWant(t, path, arc, got)
	}
}

// writeWant rewrites the want section of a case.
func writeWant(t *testing.T, path string, arc *txtar.Archive, got []string) {
	data := []byte(strings.Join(got, "\n") + "\n")
	found := false
	for i, f := range arc.Files {
		if f.Name == "want" {
			arc.Files[i].Data, found = data, true
		}
	}
	if !found {
		arc.Files = append(arc.Files, txtar.File{Name: "want", Data: data})
	}
	if err := os.WriteFile(path, txtar.Format(arc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// judge returns the result of the case's check (or vector test) under v.
func (c *testCase) judge(t *testing.T, id, v string) reports.Result {
	for _, ch := range checks.All() {
		if ch.ID == id {
			return ch.Result(checks.NewJ(c.run, v))
		}
	}
	for _, f := range embedded(t) {
		for _, tt := range f.Tests {
			if tt.ID == id {
				return checks.JudgeVector(tt, c.run, v, c.run.Session(v))
			}
		}
	}
	t.Fatalf("%s: no check or vector test %q", c.path, id)
	return reports.Result{}
}

var embeddedFiles []*vectors.File

func embedded(t *testing.T) []*vectors.File {
	if embeddedFiles == nil {
		fs, err := vectors.Embedded()
		if err != nil {
			t.Fatal(err)
		}
		embeddedFiles = fs
	}
	return embeddedFiles
}

// allCases returns testdata/<family>/<id>/<case>.txtar grouped by id.
func allCases(t *testing.T) map[string][]string {
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	for _, p := range paths {
		if filepath.Base(filepath.Dir(filepath.Dir(p))) == "client" {
			continue // client mode's cases: client_cases_test.go
		}
		id := filepath.Base(filepath.Dir(p))
		by[id] = append(by[id], p)
	}
	return by
}

// TestCases judges every recorded case and compares the verdicts (and
// the starts of the messages) with its want section.
func TestCases(t *testing.T) {
	for id, paths := range allCases(t) {
		for _, path := range paths {
			t.Run(id+"/"+strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
				c := loadCase(t, path)
				compareWants(t, path, c.arc, c.wants, c.run.Versions, func(v string) reports.Result { return c.judge(t, id, v) })
			})
		}
	}
}

// TestEveryCheckBothWays: every procedural check has a recorded case
// where it passes and one where it fails (or warns, or records, as its
// level allows): a check that cannot fail, or that fails everything, does
// not get through.
func TestEveryCheckBothWays(t *testing.T) {
	var ids []string
	for _, ch := range checks.All() {
		ids = append(ids, ch.ID)
	}
	if missing := lackingBothWays(ids, allCases(t), func(path string) []want { return loadCase(t, path).wants }); len(missing) > 0 {
		t.Errorf("%d checks lack a recorded case in one direction:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// lackingBothWays lists the checks among ids whose cases lack a pass, or
// a fail, warn or info, sorted.
func lackingBothWays(ids []string, cases map[string][]string, wantsOf func(path string) []want) []string {
	var missing []string
	for _, id := range ids {
		sawPass, sawBad := false, false
		for _, path := range cases[id] {
			for _, w := range wantsOf(path) {
				switch w.verdict {
				case reports.Pass:
					sawPass = true
				case reports.Fail, reports.Warn, reports.Info:
					sawBad = true
				}
			}
		}
		if !sawPass || !sawBad {
			missing = append(missing, fmt.Sprintf("%s (pass case: %v, failing case: %v)", id, sawPass, sawBad))
		}
	}
	sort.Strings(missing)
	return missing
}

// TestCasesLiveWithTheirFamily: a case lives in the folder of its check's
// requirement family.
func TestCasesLiveWithTheirFamily(t *testing.T) {
	family := map[string]string{}
	for _, ch := range checks.All() {
		family[ch.ID] = checks.FileFamily(ch.Requirement)
	}
	for _, f := range embedded(t) {
		for _, tt := range f.Tests {
			family[tt.ID] = checks.FileFamily(tt.Requirement)
		}
	}
	for id, paths := range allCases(t) {
		for _, p := range paths {
			dir := filepath.Base(filepath.Dir(filepath.Dir(p)))
			if want, ok := family[id]; !ok {
				t.Errorf("%s: no check or vector test %q", p, id)
			} else if dir != want {
				t.Errorf("%s: the case of %s belongs in testdata/%s", p, id, want)
			}
		}
	}
}

// TestLayout: a check is defined in the file of its requirement family,
// so that a requirement id leads to its file, and every other file of
// the package says what it holds.
func TestLayout(t *testing.T) {
	for _, ch := range checks.All() {
		want := checks.FileFamily(ch.Requirement)
		file := strings.TrimSuffix(ch.File(), ".go")
		if file != want && !strings.HasPrefix(file, want+"_") {
			t.Errorf("%s judges %s and is defined in %s.go; it belongs in %s.go", ch.ID, ch.Requirement, file, want)
		}
	}
	// Every other file is shared: the package's own (a check and its
	// result, the tally, the walks over all traffic, the judge of vector
	// tests), or verify_<what>.go, the verifiers several families share,
	// named for what they verify. A helper of one family stays in its
	// family's file.
	families := map[string]bool{}
	for _, r := range catalog.All() {
		families[checks.FileFamily(r.ID)] = true
	}
	// Client mode has its own: its check and entry point, and the index
	// of a spawn's traffic; its checks live in client_<family>.go.
	own := []string{"check", "tally", "ambient", "vector", "client", "client_view"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".go")
		if slices.Contains(own, name) {
			continue
		}
		name = strings.TrimPrefix(name, "client_")
		family, _, _ := strings.Cut(name, "_")
		switch {
		case strings.HasSuffix(name, "_test"), slices.Contains(own, name), families[name],
			strings.HasPrefix(name, "verify_"), families[family] && name != family:
		default:
			t.Errorf("%s is named for no requirement family, and is no verify_*.go file of shared verifiers", f)
		}
	}
	// Vector files sit in a directory named after the family of every
	// requirement their tests judge: vectors/<family>/<topic>.json.
	for _, f := range embedded(t) {
		dir := path.Dir(strings.TrimPrefix(f.Path, "embedded:"))
		for _, tt := range f.Tests {
			if want := checks.FileFamily(tt.Requirement); dir != want {
				t.Errorf("vector test %s judges %s and is in %s; it belongs in vectors/%s/", tt.ID, tt.Requirement, f.Path, want)
			}
		}
	}
}
