package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/baseline"
)

// runBaseline runs the suite like the main command and writes a baseline of
// its failures: `mcpconform baseline --write FILE [flags] [--] COMMAND...`.
// With --baseline OLD, failures OLD already lists keep their entries and
// reasons; its stale entries are left out.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs, o := suiteFlags()
	var out string
	fs.StringVar(&out, "write", "", "write the baseline to `FILE` (.yaml/.yml: YAML, else JSON)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: mcpconform baseline --write FILE [flags] [--] COMMAND [ARGS...] (flags as for mcpconform --help)")
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
		return exitUsage
	}
	if out == "" {
		fmt.Fprintln(stderr, "mcpconform baseline: give --write FILE")
		return exitUsage
	}
	command := fs.Args()
	if len(command) == 0 {
		fmt.Fprintln(stderr, "mcpconform baseline: give the server command")
		return exitUsage
	}
	var prev *baseline.Baseline
	if o.baseline != "" {
		var err error
		if prev, err = baseline.Load(o.baseline); err != nil {
			fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
			return exitUsage
		}
	}
	rep, code := execute(o, command, io.Discard, stderr)
	if rep == nil {
		return code
	}
	if err := writeReports(o, rep, io.Discard); err != nil {
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
	b := baseline.FromResults(rep.Results, "known failure, recorded by mcpconform baseline", prev)
	if err := b.Write(out); err != nil {
		fmt.Fprintf(stderr, "mcpconform baseline: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %d entries to %s\n", len(b.Entries), out)
	return exitConformant
}
