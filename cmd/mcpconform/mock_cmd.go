package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/listing"
)

// mockOptions are the flags of `mcpconform mock`.
type mockOptions struct {
	fixture      string
	faults       []string
	variants     []string
	record       string
	listFaults   bool
	listVariants bool
	help         bool
}

func mockFlags() (*flag.FlagSet, *mockOptions) {
	o := &mockOptions{}
	fs := flag.NewFlagSet("mcpconform mock", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.fixture, "fixture", "", "serve the resources of this fixture `FILE` (default: the built-in fixture)")
	fs.Var(listFlag{&o.faults, "--fault ping-not-empty"}, "fault", "misbehave on purpose: fault `NAME`s, comma-separated or repeated (see --list-faults)")
	fs.StringVar(&o.record, "record", "", "append every message in both directions to `FILE`, one JSON line each with the process id (\"pid\"); %p in FILE is replaced by the process id")
	fs.Var(listFlag{&o.variants, "--variant float-integers"}, "variant", "behave in legal but unusual ways: variant `NAME`s, comma-separated or repeated (see --list-variants)")
	fs.BoolVar(&o.listFaults, "list-faults", false, "print the fault catalogue and exit")
	fs.BoolVar(&o.listVariants, "list-variants", false, "print the catalogue of legal variations and exit")
	fs.BoolVar(&o.help, "help", false, "show this help")
	return fs, o
}

func mockUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform mock [--fixture FILE] [--fault NAME[,NAME...]] [--variant NAME[,NAME...]] [--record FILE] [--list-faults] [--list-variants]

Serves the reference MCP server on stdin and stdout: correct by default,
misbehaving on purpose with --fault, or legal but unusual with --variant, to
test the suite or an MCP client.
A client that starts it several times can --record into one file: each
process appends its own lines, told apart by "pid".

Flags:
`)
	fs, _ := mockFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runMock(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, o := mockFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			mockUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform mock: %v (mcpconform mock --help lists the flags)\n", err)
		return exitUsage
	}
	if o.help {
		mockUsage(stdout)
		return exitConformant
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpconform mock: unexpected argument %q; the mock takes flags only, e.g. mcpconform mock --fault ping-not-empty\n", fs.Arg(0))
		return exitUsage
	}
	if o.listFaults {
		listing.WriteFaults(stdout)
		return exitConformant
	}
	if o.listVariants {
		listing.WriteVariants(stdout)
		return exitConformant
	}
	if err := mockserver.CheckFaultNames(o.faults); err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
		return exitUsage
	}
	if err := mockserver.ValidateVariants(o.variants); err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
		return exitUsage
	}
	opts := mockserver.Options{Faults: o.faults, Variants: o.variants}
	if o.fixture != "" {
		f, err := mockserver.LoadFixture(o.fixture)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
			return exitUsage
		}
		opts.Fixture = f
	}
	if o.record != "" {
		pid := os.Getpid()
		path := strings.ReplaceAll(o.record, "%p", strconv.Itoa(pid))
		// Appending: a client starts the mock several times, and each
		// process adds its lines instead of replacing the others'.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform mock: --record: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		opts.Record = mockserver.SharedRecord(f, pid)
	}
	if f, ok := stdin.(*os.File); ok && reports.IsTerminal(f) {
		// Someone typed mcpconform mock: it waits for a client, silently
		// otherwise.
		fmt.Fprintln(stderr, "mcpconform mock: speaking MCP on stdin/stdout; a client should start me (Ctrl-D ends)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := mockserver.Serve(ctx, stdin, stdout, stderr, opts); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", strings.TrimSpace(err.Error()))
		return 1
	}
	return exitConformant
}
