package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// FleetSchemaVersion is the version of the fleet report's JSON layout
// (contract).
const FleetSchemaVersion = 1

// Class is the outcome class of one target of a fleet, and of a fleet as
// a whole (its most severe target's).
type Class string

// The outcome classes (contract). Only nonconformant says a server broke a
// rule; incomplete and setup-error say that too little was seen to say
// either way, and why.
const (
	// ClassConformant: the run judged everything it planned, and nothing
	// failed.
	ClassConformant Class = "conformant"
	// ClassNonconformant: a check failed on an established session (or a
	// baseline entry is stale, or with strict a check warned).
	ClassNonconformant Class = "nonconformant"
	// ClassIncomplete: too little ran to judge: the run was cut short, a
	// check ended in error, or the server wrote on stdout but never
	// completed initialize.
	ClassIncomplete Class = "incomplete"
	// ClassSetupError: the command, the environment or the setup failed
	// before the server wrote any byte of MCP. Never a violation.
	ClassSetupError Class = "setup-error"
)

// Classes lists the classes, most severe first.
var Classes = []Class{ClassNonconformant, ClassIncomplete, ClassSetupError, ClassConformant}

// ExitCode is the exit code of a target, or a fleet, of class c: the codes
// of a single run (0 conformant, 1 not conformant, 3 the server could not
// be started, 4 the run could not judge everything).
func (c Class) ExitCode() int {
	switch c {
	case ClassNonconformant:
		return 1
	case ClassSetupError:
		return 3
	case ClassIncomplete:
		return 4
	}
	return 0
}

// rank orders classes by severity: the fleet takes its most severe
// target's class.
func (c Class) rank() int {
	for i, k := range Classes {
		if k == c {
			return len(Classes) - i
		}
	}
	return 0
}

// Fleet is one run of the suite over a list of targets, or the merge of
// several such runs (the shards of one list).
type Fleet struct {
	SchemaVersion int `json:"schemaVersion"`
	// Kind is always "fleet": a reader tells this report from a single
	// run's by it.
	Kind       string    `json:"kind"`
	Tool       Tool      `json:"tool"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	// Shard is "i/n" when the report holds the targets of one shard of the
	// list; empty for a whole list or a merge.
	Shard string `json:"shard,omitempty"`
	// Merged lists the shards a merged report was built from, in order;
	// Missing the shards of the same split that were not given (their
	// targets are absent, and the fleet is then incomplete).
	Merged  []string `json:"merged,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// Notes are what the person running the fleet should be told besides
	// the targets' own notes.
	Notes   []string      `json:"notes,omitempty"`
	Summary FleetSummary  `json:"summary"`
	Targets []FleetTarget `json:"targets"`
	// Matrix is the table of checks by targets the Markdown and HTML
	// writers show; the package that knows the catalogue builds it (its
	// rows come in the catalogue's order). Not part of the JSON.
	Matrix *Matrix `json:"-"`
}

// FleetSummary counts the targets of each class; Class is the fleet's.
type FleetSummary struct {
	Targets       int   `json:"targets"`
	Conformant    int   `json:"conformant"`
	Nonconformant int   `json:"nonconformant"`
	Incomplete    int   `json:"incomplete"`
	SetupError    int   `json:"setupError"`
	Class         Class `json:"class"`
}

// FleetTarget is the outcome of one target.
type FleetTarget struct {
	ID       string `json:"id"`
	Class    Class  `json:"class"`
	ExitCode int    `json:"exitCode"`
	// Reason says why the target is in its class, from what was
	// observed.
	Reason string `json:"reason"`
	// Inferred are statements the harness inferred rather than observed
	// (why a server probably did not start; why a failure to start is
	// taken for the environment's): every format labels them so.
	Inferred []string `json:"inferred,omitempty"`
	// Notes are the run's notes (runner.Outcome.Notes), and the fleet's
	// about the target (a variable named in env that is not set).
	Notes []string  `json:"notes,omitempty"`
	Setup *SetupRun `json:"setup,omitempty"`
	// DurationMs is the wall time of the target's run, setup apart.
	DurationMs int64 `json:"durationMs"`
	// Dir is the folder of the target's own reports (report.json,
	// junit.xml, report.md, report.html), relative to the fleet report's;
	// empty when they were not written.
	Dir string `json:"dir,omitempty"`
	// Report is the target's report, its results without transcripts,
	// matchers or values (the target's own report.json has them).
	Report *Report `json:"report"`
}

// SetupRun is the setup command of a target, run and timed apart from the
// server.
type SetupRun struct {
	Command    []string `json:"command"`
	DurationMs int64    `json:"durationMs"`
	// ExitCode is the command's exit status; -1 when it did not start or
	// was killed.
	ExitCode int `json:"exitCode"`
	// Error says why the setup failed; empty when it succeeded.
	Error string `json:"error,omitempty"`
	// OutputTail is the last lines of its stdout and stderr.
	OutputTail []string `json:"outputTail,omitempty"`
}

// Slim returns a copy of r whose results keep what a summary of many
// targets needs (id, requirement, level, verdict, message, spec, version,
// area, labels) and leave out transcripts, matchers and values.
func Slim(r *Report) *Report {
	c := *r
	c.Results = make([]Result, len(r.Results))
	for i, res := range r.Results {
		c.Results[i] = Result{
			ID: res.ID, Requirement: res.Requirement, Level: res.Level, Verdict: res.Verdict,
			Message: res.Message, Spec: res.Spec, ProtocolVersion: res.ProtocolVersion,
			Area: res.Area, Labels: res.Labels, DurationMs: res.DurationMs,
		}
	}
	c.Target.StderrTail = lastOf(c.Target.StderrTail, 8)
	return &c
}

func lastOf(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Count orders the targets by id and recomputes the summary from their
// classes. A fleet with shards missing is at least incomplete.
func (f *Fleet) Count() {
	sort.SliceStable(f.Targets, func(i, j int) bool { return f.Targets[i].ID < f.Targets[j].ID })
	s := FleetSummary{Targets: len(f.Targets), Class: ClassConformant}
	for i := range f.Targets {
		t := &f.Targets[i]
		t.ExitCode = t.Class.ExitCode()
		switch t.Class {
		case ClassConformant:
			s.Conformant++
		case ClassNonconformant:
			s.Nonconformant++
		case ClassIncomplete:
			s.Incomplete++
		case ClassSetupError:
			s.SetupError++
		}
		if t.Class.rank() > s.Class.rank() {
			s.Class = t.Class
		}
	}
	if len(f.Missing) > 0 && ClassIncomplete.rank() > s.Class.rank() {
		s.Class = ClassIncomplete
	}
	f.Summary = s
}

// count returns the number of targets of class c.
func (s FleetSummary) count(c Class) int {
	switch c {
	case ClassConformant:
		return s.Conformant
	case ClassNonconformant:
		return s.Nonconformant
	case ClassIncomplete:
		return s.Incomplete
	case ClassSetupError:
		return s.SetupError
	}
	return 0
}

// Text says the summary in one line: "fleet nonconformant: 12 targets: 9
// conformant, 1 nonconformant, 1 incomplete, 1 setup-error".
func (s FleetSummary) Text() string {
	var parts []string
	for _, c := range []Class{ClassConformant, ClassNonconformant, ClassIncomplete, ClassSetupError} {
		parts = append(parts, fmt.Sprintf("%d %s", s.count(c), c))
	}
	return fmt.Sprintf("fleet %s: %d targets: %s", s.Class, s.Targets, strings.Join(parts, ", "))
}

// WriteFleetJSON writes the fleet report as indented JSON (contract):
// schemaVersion is always FleetSchemaVersion, arrays are never null, and
// each target's report is encoded as WriteJSON encodes a report.
func WriteFleetJSON(w io.Writer, f *Fleet) error {
	c := *f
	c.SchemaVersion = FleetSchemaVersion
	c.Kind = "fleet"
	c.Targets = make([]FleetTarget, len(f.Targets))
	for i, t := range f.Targets {
		if t.Report != nil {
			t.Report = jsonReport(t.Report)
		}
		c.Targets[i] = t
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&c)
}

// ReadFleetJSON reads a fleet report written by WriteFleetJSON. A report
// of another kind or a newer layout is refused.
func ReadFleetJSON(r io.Reader) (*Fleet, error) {
	var f Fleet
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Kind != "fleet" {
		return nil, fmt.Errorf("not a fleet report (kind %q; a fleet report says \"fleet\")", f.Kind)
	}
	if f.SchemaVersion != FleetSchemaVersion {
		return nil, fmt.Errorf("fleet report layout %d, this build reads %d", f.SchemaVersion, FleetSchemaVersion)
	}
	for i, t := range f.Targets {
		if t.Report == nil {
			return nil, fmt.Errorf("target %q has no report", t.ID)
		}
		if !validClass(t.Class) {
			return nil, fmt.Errorf("target %q has the class %q, which is none of conformant, nonconformant, incomplete, setup-error", t.ID, t.Class)
		}
		f.Targets[i] = t
	}
	return &f, nil
}

func validClass(c Class) bool {
	for _, k := range Classes {
		if k == c {
			return true
		}
	}
	return false
}
