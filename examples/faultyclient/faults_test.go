package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
)

// The test binary is also the recording mock the faulty client spawns:
// `<test binary> recording-mock --evidence DIR [flags]` is the recording
// mock of `mcpconform client` (clientrun.MockMain), so that the test needs
// no mcpconform binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "recording-mock" {
		os.Exit(clientrun.MockMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// clientRun runs the faulty client once and returns what the recording
// mock saw, as a client run of one scenario.
func clientRun(t *testing.T, bin string, flags []string, scenario, version, ctxJSON string, server []string) *evidence.ClientRun {
	t.Helper()
	dir := t.TempDir()
	argv := append([]string{os.Args[0], "recording-mock", "--evidence", dir}, server...)
	cmdJSON, _ := json.Marshal(argv)
	if ctxJSON == "" {
		ctxJSON = fmt.Sprintf(`{"name":%q}`, scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, flags...)
	cmd.Env = append(os.Environ(), "MCP_CONFORMANCE_SCENARIO="+scenario, "MCP_CONFORMANCE_SERVER_COMMAND="+string(cmdJSON), "MCP_CONFORMANCE_CONTEXT="+ctxJSON)
	if version != "" {
		cmd.Env = append(cmd.Env, "MCP_CONFORMANCE_PROTOCOL_VERSION="+version)
	}
	sc := &evidence.ScenarioRun{Name: scenario, Version: version, Context: json.RawMessage(ctxJSON), Class: evidence.ClassConformance,
		Client: runClient(ctx, t, cmd)}
	spawns, err := clientrun.ReadSpawns(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc.Spawns = spawns
	return &evidence.ClientRun{Format: 1, Transport: evidence.TransportStdio, Command: append([]string{bin}, flags...), Scenarios: []*evidence.ScenarioRun{sc}}
}

// runClient runs the client command and says how it ended.
func runClient(ctx context.Context, t *testing.T, cmd *exec.Cmd) evidence.ClientProcess {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var c evidence.ClientProcess
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		c.Stopped = "the test's deadline passed"
	case err == nil:
		c.Exit = &transcript.Exit{Stage: transcript.BeforeShutdown}
	case errors.As(err, &exitErr):
		c.Exit = &transcript.Exit{Stage: transcript.BeforeShutdown, Code: exitErr.ExitCode()}
	default:
		t.Fatalf("running the client: %v", err)
	}
	if tail := strings.TrimSpace(stderr.String()); tail != "" {
		c.StderrTail = strings.Split(tail, "\n")
	}
	return c
}

// clientRunHTTP runs the faulty client once over Streamable HTTP, given
// the URL of the recording mock served in this process, and returns what
// the mock saw. server holds the mock's --variant, --fault and --ask
// flags.
func clientRunHTTP(t *testing.T, bin string, flags []string, scenario, version string, server []string) *evidence.ClientRun {
	t.Helper()
	mc := clientrun.MockConfig{Scenario: scenario, ProtocolVersion: version}
	for i := 0; i+1 < len(server); i += 2 {
		switch server[i] {
		case "--variant":
			mc.Variants = append(mc.Variants, server[i+1])
		case "--fault":
			mc.Faults = append(mc.Faults, server[i+1])
		case "--ask":
			mc.Ask = append(mc.Ask, server[i+1])
		default:
			t.Fatalf("server flag %s: not one the HTTP mock takes", server[i])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mock, err := clientrun.StartHTTPMock(ctx, mc)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append(slices.Clone(flags), mock.URL)...)
	cmd.Env = append(os.Environ(), "MCP_CONFORMANCE_SCENARIO="+scenario, fmt.Sprintf(`MCP_CONFORMANCE_CONTEXT={"name":%q}`, scenario))
	if version != "" {
		cmd.Env = append(cmd.Env, "MCP_CONFORMANCE_PROTOCOL_VERSION="+version)
	}
	sc := &evidence.ScenarioRun{Name: scenario, Version: version, Context: json.RawMessage(fmt.Sprintf(`{"name":%q}`, scenario)), Class: evidence.ClassConformance,
		Client: runClient(ctx, t, cmd)}
	if sp := mock.Close(); sp != nil {
		sc.Spawns = []*evidence.Spawn{sp}
	}
	return &evidence.ClientRun{Format: 1, Transport: evidence.TransportHTTP, Command: append([]string{bin}, flags...), Scenarios: []*evidence.ScenarioRun{sc}}
}

// buildClient builds the faulty client once.
func buildClient(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "faultyclient")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// levelOf is the verdict breaking requirement id costs a client in
// version v, by the catalogue.
func levelOf(t *testing.T, id, v string) reports.Verdict {
	r, ok := catalog.Get(id)
	if !ok {
		t.Fatalf("no requirement %s", id)
	}
	st, ok := r.In(v)
	if !ok || !r.Binds(catalog.PartyClient) {
		return reports.Info
	}
	return reports.Verdict(catalog.SeverityOf(st.Level))
}

func describe(results []reports.Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Verdict != reports.Pass && r.Verdict != reports.Skip {
			fmt.Fprintf(&b, "\n  %s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
	return b.String()
}

// logRun shows what the recording mock saw, for a failure.
func logRun(t *testing.T, run *evidence.ClientRun) {
	for _, sc := range run.Scenarios {
		t.Logf("client: exit %v, stopped %q, stderr %q", sc.Client.Exit, sc.Client.Stopped, sc.Client.StderrTail)
		for _, sp := range sc.Spawns {
			t.Logf("spawn %d:\n%s", sp.ID, transcript.FormatText(sp.Transcript.Entries()))
		}
	}
}

// TestEveryFaultIsDetected: every fault of the faulty client is reported
// under each requirement it declares, at the level the catalogue gives it
// in the version the client used, and draws no fail, warn or error under
// any other requirement.
func TestEveryFaultIsDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client once per fault")
	}
	bin := buildClient(t)
	covered := map[string]bool{}
	ran := 0
	for _, f := range Faults {
		t.Run(f.Name, func(t *testing.T) {
			ran++
			var run *evidence.ClientRun
			if f.HTTP {
				run = clientRunHTTP(t, bin, []string{"-fault", f.Name}, f.Scenario, f.Version, f.Server)
			} else {
				run = clientRun(t, bin, []string{"-fault", f.Name}, f.Scenario, f.Version, f.Context, f.Server)
			}
			for _, b := range f.Breaks {
				covered[b] = true
			}
			checkFault(t, f, run)
		})
	}
	if ran < len(Faults) {
		return // a selection of faults ran
	}
	// Every client check's requirement that a client can break on the
	// wire has a fault, but those whose breaking needs a server this
	// recorder does not play (a sampled or elicited answer of the wrong
	// shape, inputs for an input request, a retry after an unsupported
	// version) and the ones that only record or need no client at all.
	for _, c := range checks.ClientChecks() {
		if !covered[c.Requirement] && c.Requirement != "RES-LC-04" && c.Requirement != "STDIO-01" && c.Requirement != "HTTP-34" &&
			!slices.Contains([]string{"SAMP-02", "ELIC-01", "ELIC-02", "MRTR-06", "LIFE-33", "JSONRPC-18"}, c.Requirement) {
			t.Errorf("no fault of the faulty client breaks %s (%s)", c.Requirement, c.ID)
		}
	}
}

// TestServerRequestFaultsOverHTTP: the faults that show in the answers
// to the server's requests show over Streamable HTTP too, the asks put on
// the client's GET stream.
func TestServerRequestFaultsOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client once per fault")
	}
	bin := buildClient(t)
	n := 0
	for _, f := range Faults {
		if f.HTTP || !asks(f.Server) {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			checkFault(t, f, clientRunHTTP(t, bin, []string{"-fault", f.Name}, f.Scenario, f.Version, f.Server))
		})
	}
	if n == 0 {
		t.Error("no fault of the server's requests")
	}
}

// asks reports whether the mock's flags have it ask the client.
func asks(server []string) bool { return slices.Contains(server, "--ask") }

// checkFault checks that run shows fault f under each requirement it
// declares, at its level, and under no other.
func checkFault(t *testing.T, f Fault, run *evidence.ClientRun) {
	t.Helper()
	results := checks.JudgeClientRun(run)
	for _, b := range f.Breaks {
		found := false
		for _, r := range results {
			if r.Requirement == b && r.Verdict != reports.Pass && r.Verdict != reports.Skip {
				found = true
				if want := levelOf(t, b, r.ProtocolVersion); r.Verdict != want {
					t.Errorf("%s reported under %s as %s, want %s: %s", r.ID, b, r.Verdict, want, r.Message)
				}
			}
		}
		if !found {
			t.Errorf("nothing reported under %s; results:%s", b, describe(results))
		}
	}
	defer func() {
		if t.Failed() {
			logRun(t, run)
		}
	}()
	for _, r := range results {
		switch r.Verdict {
		case reports.Fail, reports.Warn, reports.Error:
			if !slices.Contains(f.Breaks, r.Requirement) {
				t.Errorf("undeclared: %s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
			}
		}
	}
}

// correct is the correct client in every scenario it can do, each with a
// server that gives the scenario something to judge.
var correct = []struct {
	scenario, version, context string
	server                     []string
}{
	{"initialize", "", "", nil},
	{"initialize", "2024-11-05", "", nil},
	{"initialize", "2025-03-26", "", nil},
	{"initialize", "2025-06-18", "", nil},
	{"tools_call", "", "", []string{"--fixture", filepath.Join("..", "everything", "testdata", "add-numbers.json")}},
	{"resources", "", "", nil},
	{"resources", "2026-07-28", "", []string{"--variant", "empty-string-cursor"}},
	{"prompts", "", "", nil},
	{"list-changed", "", "", []string{"--notify", "notifications/tools/list_changed"}},
	{"server-requests", "", "", []string{"--variant", "server-pings", "--ask", "roots/list", "--ask", "sampling/createMessage", "--ask", "elicitation/create"}},
	{"cancellation", "", `{"name":"cancellation","timeoutMs":300}`, []string{"--fault", "hang-on-read"}},
	{"shutdown", "", "", []string{"--ignore-eof", "--ignore-sigterm"}},
	{"version-negotiation", "", "", []string{"--variant", "only-2024-11-05"}},
	{"version-negotiation", "", "", []string{"--counter-offer", "1999-01-01"}},
	{"request-metadata", "2026-07-28", "", nil},
	{"sep-2322-client-request-state", "2026-07-28", "", []string{"--variant", "input-required-retry"}},
}

// correctHTTP is the correct client over Streamable HTTP, in the
// scenarios the HTTP mock serves.
var correctHTTP = []struct {
	scenario, version string
	server            []string
}{
	{"initialize", "", nil},
	{"initialize", "2025-03-26", nil},
	{"initialize", "2025-06-18", nil},
	{"initialize", "", []string{"--variant", "http-json-responses"}},
	{"initialize", "", []string{"--variant", "http-stateless"}},
	{"resources", "", nil},
	{"prompts", "", nil},
	{"list-changed", "", nil},
	{"server-requests", "", nil},
	{"server-requests", "", []string{"--variant", "http-json-responses"}},
	{"server-requests", "", []string{"--variant", "http-no-get-stream"}},
	{"session-expiry", "", []string{"--variant", "http-session-expires"}},
	{"request-metadata", "2026-07-28", nil},
	{"sep-2322-client-request-state", "2026-07-28", []string{"--variant", "input-required-retry"}},
}

// TestCorrectAndLegalClientsPass: the faulty client without a fault, in
// every scenario, and each of its legal but unusual behaviours draw no
// fail, warn or error; each run passes something.
func TestCorrectAndLegalClientsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the client once per scenario and behaviour")
	}
	bin := buildClient(t)
	check := func(t *testing.T, run *evidence.ClientRun) {
		passed := 0
		for _, r := range checks.JudgeClientRun(run) {
			switch r.Verdict {
			case reports.Fail, reports.Warn, reports.Error:
				t.Errorf("%s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
			case reports.Pass:
				passed++
			}
		}
		if passed == 0 {
			t.Error("nothing passed: the run judged nothing")
		}
		if t.Failed() {
			logRun(t, run)
		}
	}
	for _, c := range correct {
		name := c.scenario + "/" + c.version + strings.Join(c.server, "")
		t.Run(name, func(t *testing.T) {
			check(t, clientRun(t, bin, nil, c.scenario, c.version, c.context, c.server))
		})
	}
	for _, c := range correctHTTP {
		t.Run("http/"+c.scenario+"/"+c.version+strings.Join(c.server, ""), func(t *testing.T) {
			check(t, clientRunHTTP(t, bin, nil, c.scenario, c.version, c.server))
		})
	}
	for _, l := range Legal {
		t.Run("legal/"+l.Name, func(t *testing.T) {
			if l.HTTP {
				check(t, clientRunHTTP(t, bin, []string{"-legal", l.Name}, l.Scenario, l.Version, l.Server))
				return
			}
			if asks(l.Server) {
				t.Run("http", func(t *testing.T) {
					check(t, clientRunHTTP(t, bin, []string{"-legal", l.Name}, l.Scenario, l.Version, l.Server))
				})
			}
			check(t, clientRun(t, bin, []string{"-legal", l.Name}, l.Scenario, l.Version, "", l.Server))
		})
	}
}
