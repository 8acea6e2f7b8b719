// Command mcpconform judges an MCP server (over stdio or Streamable HTTP)
// or an MCP client against the protocol, rule by rule, and writes reports
// for people and for CI.
//
//	mcpconform [flags] [--] COMMAND [ARGS...]
//	mcpconform                      # the built-in reference server
//	mcpconform mock [--fixture FILE] [--fault NAME,...] [--record FILE]
//	mcpconform client [flags] -- CLIENT_CMD [ARGS...]
//	mcpconform list [--checks] [--json]
//	mcpconform baseline --write FILE [flags] [--] COMMAND [ARGS...]
//	mcpconform judge [report flags] EVIDENCE.json
//	mcpconform fleet [flags] TARGETS.yaml
//	mcpconform merge [flags] DIR...
//	mcpconform help [mock|client|list|baseline|judge|fleet|merge]
//
// Exit codes: 0 conformant, 1 not conformant, 2 usage or configuration
// error, 3 the target could not be started or never completed initialize,
// 4 the run could not judge everything and found no failure: it was cut
// short (a signal, --run-timeout: the report is partial), or a check ended
// in error. A run cut short that observed a failure exits 1.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/internal/buildinfo"
	"github.com/mcpconform/mcpconform/internal/memlimit"
	"github.com/mcpconform/mcpconform/transport"
)

// Exit codes (contract).
const (
	exitConformant    = 0
	exitNonconformant = 1
	exitUsage         = 2
	exitTarget        = 3
	// exitIncomplete: the run could not judge everything and found no
	// failure: it was cut short (a signal, --run-timeout; then whatever it
	// found), or a check ended in error (a harness deadline or limit).
	// The verdict is "error".
	exitIncomplete = 4
)

// version may be set at build time with -ldflags "-X main.version=...";
// otherwise it is read from the build information (buildinfo.Version).
var version string

func init() {
	if version == "" {
		version = buildinfo.Version()
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == transport.SuperviseCommand {
		// Between this program and a server it started (see SuperviseWith):
		// as hidden from the server as mcpconform itself, since it holds
		// mcpconform's end of the pipes; the server it execs is dumpable
		// again.
		if err := transport.Harden(); err != nil {
			fmt.Fprintf(os.Stderr, "mcpconform: cannot make the supervisor non-dumpable: %v\n", err)
		}
		os.Exit(transport.Supervise(os.Args[2:]))
	}
	if exe, err := os.Executable(); err == nil {
		transport.SuperviseWith([]string{exe, transport.SuperviseCommand})
	}
	memlimit.Set()
	if len(os.Args) < 2 || os.Args[1] != "mock" {
		// The reference server is left as any server is: its own
		// process, which tests and users inspect through /proc.
		if err := transport.Harden(); err != nil {
			fmt.Fprintf(os.Stderr, "mcpconform: cannot make the process non-dumpable: %v\n", err)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// subcommands are the sub-commands by name, in the order help lists
// them.
var subcommands = []struct {
	name  string
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	usage func(io.Writer)
}{
	{"mock", runMock, mockUsage},
	{"client", runClient, clientUsage},
	{"list", runList, listUsage},
	{"baseline", runBaseline, baselineUsage},
	{"judge", runJudge, judgeUsage},
	{"fleet", runFleet, fleetUsage},
	{"merge", runMerge, mergeUsage},
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "help" {
		return runHelp(args[1:], stdout, stderr)
	}
	for _, c := range subcommands {
		if len(args) > 0 && args[0] == c.name {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	return runSuite(args, stdout, stderr)
}

// runHelp is `mcpconform help [TOPIC]`: the top-level usage, or the usage
// of one sub-command, on stdout.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitConformant
	}
	if len(args) > 1 {
		return sub{name: "mcpconform help"}.fail(stderr, fmt.Errorf("one topic at a time, got %d; write e.g. mcpconform help mock", len(args)))
	}
	for _, c := range subcommands {
		if c.name == args[0] {
			c.usage(stdout)
			return exitConformant
		}
	}
	return sub{name: "mcpconform help"}.fail(stderr, fmt.Errorf("no help for %q; write mcpconform help, or help mock, help client, help list, help baseline, help judge, help fleet, help merge", args[0]))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mcpconform judges an MCP server over stdio or Streamable HTTP, rule by rule, with the spec section behind each verdict.

Usage:
  mcpconform [flags] [--] COMMAND [ARGS...]   test the stdio server that COMMAND starts
  mcpconform [flags] URL                      test the HTTP server at URL (http://, https://,
                                              or unix:///path/to.sock for HTTP over a Unix socket)
  mcpconform --transport http [flags] -- COMMAND ... {port} ...
                                              start COMMAND as an HTTP server on a free port
                                              (which replaces {port} in its arguments and --env
                                              values), wait until it listens, and test it
  mcpconform [flags]                          test the built-in reference server
  mcpconform mock [--fixture FILE] [--fault NAME[,NAME...]] [--record FILE] [--list-faults]
                                              serve the reference server on stdio (or over
                                              HTTP: mcpconform help mock)
  mcpconform client [flags] -- CLIENT_CMD [ARGS...]
                                              judge an MCP client over stdio or Streamable
                                              HTTP (--transport http), scenario by scenario,
                                              from what it sends a recording mock
  mcpconform list [--checks] [--json]         list every requirement and the checks that test it
  mcpconform baseline --write FILE [flags] [--] COMMAND [ARGS...]
                                              write a baseline of the current failures
  mcpconform judge [report flags] EVIDENCE.json
                                              judge again a run saved with --evidence, with
                                              no server (a newer mcpconform, a bug report)
  mcpconform fleet [flags] TARGETS.yaml       test every server of a target list, one report for all
  mcpconform merge [flags] DIR...             merge the reports of a fleet's shards
  mcpconform help [mock|client|list|baseline|judge|fleet|merge]
                                              show this help, or a sub-command's

A server binary named like a sub-command is run as ./mock, ./list, ...

Exit codes: 0 conformant, 1 not conformant, 2 usage or configuration error,
3 the server could not be started or never completed initialize, 4 the run
could not judge everything (interrupted, or a check ended in error) and found
no failure; an interrupted run judges what it gathered, and exits 1 if that
holds a failure.

A report given - (--json -, for instance) is written to stdout, and the
console report then goes to stderr; only one report can take -.

--evidence FILE saves everything the run saw, to judge it again later or
attach it to a bug report. It holds whatever the server wrote, tool
results and errors included: a secret the server prints ends up there
(and in the reports) unless --redact-env names the variable that holds it.

Flags:
`)
	fs, _ := suiteFlags()
	printFlags(w, fs)
}
