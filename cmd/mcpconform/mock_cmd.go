package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/internal/cliflag"
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
	http         string // serve Streamable HTTP on this address instead of stdio
	httpPath     string
	// recording: the recording mock of client mode (--evidence)
	recording clientrun.MockConfig
}

func mockFlags() (*flag.FlagSet, *mockOptions) {
	o := &mockOptions{}
	fs := newFlagSet("mcpconform mock")
	fs.StringVar(&o.fixture, "fixture", "", "serve the resources of this fixture `FILE` (default: the built-in fixture)")
	fs.Var(cliflag.List{Values: &o.faults, Example: "--fault ping-not-empty"}, "fault", "misbehave on purpose: fault `NAME`s, comma-separated or repeated (see --list-faults)")
	fs.StringVar(&o.record, "record", "", "append every message in both directions to `FILE`, one JSON line each with the process id (\"pid\"); %p in FILE is replaced by the process id")
	fs.Var(cliflag.List{Values: &o.variants, Example: "--variant float-integers"}, "variant", "behave in legal but unusual ways: variant `NAME`s, comma-separated or repeated (see --list-variants)")
	fs.StringVar(&o.http, "http", "", "serve Streamable HTTP on `ADDR` (host:port; port 0 picks a free one) instead of stdio, and print the endpoint's URL")
	fs.StringVar(&o.httpPath, "http-path", "/mcp", "the `PATH` of the MCP endpoint under --http")
	fs.BoolVar(&o.listFaults, "list-faults", false, "print the fault catalogue and exit")
	fs.BoolVar(&o.listVariants, "list-variants", false, "print the catalogue of legal variations and exit")
	fs.BoolVar(&o.help, "help", false, "show this help")
	o.recording.RegisterFlags(fs)
	return fs, o
}

func mockUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform mock [--fixture FILE] [--fault NAME[,NAME...]] [--variant NAME[,NAME...]] [--record FILE] [--http ADDR [--http-path PATH]] [--list-faults] [--list-variants]
       mcpconform mock --scenario NAME --evidence DIR [--protocol-version V] [--fixture FILE] [--fault NAME] [--variant NAME]

Serves the reference MCP server on stdin and stdout, or over Streamable HTTP
with --http (it prints the endpoint's URL, e.g. http://127.0.0.1:41234/mcp,
on a line of its own): correct by default, misbehaving on purpose with
--fault, or legal but unusual with --variant, to test the suite or an MCP
client. The faults and variants of the HTTP layer (http-*) need --http.
A client that starts it several times can --record into one file: each
process appends its own lines, told apart by "pid".

With --evidence DIR it is the recording mock of mcpconform client: it
serves what --scenario NAME needs and writes one stream file per process
into DIR as things happen (every byte the client wrote, raw; every line it
wrote back; stdin EOF, signals, its exit), for the client run to judge.
Everything it needs is in its arguments: a client may pass it no
environment.

Flags:
`)
	fs, _ := mockFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

var mockCmd = sub{"mcpconform mock", "mcpconform mock --help", mockUsage}

func runMock(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, o := mockFlags()
	if code, ok := mockCmd.parse(fs, args, &o.help, nil, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return mockCmd.fail(stderr, fmt.Errorf("unexpected argument %q; the mock takes flags only, e.g. mcpconform mock --fault ping-not-empty", fs.Arg(0)))
	}
	if o.listFaults {
		listing.WriteFaults(stdout)
		return exitConformant
	}
	if o.listVariants {
		listing.WriteVariants(stdout)
		return exitConformant
	}
	if rec := o.recording; rec.EvidenceDir != "" || rec.Scenario != "" {
		if o.http != "" || o.record != "" {
			return mockCmd.fail(stderr, errors.New("--evidence records a stdio session itself: leave out --http and --record"))
		}
		rec.FixturePath, rec.Faults, rec.Variants = o.fixture, o.faults, o.variants
		return clientrun.ServeRecording(rec, stdin, stdout, stderr)
	}
	if err := mockserver.CheckNames(o.faults, o.variants, o.http != ""); err != nil {
		return mockCmd.fail(stderr, err)
	}
	opts := mockserver.Options{Faults: o.faults, Variants: o.variants}
	if o.fixture != "" {
		f, err := mockserver.LoadFixture(o.fixture)
		if err != nil {
			return mockCmd.fail(stderr, err)
		}
		opts.Fixture = f
	}
	if o.record != "" {
		rec, f, err := mockserver.OpenSharedRecord(o.record)
		if err != nil {
			return mockCmd.fail(stderr, fmt.Errorf("--record: %v", err))
		}
		defer f.Close()
		opts.Record = rec
	}
	if f, ok := stdin.(*os.File); ok && reports.IsTerminal(f) {
		// Someone typed mcpconform mock: it waits for a client, silently
		// otherwise.
		fmt.Fprintln(stderr, "mcpconform mock: speaking MCP on stdin/stdout; a client should start me (Ctrl-D ends)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var err error
	if o.http == "" {
		err = mockserver.Serve(ctx, stdin, stdout, stderr, opts)
	} else {
		// The endpoint's URL goes to stdout, for whoever started the mock.
		ln, url, lerr := mockserver.ListenHTTP(o.http, o.httpPath)
		if lerr != nil {
			return mockCmd.fail(stderr, lerr)
		}
		fmt.Fprintln(stdout, url)
		err = mockserver.ServeHTTP(ctx, ln, stderr, mockserver.HTTPOptions{Options: opts, Path: o.httpPath})
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", strings.TrimSpace(err.Error()))
		return 1
	}
	return exitConformant
}
