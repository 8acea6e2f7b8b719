package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/suite/listing"
	"github.com/mcpconform/mcpconform/vectors"
)

func listFlags() (*flag.FlagSet, *bool, *bool, *bool, *bool) {
	fs := flag.NewFlagSet("mcpconform list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	asJSON := fs.Bool("json", false, "print JSON: {requirements: [...], checks: [...], clientChecks: [...]}")
	byCheck := fs.Bool("checks", false, "list checks (id, requirement, level, spec) instead of requirements")
	client := fs.Bool("client", false, "list the checks of client mode (mcpconform client), with their spec links")
	help := fs.Bool("help", false, "show this help")
	return fs, asJSON, byCheck, client, help
}

func listUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform list [--checks | --client] [--json]

Lists every requirement of the catalogue: its level, the protocol versions it
applies to, what it says, and the checks that test it (in server or client
mode) or the reason none can. --checks lists the checks of server mode
instead, with their spec links, and --client those of client mode. The ids,
levels and areas shown are what --only, --skip and baselines select.

Flags:
`)
	fs, _, _, _, _ := listFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs, asJSON, byCheck, client, help := listFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			listUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform list: %v (mcpconform list --help lists the flags)\n", err)
		return exitUsage
	}
	if *help {
		listUsage(stdout)
		return exitConformant
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpconform list: unexpected argument %q; list takes flags only, e.g. mcpconform list --checks\n", fs.Arg(0))
		return exitUsage
	}
	files, err := vectors.Embedded()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	checks, clientChecks := listing.Checks(files), listing.ClientChecks()
	switch {
	case *asJSON:
		if err := listing.WriteJSON(stdout, checks, clientChecks); err != nil {
			return exitUsage
		}
	case *client:
		listing.WriteClientChecks(stdout, clientChecks)
	case *byCheck:
		listing.WriteChecks(stdout, checks)
	default:
		listing.WriteRequirements(stdout, append(checks, clientChecks...))
	}
	return exitConformant
}
