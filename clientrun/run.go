package clientrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// The contract's environment variables.
const (
	EnvScenario        = "MCP_CONFORMANCE_SCENARIO"
	EnvProtocolVersion = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	EnvContext         = "MCP_CONFORMANCE_CONTEXT"
	EnvServerCommand   = "MCP_CONFORMANCE_SERVER_COMMAND"
)

// DefaultScenarioTimeout is the contract's deadline for one scenario.
const DefaultScenarioTimeout = 30 * time.Second

// Config says how to run a client under test.
type Config struct {
	// Command is the client's argv.
	Command []string
	// Dir is its working directory ("" the caller's).
	Dir string
	// Env are KEY=VALUE pairs added to the environment the client
	// inherits (the caller's whole environment: a client is a program
	// the user runs, with its toolchain and settings).
	Env []string
	// Mock is the argv that starts the recording mock, without its
	// flags: typically the mcpconform executable and "mock". Over HTTP
	// the mock is served in this process and Mock is not used.
	Mock []string
	// Transport is how the client reaches the mock: evidence.TransportStdio
	// ("" too), the client starts it from MCP_CONFORMANCE_SERVER_COMMAND,
	// or evidence.TransportHTTP, the client is given the URL of a mock
	// served on 127.0.0.1 as its last argument (and no
	// MCP_CONFORMANCE_SERVER_COMMAND).
	Transport string
	// Scenarios selects scenarios by name (nil: every one).
	Scenarios []string
	// Versions are the protocol versions to ask for
	// (MCP_CONFORMANCE_PROTOCOL_VERSION), each scenario run once per
	// version; nil asks for none (the SDK's newest). A scenario bound to
	// one version runs under that version only.
	Versions []string
	// Interop adds, after the conformance runs, a run of every scenario
	// against each legal variant of the mock that serves a version the
	// client used in it (Variants lists them); Resilience a run against
	// each fault (Faults lists them, each with its scenario).
	Interop    bool
	Variants   []VariantRun
	Resilience bool
	Faults     []FaultRun
	// Parallel bounds the clients running at once (0: the number of CPUs).
	Parallel int
	// ScenarioTimeout is each scenario's deadline (0: 30 s).
	ScenarioTimeout time.Duration
	// Grace is how long the client is given to exit after its stdin is
	// closed, at its deadline, before SIGTERM (0: 2 s).
	Grace time.Duration
	// WorkDir holds the evidence streams ("" a temporary directory,
	// removed at the end).
	WorkDir string
	// Tool is the version of mcpconform, written in the evidence.
	Tool string
	// Started is called as each scenario run starts, Finished as it ends
	// (both may be nil), for progress.
	Started  func(sc *evidence.ScenarioRun)
	Finished func(sc *evidence.ScenarioRun)
}

// VariantRun is a legal variant of the mock that interoperability runs
// use, and the versions it serves (nil: every version).
type VariantRun struct {
	Name     string
	Versions []string
}

// FaultRun is a fault of the mock that resilience runs use, with the
// scenario that shows it.
type FaultRun struct {
	Name     string
	Scenario string
}

// ErrNoScenario is a selection that names no known scenario.
var ErrNoScenario = errors.New("no such scenario")

// Plan returns the scenario runs cfg asks for, in report order, not yet
// run: conformance, then resilience. Interoperability runs depend on the
// versions the conformance runs used (InteropPlan).
func Plan(cfg Config) ([]*evidence.ScenarioRun, error) {
	picked, err := pick(cfg.Scenarios)
	if err != nil {
		return nil, err
	}
	picked, err = onTransport(picked, cfg.Transport, len(cfg.Scenarios) > 0)
	if err != nil {
		return nil, err
	}
	versions := cfg.Versions
	if len(versions) == 0 {
		versions = []string{""}
	}
	var out []*evidence.ScenarioRun
	for _, sc := range picked {
		for _, v := range scenarioVersions(sc, versions) {
			out = append(out, newRun(sc, v, evidence.ClassConformance))
		}
	}
	if cfg.Resilience {
		for _, f := range cfg.Faults {
			sc, ok := ScenarioNamed(f.Scenario)
			if !ok || (len(cfg.Scenarios) > 0 && !slices.Contains(cfg.Scenarios, sc.Name)) || sc.NotOn(cfg.Transport) != "" {
				continue
			}
			for _, v := range scenarioVersions(sc, versions) {
				r := newRun(sc, v, evidence.ClassResilience)
				r.Fault = f.Name
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// InteropPlan returns a run of each conformance run's scenario against
// every legal variant that serves the versions the client used in it
// (a variant of versions it does not speak is left out, and so are the
// scenarios whose client never got as far as a version, the timed
// scenarios, and the variants the scenario's own mock setup excludes or
// that take away what it needs).
func InteropPlan(done []*evidence.ScenarioRun, variants []VariantRun) []*evidence.ScenarioRun {
	var out []*evidence.ScenarioRun
	for _, c := range done {
		if c.Class != evidence.ClassConformance {
			continue
		}
		sc, ok := ScenarioNamed(c.Name)
		if !ok || sc.Timed {
			continue
		}
		used := usedVersions(c)
		if len(used) == 0 {
			continue
		}
		for _, vr := range variants {
			if len(vr.Versions) > 0 && !slices.ContainsFunc(used, func(v string) bool { return slices.Contains(vr.Versions, v) }) {
				continue
			}
			if slices.Contains(sc.Unfit, vr.Name) || validateVariants(append(slices.Clone(sc.Mock.Variants), vr.Name)) != nil {
				continue // it cannot be combined with what the scenario's mock does
			}
			r := newRun(sc, c.Version, evidence.ClassInteroperability)
			r.Variant = vr.Name
			out = append(out, r)
		}
	}
	return out
}

// usedVersions are the versions a run's spawns negotiated.
func usedVersions(sc *evidence.ScenarioRun) []string {
	var out []string
	for _, sp := range sc.Spawns {
		if sp.Version != "" && !slices.Contains(out, sp.Version) {
			out = append(out, sp.Version)
		}
	}
	return out
}

// newRun is a scenario run not yet run.
func newRun(sc Scenario, v, class string) *evidence.ScenarioRun {
	ctx := map[string]any{"name": sc.Name}
	for k, val := range sc.Context {
		ctx[k] = val
	}
	raw, _ := json.Marshal(ctx)
	return &evidence.ScenarioRun{Name: sc.Name, Version: v, Context: raw, Class: class}
}

// pick returns the scenarios named (nil: every one).
func pick(names []string) ([]Scenario, error) {
	if len(names) == 0 {
		return Scenarios(), nil
	}
	var picked []Scenario
	for _, name := range names {
		sc, ok := ScenarioNamed(name)
		if !ok {
			return nil, fmt.Errorf("%w %q (mcpconform client --list lists them)", ErrNoScenario, name)
		}
		picked = append(picked, sc)
	}
	return picked, nil
}

// scenarioVersions are the versions a scenario runs under.
func scenarioVersions(sc Scenario, asked []string) []string {
	if sc.Version != "" {
		return []string{sc.Version}
	}
	if sc.DefaultVersion != "" && len(asked) == 1 && asked[0] == "" {
		return []string{sc.DefaultVersion}
	}
	return asked
}

// Run runs the client once per planned scenario, at most cfg.Parallel at
// once, each under its own deadline, process group and recording mock, and
// returns what was observed. Cancelling ctx stops the clients still
// running (their runs say so) and skips those not started; the run then
// says why it was cut short.
func Run(ctx context.Context, cfg Config) (*evidence.ClientRun, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("no client command")
	}
	if len(cfg.Mock) == 0 && !isHTTP(cfg.Transport) {
		return nil, errors.New("no recording mock command")
	}
	plan, err := Plan(cfg)
	if err != nil {
		return nil, err
	}
	work := cfg.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "mcpconform-client-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	transport := evidence.TransportStdio
	if isHTTP(cfg.Transport) {
		transport = evidence.TransportHTTP
	}
	run := &evidence.ClientRun{
		Format: 1, Tool: cfg.Tool, Transport: transport,
		Command: slices.Clone(cfg.Command), Started: time.Now(), Scenarios: plan,
	}
	execute(ctx, cfg, plan, work, parallel, 0)
	if cfg.Interop && ctx.Err() == nil {
		more := InteropPlan(plan, cfg.Variants)
		execute(ctx, cfg, more, work, parallel, len(plan))
		run.Scenarios = append(run.Scenarios, more...)
	}
	run.Duration = time.Since(run.Started)
	if ctx.Err() != nil {
		run.Interrupted = interruption(ctx)
	}
	return run, nil
}

// execute runs the scenario runs, at most parallel at once; offset
// numbers their evidence directories after earlier ones.
func execute(ctx context.Context, cfg Config, runs []*evidence.ScenarioRun, work string, parallel, offset int) {
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, sc := range runs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			sc.Client.Stopped = "not run: " + interruption(ctx)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if cfg.Started != nil {
				cfg.Started(sc)
			}
			runScenario(ctx, cfg, sc, filepath.Join(work, fmt.Sprintf("%03d-%s", offset+i+1, sc.Name)))
			if cfg.Finished != nil {
				cfg.Finished(sc)
			}
		}()
	}
	wg.Wait()
}

// interruption says why ctx ended.
func interruption(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		return cause.Error()
	}
	return "the run was interrupted"
}

// MockArgv is the recording mock's argv for a scenario run: mock, then
// its flags, evidence written into dir.
func MockArgv(mock []string, sc *evidence.ScenarioRun, dir string) []string {
	argv := append(slices.Clone(mock), "--scenario", sc.Name, "--evidence", dir)
	if sc.Version != "" {
		argv = append(argv, "--protocol-version", sc.Version)
	}
	if sc.Variant != "" {
		argv = append(argv, "--variant", sc.Variant)
	}
	if sc.Fault != "" {
		argv = append(argv, "--fault", sc.Fault)
	}
	return argv
}

// mockConfigOf is the recording mock's setup for a scenario run, as
// MockArgv gives it to a mock of its own process.
func mockConfigOf(sc *evidence.ScenarioRun) MockConfig {
	c := MockConfig{Scenario: sc.Name, ProtocolVersion: sc.Version}
	if sc.Variant != "" {
		c.Variants = []string{sc.Variant}
	}
	if sc.Fault != "" {
		c.Faults = []string{sc.Fault}
	}
	return c
}

// ContractEnv is the contract's environment for a scenario run whose
// recording mock is started by mockArgv (nil over HTTP: the client is
// given the mock's URL as its last argument instead).
func ContractEnv(sc *evidence.ScenarioRun, mockArgv []string) []string {
	env := []string{
		EnvScenario + "=" + sc.Name,
		EnvContext + "=" + string(sc.Context),
	}
	if mockArgv != nil {
		server, _ := json.Marshal(mockArgv)
		env = append(env, EnvServerCommand+"="+string(server))
	}
	if sc.Version != "" {
		env = append(env, EnvProtocolVersion+"="+sc.Version)
	}
	return env
}

// runScenario runs the client for one scenario and fills sc in.
func runScenario(ctx context.Context, cfg Config, sc *evidence.ScenarioRun, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		sc.Client.StartError = err.Error()
		return
	}
	timeout := cfg.ScenarioTimeout
	if timeout <= 0 {
		timeout = DefaultScenarioTimeout
	}
	grace := cfg.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	argv := cfg.Command
	var env []string
	var mock *HTTPMock
	if isHTTP(cfg.Transport) {
		var err error
		mock, err = StartHTTPMock(ctx, mockConfigOf(sc))
		if err != nil {
			sc.Client.StartError = "starting the recording mock: " + err.Error()
			return
		}
		argv = append(slices.Clone(cfg.Command), mock.URL)
		env = clientEnv(cfg.Env, ContractEnv(sc, nil))
	} else {
		env = clientEnv(cfg.Env, ContractEnv(sc, MockArgv(cfg.Mock, sc, dir)))
	}
	started := time.Now()
	rec := transcript.New(started, transcript.Limits{})
	client, err := transport.Command{Argv: argv, Dir: cfg.Dir, Env: env}.Launch(rec)
	if err != nil {
		sc.Client.StartError = strings.TrimPrefix(err.Error(), transport.ErrStart.Error()+": ")
		if mock != nil {
			mock.Close()
		}
		return
	}
	sc.Client.Pid = client.Pid()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-client.Done():
	case <-deadline.C:
		sc.Client.Stopped = fmt.Sprintf("its scenario deadline (%s) passed", timeout)
	case <-ctx.Done():
		sc.Client.Stopped = interruption(ctx)
		client.Hurry()
	}
	end := client.Close(grace)
	sc.Client.Duration = time.Since(started)
	if sc.Client.Stopped == "" {
		ev := end.Event()
		sc.Client.Exit = &ev
	}
	for _, st := range client.Strays() {
		sc.Client.Strays = append(sc.Client.Strays, st.String())
	}
	sc.Client.StdoutTail = client.StdoutTail()
	sc.Client.StderrTail = client.StderrTail()
	if mock != nil {
		if sp := mock.Close(); sp != nil {
			sc.Spawns = []*evidence.Spawn{sp}
		}
		return
	}
	spawns, err := ReadSpawns(dir)
	if err != nil {
		sc.Client.StderrTail = append(sc.Client.StderrTail, "mcpconform: reading the evidence: "+err.Error())
	}
	sc.Spawns = spawns
}

// isHTTP reports whether a transport name is Streamable HTTP.
func isHTTP(transport string) bool { return transport == evidence.TransportHTTP }

// onTransport keeps the scenarios that can run over the transport; a
// scenario named that cannot is an error.
func onTransport(picked []Scenario, transport string, named bool) ([]Scenario, error) {
	var out []Scenario
	for _, sc := range picked {
		why := sc.NotOn(transport)
		switch {
		case why == "":
			out = append(out, sc)
		case named:
			return nil, fmt.Errorf("%w %q over %s: %s", ErrNoScenario, sc.Name, transportName(transport), why)
		}
	}
	return out, nil
}

func transportName(t string) string {
	if t == "" {
		return evidence.TransportStdio
	}
	return t
}

// clientEnv is the client's environment: the caller's, without any
// contract variable of its own, then extra and the contract's.
func clientEnv(extra, contract []string) []string {
	var env []string
	for _, kv := range transport.Environment(nil, true) {
		if !strings.HasPrefix(kv, "MCP_CONFORMANCE_") {
			env = append(env, kv)
		}
	}
	return append(append(env, extra...), contract...)
}
