package runner_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
)

func TestExitCodes(t *testing.T) {
	for status, want := range map[runner.Status]int{
		runner.Conformant:    0,
		runner.Nonconformant: 1,
		runner.Misconfigured: 2,
		runner.NotStarted:    3,
		runner.Incomplete:    4,
	} {
		if got := (runner.Outcome{Status: status}).ExitCode(); got != want {
			t.Errorf("status %d: got exit code %d, want %d", status, got, want)
		}
	}
}

// A server that cannot start is judged, not an error: the report says
// why, and the outcome is NotStarted.
func TestServerThatCannotStart(t *testing.T) {
	rep, out, err := runner.Run(context.Background(), runner.Config{Command: []string{"./no-such-server"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runner.NotStarted || out.ExitCode() != 3 {
		t.Errorf("got status %d, exit code %d; want NotStarted, 3", out.Status, out.ExitCode())
	}
	if rep.DidNotStart == nil || !strings.Contains(rep.DidNotStart.What, "could not be started") {
		t.Errorf("didNotStart: got %+v, want why the command could not be started", rep.DidNotStart)
	}
	if rep.Summary.Verdict != reports.ErrorVerdict {
		t.Errorf("verdict: got %q, want %q", rep.Summary.Verdict, reports.ErrorVerdict)
	}
}

// A tool the server does not list is a configuration error found only at
// discovery: nothing is judged, and the note says what it lists.
func TestCallToolsTheServerDoesNotList(t *testing.T) {
	cfg := runner.Config{
		Command:     []string{os.Args[0]},
		Env:         []string{serveEnv + "=1"},
		SpecVersion: "2025-11-25",
		CallTools:   plan.ToolPolicy{Mode: "names", Names: []string{"nope"}},
	}
	rep, out, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runner.Misconfigured || out.ExitCode() != 2 {
		t.Errorf("got status %d, exit code %d; want Misconfigured, 2", out.Status, out.ExitCode())
	}
	if len(out.Notes) != 1 || !strings.Contains(out.Notes[0], `lists no tool named "nope"`) || out.Notes[0] != rep.Interrupted {
		t.Errorf("notes: got %q, want one saying the server lists no tool named \"nope\", as the report does", out.Notes)
	}
	if len(rep.Results) != 0 {
		t.Errorf("got %d results, want none", len(rep.Results))
	}
}

// New refuses a selector that names no check, with the nearest name,
// before anything runs.
func TestNewRefusesUnknownSelectors(t *testing.T) {
	_, err := runner.New(runner.Config{Command: []string{"./never-started"}, Only: []string{"area:pingg"}})
	if err == nil || !strings.Contains(err.Error(), `--only "area:pingg" matches no check`) || !strings.Contains(err.Error(), "did you mean area:ping?") {
		t.Errorf("got %v, want --only \"area:pingg\" refused with area:ping suggested", err)
	}
}

// A default run calls no tool, and its report says which ones --call-tools
// readonly would call: the reference server annotates echo, add and logo
// readOnlyHint: true, and not delete_note or enable_extras.
func TestDefaultRunSaysWhatReadonlyWouldCall(t *testing.T) {
	cfg := runner.Config{
		Command:     []string{os.Args[0]},
		Env:         []string{serveEnv + "=1"},
		SpecVersion: "2025-11-25",
		Only:        []string{"area:tools"},
	}
	rep, _, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	would := map[string]bool{}
	for _, c := range rep.Target.ToolCalls {
		if c.Called {
			t.Errorf("%s was called by a default run", c.Name)
		}
		would[c.Name] = c.WouldCallReadonly
	}
	want := map[string]bool{"echo": true, "add": true, "logo": true, "delete_note": false, "enable_extras": false}
	if diff := cmp.Diff(want, would); diff != "" {
		t.Errorf("tools readonly would call (-want +got):\n%s", diff)
	}
	const text = "--call-tools readonly would call echo, add, logo (annotated readOnlyHint: true)"
	if got := rep.Target.ReadonlyText(); got != text {
		t.Errorf("ReadonlyText: got %q, want %q", got, text)
	}
	cfg.CallTools = plan.ToolPolicy{Mode: plan.CallReadOnly}
	if rep, _, err = runner.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := rep.Target.ReadonlyText(); got != "" {
		t.Errorf("with --call-tools readonly, ReadonlyText: got %q, want nothing", got)
	}
}

// TestRunTimeoutBoundsJudging: judging gets what is left of --run-timeout
// when that is less than its own budget, at least a second, and the cut
// names the flag; without a run deadline (judge) its own budget holds.
func TestRunTimeoutBoundsJudging(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		deadline time.Time
		want     time.Duration
		flag     bool
	}{
		{time.Time{}, time.Minute, false},
		{now.Add(10 * time.Second), 10 * time.Second, true},
		{now.Add(-5 * time.Second), time.Second, true},
		{now.Add(2 * time.Minute), time.Minute, false},
	} {
		got, why := runner.JudgeBudget(time.Minute, 10*time.Second, c.deadline, now)
		if got != c.want || strings.Contains(why, "--run-timeout 10s") != c.flag {
			t.Errorf("deadline %v: got %s (%q), want %s, naming the flag %v", c.deadline.Sub(now), got, why, c.want, c.flag)
		}
	}
}
