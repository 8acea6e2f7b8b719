package checks_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
	"golang.org/x/tools/txtar"
)

// A client case is testdata/client/<check-id>/<name>.txtar: one scenario
// run of a client as text, and what the check must say of it.
//
//	free text: what the case is about
//	-- scenario NAME VERSION --   the scenario and the version the run asked for (a third
//	                              word, http, makes it a run over Streamable HTTP); the body,
//	{...}                         optional, is JSON of evidence.ScenarioRun members (class,
//	                              variant, fault, context, client: {exit, stopped, ...})
//	-- spawn 1 --                 a spawn of the recording mock: its transcript in the text
//	> {...}                       form of package transcript (> the client wrote, < the mock
//	< {...}                       wrote, # harness events: {"received":{"eof":true}},
//	# {"exit":{...}}              {"received":{"signal":"SIGTERM"}}, {"exit":{...}})
//	-- want --
//	2025-11-25 fail: the start of the message
//
// The client exited with status 0 on its own unless the scenario says
// otherwise. A want line gives the verdict under a version the spawns
// used; -update rewrites the want section.
//
// testdata/client-legal/<name>.txtar are clients that do something legal
// but unusual: under every check, nothing may fail, warn or error.
type clientCase struct {
	path  string
	arc   *txtar.Archive
	run   *evidence.ClientRun
	wants []want
}

func loadClientCase(t *testing.T, path string) *clientCase {
	t.Helper()
	arc, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &clientCase{path: path, arc: arc}
	run := &evidence.ClientRun{Format: 1, Transport: evidence.TransportStdio, Command: []string{"./client"}, Started: time.Unix(0, 0).UTC()}
	var sc *evidence.ScenarioRun
	for _, f := range arc.Files {
		fields := strings.Fields(f.Name)
		switch {
		case (len(fields) == 3 || len(fields) == 4 && fields[3] == "http") && fields[0] == "scenario":
			if len(fields) == 4 {
				run.Transport = evidence.TransportHTTP
			}
			sc = &evidence.ScenarioRun{Name: fields[1], Version: fields[2], Class: evidence.ClassConformance,
				Client: evidence.ClientProcess{Pid: 900, Exit: &transcript.Exit{Stage: transcript.BeforeShutdown}}}
			if body := strings.TrimSpace(string(f.Data)); body != "" {
				if err := json.Unmarshal([]byte(body), sc); err != nil {
					t.Fatalf("%s: scenario: %v", path, err)
				}
			}
			run.Scenarios = append(run.Scenarios, sc)
		case len(fields) == 2 && fields[0] == "spawn":
			if sc == nil {
				t.Fatalf("%s: a spawn section before the scenario section", path)
			}
			var id int
			if _, err := fmt.Sscanf(fields[1], "%d", &id); err != nil {
				t.Fatalf("%s: spawn section %q: want spawn N", path, f.Name)
			}
			tr, err := transcript.ParseText(string(f.Data))
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
			sp := &evidence.Spawn{ID: id, Argv: []string{"mcpconform", "mock"}, Transcript: tr}
			if run.Transport == evidence.TransportHTTP {
				sp.Argv, sp.Transport, sp.URL = nil, evidence.TransportHTTP, "http://127.0.0.1:8000/mcp"
			}
			sc.Spawns = append(sc.Spawns, sp)
		case f.Name == "want":
			c.wants = parseWants(t, path, f.Data)
		default:
			t.Fatalf("%s: unknown section %q", path, f.Name)
		}
	}
	if sc == nil {
		t.Fatalf("%s: no scenario section", path)
	}
	c.run = run
	return c
}

// results judges the case's scenario with every client check.
func (c *clientCase) results() []reports.Result {
	return checks.JudgeClientRun(c.run)
}

// result returns the check's result under version v.
func (c *clientCase) result(t *testing.T, id, v string) reports.Result {
	for _, r := range c.results() {
		if r.ID == id && r.ProtocolVersion == v {
			return r
		}
	}
	t.Fatalf("%s: no result of %s under %s (the spawns are judged under %v)", c.path, id, v, checks.ScenarioVersions(c.run.Scenarios[0]))
	return reports.Result{}
}

// allClientCases returns testdata/client/<id>/<case>.txtar grouped by id.
func allClientCases(t *testing.T) map[string][]string {
	paths, err := filepath.Glob(filepath.Join("testdata", "client", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]string{}
	for _, p := range paths {
		id := filepath.Base(filepath.Dir(p))
		by[id] = append(by[id], p)
	}
	return by
}

// TestClientCases judges every client case and compares the verdicts (and
// the starts of the messages) with its want section.
func TestClientCases(t *testing.T) {
	known := map[string]bool{}
	for _, ch := range checks.ClientChecks() {
		known[ch.ID] = true
	}
	for id, paths := range allClientCases(t) {
		if !known[id] {
			t.Errorf("testdata/client/%s: no client check %q", id, id)
			continue
		}
		for _, path := range paths {
			t.Run(id+"/"+strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
				c := loadClientCase(t, path)
				compareWants(t, path, c.arc, c.wants, checks.ScenarioVersions(c.run.Scenarios[0]), func(v string) reports.Result { return c.result(t, id, v) })
			})
		}
	}
}

// TestEveryClientCheckBothWays: every client check has a recorded case
// where it passes and one where it fails (or warns, or records, as its
// level allows).
func TestEveryClientCheckBothWays(t *testing.T) {
	var ids []string
	for _, ch := range checks.ClientChecks() {
		ids = append(ids, ch.ID)
	}
	if missing := lackingBothWays(ids, allClientCases(t), func(path string) []want { return loadClientCase(t, path).wants }); len(missing) > 0 {
		t.Errorf("%d client checks lack a recorded case in one direction:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
}

// TestLegalClientsPass: a client that does something legal but unusual
// (pipelined requests, string ids, _meta everywhere, no capabilities,
// reconnecting) draws no fail, warn or error from any check, and at least
// one of its results passes.
func TestLegalClientsPass(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "client-legal", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 5 {
		t.Fatalf("found %d legal client cases, want at least 5", len(paths))
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			c := loadClientCase(t, path)
			var passed []string
			for _, r := range c.results() {
				switch r.Verdict {
				case reports.Fail, reports.Warn, reports.Error:
					t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
				case reports.Pass:
					passed = append(passed, r.ID)
				}
			}
			t.Logf("passed: %s", strings.Join(passed, ", "))
			if len(passed) == 0 {
				t.Errorf("%s: nothing passed: the case judges nothing", path)
			}
		})
	}
}

// TestClientLayout: a client check is defined in client_<family>.go (or
// client_<family>_*.go) of its requirement's family, so that a
// requirement id leads to its file; ids are unique and distinct from the
// server checks'.
func TestClientLayout(t *testing.T) {
	seen := map[string]bool{}
	for _, ch := range checks.All() {
		seen[ch.ID] = true
	}
	for _, ch := range checks.ClientChecks() {
		if seen[ch.ID] {
			t.Errorf("client check %s: the id is taken", ch.ID)
		}
		seen[ch.ID] = true
		want := "client_" + checks.FileFamily(ch.Requirement)
		file := strings.TrimSuffix(ch.File(), ".go")
		if file != want && !strings.HasPrefix(file, want+"_") {
			t.Errorf("%s judges %s and is defined in %s.go; it belongs in %s.go", ch.ID, ch.Requirement, file, want)
		}
		if !strings.HasPrefix(ch.ID, "client-") {
			t.Errorf("client check %s: its id does not start with client-", ch.ID)
		}
	}
}

// TestClientCoverage: every requirement that binds a client is judged by
// a client check or carries the reason none can judge it, and no
// requirement a client check judges says it is untested.
func TestClientCoverage(t *testing.T) {
	judged := map[string]bool{}
	for _, c := range checks.ClientChecks() {
		judged[c.Requirement] = true
	}
	for _, r := range catalog.All() {
		switch {
		case judged[r.ID] && r.Untested != "":
			t.Errorf("%s is judged by a client check, but the catalogue says: %s", r.ID, r.Untested)
		case r.Role == "client" && !judged[r.ID] && r.Untested == "":
			t.Errorf("%s is a client's obligation with neither a client check nor a reason it cannot be judged", r.ID)
		}
	}
}
