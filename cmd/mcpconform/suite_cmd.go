package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

var suiteCmd = sub{"mcpconform", "mcpconform --help", usage}

func runSuite(args []string, stdout, stderr io.Writer) int {
	fs, o := suiteFlags()
	command, code, ok := parseRun(suiteCmd, fs, o, args, stdout, stderr)
	if !ok {
		return code
	}
	for _, w := range o.warnings {
		fmt.Fprintf(stderr, "mcpconform: %s\n", w)
	}
	if len(command) == 0 && o.run.URL == "" {
		o.run.Name = "the built-in reference server"
		if !given(fs)("call-tools") {
			// The built-in reference server's tools are the suite's own
			// and change nothing: calling them all keeps the tool checks
			// proven. The report's tools line says so (--call-tools all).
			o.run.CallTools = plan.ToolPolicy{Mode: plan.CallAll}
		}
		self, err := os.Executable()
		if err != nil {
			return suiteCmd.fail(stderr, fmt.Errorf("cannot find its own binary to run the reference server: %v", err))
		}
		command = []string{self, "mock"}
	}
	// With a report on stdout, execute gets the console's writer in its
	// place, so nothing else (not even progress) reaches stdout.
	console := o.out.Console(stdout, stderr)
	rep, code := execute(o, command, console, stderr)
	if rep == nil {
		return code
	}
	return finish(suiteCmd, o, rep, code, console, stdout, stderr)
}

// parseRun parses the flags of a suite run (the main command, baseline)
// and returns the server command; ok is false when the command is done
// (help, --version, or a usage error: code says).
func parseRun(s sub, fs *flag.FlagSet, o *options, args []string, stdout, stderr io.Writer) (command []string, code int, ok bool) {
	if code, ok := s.parse(fs, args, &o.help, nil, stdout, stderr); !ok {
		return nil, code, false
	}
	if o.showVersion {
		fmt.Fprintln(stdout, "mcpconform", version)
		return nil, exitConformant, false
	}
	err := o.validate()
	if err == nil {
		command, err = o.run.SetTarget(fs.Args(), given(fs))
	}
	if err != nil {
		return nil, s.fail(stderr, err), false
	}
	return command, exitConformant, true
}

// execute runs the suite and returns the report and the exit code. A nil
// report means a usage or configuration error that has been printed.
func execute(o *options, command []string, stdout, stderr io.Writer) (*reports.Report, int) {
	cfg := o.runConfig(stdout, stderr)
	if o.vectors != "" {
		var err error
		if cfg.Vectors, err = vectors.LoadPath(o.vectors); err != nil {
			return nil, suiteCmd.fail(stderr, err)
		}
	}
	cfg.Command = command
	var r *runner.Runner
	if o.evidence != "" {
		cfg.Recorded = func(run *evidence.Run) {
			if err := r.SaveEvidence(run, o.evidence); err != nil {
				fmt.Fprintf(stderr, "mcpconform: --evidence: %v\n", err)
			}
		}
	}
	r, err := runner.New(cfg)
	if err == nil {
		err = o.out.CheckPaths(o.evidence)
	}
	if err != nil {
		return nil, suiteCmd.fail(stderr, err)
	}
	ctx, release := catchInterrupts(stderr)
	defer release()
	rep, out, err := r.Run(ctx)
	return tell(stderr, rep, out, err)
}

// tell prints what the outcome of a run says besides its report
// (Outcome.Tell) and returns the report and the exit code: a nil report
// for an error, printed.
func tell(stderr io.Writer, rep *reports.Report, out runner.Outcome, err error) (*reports.Report, int) {
	if err != nil {
		return nil, suiteCmd.fail(stderr, err)
	}
	out.Tell(stderr, rep)
	return rep, out.ExitCode()
}
