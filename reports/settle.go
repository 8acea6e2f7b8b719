package reports

import "time"

// Status is the class of a run's ending, as a command's exit code
// carries it (contract: 0 conformant, 1 not conformant, 2 a configuration
// error, 3 the target never started, 4 the run could not judge
// everything).
type Status int

// The statuses, each its exit code.
const (
	// StatusConformant: nothing failed.
	StatusConformant Status = 0
	// StatusNonconformant: a check failed, a baseline entry is stale, or
	// (with Strict) a check warned.
	StatusNonconformant Status = 1
	// StatusMisconfigured: the configuration proved wrong only once the
	// target was met; nothing was judged.
	StatusMisconfigured Status = 2
	// StatusNotStarted: the target could not be started or never
	// completed initialize (the report says why).
	StatusNotStarted Status = 3
	// StatusIncomplete: the run could not judge everything (a check ended
	// in error, or it was cut short) and found no failure.
	StatusIncomplete Status = 4
)

// ExitCode is the exit code that carries s.
func (s Status) ExitCode() int { return int(s) }

// NewReport starts the report of a run of mcpconform version tool, which
// started at started and took took: the header every mode's report has.
// Interrupted says why the run was cut short ("": it was not); strict
// makes a warning fail it (Settle).
func NewReport(tool string, started time.Time, took time.Duration, interrupted string, strict bool) *Report {
	return &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcpconform", Version: tool},
		StartedAt:     started.UTC(),
		DurationMs:    took.Milliseconds(),
		Interrupted:   interrupted,
		Strict:        strict,
	}
}

// Settle counts the results of r and settles its verdict and the status
// its exit code carries, as every mode does once its results are in: a
// failure (or a stale baseline entry) is nonconformant, and so, with
// Strict, is a warning; a run that judged too little to be called
// conformant (a check in error, a run cut short or one that never
// started, and no failure found) is incomplete. What a mode decides
// beyond that (a target that never started) it decides after Settle.
func (r *Report) Settle() Status {
	r.Count()
	if r.Strict && r.Summary.Warn > 0 {
		// Every report says what the status says; the writers keep the
		// more severe of this and the verdict the results imply.
		r.Summary.Verdict = Nonconformant
	}
	switch r.Summary.Verdict {
	case Nonconformant:
		return StatusNonconformant
	case ErrorVerdict:
		// Never more conformant than the evidence: what could not be
		// judged does not pass a CI gate.
		return StatusIncomplete
	}
	return StatusConformant
}
