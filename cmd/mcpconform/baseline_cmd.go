package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/baseline"
)

// baselineFlags are the suite's flags and --write.
func baselineFlags() (*flag.FlagSet, *options, *string) {
	fs, o := suiteFlags()
	out := fs.String("write", "", "write the baseline to `FILE` (.yaml/.yml: YAML, else JSON); the reasons of an existing FILE are kept for the entries that remain")
	return fs, o, out
}

func baselineUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform baseline --write FILE [flags] [--] COMMAND [ARGS...]

Runs the suite against the server that COMMAND starts, like mcpconform does,
and writes a baseline listing its failures (with --strict, its warnings too),
one entry per check, for --baseline to accept in later runs. Entries that an
existing FILE, or the baseline given with --baseline, already has for these
failures are kept with their reasons; write a reason for each new one.
Nothing is written when the server does not start or the run is cut short.

Flags (those of mcpconform, and --write):
`)
	fs, _, _ := baselineFlags()
	printFlags(w, fs)
}

// runBaseline runs the suite like the main command and writes a baseline of
// its failures: `mcpconform baseline --write FILE [flags] [--] COMMAND...`.
// Failures (and warnings with --strict) that an entry of --baseline OLD or
// of the existing FILE covers keep that entry and its reason.
var baselineCmd = sub{"mcpconform baseline", "mcpconform baseline --help", baselineUsage}

func runBaseline(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o, out := baselineFlags()
	command, code, ok := parseRun(baselineCmd, fs, o, args, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		return baselineCmd.fail(stderr, errors.New("give --write FILE; write e.g. mcpconform baseline --write .mcpconform-baseline.yaml -- ./my-server"))
	}
	if len(command) == 0 && o.run.URL == "" {
		return baselineCmd.fail(stderr, fmt.Errorf("give the server command; write e.g. mcpconform baseline --write %s -- ./my-server", *out))
	}
	w, err := baseline.NewWriter(*out, o.run.Baseline)
	if err != nil {
		return baselineCmd.fail(stderr, err)
	}
	// Messages go to stderr when a report takes stdout.
	say := o.out.Console(stdout, stderr)
	rep, code := execute(o, command, io.Discard, stderr)
	if rep == nil {
		return code
	}
	if err := o.out.Write(rep, stdout); err != nil {
		return baselineCmd.fail(stderr, err)
	}
	switch {
	case code == exitTarget:
		fmt.Fprintln(stderr, "mcpconform baseline: the server did not start; no baseline written")
		return code
	case rep.Interrupted != "":
		fmt.Fprintln(stderr, "mcpconform baseline: the run did not finish; no baseline written")
		return code
	}
	b, err := w.Write(rep.Results, o.run.Strict)
	if err != nil {
		return baselineCmd.fail(stderr, err)
	}
	fmt.Fprintf(say, "wrote %d entries to %s\n", len(b.Entries), *out)
	return exitConformant
}
