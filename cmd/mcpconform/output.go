package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

// finish writes the reports of a run that ended with code: the console
// report (or its one-line summary with --quiet) to console, and every
// report format asked for (reports.Outputs); and it says, for a run cut
// short, where its partial report is. It returns code, or exitUsage when
// a report could not be written.
func finish(s sub, o *options, rep *reports.Report, code int, console, stdout, stderr io.Writer) int {
	write := reports.WriteConsole
	if o.quiet {
		write = reports.WriteQuiet
	}
	err := write(console, rep, reports.ConsoleOptions{Color: o.color.Enabled(console), Verbose: o.verbose})
	if err == nil {
		err = o.out.Write(rep, stdout)
	}
	if err != nil {
		return s.fail(stderr, err)
	}
	if rep.Interrupted == "" || code != exitIncomplete && code != exitNonconformant {
		return code
	}
	if where := o.out.Files(); len(where) > 0 {
		fmt.Fprintf(stderr, "mcpconform: the report is partial: %s\n", strings.Join(where, ", "))
	} else {
		fmt.Fprintln(stderr, "mcpconform: the report is partial; no report file was asked for (--report-dir DIR keeps one)")
	}
	return code
}
