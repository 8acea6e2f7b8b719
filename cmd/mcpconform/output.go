package main

import (
	"io"
	"os"

	"github.com/mcpconform/mcpconform/reports"
)

// consoleWriter is where the console report goes: stdout, unless a report
// format was given "-" and stdout carries that report; then stderr, so the
// report on stdout stays parseable and the person at the terminal still
// sees the verdicts.
func consoleWriter(o *options, stdout, stderr io.Writer) io.Writer {
	if o.out.ToStdout() {
		return stderr
	}
	return stdout
}

// writeReports writes the console report (or its one-line summary with
// --quiet) to console, and every report format asked for: to its file, to
// stdout for "-", and into --report-dir.
func writeReports(o *options, rep *reports.Report, console, stdout io.Writer) error {
	write := reports.WriteConsole
	if o.quiet {
		write = reports.WriteQuiet
	}
	if err := write(console, rep, reports.ConsoleOptions{Color: o.color.Enabled(console), Verbose: o.verbose}); err != nil {
		return err
	}
	return o.out.Write(rep, stdout)
}

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
