package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
)

func fleetUsage(w io.Writer) {
	fmt.Fprint(w, `usage: mcpconform fleet [flags] TARGETS.yaml

Runs every target of a target list (see docs/fleet.md for its schema), at
most --parallel at once, each as a single run would be, and writes one
report per target and one for the fleet. Each target ends in one class:
conformant (0), nonconformant (1: a check failed), incomplete (4: too
little ran to judge) or setup-error (3: the command, the environment or the
setup failed before any MCP message; never a violation). The exit code is
the most severe class's; 2 is a usage error or a list that is wrong in
itself.

--shard i/n runs the i-th of n parts of the list (every target is in one
part, the same on every machine); mcpconform merge builds the fleet's
report from the parts' report directories.

Flags:
`)
	fs, _ := fleetFlags()
	printFlags(w, fs)
}

func mergeUsage(w io.Writer) {
	fmt.Fprint(w, `usage: mcpconform merge [flags] DIR...

Builds one fleet report from the report directories of a list's shards
(mcpconform fleet --shard i/n --report-dir DIR): targets by id, results by
(tool version, protocol version, check id). A target in two directories is
kept once when both say the same, and refused (exit 2) when they conflict.
Shards missing from the split make the report incomplete. It exits with the
merged fleet's code.

With --balance N it prints instead a split of the list into N shards of
about equal duration, from the durations of the run in DIR... (a previous
run), as JSON for mcpconform fleet --split FILE; with --targets, targets
that run did not have are given the median duration, and listed as
estimated.

Flags:
`)
	fs, _ := mergeFlags()
	printFlags(w, fs)
}

// fleetOptions are the flags of fleet and merge.
type fleetOptions struct {
	// fleet is set for mcpconform fleet, unset for merge.
	fleet    bool
	out      fleet.Outputs
	parallel int
	shard    string
	split    string
	targets  string
	balance  int
	color    reports.ColorMode
	quiet    bool
	verbose  bool
	help     bool
}

func (o *fleetOptions) outputs(fs *flag.FlagSet) {
	o.out.RegisterFlags(fs)
	fs.Var(&o.color, "color", "when to colour the console, `mode` auto, always or never")
	fs.BoolVar(&o.quiet, "quiet", false, "print no line per target as it ends, only the targets that did not conform and the summary at the end")
	fs.BoolVar(&o.verbose, "verbose", false, "list every target in the summary, conformant ones too")
	fs.BoolVar(&o.help, "help", false, "show this help")
}

func fleetFlags() (*flag.FlagSet, *fleetOptions) {
	o := &fleetOptions{color: reports.ColorAuto, fleet: true}
	fs := newFlagSet("mcpconform fleet")
	fs.IntVar(&o.parallel, "parallel", runtime.NumCPU(), "targets run at once (at least 1)")
	fs.StringVar(&o.shard, "shard", "", "run only part `i/n` of the list: the i-th of n shards (ids sorted, dealt round; the same on every machine)")
	fs.StringVar(&o.split, "split", "", "follow the balanced split in `FILE` (mcpconform merge --balance N) to choose --shard's targets")
	o.outputs(fs)
	return fs, o
}

func mergeFlags() (*flag.FlagSet, *fleetOptions) {
	o := &fleetOptions{color: reports.ColorAuto}
	fs := newFlagSet("mcpconform merge")
	fs.StringVar(&o.targets, "targets", "", "the target list `FILE`: a target it has that no directory holds is reported incomplete; with --balance, its targets are the ones split")
	fs.IntVar(&o.balance, "balance", 0, "print a split of the list into `N` shards of about equal duration, by the durations of the run in DIR..., instead of merging")
	o.outputs(fs)
	return fs, o
}

func (o *fleetOptions) validate() error {
	if o.fleet && o.parallel < 1 {
		return fmt.Errorf("--parallel %d: at least one target must run; write e.g. --parallel 2", o.parallel)
	}
	if o.balance < 0 {
		return fmt.Errorf("--balance %d: want the number of shards, e.g. --balance 8", o.balance)
	}
	return o.out.Check()
}

// console is where the console lines go (Outputs.Console), and how.
func (o *fleetOptions) console(stdout, stderr io.Writer) (io.Writer, reports.ConsoleOptions) {
	w := o.out.Console(stdout, stderr)
	return w, reports.ConsoleOptions{Color: o.color.Enabled(w), Verbose: o.verbose}
}

var (
	fleetCmd = sub{"mcpconform fleet", "mcpconform help fleet", fleetUsage}
	mergeCmd = sub{"mcpconform merge", "mcpconform help merge", mergeUsage}
)

func runFleet(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o := fleetFlags()
	if code, ok := fleetCmd.parse(fs, args, &o.help, o.validate, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return fleetCmd.fail(stderr, fmt.Errorf("want one target list, got %d arguments; write e.g. mcpconform fleet targets.yaml", fs.NArg()))
	}
	opts := fleet.Options{Parallel: o.parallel, ReportDir: o.out.Dir, Tool: version}
	err := opts.SetShard(o.shard, o.split)
	var list *fleet.File
	if err == nil {
		list, err = fleet.Load(fs.Arg(0))
	}
	if err == nil {
		err = list.Check()
	}
	if err != nil {
		return fleetCmd.fail(stderr, err)
	}
	console, copts := o.console(stdout, stderr)
	if !o.quiet {
		opts.Done = reports.FleetProgress(console, copts)
	}
	ctx, release := catchInterrupts(stderr)
	defer release()
	fl, err := fleet.Run(ctx, list, opts)
	if err != nil {
		return fleetCmd.fail(stderr, err)
	}
	write := reports.WriteFleetSummary // each target had its line as it ended
	if o.quiet {
		write = reports.WriteFleetConsole
	}
	return finishFleet(o, fl, func() error { return write(console, fl, copts) }, stdout, stderr)
}

func runMerge(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o := mergeFlags()
	if code, ok := mergeCmd.parse(fs, args, &o.help, o.validate, stdout, stderr); !ok {
		return code
	}
	var list *fleet.File
	var err error
	if o.targets != "" {
		list, err = fleet.Load(o.targets)
	}
	if err == nil && o.balance > 0 {
		var split *fleet.Split
		if split, err = fleet.BalanceDirs(fs.Args(), list, o.balance); err == nil {
			if len(split.Estimated) > 0 {
				fmt.Fprintf(stderr, "mcpconform merge: no previous duration for %s: estimated (the median of the others), not measured\n", strings.Join(split.Estimated, ", "))
			}
			if err = split.Write(stdout); err == nil {
				return exitConformant
			}
		}
	}
	var fl *reports.Fleet
	if err == nil {
		fl, err = fleet.MergeDirs(fs.Args(), list, o.out.Dir)
	}
	if err != nil {
		return mergeCmd.fail(stderr, err)
	}
	console, copts := o.console(stdout, stderr)
	return finishFleet(o, fl, func() error { return reports.WriteFleetConsole(console, fl, copts) }, stdout, stderr)
}

// finishFleet writes the fleet's reports and summary and returns its exit
// code.
func finishFleet(o *fleetOptions, fl *reports.Fleet, console func() error, stdout, stderr io.Writer) int {
	if err := console(); err != nil {
		return suiteCmd.fail(stderr, err)
	}
	if err := o.out.Write(fl, stdout); err != nil {
		return suiteCmd.fail(stderr, err)
	}
	return fl.Summary.Class.ExitCode()
}
