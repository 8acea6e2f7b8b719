package main

import (
	"errors"
	"flag"
	"io"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
)

// options are the flags of a suite run: those that configure the run, and
// those that say where its reports go.
type options struct {
	run runner.Config
	// callTools is --call-tools; validate parses it into run.CallTools.
	callTools string
	vectors   string
	out       reports.Outputs
	evidence  string
	// warnings are what validate found wrong but not fatal, printed
	// before the run.
	warnings    []string
	noColor     bool
	color       reports.ColorMode
	verbose     bool
	quiet       bool
	showVersion bool
	help        bool
}

func suiteFlags() (*flag.FlagSet, *options) {
	o := &options{color: reports.ColorAuto}
	fs := newFlagSet("mcpconform")
	o.run.RegisterFlags(fs)
	fs.StringVar(&o.vectors, "vectors", "", "load vectors from this file or directory `PATH` instead of the built-in ones")
	o.out.RegisterFlags(fs)
	fs.StringVar(&o.evidence, "evidence", "", "save everything the run observed to `FILE` (JSON), to judge again later with mcpconform judge; it holds whatever the server wrote, secrets its tools returned too (see --redact-env)")
	fs.StringVar(&o.callTools, "call-tools", plan.CallNone, "which listed tools the run may call, with arguments built from their inputSchema: `POLICY` none, readonly (those annotated readOnlyHint: true, trusting the server's annotations), all, or tool names separated by commas (each one the server must list; name:all names a tool called all, none or readonly); without a server command, the built-in reference server's own tools are all called")
	fs.Var(&o.color, "color", "when to colour the console, `mode` auto (only on a terminal, and not when NO_COLOR is set), always or never")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour on the console; the same as --color=never")
	fs.BoolVar(&o.verbose, "verbose", false, "list every check of the versions judged (passes and skips too), and show the matcher and transcript of each problem")
	fs.BoolVar(&o.verbose, "v", false, "the same as --verbose")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the summary and the failing, warning and erroring checks, one line each")
	fs.BoolVar(&o.quiet, "q", false, "the same as --quiet")
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&o.help, "help", false, "show this help")
	return fs, o
}

// validate refuses flag values that parse but make no sense, before
// anything runs. Each error is one line that names the flag and shows a
// valid use. It normalizes --spec-version (any case for all, no spaces).
func (o *options) validate() error {
	warnings, err := o.run.CheckFlags()
	if err != nil {
		return err
	}
	p, err := plan.ParseToolPolicy(o.callTools)
	if err != nil {
		return err
	}
	o.run.CallTools = p
	if o.noColor {
		if o.color == reports.ColorAlways {
			return errors.New("--no-color and --color=always contradict each other; write one of them")
		}
		o.color = reports.ColorNever
	}
	o.warnings = warnings
	if o.quiet && o.verbose {
		return errors.New("--quiet and --verbose contradict each other; write one of them")
	}
	return o.out.Check()
}

// runConfig is the configuration of a run, or of judging its evidence,
// that the flags give: with live progress on whichever of stdout and
// stderr is a terminal (reports.ProgressTerminal), never with --quiet.
func (o *options) runConfig(stdout, stderr io.Writer) runner.Config {
	cfg := o.run
	cfg.Tool, cfg.Ginkgo = version, true
	if !o.quiet {
		cfg.Terminal = reports.ProgressTerminal(stdout, stderr)
	}
	return cfg
}
