package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

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
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runBaseline runs the suite like the main command and writes a baseline of
// its failures: `mcpconform baseline --write FILE [flags] [--] COMMAND...`.
// Failures (and warnings with --strict) that an entry of --baseline OLD or
// of the existing FILE covers keep that entry and its reason.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs, o, out := baselineFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			baselineUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform baseline: %v (mcpconform baseline --help lists the flags)\n", err)
		return exitUsage
	}
	if o.help {
		baselineUsage(stdout)
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
		fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
		return exitUsage
	}
	if *out == "" {
		fmt.Fprintln(stderr, "mcpconform baseline: give --write FILE; write e.g. mcpconform baseline --write .mcpconform-baseline.yaml -- ./my-server")
		return exitUsage
	}
	if len(command) == 0 && o.run.URL == "" {
		fmt.Fprintf(stderr, "mcpconform baseline: give the server command; write e.g. mcpconform baseline --write %s -- ./my-server\n", *out)
		return exitUsage
	}
	var prev, existing *baseline.Baseline
	if o.run.Baseline != "" {
		if prev, err = baseline.Load(o.run.Baseline); err != nil {
			fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
			return exitUsage
		}
	}
	if _, err := os.Stat(*out); err == nil {
		// Its reasons are kept, so it must be readable; a file that is
		// not a baseline is not overwritten either.
		if existing, err = baseline.Load(*out); err != nil {
			fmt.Fprintf(stderr, "mcpconform baseline: %v (the reasons of --write's existing file are kept: fix or remove it)\n", err)
			return exitUsage
		}
	}
	// Messages go to stderr when a report takes stdout.
	say := stdout
	if o.out.ToStdout() {
		say = stderr
	}
	rep, code := execute(o, command, io.Discard, stderr)
	if rep == nil {
		return code
	}
	if err := writeReports(o, rep, io.Discard, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
		return exitUsage
	}
	switch {
	case code == exitTarget:
		fmt.Fprintln(stderr, "mcpconform baseline: the server did not start; no baseline written")
		return code
	case rep.Interrupted != "":
		fmt.Fprintln(stderr, "mcpconform baseline: the run did not finish; no baseline written")
		return code
	}
	reason := "known failure, recorded by mcpconform baseline"
	if o.run.Strict {
		reason = "known failure or warning, recorded by mcpconform baseline --strict"
	}
	b := baseline.FromResults(rep.Results, reason, o.run.Strict, prev, existing)
	if err := b.Write(*out); err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(say, "wrote %d entries to %s\n", len(b.Entries), *out)
	return exitConformant
}
