package runner

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// Judge judges recorded evidence with cfg (a run saved with --evidence
// and loaded again): New, then Runner.Judge.
func Judge(ctx context.Context, run *evidence.Run, cfg Config) (*reports.Report, Outcome, error) {
	r, err := New(cfg)
	if err != nil {
		return nil, Outcome{}, err
	}
	return r.Judge(ctx, run)
}

// Judge judges the evidence of a run and returns the report and how it
// ended, without the values of Config.RedactEnv. A report is never more conformant than its evidence: every
// planned check is in it (one that was not judged is an error saying so),
// and a run cut short has the verdict "error" and its own outcome.
// Cancelling ctx cuts judging short as it cuts a run. It errs only when
// the vector files the evidence carries cannot be read.
func (r *Runner) Judge(ctx context.Context, run *evidence.Run) (*reports.Report, Outcome, error) {
	rep, out, err := r.judge(ctx, run)
	if err != nil {
		return nil, out, err
	}
	return redacted(rep, out, r.secrets)
}

func (r *Runner) judge(ctx context.Context, run *evidence.Run) (*reports.Report, Outcome, error) {
	cfg := r.cfg
	if run.Unlisted != nil {
		rep := unlistedReport(run, cfg.Tool)
		rep.Strict = cfg.Strict
		return rep, Outcome{Status: Misconfigured, Notes: []string{rep.Interrupted}}, nil
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		return nil, Outcome{}, err
	}
	results, cut := r.judgeWithin(ctx, run, files)
	if cut != "" && run.Interrupted == "" {
		run.Interrupted = cut
	}
	rep := reports.NewReport(cfg.Tool, run.Started, run.Duration, run.Interrupted, cfg.Strict)
	rep.Incomplete, rep.Target, rep.Spec = run.Incomplete(), target(run), specOf(run)
	var out Outcome
	unserved := run.Fatal != nil && run.Fatal.Stage == "version" && run.SpecVersion == wire.Modern
	if unserved {
		// It runs and answered server/discover, without the era: that is
		// judged (server/discover is a MUST of 2026-07-28), not called a
		// failure to start.
		out.note("%s; every other %s check is skipped", reports.Escape(run.Fatal.Message), wire.Modern)
	}
	if run.Fatal != nil && !unserved {
		rep.DidNotStart = diagnoseStart(run, cfg)
		rep.Results = results
		// Error, unless it failed something on the way: a failure is
		// never hidden.
		rep.Count()
		out.Status = NotStarted
		return rep, out, nil
	}
	results = filterResults(results, r.onlySel, r.skipSel)
	if r.baseline != nil {
		// Applied after filtering: an entry whose checks were not selected
		// has no evidence in this run and is not stale.
		rep.Stale = r.baseline.Apply(results)
		if len(rep.Stale) > 0 {
			out.note("stale baseline entries (these checks pass now; remove them from %s): %s",
				cfg.Baseline, strings.Join(rep.Stale, ", "))
		}
	}
	rep.Results = results
	out.Status = rep.Settle()
	if cfg.Strict && rep.Summary.Warn > 0 {
		out.note("--strict: %d warning(s) fail the run", rep.Summary.Warn)
	}
	if rep.Summary.Verdict == reports.Conformant && !judgedAny(results) {
		// Skips only: a run that judged nothing is never conformant.
		rep.Summary.Verdict, out.Status = reports.ErrorVerdict, Incomplete
		out.note("no check judged anything (%d skipped): the run is not called conformant", len(results))
	}
	for _, why := range rep.Incomplete {
		out.note("%s; what it held is judged, and the run is not called conformant", reports.Escape(why))
	}
	// A run cut short is never called conformant (Settle): the report
	// says why, and the command where it is. A failure observed before
	// the cut stays a failure.
	return rep, out, nil
}

// judgeWithin judges the evidence, counting the checks on the progress
// line when there is a terminal. It returns every planned result: the ones
// judged, and for the rest an error saying why they were not (an
// interrupt, or the judging budget), with that reason.
func (r *Runner) judgeWithin(ctx context.Context, run *evidence.Run, files []*vectors.File) ([]reports.Result, string) {
	planned := suite.Planned(run, files, "judging was interrupted before this check")
	var mu sync.Mutex
	got := make([]reports.Result, len(planned))
	var done []bool = make([]bool, len(planned))
	n := 0
	var progress *reports.Progress
	if r.cfg.Terminal != nil {
		progress = reports.NewProgress(r.cfg.Terminal, len(planned))
	}
	judge := suite.JudgeEach
	if r.cfg.Ginkgo {
		judge = suite.RunInProcess
	}
	finished := make(chan []reports.Result, 1)
	go func() {
		finished <- judge(run, files, func(res reports.Result) {
			mu.Lock()
			if n < len(got) {
				got[n], done[n] = res, true
				n++
			}
			mu.Unlock()
			if progress != nil {
				progress.Step(res.ID)
			}
		})
	}()
	deadline, _ := ctx.Value(runDeadlineKey{}).(time.Time)
	budget, over := judgeBudget(r.cfg.JudgeTimeout, r.cfg.RunTimeout, deadline, time.Now())
	cut := ""
	var results []reports.Result
	select {
	case results = <-finished:
	case <-ctx.Done():
		cut = interruption(ctx)
	case <-time.After(budget):
		cut = over
	}
	if progress != nil {
		progress.Done()
	}
	if cut == "" {
		return results, ""
	}
	// Judging was cut: what was judged so far, in plan order, then the rest
	// as errors.
	mu.Lock()
	defer mu.Unlock()
	out := append([]reports.Result(nil), planned...)
	judged := map[string]reports.Result{}
	for i := range got {
		if done[i] {
			judged[got[i].ID+"@"+got[i].ProtocolVersion] = got[i]
		}
	}
	for i, p := range out {
		if res, ok := judged[p.ID+"@"+p.ProtocolVersion]; ok {
			out[i] = res
		} else {
			out[i].Message = "not judged: " + cut
		}
	}
	return out, cut
}

// judgedAny reports whether any result judged something: a verdict other
// than skip or error.
func judgedAny(results []reports.Result) bool {
	for _, r := range results {
		if r.Verdict != reports.Skip && r.Verdict != reports.Error {
			return true
		}
	}
	return false
}
