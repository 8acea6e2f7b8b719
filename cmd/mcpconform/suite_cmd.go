package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
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
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	command := fs.Args()
	err := o.validate()
	if err == nil {
		command, err = o.validateCommand(command, set)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	for _, w := range o.warnings {
		fmt.Fprintf(stderr, "mcpconform: %s\n", w)
	}
	o.builtIn = len(command) == 0 && o.run.URL == ""
	fs.Visit(func(f *flag.Flag) { o.callToolsSet = o.callToolsSet || f.Name == "call-tools" })
	if o.builtIn && !o.callToolsSet {
		// The built-in reference server's tools are the suite's own and
		// change nothing: calling them all keeps the tool checks proven.
		// The report's tools line says so (--call-tools all).
		o.callTools, o.run.CallTools = plan.CallAll, plan.ToolPolicy{Mode: plan.CallAll}
	}
	if o.builtIn {
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
	if err := writeReports(o, rep, console, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	tellPartial(stderr, o, rep, code)
	return code
}

// tellPartial says, for a run cut short, where its partial report is.
func tellPartial(stderr io.Writer, o *options, rep *reports.Report, code int) {
	if rep.Interrupted == "" || code != exitIncomplete && code != exitNonconformant {
		return
	}
	where := o.out.Files()
	if len(where) == 0 {
		fmt.Fprintln(stderr, "mcpconform: the report is partial; no report file was asked for (--report-dir DIR keeps one)")
		return
	}
	fmt.Fprintf(stderr, "mcpconform: the report is partial: %s\n", strings.Join(where, ", "))
}

// execute runs the suite and returns the report and the exit code. A nil
// report means a usage or configuration error that has been printed.
func execute(o *options, command []string, stdout, stderr io.Writer) (*reports.Report, int) {
	cfg := o.run
	if o.vectors != "" {
		var err error
		if cfg.Vectors, err = vectors.LoadPath(o.vectors); err != nil {
			fmt.Fprintf(stderr, "mcpconform: %v\n", err)
			return nil, exitUsage
		}
	}
	cfg.Command, cfg.Tool, cfg.Ginkgo = command, version, true
	if o.builtIn {
		cfg.Name = "the built-in reference server"
	}
	cfg.Terminal = progressTerminal(o.quiet, stdout, stderr)
	var r *runner.Runner
	if o.evidence != "" {
		cfg.Recorded = func(run *evidence.Run) {
			if err := r.SaveEvidence(run, o.evidence); err != nil {
				fmt.Fprintf(stderr, "mcpconform: --evidence: %v\n", err)
			}
		}
	}
	r, err := runner.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	if !checkDestinations(o, stderr) {
		return nil, exitUsage
	}
	stop := catchInterrupts(stderr)
	defer stop.release()
	rep, out, err := r.Run(stop.ctx)
	return tell(stderr, rep, out, err)
}

// tell prints what the outcome of a run says besides its report (its
// notes; why the server did not start) and returns the report and the
// exit code: a nil report for an error, printed.
func tell(stderr io.Writer, rep *reports.Report, out runner.Outcome, err error) (*reports.Report, int) {
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return nil, exitUsage
	}
	for _, n := range out.Notes {
		fmt.Fprintf(stderr, "mcpconform: %s\n", n)
	}
	if rep.DidNotStart != nil {
		reports.WriteStartFailure(stderr, rep.DidNotStart)
	}
	return rep, out.ExitCode()
}

// checkDestinations checks the report destinations before anything runs,
// so a typo does not cost a whole run, printing what is wrong.
func checkDestinations(o *options, stderr io.Writer) bool {
	if err := o.out.CheckPaths(o.evidence); err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return false
	}
	return true
}
