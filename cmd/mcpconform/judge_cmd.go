package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/runner"
)

func judgeUsage(w io.Writer) {
	fmt.Fprint(w, `usage: mcpconform judge [flags] EVIDENCE.json

Judges a run saved with --evidence again, with no server: the same checks
this mcpconform has, over the traffic recorded then. Useful to re-judge an
old run with a newer mcpconform, or to attach a run to a bug report.

It takes the report flags of the main command (--json, --junit,
--markdown, --html, --report-dir, --baseline, --strict, --only, --skip,
--color, --verbose, --quiet) and exits like it: 0 conformant, 1 not
conformant, 2 usage error, 3 the recorded server never started, 4 the
recorded run was cut short.
`)
}

func runJudge(args []string, stdout, stderr io.Writer) int {
	fs, o := suiteFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			judgeUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform judge: %v (mcpconform help judge lists the flags)\n", err)
		return exitUsage
	}
	if o.help {
		judgeUsage(stdout)
		return exitConformant
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "mcpconform judge: want one evidence file, got %d arguments; write e.g. mcpconform judge run.json\n", fs.NArg())
		return exitUsage
	}
	if err := o.validate(); err != nil {
		fmt.Fprintf(stderr, "mcpconform judge: %v\n", err)
		return exitUsage
	}
	run, err := evidence.LoadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform judge: %v\n", err)
		return exitUsage
	}
	console := consoleWriter(o, stdout, stderr)
	cfg := o.run
	cfg.Tool, cfg.Ginkgo = version, true
	cfg.Terminal = progressTerminal(o.quiet, console, stderr)
	r, err := runner.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform judge: %v\n", err)
		return exitUsage
	}
	if !checkDestinations(o, stderr) {
		return exitUsage
	}
	stop := catchInterrupts(stderr)
	defer stop.release()
	rep, out, err := r.Judge(stop.ctx, run)
	rep, code := tell(stderr, rep, out, err)
	if rep == nil {
		return code
	}
	if err := writeReports(o, rep, console, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform judge: %v\n", err)
		return exitUsage
	}
	tellPartial(stderr, o, rep, code)
	return code
}
