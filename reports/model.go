// Package reports holds the result model of a conformance run and the writers
// that render it: console, JSON, JUnit XML, Markdown and HTML.
//
// The package knows nothing about processes or the protocol: every writer is a
// pure function of a Report.
package reports

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/schema"
)

// SchemaVersion is the version of the JSON report layout (contract).
const SchemaVersion = 2

// Verdict is the outcome of one check.
type Verdict string

// The verdicts. XFail is a failure listed in a baseline.
const (
	Pass  Verdict = "pass"
	Fail  Verdict = "fail"
	Warn  Verdict = "warn"
	Info  Verdict = "info"
	Skip  Verdict = "skip"
	Error Verdict = "error"
	XFail Verdict = "xfail"
)

// Verdicts lists every verdict in display order.
var Verdicts = []Verdict{Pass, Fail, Warn, Info, Skip, Error, XFail}

// Report is one run of the suite against one target.
type Report struct {
	SchemaVersion int  `json:"schemaVersion"`
	Tool          Tool `json:"tool"`
	// Spec names the published spec the run was judged against: the
	// commit of the spec repository and the schema of each version.
	Spec       *Spec     `json:"spec,omitempty"`
	Target     Target    `json:"target"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	Summary    Summary   `json:"summary"`
	Results    []Result  `json:"results"`
	// Stale lists baseline entries whose checks no longer fail.
	Stale []string `json:"stale,omitempty"`
	// Interrupted is set when the run was cut short (signal or run
	// deadline, or a judging budget; or a usage error found only once the
	// server listed its tools: --call-tools naming one it does not list,
	// and then no result is judged): the verdict is then "error".
	Interrupted string `json:"interrupted,omitempty"`
	// Incomplete lists what the run could not see although it ran to its
	// end: processes the harness stopped past a budget of its own (a
	// flood). The verdict is then "error".
	Incomplete []string `json:"incomplete,omitempty"`
	// DidNotStart says why no session could be established with the
	// server, when none could.
	DidNotStart *StartFailure `json:"didNotStart,omitempty"`
	// Strict is set when warnings fail the run (--strict): JUnit then
	// reports each warning as a failure, so a CI test tab agrees with the
	// exit code.
	Strict bool `json:"strict,omitempty"`
}

// StartFailure is what a reader needs when the server never got going:
// what happened in plain words, the end of its stderr, and a hint.
type StartFailure struct {
	// Stage is "start" (the command could not run), "initialize" (no
	// process completed initialize or server/discover) or "version"; a
	// fleet says "setup" for a target not run (its setup command failed,
	// a variable it requires is not set).
	Stage string `json:"stage"`
	// What says what happened, in plain words.
	What string `json:"what"`
	// Spoke is set when the server wrote a JSON-RPC message of its own on
	// stdout: it got as far as the protocol, so its failure to complete
	// initialize is not taken for the command's or the environment's.
	Spoke      bool     `json:"spoke,omitempty"`
	StderrTail []string `json:"stderrTail,omitempty"`
	Hint       string   `json:"hint,omitempty"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Spec is the specification a run was judged against.
type Spec struct {
	// Repository is the spec repository, Commit the commit every schema
	// was taken from, and Date its date.
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Date       string `json:"date,omitempty"`
	// Schemas are the schema files judged against, one per version
	// judged ("schema/2025-11-25/schema.json").
	Schemas []string `json:"schemas,omitempty"`
}

// SpecOf is the spec of a run that judged the versions given: the pinned
// commit, and the schema of each version that has one.
func SpecOf(versions []string) *Spec {
	s := &Spec{Repository: schema.Repository, Commit: schema.Commit, Date: schema.CommitDate}
	for _, v := range versions {
		if schema.For(v) != nil {
			s.Schemas = append(s.Schemas, schema.Path(v))
		}
	}
	return s
}

// Text is the spec in one line: "b0f60ba5 (2026-08-22):
// schema/2025-11-25/schema.json".
func (s *Spec) Text() string {
	if s == nil || s.Commit == "" {
		return ""
	}
	c := s.Commit
	if len(c) > 8 {
		c = c[:8]
	}
	t := c
	if s.Date != "" {
		t += " (" + s.Date + ")"
	}
	if len(s.Schemas) > 0 {
		t += ": " + strings.Join(s.Schemas, ", ")
	}
	return t
}

// Target describes the server under test as it presented itself.
type Target struct {
	Command []string `json:"command"`
	// Vectors says where the vectors judged came from when a run is
	// judged again from its evidence: this mcpconform's own, or the
	// evidence file's (which could grade anything as it likes).
	Vectors string `json:"vectors,omitempty"`
	// Transport is how the server was reached: "stdio", or "http" for a
	// server at URL (the endpoint; for a server launched from Command, where
	// it listened).
	Transport       string          `json:"transport,omitempty"`
	URL             string          `json:"url,omitempty"`
	ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	// Versions are the protocol versions the run judged the server under.
	Versions []string `json:"versions,omitempty"`
	// StderrTail is the last lines the server wrote to stderr.
	StderrTail []string `json:"stderrTail,omitempty"`
	// Processes is how many server processes the run started.
	Processes int `json:"processes,omitempty"`
	// CallTools is the --call-tools policy that decided which listed
	// tools were called; ToolCalls says, for every listed tool, whether
	// the run called it and, when not, why.
	CallTools string     `json:"callTools,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
}

// ToolCall is a listed tool and whether the run called it.
type ToolCall struct {
	Name            string `json:"name"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Called          bool   `json:"called"`
	Why             string `json:"why,omitempty"`
	// WouldCallReadonly is set for a tool not called that --call-tools
	// readonly would call: the server annotates it readOnlyHint: true (its
	// word, which the run does not verify) and its arguments can be built.
	WouldCallReadonly bool `json:"wouldCallReadonly,omitempty"`
}

// ToolCallsText says in one line which listed tools were called and which
// were not, with the policy: "add, echo called; delete_note not (--call-tools
// readonly)". Empty when the server listed no tools.
func (t Target) ToolCallsText() string {
	var called, not []string
	seen := map[string]bool{}
	for _, c := range t.ToolCalls {
		if seen[c.Name] {
			continue // the same tool under another version
		}
		seen[c.Name] = true
		if c.Called {
			called = append(called, c.Name)
		} else {
			not = append(not, c.Name)
		}
	}
	if len(seen) == 0 {
		return ""
	}
	var parts []string
	if len(called) > 0 {
		parts = append(parts, strings.Join(called, ", ")+" called")
	}
	if len(not) > 0 {
		parts = append(parts, strings.Join(not, ", ")+" not called")
	}
	s := strings.Join(parts, "; ")
	if t.CallTools != "" {
		s += " (--call-tools " + t.CallTools + ")"
	}
	return s
}

// ReadonlyText says, for a run that called no tool (--call-tools none),
// which tools --call-tools readonly would call, and so how to have them
// judged: "--call-tools readonly would call echo, add (annotated
// readOnlyHint: true)": the annotation is the server's word, which the
// run does not verify. Empty otherwise.
func (t Target) ReadonlyText() string {
	if t.CallTools != "none" {
		return ""
	}
	var readonly []string
	seen := map[string]bool{}
	for _, c := range t.ToolCalls {
		if c.WouldCallReadonly && !seen[c.Name] {
			seen[c.Name] = true
			readonly = append(readonly, c.Name)
		}
	}
	switch {
	case len(readonly) > 0:
		return "--call-tools readonly would call " + strings.Join(readonly, ", ") + " (annotated readOnlyHint: true)"
	case len(t.ToolCalls) > 0:
		return "--call-tools readonly would call none of them (none is annotated readOnlyHint: true with arguments the suite can build)"
	}
	return ""
}

// Summary counts results per verdict and gives the overall verdict:
// "conformant", "nonconformant" or "error".
type Summary struct {
	Pass    int    `json:"pass"`
	Fail    int    `json:"fail"`
	Warn    int    `json:"warn"`
	Info    int    `json:"info"`
	Skip    int    `json:"skip"`
	Error   int    `json:"error"`
	XFail   int    `json:"xfail"`
	Verdict string `json:"verdict"`
}

// Result is the verdict of one check.
type Result struct {
	ID              string  `json:"id"`
	Requirement     string  `json:"requirement"`
	Level           string  `json:"level"`
	Verdict         Verdict `json:"verdict"`
	Message         string  `json:"message"`
	Spec            string  `json:"spec"`
	ProtocolVersion string  `json:"protocolVersion,omitempty"`
	// Area groups checks for reports (lifecycle, jsonrpc, stdio, resources, ...).
	Area   string   `json:"area,omitempty"`
	Labels []string `json:"labels,omitempty"`
	// Expected and Actual are JSON values: what the check accepted and what it saw.
	Expected   any              `json:"expected,omitempty"`
	Actual     any              `json:"actual,omitempty"`
	Transcript []TranscriptLine `json:"transcript,omitempty"`
	// Quote is the sentence of the spec the check judges, as the version
	// judged writes it; Spec links to it.
	Quote string `json:"quote,omitempty"`
	// Sent is what the suite sent (a request, compact) and Got what came
	// back or what happened instead, for a result that is not a pass.
	Sent string `json:"sent,omitempty"`
	Got  string `json:"got,omitempty"`
	// Expect says in words what the check expected.
	Expect string `json:"expect,omitempty"`
	// DurationMs is how long the run spent on what the result judges (the
	// items of a vector test); zero for a check judged from evidence
	// gathered for others.
	DurationMs int64 `json:"durationMs,omitempty"`
}

// TranscriptLine is one line of a transcript excerpt. Dir is "send" (client to
// server), "recv" (server stdout), "stderr", or "note" (an event of the harness).
type TranscriptLine struct {
	AtMs int64  `json:"atMs"`
	Dir  string `json:"dir"`
	Text string `json:"text"`
}

// Count recomputes the summary from the results. Stale baseline entries and
// failures make the run nonconformant (a server that did not start, too,
// when it failed something on the way); harness errors alone, a run cut
// short, or a server that did not start and failed nothing, make it
// "error".
func (r *Report) Count() {
	s := Summary{}
	for _, res := range r.Results {
		switch res.Verdict {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		case Warn:
			s.Warn++
		case Info:
			s.Info++
		case Skip:
			s.Skip++
		case Error:
			s.Error++
		case XFail:
			s.XFail++
		}
	}
	switch {
	case s.Fail > 0 || len(r.Stale) > 0:
		// Even by a server that never started, or in a run cut short: a
		// failure seen on the way is never hidden.
		s.Verdict = "nonconformant"
	case r.Interrupted != "":
		// A run cut short that failed nothing judged too little to be
		// called conformant.
		s.Verdict = "error"
	case r.DidNotStart != nil:
		// One that never started, and failed nothing on the way, judged
		// too little.
		s.Verdict = "error"
	case s.Error > 0 || len(r.Incomplete) > 0:
		// What was seen broke nothing, but not everything was seen.
		s.Verdict = "error"
	default:
		s.Verdict = "conformant"
	}
	r.Summary = s
}
