package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

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

// finish writes the reports of a run that ended with code, and says, for
// a run cut short, where its partial report is. It returns code, or
// exitUsage when a report could not be written.
func finish(s sub, o *options, rep *reports.Report, code int, console, stdout, stderr io.Writer) int {
	if err := writeReports(o, rep, console, stdout); err != nil {
		return s.fail(stderr, err)
	}
	tellPartial(stderr, o, rep, code)
	return code
}

// tellPartial says, for a run cut short, where its partial report is.
func tellPartial(stderr io.Writer, o *options, rep *reports.Report, code int) {
	if rep.Interrupted == "" || code != exitIncomplete && code != exitNonconformant {
		return
	}
	if where := o.out.Files(); len(where) > 0 {
		fmt.Fprintf(stderr, "mcpconform: the report is partial: %s\n", strings.Join(where, ", "))
	} else {
		fmt.Fprintln(stderr, "mcpconform: the report is partial; no report file was asked for (--report-dir DIR keeps one)")
	}
}
