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
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/listing"
)

// mockOptions are the flags of `mcpconform mock`.
type mockOptions struct {
	serve        mockserver.Flags
	listFaults   bool
	listVariants bool
	help         bool
	// recording: the recording mock of client mode (--evidence)
	recording clientrun.MockConfig
}

func mockFlags() (*flag.FlagSet, *mockOptions) {
	o := &mockOptions{}
	fs := newFlagSet("mcpconform mock")
	o.serve.RegisterFlags(fs)
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
	printFlags(w, fs)
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
	f := o.serve
	if rec := o.recording; rec.EvidenceDir != "" || rec.Scenario != "" {
		if f.HTTP != "" || f.Record != "" {
			return mockCmd.fail(stderr, errors.New("--evidence records a stdio session itself: leave out --http and --record"))
		}
		rec.FixturePath, rec.Faults, rec.Variants = f.FixturePath, f.Faults, f.Variants
		return clientrun.ServeRecording(rec, stdin, stdout, stderr)
	}
	opts, record, err := f.Options()
	if err != nil {
		return mockCmd.fail(stderr, err)
	}
	if record != nil {
		defer record.Close()
	}
	if in, ok := stdin.(*os.File); ok && reports.IsTerminal(in) {
		// Someone typed mcpconform mock: it waits for a client, silently
		// otherwise.
		fmt.Fprintln(stderr, "mcpconform mock: speaking MCP on stdin/stdout; a client should start me (Ctrl-D ends)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := f.Serve(ctx, stdin, stdout, stderr, opts); errors.Is(err, mockserver.ErrListen) {
		return mockCmd.fail(stderr, err)
	} else if err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", strings.TrimSpace(err.Error()))
		return 1
	}
	return exitConformant
}
