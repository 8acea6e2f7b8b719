package fleet

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/reports"
)

// Outputs says where the reports of a fleet go: a file per format ("-"
// for stdout, which then carries that report alone), and a directory
// that gets the fleet's reports and each target's.
type Outputs struct {
	JSON, JUnit, Markdown, HTML string
	Dir                         string
}

// RegisterFlags defines the flags of the fleet's reports on fs: --json,
// --junit, --markdown, --html and --report-dir.
func (o *Outputs) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Dir, "report-dir", "", "write the fleet's reports (fleet.json, fleet-junit.xml, fleet.md, fleet.html) and each target's (targets/ID/) into `DIR`")
	fs.StringVar(&o.JSON, "json", "", "write the fleet's JSON report to `FILE` (- for stdout)")
	fs.StringVar(&o.JUnit, "junit", "", "write the fleet's JUnit XML, a testsuite per target, to `FILE` (- for stdout)")
	fs.StringVar(&o.Markdown, "markdown", "", "write the fleet's Markdown report to `FILE` (- for stdout)")
	fs.StringVar(&o.HTML, "html", "", "write the fleet's HTML matrix of targets by checks to `FILE` (- for stdout)")
}

// Check refuses outputs that cannot all be written: a directory on
// stdout, two reports on stdout.
func (o *Outputs) Check() error {
	if o.Dir == "-" {
		return errors.New("--report-dir -: a directory cannot go to stdout; write e.g. --json - for the fleet's JSON on stdout")
	}
	if len(reports.ToStdout(o.formats())) > 1 {
		return errors.New("only one report can go to stdout; write the others to files")
	}
	return nil
}

// Console is where the console of a command goes (reports.ConsoleOf).
func (o *Outputs) Console(stdout, stderr io.Writer) io.Writer {
	return reports.ConsoleOf(o.formats(), stdout, stderr)
}

// ToStdout reports whether a report goes to stdout.
func (o *Outputs) ToStdout() bool {
	return len(reports.ToStdout(o.formats())) > 0
}

// Write writes the fleet's reports in every format given, and into the
// report directory.
func (o *Outputs) Write(fl *reports.Fleet, stdout io.Writer) error {
	if f, err := reports.WriteFormats(o.formats(), fl, stdout); err != nil {
		return fmt.Errorf("writing the %s report: %v", f.Name, err)
	}
	if o.Dir != "" {
		return reports.WriteFleetDir(o.Dir, fl)
	}
	return nil
}

func (o *Outputs) formats() []reports.Format[*reports.Fleet] {
	return []reports.Format[*reports.Fleet]{
		{Name: "json", Path: o.JSON, Write: reports.WriteFleetJSON},
		{Name: "junit", Path: o.JUnit, Write: reports.WriteFleetJUnit},
		{Name: "markdown", Path: o.Markdown, Write: reports.WriteFleetMarkdown},
		{Name: "html", Path: o.HTML, Write: reports.WriteFleetHTML},
	}
}
