package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/mockserver"
)

func runMock(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpconform mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fixture := fs.String("fixture", "", "serve the resources of this fixture `FILE` (default: the built-in fixture)")
	var faults listFlag
	fs.Var(&faults, "fault", "misbehave on purpose: fault `NAME`s, comma-separated or repeated (see --list-faults)")
	var variants listFlag
	fs.Var(&variants, "variant", "behave in legal but unusual ways: variant `NAME`s, comma-separated or repeated (see --list-variants)")
	record := fs.String("record", "", "write every message in both directions to `FILE` as JSON lines")
	listFaults := fs.Bool("list-faults", false, "print the fault catalogue and exit")
	listVariants := fs.Bool("list-variants", false, "print the catalogue of legal variations and exit")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpconform mock: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *listFaults {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FAULT\tLAYER\tBREAKS\tLEVEL\tWHAT IT DOES")
		for _, f := range mockserver.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, f.Layer, f.Requirement, f.Level, f.Description)
		}
		tw.Flush()
		return exitConformant
	}
	if *listVariants {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "VARIANT\tVERSIONS\tBREAKS\tWHAT IT DOES")
		for _, v := range mockserver.Variants() {
			versions, breaks := "all", "-"
			if v.Versions != nil {
				versions = strings.Join(v.Versions, ",")
			}
			if len(v.Breaks) > 0 {
				breaks = strings.Join(v.Breaks, ",")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Name, versions, breaks, v.Description)
		}
		tw.Flush()
		return exitConformant
	}
	if err := mockserver.ValidateFaults(faults); err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
		return exitUsage
	}
	if err := mockserver.ValidateVariants(variants); err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
		return exitUsage
	}
	opts := mockserver.Options{Faults: faults, Variants: variants}
	if *fixture != "" {
		f, err := mockserver.LoadFixture(*fixture)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
			return exitUsage
		}
		opts.Fixture = f
	}
	if *record != "" {
		f, err := os.Create(*record)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		opts.Record = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := mockserver.Serve(ctx, stdin, stdout, stderr, opts); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", strings.TrimSpace(err.Error()))
		return 1
	}
	return exitConformant
}
