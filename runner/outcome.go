package runner

import "fmt"

// Outcome is how a run ended, beside its report: the status its exit code
// carries, and what the person running it should be told.
type Outcome struct {
	Status Status
	// Notes are the things to tell besides the report, in the order they
	// arose, one sentence each (the command prints them on stderr).
	Notes []string
}

// Status is the class of a run's ending.
type Status int

// The statuses of a run, as the command's exit codes carry them.
const (
	// Conformant: nothing failed.
	Conformant Status = iota
	// Nonconformant: a check failed, a baseline entry is stale, or (with
	// Strict) a check warned.
	Nonconformant
	// Misconfigured: the configuration proved wrong only once the server
	// was met (CallTools names a tool the server does not list); nothing
	// was judged.
	Misconfigured
	// NotStarted: the server could not be started or never completed
	// initialize (the report says why).
	NotStarted
	// Incomplete: the run could not judge everything (a check ended in
	// error, or it was cut short: interrupted, or past a budget) and found
	// no failure.
	Incomplete
)

// ExitCode is the command's exit code for o: 0 conformant, 1 not
// conformant, 2 a configuration error, 3 the server never started, 4 the
// run could not judge everything.
func (o Outcome) ExitCode() int {
	switch o.Status {
	case Nonconformant:
		return 1
	case Misconfigured:
		return 2
	case NotStarted:
		return 3
	case Incomplete:
		return 4
	}
	return 0
}

func (o *Outcome) note(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}
