package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/reports"
)

// consoleWriter is where the console report goes: stdout, unless a report
// format was given "-" and stdout carries that report; then stderr, so the
// report on stdout stays parseable and the person at the terminal still
// sees the verdicts.
func consoleWriter(o *options, stdout, stderr io.Writer) io.Writer {
	if o.reportOnStdout() {
		return stderr
	}
	return stdout
}

// useColor decides the console's colour from --color: always and never are
// obeyed as given (an explicit always wins over NO_COLOR); auto colours
// only a terminal, and honours NO_COLOR and TERM=dumb (reports.ColorEnabled).
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	f, ok := w.(*os.File)
	return ok && reports.ColorEnabled(f)
}

// writeReports writes the console report (or its one-line summary with
// --quiet) to console, and every report format asked for: to its file, to
// stdout for "-", and into --report-dir.
func writeReports(o *options, rep *reports.Report, console, stdout io.Writer) error {
	write := reports.WriteConsole
	if o.quiet {
		write = reports.WriteQuiet
	}
	if err := write(console, rep, reports.ConsoleOptions{Color: useColor(o.color, console), Verbose: o.verbose}); err != nil {
		return err
	}
	for _, r := range o.reportFlags() {
		if r.path == "" {
			continue
		}
		if err := writeTo(r.path, stdout, func(w io.Writer) error { return r.write(w, rep) }); err != nil {
			where := r.path
			if where == "-" {
				where = "stdout"
			}
			return fmt.Errorf("writing the %s report to %s: %v", r.name, where, err)
		}
	}
	if o.reportDir != "" {
		if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
			return err
		}
		return reports.WriteDirWith(o.reportDir, rep, reports.DirOptions{SARIF: o.sarifOptions()})
	}
	return nil
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
