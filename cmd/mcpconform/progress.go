package main

import (
	"io"
	"os"

	"github.com/mcpconform/mcpconform/reports"
)

// progressTerminal returns where live progress is drawn: stderr when it is a
// terminal, else stdout when it is one (the report clears the line before it
// prints), else nil. Never with --quiet, and never on a dumb terminal, which
// cannot erase a line.
func progressTerminal(quiet bool, stdout, stderr io.Writer) *os.File {
	if quiet || os.Getenv("TERM") == "dumb" {
		return nil
	}
	for _, w := range []io.Writer{stderr, stdout} {
		if f, ok := w.(*os.File); ok && reports.IsTerminal(f) {
			return f
		}
	}
	return nil
}
