package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/vectors"
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
	// Check the report destinations before anything runs, so a typo does not
	// cost a whole run.
	for _, p := range []string{o.jsonOut, o.junitOut, o.markdownOut, o.htmlOut} {
		if p == "" {
			continue
		}
		if dir := filepath.Dir(p); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				fmt.Fprintf(stderr, "mcpconform: cannot write %s: no directory %s\n", p, dir)
				return nil, exitUsage
			}
		}
	}
	if o.reportDir != "" {
		if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "mcpconform: --report-dir: %v\n", err)
			return nil, exitUsage
		}
	}

	// A signal cancels the run with its name as the cause, read back below:
	// no variable is shared with the goroutine.
	signalled, interrupt := context.WithCancelCause(context.Background())
	defer interrupt(nil)
	ctx, cancel := context.WithTimeout(signalled, o.runTimeout)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			interrupt(errors.New("interrupted by " + s.String()))
		case <-ctx.Done():
		}
	}()

	cfg := suite.Config{
		Command:        command,
		Dir:            o.dir,
		Env:            mockclient.Environment(o.env, o.inheritEnv),
		Timeout:        o.timeout,
		StartTimeout:   o.startTimeout,
		Grace:          o.grace,
		MaxMessageSize: o.maxMessageSize,
		SpecVersion:    o.specVersion,
		Vectors:        files,
		Parallel:       o.parallel,
	}
	term := progressTerminal(o.quiet, stdout, stderr)
	var executed, planned atomic.Int64
	cfg.Progress = func(done, total int, _ string) {
		executed.Store(int64(done))
		planned.Store(int64(total))
	}
	stopIndicator := runningIndicator(term, commandText(command, o.builtIn), &executed, &planned)
	run, err := suite.Execute(ctx, cfg)
	stopIndicator()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	interrupted := ""
	if cause := context.Cause(signalled); cause != nil && !errors.Is(cause, context.Canceled) {
		interrupted = cause.Error()
	} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		interrupted = fmt.Sprintf("the run took longer than --run-timeout %s", o.runTimeout)
	}

	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform", Version: version},
		StartedAt:     run.Started.UTC(),
		DurationMs:    run.Duration.Milliseconds(),
		Interrupted:   interrupted,
		Target:        target(run, command),
	}
	if run.Fatal != "" {
		// The run-wide checks still judge what the processes wrote, and
		// initialize-completes (LIFE-01) carries the reason.
		rep.Results = judge(run, term)
		rep.Count()
		rep.Summary.Verdict = "error"
		fmt.Fprintf(stderr, "mcpconform: %s\n", oneLine(run.Fatal))
		return rep, exitTarget
	}
	results := judge(run, term)
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
	if rep.Summary.Verdict == reports.Nonconformant {
		code = exitNonconformant
	}
	if interrupted != "" {
		fmt.Fprintf(stderr, "mcpconform: %s; the report is partial\n", interrupted)
		if code == exitConformant {
			code = exitNonconformant
		}
	}
	return rep, code
}

// judge runs the Ginkgo specs over what Execute observed, counting them on
// the progress line when term is a terminal.
func judge(run *suite.Run, term *os.File) []reports.Result {
	if term == nil {
		return suite.RunInProcess(run, nil)
	}
	p := reports.NewProgress(term, suite.Planned(run))
	defer p.Done()
	return suite.RunInProcess(run, func(r reports.Result) { p.Step(r.ID) })
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func target(run *suite.Run, command []string) reports.Target {
	t := reports.Target{Command: command, Versions: run.Versions, StderrTail: run.StderrEnd, Processes: run.Processes()}
	if len(run.Versions) > 0 {
		s := run.Sessions[run.Versions[0]]
		t.ProtocolVersion = s.Negotiated
		t.ServerInfo = s.InitResult["serverInfo"]
		t.Capabilities = s.InitResult["capabilities"]
	}
	return t
}
