package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/checks"
	executor "github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

func runSuite(args []string, stdout, stderr io.Writer) int {
	fs, o := suiteFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform: %v (mcpconform --help lists the flags)\n", err)
		return exitUsage
	}
	if o.help {
		usage(stdout)
		return exitConformant
	}
	if o.showVersion {
		fmt.Fprintln(stdout, "mcpconform", version)
		return exitConformant
	}
	command := fs.Args()
	err := o.validate()
	if err == nil {
		err = validateCommand(command)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	o.builtIn = len(command) == 0
	fs.Visit(func(f *flag.Flag) { o.callToolsSet = o.callToolsSet || f.Name == "call-tools" })
	if o.builtIn && !o.callToolsSet {
		// The built-in reference server's tools are the suite's own and
		// change nothing: calling them all keeps the tool checks proven.
		// The report's tools line says so (--call-tools all).
		o.callTools, o.toolPolicy = plan.CallAll, plan.ToolPolicy{Mode: plan.CallAll}
	}
	if len(command) == 0 {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform: cannot find its own binary to run the reference server: %v\n", err)
			return exitUsage
		}
		command = []string{self, "mock"}
	}
	// With a report on stdout, execute gets the console's writer in its
	// place, so nothing else (not even progress) reaches stdout.
	console := consoleWriter(o, stdout, stderr)
	rep, code := execute(o, command, console, stderr)
	if rep == nil {
		return code
	}
	rep.Strict = o.strict
	if err := writeReports(o, rep, console, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	return code
}

// execute runs the suite and returns the report and the exit code. A nil
// report means a usage or configuration error that has been printed.
func execute(o *options, command []string, stdout, stderr io.Writer) (*reports.Report, int) {
	var files []*vectors.File
	if o.vectors != "" {
		var err error
		if files, err = vectors.LoadPath(o.vectors); err != nil {
			fmt.Fprintf(stderr, "mcpconform: %v\n", err)
			return nil, exitUsage
		}
	}
	bl, err := prepareSelection(o, files)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	if code, ok := checkDestinations(o, stderr); !ok {
		return nil, code
	}

	stop := catchInterrupts(stderr)
	defer stop.release()
	ctx, cancel := context.WithTimeout(stop.ctx, o.runTimeout)
	defer cancel()

	want := wanted(o, files)
	cfg := executor.Config{
		Command:        command,
		Dir:            o.dir,
		Env:            transport.Environment(o.env, o.inheritEnv),
		Timeout:        o.timeout,
		StartTimeout:   o.startTimeout,
		Grace:          o.grace,
		MaxMessageSize: o.maxMessageSize,
		SpecVersion:    o.specVersion,
		Vectors:        files,
		Parallel:       o.parallel,
		Tests:          want,
		Needs:          suite.Needs(want),
		Tool:           version,
		CallTools:      o.toolPolicy,
	}
	term := progressTerminal(o.quiet, stdout, stderr)
	var executed, planned atomic.Int64
	cfg.Progress = func(done, total int, _ string) {
		executed.Store(int64(done))
		planned.Store(int64(total))
	}
	stopIndicator := runningIndicator(term, commandText(command, o.builtIn), &executed, &planned)
	run, err := executor.Execute(ctx, cfg)
	stopIndicator()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	if why := stop.why(); why != "" {
		run.Interrupted = why
	} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		run.Interrupted = fmt.Sprintf("the run took longer than --run-timeout %s", o.runTimeout)
	}
	run.Only, run.Skip = o.only, o.skip
	for _, f := range files {
		run.Vectors = append(run.Vectors, evidence.VectorFile{Name: f.Path, JSON: f.Raw})
	}
	if o.evidence != "" {
		if err := run.SaveFile(o.evidence); err != nil {
			fmt.Fprintf(stderr, "mcpconform: --evidence: %v\n", err)
		}
	}
	return judgeRun(o, run, bl, term, stop, stderr)
}

// checkDestinations checks the report destinations before anything runs,
// so a typo does not cost a whole run.
func checkDestinations(o *options, stderr io.Writer) (int, bool) {
	for _, p := range []string{o.jsonOut, o.junitOut, o.markdownOut, o.htmlOut, o.evidence} {
		if p == "" || p == "-" {
			continue
		}
		if dir := filepath.Dir(p); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				fmt.Fprintf(stderr, "mcpconform: cannot write %s: no directory %s\n", p, dir)
				return exitUsage, false
			}
		}
	}
	if o.reportDir != "" {
		if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "mcpconform: --report-dir: %v\n", err)
			return exitUsage, false
		}
	}
	return 0, true
}

// judgeRun judges the evidence of a run and returns the report and the
// exit code. A report is never more conformant than its evidence: every
// planned check is in it (one that was not judged is an error saying so),
// and a run cut short has the verdict "error" and its own exit code.
func judgeRun(o *options, run *evidence.Run, bl *baseline.Baseline, term *os.File, stop *interrupts, stderr io.Writer) (*reports.Report, int) {
	if run.Unlisted != nil {
		rep := unlistedReport(run)
		fmt.Fprintf(stderr, "mcpconform: %s\n", rep.Interrupted)
		return rep, exitUsage
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	results, cut := judgeWithin(run, files, term, stop, judgeBudget)
	if cut != "" && run.Interrupted == "" {
		run.Interrupted = cut
	}
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform", Version: version},
		StartedAt:     run.Started.UTC(),
		DurationMs:    run.Duration.Milliseconds(),
		Interrupted:   run.Interrupted,
		Incomplete:    run.Incomplete(),
		Target:        target(run),
	}
	unserved := run.Fatal != nil && run.Fatal.Stage == "version" && run.SpecVersion == wire.Modern
	if unserved {
		// It runs and answered server/discover, without the era: that is
		// judged (server/discover is a MUST of 2026-07-28), not called a
		// failure to start.
		fmt.Fprintf(stderr, "mcpconform: %s; every other %s check is skipped\n", reports.Escape(run.Fatal.Message), wire.Modern)
	}
	if run.Fatal != nil && !unserved {
		rep.DidNotStart = diagnoseStart(run, o)
		rep.Results = results
		rep.Count()
		rep.Summary.Verdict = reports.ErrorVerdict
		printDidNotStart(stderr, rep.DidNotStart)
		return rep, exitTarget
	}
	results = filterResults(results, o.onlySel, o.skipSel)
	if bl != nil {
		// Applied after filtering: an entry whose checks were not selected
		// has no evidence in this run and is not stale.
		rep.Stale = bl.Apply(results)
		if len(rep.Stale) > 0 {
			fmt.Fprintf(stderr, "mcpconform: stale baseline entries (these checks pass now; remove them from %s): %s\n",
				o.baseline, strings.Join(rep.Stale, ", "))
		}
	}
	rep.Results = results
	rep.Count()
	code := exitConformant
	if o.strict && rep.Summary.Warn > 0 {
		// Every report says what the exit code says; the writers keep the
		// more severe of this and the verdict the results imply.
		rep.Summary.Verdict = reports.Nonconformant
		fmt.Fprintf(stderr, "mcpconform: --strict: %d warning(s) fail the run\n", rep.Summary.Warn)
	}
	switch rep.Summary.Verdict {
	case reports.Nonconformant:
		code = exitNonconformant
	case reports.ErrorVerdict:
		// Never more conformant than the evidence: what could not be
		// judged does not pass a CI gate.
		code = exitIncomplete
	}
	for _, why := range rep.Incomplete {
		fmt.Fprintf(stderr, "mcpconform: %s; what it held is judged, and the run is not called conformant\n", reports.Escape(why))
	}
	if rep.Interrupted != "" {
		fmt.Fprintf(stderr, "mcpconform: %s; the report is partial\n", rep.Interrupted)
		rep.Summary.Verdict = reports.ErrorVerdict
		code = exitIncomplete
	}
	return rep, code
}

// unlistedReport is the report of a run that stopped at discovery because
// --call-tools named a tool the server does not list: nothing is judged,
// and the report says why (the caller prints it and exits 2).
func unlistedReport(run *evidence.Run) *reports.Report {
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform", Version: version},
		StartedAt:     run.Started.UTC(),
		DurationMs:    run.Duration.Milliseconds(),
		Interrupted:   unlistedText(run),
		Target:        target(run),
		Results:       []reports.Result{},
	}
	for i := range rep.Target.ToolCalls {
		rep.Target.ToolCalls[i].Why = "the run stopped after discovery: --call-tools names a tool the server does not list"
	}
	rep.Count()
	rep.Summary.Verdict = reports.ErrorVerdict
	return rep
}

// unlistedText says which tools --call-tools named that the server does
// not list, and what it lists.
func unlistedText(run *evidence.Run) string {
	u := run.Unlisted
	quoted := make([]string, len(u.Names))
	for i, n := range u.Names {
		quoted[i] = strconv.Quote(n)
	}
	lists := "lists " + strings.Join(u.Listed, ", ")
	switch {
	case u.NoTools:
		lists = "declares no tools capability"
	case len(u.Listed) == 0:
		lists = "lists no tools"
	}
	return reports.Escape(fmt.Sprintf("--call-tools %s: the server lists no tool named %s (in its %s session it %s). The run stopped after discovery; name tools it lists, or write --call-tools none, readonly or all",
		plan.RecordedToolPolicy(run.CallTools), strings.Join(quoted, " or "), u.Version, lists))
}

// judgeBudget bounds judging: evidence a hostile server shaped to be slow
// to judge cannot hold the run past it.
const judgeBudget = 60 * time.Second

// judgeWithin runs the Ginkgo specs over the evidence, counting them on
// the progress line when term is a terminal. It returns every planned
// result: the ones judged, and for the rest an error saying why they were
// not (an interrupt, or the judging budget), with that reason.
func judgeWithin(run *evidence.Run, files []*vectors.File, term *os.File, stop *interrupts, budget time.Duration) ([]reports.Result, string) {
	planned := suite.Planned(run, files, "judging was interrupted before this check")
	var mu sync.Mutex
	got := make([]reports.Result, len(planned))
	var done []bool = make([]bool, len(planned))
	n := 0
	var progress *reports.Progress
	if term != nil {
		progress = reports.NewProgress(term, len(planned))
	}
	finished := make(chan []reports.Result, 1)
	go func() {
		finished <- suite.RunInProcess(run, files, func(r reports.Result) {
			mu.Lock()
			if n < len(got) {
				got[n], done[n] = r, true
				n++
			}
			mu.Unlock()
			if progress != nil {
				progress.Step(r.ID)
			}
		})
	}()
	cut := ""
	var results []reports.Result
	select {
	case results = <-finished:
	case <-stop.ctx.Done():
		cut = stop.why()
	case <-time.After(budget):
		cut = fmt.Sprintf("judging took longer than %s", budget)
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
		if r, ok := judged[p.ID+"@"+p.ProtocolVersion]; ok {
			out[i] = r
		} else {
			out[i].Message = "not judged: " + cut
		}
	}
	return out, cut
}

func target(run *evidence.Run) reports.Target {
	t := reports.Target{Command: run.Command, Versions: run.Versions, Processes: len(run.Processes), ToolCalls: checks.ToolCallsOf(run)}
	if len(t.ToolCalls) > 0 {
		t.CallTools = plan.RecordedToolPolicy(run.CallTools).String()
	}
	if len(run.Versions) > 0 {
		if s := run.Session(run.Versions[0]); s != nil {
			t.ProtocolVersion = s.Negotiated
			// What the server sent, cut to a kilobyte per string.
			t.ServerInfo = reports.ClipJSON(s.InitResult()["serverInfo"], 1<<10, 64<<10)
			t.Capabilities = reports.ClipJSON(s.InitResult()["capabilities"], 1<<10, 64<<10)
			if p := s.Shared(); p != nil {
				t.StderrTail = p.StderrTail
			}
		}
	}
	if t.StderrTail == nil && len(run.Processes) > 0 {
		t.StderrTail = run.Processes[0].StderrTail
	}
	return t
}

// wanted turns --only and --skip into the executor's selection, so that
// a narrow run starts only what its checks need. It errs on the side of
// running: a test runs when --only could select it in some version or
// outcome (a level selector matches any level its requirements have), and
// --skip leaves it out only by a name that is the same in every version
// and outcome (id, its own requirement, area, flag). Results are then
// filtered exactly, result by result.
func wanted(o *options, files []*vectors.File) func(id string) bool {
	if len(o.onlySel) == 0 && len(o.skipSel) == 0 {
		return nil
	}
	if files == nil {
		files, _ = vectors.Embedded()
	}
	only, skip := map[string]bool{}, map[string]bool{}
	for _, e := range listChecks(files) {
		n := e.names()
		if len(o.onlySel) == 0 || anyMatches(o.onlySel, n) || anyMatches(o.onlySel, levelNames(n)) {
			only[e.ID] = true
		}
		fixed := n
		fixed.Level = ""
		fixed.Labels = nil
		for _, l := range n.Labels {
			// Levels vary by version, and the other requirements a
			// result may be reported under by outcome: neither leaves
			// a test out before it ran.
			if !strings.HasPrefix(l, "level:") && !strings.HasPrefix(l, "requirement:") {
				fixed.Labels = append(fixed.Labels, l)
			}
		}
		if anyMatches(o.skipSel, fixed) {
			skip[e.ID] = true
		}
	}
	return func(id string) bool { return only[id] && !skip[id] }
}

// levelNames is n answering to each level its requirement has in some
// version, as a bare level (MUST) and not only as a label (level:MUST).
func levelNames(n checkNames) checkNames {
	out := checkNames{ID: n.ID}
	for _, l := range n.Labels {
		if lv, ok := strings.CutPrefix(l, "level:"); ok {
			out.Labels = append(out.Labels, lv, strings.ReplaceAll(lv, " ", "-"))
		}
	}
	return out
}
