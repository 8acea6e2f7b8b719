package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// sub is a sub-command as its messages and help name it.
type sub struct {
	name  string // how its messages start: "mcpconform judge"
	flags string // what lists its flags: "mcpconform help judge"
	usage func(io.Writer)
}

// parse parses args into fs and ends the command (ok false) on --help or
// -h (help is the command's --help), printing its usage on stdout (exit
// 0), and on a flag error, or an error of check (nil: none), printed on
// stderr with what lists the flags (exit 2).
func (s sub) parse(fs *flag.FlagSet, args []string, help *bool, check func() error, stdout, stderr io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) || err == nil && *help {
		s.usage(stdout)
		return exitConformant, false
	}
	if err == nil && check != nil {
		err = check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (%s lists the flags)\n", s.name, err, s.flags)
		return exitUsage, false
	}
	return exitConformant, true
}

// fail prints err as a usage or configuration error and returns its exit
// code.
func (s sub) fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", s.name, err)
	return exitUsage
}

// given returns whether the flag named was given on fs's command line.
func given(fs *flag.FlagSet) func(string) bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return func(name string) bool { return set[name] }
}

// newFlagSet is the flag set of a sub-command: its parse errors are
// printed by parse as one line, not followed by the whole flag list.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// printFlags writes the flags of fs, with their defaults, to w: the end
// of every usage.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.SetOutput(w)
	fs.PrintDefaults()
}
