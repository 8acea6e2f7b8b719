package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
)

// Options say how a fleet runs.
type Options struct {
	// Parallel bounds the targets run at once (the number of CPUs when
	// zero). Each target runs as a single run does, with its own server
	// processes (its own parallel).
	Parallel int
	// Shard selects the part of the list to run (the whole list when
	// zero); Split, when set, is the balanced split it follows.
	Shard Shard
	Split *Split
	// ReportDir, when set, receives each target's reports (in
	// targets/ID/) as the target ends, and the fleet's at the end.
	ReportDir string
	// Tool is the version of mcpconform, recorded in every report.
	Tool string
	// Environ is the environment the targets' variables are taken from,
	// as KEY=VALUE (this process's when nil).
	Environ []string
	// Done, when set, is called as each target ends (from several
	// goroutines).
	Done func(reports.FleetTarget)
}

// TargetsDir is the folder of a fleet report directory that holds one
// folder of reports per target (contract: CI scripts find them by it).
const TargetsDir = "targets"

// Run runs the targets of the list that Options.Shard selects, at most
// Options.Parallel at once, each isolated as a single run is (its own
// processes, environment and budgets), and returns the fleet's report,
// its matrix built. A target that cannot run is in the report with its
// class (setup-error); Run errs only when the selection cannot be made.
// Cancelling ctx cuts the running targets short (their reports are
// partial) and leaves the others unrun: every one is then incomplete.
func Run(ctx context.Context, f *File, o Options) (*reports.Fleet, error) {
	ids, notes, err := Select(f.IDs(), o.Shard, o.Split)
	if err != nil {
		return nil, err
	}
	byID := map[string]Target{}
	for _, t := range f.Targets {
		byID[t.ID] = t
	}
	if len(ids) == 0 {
		notes = append(notes, fmt.Sprintf("shard %s of a list of %d targets holds none", o.Shard, len(f.Targets)))
	}
	parallel := o.Parallel
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	fl := &reports.Fleet{
		SchemaVersion: reports.FleetSchemaVersion,
		Kind:          "fleet",
		Tool:          reports.Tool{Name: "mcpconform", Version: o.Tool},
		StartedAt:     time.Now().UTC(),
		Shard:         o.Shard.String(),
		Notes:         notes,
		Targets:       make([]reports.FleetTarget, len(ids)),
	}
	start := time.Now()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
			}
			ft := f.runTarget(ctx, byID[id], o)
			fl.Targets[i] = ft
			if o.Done != nil {
				o.Done(ft)
			}
		}()
	}
	wg.Wait()
	fl.DurationMs = time.Since(start).Milliseconds()
	if err := Finish(fl); err != nil {
		return nil, err
	}
	return fl, nil
}

// runTarget runs one target and writes its reports (a failure to write
// them is a note of the target's).
func (f *File) runTarget(ctx context.Context, t Target, o Options) (ft reports.FleetTarget) {
	p := f.prepare(t, o.Environ, o.Tool)
	ft = reports.FleetTarget{ID: t.ID, Notes: p.notes}
	dir := ""
	if o.ReportDir != "" {
		ft.Dir = TargetsDir + "/" + t.ID
		dir = filepath.Join(o.ReportDir, TargetsDir, t.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			ft.Notes = append(ft.Notes, fmt.Sprintf("its reports could not be written: %v", err))
			dir, ft.Dir = "", ""
		}
	}
	var rep *reports.Report
	defer func() {
		if dir != "" {
			if err := reports.WriteDir(dir, rep); err != nil {
				ft.Notes = append(ft.Notes, fmt.Sprintf("its reports could not be written: %v", err))
			}
		}
	}()
	if why := interrupted(ctx); why != "" {
		rep = p.unrun(t, "", why)
		ft.Class, ft.Reason, ft.Report = reports.ClassIncomplete, "not run: "+why, rep
		return ft
	}
	if p.missing != "" {
		rep = p.unrun(t, p.missing, "")
		ft.Class, ft.Reason, ft.Report = reports.ClassSetupError, p.missing, rep
		return ft
	}
	if p.setup != nil {
		var log *os.File
		if dir != "" {
			log, _ = os.Create(filepath.Join(dir, "setup.log")) // no log is no reason to fail the setup
		}
		ft.Setup = runSetup(ctx, p, log)
		if log != nil {
			log.Close()
		}
		if ft.Setup.Error != "" {
			what := ft.Setup.Error + ": not run"
			class := reports.ClassSetupError
			if why := interrupted(ctx); why != "" {
				what, class = "not run: "+why+" during the setup", reports.ClassIncomplete
			}
			rep = p.unrun(t, what, "")
			rep.DidNotStart.StderrTail = ft.Setup.OutputTail
			ft.Class, ft.Reason, ft.Report = class, what, rep
			return ft
		}
	}
	start := time.Now()
	full, out, err := runner.Run(ctx, p.cfg)
	ft.DurationMs = time.Since(start).Milliseconds()
	if err != nil {
		// A configuration Check accepted, refused at run time: a file it
		// names changed since.
		rep = p.unrun(t, err.Error(), "")
		ft.Class, ft.Reason, ft.Report = reports.ClassSetupError, err.Error(), rep
		return ft
	}
	rep = full
	ft.Class, ft.Reason, ft.Inferred = classify(full, out)
	ft.Notes = append(ft.Notes, out.Notes...)
	ft.Report = reports.Slim(full)
	if ft.Class == reports.ClassSetupError {
		// What a process that never spoke MCP did is judged in its own
		// report; in the fleet's it counts for nothing, least of all as a
		// violation.
		ft.Report.Results = []reports.Result{}
		ft.Report.Count()
	}
	return ft
}

// unrun is the report of a target that was not run: setupError says why
// it could not be (a setup error), or interruption why it was not.
func (p *prepared) unrun(t Target, setupError, interruption string) *reports.Report {
	command := p.cfg.Command
	if t.URL != "" {
		command = []string{t.URL}
	}
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform", Version: p.cfg.Tool},
		StartedAt:     time.Now().UTC(),
		Target:        reports.Target{Command: command},
		Results:       []reports.Result{},
		Interrupted:   interruption,
	}
	if setupError != "" {
		rep.DidNotStart = &reports.StartFailure{Stage: "setup", What: setupError}
	}
	rep.Count()
	return rep
}

// interrupted says why ctx was cancelled, or "" while it is not.
func interrupted(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "the fleet was interrupted"
}

// Finish orders a fleet's targets, counts its classes and builds its
// matrix: a column per target (its class and reason on top), a row per
// check.
func Finish(fl *reports.Fleet) error {
	fl.Count()
	var cols []Column
	for _, t := range fl.Targets {
		// The writers give each column its introduction (the class and
		// why), escaped for their format.
		col := Column{Title: t.ID, Facts: []string{string(t.Class)}}
		if t.Report != nil {
			for _, r := range t.Report.Results {
				col.Cells = append(col.Cells, Cell{Check: r.ID, Version: r.ProtocolVersion, Verdict: r.Verdict, Reason: reports.ShortReason(r.Message, "")})
			}
		}
		cols = append(cols, col)
	}
	m, err := NewMatrix(cols)
	if err != nil {
		return err
	}
	m.SummaryHeading, m.ColumnHeading, m.FactHeadings = "Verdicts by target", "target", []string{"class"}
	m.Legend = "A cell gives the verdict under every judged version the check applies to, or each verdict with the versions it holds for (24-11 is 2024-11-05); " +
		"`n/a`: the check applies to none of the versions judged; `—`: not judged for that target. " +
		"Each target's own reports, with transcripts, are in its folder of the report directory."
	fl.Matrix = m
	return nil
}
