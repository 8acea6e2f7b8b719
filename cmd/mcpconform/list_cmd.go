package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/listing"
	"github.com/mcpconform/mcpconform/vectors"
)

func listFlags() (*flag.FlagSet, *listing.Options, *bool) {
	fs, o := newFlagSet("mcpconform list"), &listing.Options{}
	o.RegisterFlags(fs)
	return fs, o, fs.Bool("help", false, "show this help")
}

func listUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform list [--checks | --client] [--json]

Lists every requirement of the catalogue: its level, the protocol versions it
applies to, what it says, and the checks that test it (in server or client
mode) or the reason none can. --checks lists the checks of server mode
instead, with their spec links, and --client those of client mode. The ids,
levels and areas shown are what --only, --skip and baselines select. Lines
wrap at the terminal's width (at 100 columns into a file or a pipe); --json
is whole.

Flags:
`)
	fs, _, _ := listFlags()
	printFlags(w, fs)
}

var listCmd = sub{"mcpconform list", "mcpconform list --help", listUsage}

func runList(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o, help := listFlags()
	if code, ok := listCmd.parse(fs, args, help, nil, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return listCmd.fail(stderr, fmt.Errorf("unexpected argument %q; list takes flags only, e.g. mcpconform list --checks", fs.Arg(0)))
	}
	files, err := vectors.Embedded()
	if err != nil {
		return suiteCmd.fail(stderr, err)
	}
	// Lines wrap at the terminal's width, or, into a file or a pipe, at
	// the 100 columns the console report keeps to.
	f, _ := stdout.(*os.File)
	if err := o.Write(stdout, files, reports.TerminalWidth(f, 100)); err != nil {
		return exitUsage
	}
	return exitConformant
}
