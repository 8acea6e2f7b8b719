package clientrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
)

// config runs the fake client with behaviour against the recording mock,
// both this test binary.
func config(behaviour string, scenarios ...string) Config {
	return Config{
		Command:   []string{os.Args[0], "fake-client", behaviour},
		Mock:      []string{os.Args[0], "recording-mock"},
		Scenarios: scenarios,
		Parallel:  2,
		Tool:      "test",
	}
}

func judged(t *testing.T, cfg Config) (*evidence.ClientRun, *reports.Report, Status) {
	t.Helper()
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, st := Report(run, checks.JudgeScenario, ReportOptions{Tool: "test"})
	return run, rep, st
}

// verdictOf returns the verdict of result id in rep, or "".
func verdictOf(rep *reports.Report, id string) reports.Verdict {
	for _, r := range rep.Results {
		if r.ID == id {
			return r.Verdict
		}
	}
	return ""
}

func TestRunJudgesACorrectClient(t *testing.T) {
	run, rep, st := judged(t, config("good", "initialize"))
	sc := run.Scenarios[0]
	if sc.Client.Exit == nil || sc.Client.Exit.Code != 0 {
		t.Fatalf("client exit %v (stopped %q), want status 0; stderr %q", sc.Client.Exit, sc.Client.Stopped, sc.Client.StderrTail)
	}
	if len(sc.Spawns) != 1 || sc.Spawns[0].Version != "2025-11-25" {
		t.Fatalf("got %d spawns, want 1 that negotiated 2025-11-25", len(sc.Spawns))
	}
	for _, r := range rep.Results {
		if r.Verdict == reports.Fail || r.Verdict == reports.Warn || r.Verdict == reports.Error {
			t.Errorf("%s %s: %s", r.Verdict, r.ID, r.Message)
		}
	}
	if st != Conformant || rep.Summary.Pass == 0 {
		t.Errorf("status %d with %d passes, want conformant with passes", st, rep.Summary.Pass)
	}
	if got := verdictOf(rep, "client-spawned-server"); got != reports.Pass {
		t.Errorf("client-spawned-server %q, want pass", got)
	}
	// The client's messages were judged against the schema: the report
	// names the commit and the schema of the version it used.
	if rep.Spec == nil || rep.Spec.Commit == "" || !slices.Contains(rep.Spec.Schemas, "schema/2025-11-25/schema.json") {
		t.Errorf("spec %+v, want the pinned commit and schema/2025-11-25/schema.json", rep.Spec)
	}
}

func TestRunFailsAClientThatNeverSpawns(t *testing.T) {
	_, rep, st := judged(t, config("never-spawn", "initialize"))
	if got := verdictOf(rep, "client-spawned-server"); got != reports.Fail {
		t.Errorf("client-spawned-server %q, want fail", got)
	}
	if st != Nonconformant || rep.Summary.Pass != 0 {
		t.Errorf("status %d with %d passes, want nonconformant with none", st, rep.Summary.Pass)
	}
}

func TestRunRecordsADeclinedScenario(t *testing.T) {
	run, rep, _ := judged(t, config("decline", "initialize"))
	if c := run.Scenarios[0].Client; c.Exit == nil || c.Exit.Code != 2 || len(c.StderrTail) == 0 {
		t.Errorf("client %+v, want exit status 2 and its stderr kept", c)
	}
	if got := verdictOf(rep, "client-spawned-server"); got != reports.Info {
		t.Errorf("client-spawned-server %q, want info (recorded, not judged)", got)
	}
	if rep.Summary.Fail != 0 || rep.Summary.Pass != 0 {
		t.Errorf("summary %+v, want nothing passed or failed", rep.Summary)
	}
}

func TestRunStopsAClientAtItsDeadline(t *testing.T) {
	cfg := config("hang", "initialize")
	cfg.ScenarioTimeout = 200 * time.Millisecond
	cfg.Grace = 50 * time.Millisecond
	run, rep, _ := judged(t, cfg)
	c := run.Scenarios[0].Client
	if c.Stopped == "" || c.Exit != nil {
		t.Errorf("client %+v, want stopped by the harness, no exit of its own", c)
	}
	if rep.Summary.Pass != 0 {
		t.Errorf("%d passes, want none", rep.Summary.Pass)
	}
}

func TestRunBoundsTheClientsAtOnce(t *testing.T) {
	cfg := config("never-spawn", "initialize", "resources", "prompts", "tools_call")
	cfg.Parallel = 1
	var now, most atomic.Int32
	cfg.Started = func(*evidence.ScenarioRun) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
	}
	cfg.Finished = func(*evidence.ScenarioRun) { now.Add(-1) }
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() != 1 || len(run.Scenarios) != 4 {
		t.Errorf("at most %d at once over %d runs, want 1 over 4", most.Load(), len(run.Scenarios))
	}
}

func TestRunInterruptedSaysSo(t *testing.T) {
	cfg := config("hang", "initialize", "resources", "prompts")
	cfg.Parallel = 1
	cfg.Grace = 50 * time.Millisecond
	ctx, cancel := context.WithCancelCause(context.Background())
	var once sync.Once
	cfg.Started = func(*evidence.ScenarioRun) { once.Do(func() { cancel(errors.New("interrupted (SIGINT)")) }) }
	run, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Interrupted != "interrupted (SIGINT)" {
		t.Errorf("interrupted %q", run.Interrupted)
	}
	for _, sc := range run.Scenarios {
		if sc.Client.Stopped == "" {
			t.Errorf("%s: not marked stopped", sc.Name)
		}
	}
	rep, st := Report(run, checks.JudgeScenario, ReportOptions{})
	if st != Incomplete || rep.Summary.Verdict != reports.ErrorVerdict {
		t.Errorf("status %d, verdict %s; want incomplete, error", st, rep.Summary.Verdict)
	}
}

func TestRunOfAClientThatCannotStart(t *testing.T) {
	cfg := config("good", "initialize")
	cfg.Command = []string{"./no-such-client"}
	_, rep, st := judged(t, cfg)
	if st != NotStarted || rep.DidNotStart == nil {
		t.Errorf("status %d, didNotStart %v; want not started", st, rep.DidNotStart)
	}
}

func TestPlan(t *testing.T) {
	if _, err := Plan(Config{Scenarios: []string{"nope"}}); !errors.Is(err, ErrNoScenario) {
		t.Errorf("unknown scenario: got %v, want ErrNoScenario", err)
	}
	plan, err := Plan(Config{Scenarios: []string{"initialize", "request-metadata"}, Versions: []string{"2025-03-26", "2025-11-25"},
		Resilience: true, Faults: []FaultRun{{Name: "cursor-loop", Scenario: "resources"}, {Name: "ping-not-empty", Scenario: "initialize"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range plan {
		got = append(got, r.Class+" "+r.Name+" "+r.Version+" "+r.Fault)
	}
	want := []string{
		"conformance initialize 2025-03-26 ", "conformance initialize 2025-11-25 ",
		"conformance request-metadata 2026-07-28 ",
		"resilience initialize 2025-03-26 ping-not-empty", "resilience initialize 2025-11-25 ping-not-empty",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

func TestInteropPlanSkipsVersionsTheClientDoesNotSpeak(t *testing.T) {
	done := []*evidence.ScenarioRun{
		{Name: "initialize", Class: evidence.ClassConformance, Spawns: []*evidence.Spawn{{Version: "2025-11-25"}}},
		{Name: "prompts", Class: evidence.ClassConformance}, // never spawned: nothing to compare with
	}
	variants := []VariantRun{{Name: "extra-members"}, {Name: "only-2024-11-05", Versions: []string{"2024-11-05"}},
		{Name: "log-notifications", Versions: []string{"2025-06-18", "2025-11-25"}}, {Name: "empty-string-cursor", Versions: []string{"2026-07-28"}},
		{Name: "no-such-variant"}}
	var got []string
	for _, r := range InteropPlan(done, variants) {
		got = append(got, r.Name+" "+r.Variant)
	}
	if want := []string{"initialize extra-members", "initialize log-notifications"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// classResults returns the results of rep labelled class:CLASS.
func classResults(rep *reports.Report, class string) []reports.Result {
	var out []reports.Result
	for _, r := range rep.Results {
		if slices.Contains(r.Labels, "class:"+class) {
			out = append(out, r)
		}
	}
	return out
}

func TestInteropReportedApart(t *testing.T) {
	cfg := config("picky", "initialize")
	cfg.Interop = true
	cfg.Variants = []VariantRun{{Name: "extra-members"}, {Name: "experimental-capability"}, {Name: "only-2024-11-05", Versions: []string{"2024-11-05"}}}
	run, rep, st := judged(t, cfg)
	if len(run.Scenarios) != 3 {
		t.Fatalf("%d runs, want the conformance run and two interop runs (only-2024-11-05 serves no version the client used)", len(run.Scenarios))
	}
	got := map[string]reports.Verdict{}
	for _, r := range classResults(rep, evidence.ClassInteroperability) {
		if r.ID == "client-interop-completes" {
			got[r.Labels[len(r.Labels)-1]] = r.Verdict
		}
	}
	want := map[string]reports.Verdict{"variant:extra-members": reports.Pass, "variant:experimental-capability": reports.Info}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("interop verdicts (-want +got):\n%s", diff)
	}
	if st != Conformant {
		t.Errorf("status %d: a client that gives up on a legal variant breaks no MUST, the conformance verdict stands; %v", st, problemsOf(rep))
	}
}

func TestResilienceReportedApart(t *testing.T) {
	cfg := config("good", "initialize")
	cfg.Resilience = true
	cfg.Faults = []FaultRun{{Name: "missing-server-info", Scenario: "initialize"}, {Name: "cursor-loop", Scenario: "resources"}}
	run, rep, st := judged(t, cfg)
	if len(run.Scenarios) != 2 || run.Scenarios[1].Fault != "missing-server-info" {
		t.Fatalf("runs %d, want the conformance run and one resilience run (resources not selected)", len(run.Scenarios))
	}
	res := classResults(rep, evidence.ClassResilience)
	if !slices.ContainsFunc(res, func(r reports.Result) bool { return r.ID == "client-resilience-copes" && r.Verdict == reports.Pass }) {
		t.Errorf("no passing client-resilience-copes among %d resilience results", len(res))
	}
	if st != Conformant {
		t.Errorf("status %d, want conformant", st)
	}

	cfg = config("hang", "initialize")
	cfg.Resilience, cfg.Faults = true, []FaultRun{{Name: "missing-server-info", Scenario: "initialize"}}
	cfg.ScenarioTimeout, cfg.Grace = 200*time.Millisecond, 50*time.Millisecond
	_, rep, _ = judged(t, cfg)
	res = classResults(rep, evidence.ClassResilience)
	if !slices.ContainsFunc(res, func(r reports.Result) bool { return r.ID == "client-resilience-copes" && r.Verdict == reports.Info }) {
		t.Errorf("a client stopped at its deadline: want client-resilience-copes info among %+v", res)
	}
}

func problemsOf(rep *reports.Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict == reports.Fail || r.Verdict == reports.Warn || r.Verdict == reports.Error {
			out = append(out, string(r.Verdict)+" "+r.ID+": "+r.Message)
		}
	}
	return out
}

func TestInteractiveBlockNamesTheRecordingMock(t *testing.T) {
	in := Interactive{Mock: []string{"/opt/mcpconform", "mock"}, Dir: "/var/rec", Scenario: "tools_call"}
	b, err := in.Block()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	srv := got["mcpServers"][ServerName]
	want := []string{"mock", "--scenario", "tools_call", "--evidence", "/var/rec"}
	if srv.Command != "/opt/mcpconform" || !slices.Equal(srv.Args, want) {
		t.Errorf("got %s %q, want /opt/mcpconform %q", srv.Command, srv.Args, want)
	}
}

func TestInteractiveJudgesTheSessionsRecorded(t *testing.T) {
	dir := t.TempDir()
	in := Interactive{Mock: []string{os.Args[0], "recording-mock"}, Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		run *evidence.ClientRun
		err error
	}
	done := make(chan result, 1)
	pr, pw := io.Pipe()
	go func() {
		run, err := in.Record(ctx, pw)
		done <- result{run, err}
	}()
	// The host: the block's server, spoken to by hand.
	var block map[string]map[string]struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.NewDecoder(pr).Decode(&block); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	srv := block["mcpServers"][ServerName]
	cmd, stdin, stdout := startMockArgv(t, srv.Command, srv.Args)
	io.WriteString(stdin, initLine+"\n")
	if _, err := stdout.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	stdin.Close()
	cmd.Wait()
	cancel() // the user's Ctrl-C, once the session is over
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.run.Interrupted != "" || len(r.run.Scenarios) != 1 || len(r.run.Scenarios[0].Spawns) != 1 {
		t.Fatalf("interrupted %q, %d scenarios; want one session, not an interruption", r.run.Interrupted, len(r.run.Scenarios))
	}
	rep, st := Report(r.run, checks.JudgeScenario, ReportOptions{})
	if st != Conformant || rep.Summary.Pass == 0 {
		t.Errorf("status %d, %d passes; problems %q", st, rep.Summary.Pass, problemsOf(rep))
	}
}

func TestResilienceAgainstAGarblingFaultFailsNothing(t *testing.T) {
	if !garbles("pretty-print") || garbles("missing-server-info") {
		t.Fatal("pretty-print is a fault of the mock's stdio framing, missing-server-info is not")
	}
	sc := &evidence.ScenarioRun{Name: "resources", Class: evidence.ClassResilience, Fault: "pretty-print"}
	in := []reports.Result{{ID: "client-cursor-opaque", Verdict: reports.Fail, Message: "a cursor the server never handed out"}}
	out := apart(sc, in)
	if out[0].Verdict != reports.Info {
		t.Errorf("under a garbling fault: %s, want info", out[0].Verdict)
	}
	if out[0].Area != evidence.ClassResilience {
		t.Errorf("area %q, want the class: its own section", out[0].Area)
	}
	sc.Fault = "missing-server-info"
	if out := apart(sc, in); out[0].Verdict != reports.Fail {
		t.Errorf("under another fault: %s, want the fail kept", out[0].Verdict)
	}
}

func TestRunEndsWhatAClientLeavesBehind(t *testing.T) {
	run, err := Run(context.Background(), config("escape", "initialize"))
	if err != nil {
		t.Fatal(err)
	}
	c := run.Scenarios[0].Client
	var pid int
	for _, l := range c.StdoutTail {
		fmt.Sscanf(l, "child %d", &pid)
	}
	if pid == 0 {
		t.Fatalf("the client named no child: stdout %q", c.StdoutTail)
	}
	if len(c.Strays) == 0 {
		t.Errorf("no stray recorded for child %d", pid)
	}
	// Gone, or a zombie of this process (a subreaper) at most.
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(stat), ") Z ") {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("child %d still running: %s", pid, stat)
	}
}

func TestRunBoundsWhatAFloodingClientWrites(t *testing.T) {
	run, err := Run(context.Background(), config("flood", "initialize"))
	if err != nil {
		t.Fatal(err)
	}
	c := run.Scenarios[0].Client
	if c.Exit == nil || len(c.StdoutTail) > 50 || len(c.StderrTail) > 50 {
		t.Errorf("exit %v, %d stdout and %d stderr lines kept; want an exit and at most 50 of each", c.Exit, len(c.StdoutTail), len(c.StderrTail))
	}
}
