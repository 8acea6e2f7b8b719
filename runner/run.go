package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/schema"
	"github.com/mcpconform/mcpconform/suite"
	executor "github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// DefaultServerRequestWindow is Config.ServerRequestWindow when zero.
const DefaultServerRequestWindow = executor.ServerRequestWindow

// Run runs the suite with cfg against its server and judges it: New, then
// Runner.Run.
func Run(ctx context.Context, cfg Config) (*reports.Report, Outcome, error) {
	r, err := New(cfg)
	if err != nil {
		return nil, Outcome{}, err
	}
	return r.Run(ctx)
}

// Run drives the server, records what it does and judges it. Cancelling
// ctx (a signal: its cause says which) cuts the run short: what was
// recorded is judged, and the report is partial. An error is a
// configuration error found on the way; a server that cannot start is
// judged, with Outcome NotStarted.
func (r *Runner) Run(ctx context.Context) (*reports.Report, Outcome, error) {
	started := time.Now()
	run, err := r.record(ctx)
	if err != nil {
		return nil, Outcome{}, err
	}
	if r.cfg.Recorded != nil {
		r.cfg.Recorded(run)
	}
	if ctx.Err() != nil {
		// A signal cut the recording: what it gathered is judged all the
		// same (within the judging budget), so that a failure observed is
		// reported as one and the checks left without evidence say why.
		ctx = context.WithoutCancel(ctx)
	}
	if r.cfg.RunTimeout > 0 {
		// Judging is part of the run: --run-timeout bounds it too.
		ctx = context.WithValue(ctx, runDeadlineKey{}, started.Add(r.cfg.RunTimeout))
	}
	return r.Judge(ctx, run)
}

// runDeadlineKey carries, in the context Judge gets from Run, when the
// run's --run-timeout passes.
type runDeadlineKey struct{}

// minJudgeTime is the least judging gets of a run that used all its
// --run-timeout recording: what was recorded is judged, not thrown away.
const minJudgeTime = time.Second

// judgeBudget returns how long judging may take, and what to call it when
// it takes longer: the judging budget, or what is left of the run's
// deadline (but at least minJudgeTime) when that is less.
func judgeBudget(judgeTimeout, runTimeout time.Duration, deadline, now time.Time) (time.Duration, string) {
	if !deadline.IsZero() {
		if left := max(deadline.Sub(now), minJudgeTime); left < judgeTimeout {
			return left, fmt.Sprintf("the run, judging included, took longer than --run-timeout %s", runTimeout)
		}
	}
	return judgeTimeout, fmt.Sprintf("judging took longer than %s", judgeTimeout)
}

// record drives the server within cfg.RunTimeout and returns the evidence.
func (r *Runner) record(parent context.Context) (*evidence.Run, error) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if r.cfg.RunTimeout > 0 {
		ctx, cancel = context.WithTimeout(parent, r.cfg.RunTimeout)
	}
	defer cancel()
	cfg := r.cfg
	want := wanted(r.onlySel, r.skipSel, r.catalogue)
	var err error
	ecfg := executor.Config{
		Command:        cfg.Command,
		Dir:            cfg.Dir,
		Env:            transport.Environment(cfg.Env, cfg.InheritEnv),
		Timeout:        cfg.Timeout,
		StartTimeout:   cfg.StartTimeout,
		Grace:          cfg.Grace,
		RequestWindow:  cfg.ServerRequestWindow,
		MaxMessageSize: cfg.MaxMessageSize,
		SpecVersion:    cfg.SpecVersion,
		Vectors:        cfg.Vectors,
		Parallel:       cfg.Parallel,
		Tests:          want,
		Needs:          suite.Needs(want),
		Tool:           cfg.Tool,
		CallTools:      cfg.CallTools,
	}
	var executed, planned atomic.Int64
	ecfg.Progress = func(done, total int, _ string) {
		executed.Store(int64(done))
		planned.Store(int64(total))
	}
	if ecfg.HTTP, err = httpTarget(cfg); err != nil {
		return nil, err
	}
	name := cfg.Name
	switch {
	case name != "":
	case cfg.URL != "":
		name = cfg.URL
	default:
		name = strings.Join(cfg.Command, " ")
	}
	if want == nil || want(schemaCheck) {
		schema.Prepare(schemaVersions(cfg.SpecVersion)...)
	}
	stopIndicator := runningIndicator(cfg.Terminal, name, &executed, &planned)
	run, err := executor.Execute(ctx, ecfg)
	stopIndicator()
	if err != nil {
		return nil, err
	}
	if why := interruption(parent); why != "" {
		run.Interrupted = why
	} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		run.Interrupted = fmt.Sprintf("the run took longer than --run-timeout %s", cfg.RunTimeout)
	}
	run.Only, run.Skip = cfg.Only, cfg.Skip
	for _, f := range cfg.Vectors {
		run.Vectors = append(run.Vectors, evidence.VectorFile{Name: f.Path, JSON: f.Raw})
	}
	return run, nil
}

// schemaCheck is the check that judges every message by its schema.
const schemaCheck = "schema-valid"

// schemaVersions are the versions whose schemas a run asking for
// specVersion will judge by, as far as it can tell before it starts: the
// newest handshake version by default, every version for "all".
func schemaVersions(specVersion string) []string {
	switch {
	case specVersion == "":
		return []string{wire.Newest}
	case specVersion == "all":
		return wire.AllVersions
	case wire.KnownVersion(specVersion):
		return []string{specVersion}
	}
	return nil
}

// interruption says why ctx was cancelled (its cause: a signal), or ""
// while it is not.
func interruption(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	c := context.Cause(ctx)
	if errors.Is(c, context.Canceled) {
		return "interrupted"
	}
	return c.Error()
}
