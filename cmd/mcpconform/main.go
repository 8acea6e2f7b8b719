// Command mcpconform judges an MCP server that speaks stdio against the
// protocol, rule by rule, and writes reports for people and for CI.
//
//	mcpconform [flags] [--] COMMAND [ARGS...]
//	mcpconform                      # the built-in reference server
//	mcpconform mock [--fixture FILE] [--fault NAME,...] [--record FILE]
//	mcpconform list [--json]
//
// Exit codes: 0 conformant, 1 not conformant, 2 usage or configuration
// error, 3 the target could not be started or never completed initialize.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes (contract).
const (
	exitConformant    = 0
	exitNonconformant = 1
	exitUsage         = 2
	exitTarget        = 3
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "mock":
			return runMock(args[1:], stdin, stdout, stderr)
		case "list":
			return runList(args[1:], stdout, stderr)
		case "baseline":
			return runBaseline(args[1:], stdout, stderr)
		case "help":
			usage(stdout)
			return exitConformant
		}
	}
	return runSuite(args, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mcpconform judges an MCP server over stdio, rule by rule, with the spec section behind each verdict.

Usage:
  mcpconform [flags] [--] COMMAND [ARGS...]   test the server that COMMAND starts
  mcpconform [flags]                          test the built-in reference server
  mcpconform mock [--fixture FILE] [--fault NAME[,NAME...]] [--record FILE] [--list-faults]
                                              serve the reference server on stdio
  mcpconform list [--json]                    list every check and requirement
  mcpconform baseline --write FILE [flags] [--] COMMAND [ARGS...]
                                              write a baseline of the current failures

A server binary named like a sub-command is run as ./mock, ./list, ...

Exit codes: 0 conformant, 1 not conformant, 2 usage or configuration error,
3 the server could not be started or never completed initialize.

Flags:
`)
	fs, _ := suiteFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}
