package runner

import (
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/reports"
)

// Outcome is how a run ended, beside its report: the status its exit code
// carries, and what the person running it should be told.
type Outcome struct {
	Status Status
	// Notes are the things to tell besides the report, in the order they
	// arose, one sentence each (the command prints them on stderr).
	Notes []string
}

// Status is the class of a run's ending (reports.Status).
type Status = reports.Status

// The statuses of a run, as the command's exit codes carry them.
const (
	// Conformant: nothing failed.
	Conformant = reports.StatusConformant
	// Nonconformant: a check failed, a baseline entry is stale, or (with
	// Strict) a check warned.
	Nonconformant = reports.StatusNonconformant
	// Misconfigured: the configuration proved wrong only once the server
	// was met (CallTools names a tool the server does not list); nothing
	// was judged.
	Misconfigured = reports.StatusMisconfigured
	// NotStarted: the server could not be started or never completed
	// initialize (the report says why).
	NotStarted = reports.StatusNotStarted
	// Incomplete: the run could not judge everything (a check ended in
	// error, or it was cut short: interrupted, or past a budget) and found
	// no failure.
	Incomplete = reports.StatusIncomplete
)

// ExitCode is the command's exit code for o: 0 conformant, 1 not
// conformant, 2 a configuration error, 3 the server never started, 4 the
// run could not judge everything.
func (o Outcome) ExitCode() int { return o.Status.ExitCode() }

// Tell writes on w, as the command prints them on stderr, what a run
// says besides its report rep: its notes, then why the server did not
// start (reports.WriteStartFailure).
func (o Outcome) Tell(w io.Writer, rep *reports.Report) {
	for _, n := range o.Notes {
		fmt.Fprintf(w, "mcpconform: %s\n", n)
	}
	if rep.DidNotStart != nil {
		reports.WriteStartFailure(w, rep.DidNotStart)
	}
}

func (o *Outcome) note(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}
