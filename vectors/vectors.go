// Package vectors holds mcpconform's language-neutral test vectors: JSON
// files, each a group of tests tied to requirement ids and spec sections.
// The files are embedded in the binary; Load reads and validates them.
package vectors

import (
	"embed"
	"encoding/json"
	"fmt"
)

// Files are the embedded vector files.
//
//go:embed */*.json
var Files embed.FS

// SchemaJSON is the JSON Schema every vector file must satisfy.
//
//go:embed vector.schema.json
var SchemaJSON []byte

// File is one vector file: a group of tests with shared requirements.
type File struct {
	// Path is where the file was loaded from (set by the loader).
	Path string `json:"-"`
	// Raw is the file as read (set by the loader), so a run can carry the
	// vectors it used in its evidence.
	Raw         []byte   `json:"-"`
	Schema      string   `json:"$schema,omitempty"`
	Group       string   `json:"group"`
	Description string   `json:"description"`
	Area        string   `json:"area"`
	Notes       []string `json:"notes,omitempty"`
	Requires    Requires `json:"requires,omitempty"`
	// Session is where the tests run: "shared" (the one initialized session
	// per version), "fresh" (an initialized process of their own) or
	// "uninitialized" (a process of their own that never saw initialize).
	Session string  `json:"session,omitempty"`
	Tests   []*Test `json:"tests"`
}

// Requires gates tests: a test runs only when every condition holds, and is
// skipped with the reason otherwise.
type Requires struct {
	// Capabilities are server capability paths such as "resources" or
	// "resources.subscribe" that must be declared (and true for booleans).
	Capabilities []string `json:"capabilities,omitempty"`
	// Versions restricts the negotiated protocol versions.
	Versions []string `json:"versions,omitempty"`
	// Discovered names lists that must be non-empty: "resources",
	// "templates"; or what must be among their items: "prompt-arguments"
	// (a listed prompt that takes an argument), "template-variables" (a
	// listed template with a variable).
	Discovered []string `json:"discovered,omitempty"`
	// Undeclared are server capability paths that must not be declared: a
	// test of what a server does with a request behind a capability it
	// did not declare.
	Undeclared []string `json:"undeclared,omitempty"`
}

// Test is one vector.
type Test struct {
	ID          string   `json:"id"`
	Requirement string   `json:"requirement"`
	Spec        string   `json:"spec"`
	Description string   `json:"description"`
	Comment     string   `json:"comment,omitempty"`
	Flags       []string `json:"flags,omitempty"`
	Requires    Requires `json:"requires,omitempty"`
	Session     string   `json:"session,omitempty"`
	// Foreach runs the test once per discovered item ("resource" or
	// "template"), binding {{item.*}}; the worst item verdict is the test's.
	Foreach string `json:"foreach,omitempty"`
	// Steps are sent in order; the expectation judges the last request step.
	Steps []Step `json:"steps"`
	// CheckAlive sends a ping after the steps; its answer sets "alive".
	CheckAlive bool `json:"checkAlive,omitempty"`
	// Expect lists the acceptable outcomes in order; the first that matches
	// gives the verdict.
	Expect []Outcome `json:"expect"`
	// Otherwise is the verdict when no outcome matches (default "fail").
	Otherwise string `json:"otherwise,omitempty"`
	// File is the file the test came from (set by the loader).
	File *File `json:"-"`
}

// Step is one thing sent to the server.
type Step struct {
	// Request is a request with a runner-assigned id (unless ID is given).
	Request *Call `json:"request,omitempty"`
	// Notify is a notification.
	Notify *Call `json:"notify,omitempty"`
	// Raw is a line sent byte for byte (robustness probes only). ReplyID,
	// when set, is the id a reply to it would carry.
	Raw     *string         `json:"raw,omitempty"`
	ReplyID json.RawMessage `json:"replyId,omitempty"`
	// SilenceMs is how long to listen for a reply that should not come.
	SilenceMs int `json:"silenceMs,omitempty"`
}

// Call is a method and its params. Params absent means no params member.
type Call struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// ID overrides the runner's id (any JSON value, for id-echo probes).
	ID json.RawMessage `json:"id,omitempty"`
	// Envelope false sends params as written in a 2026-07-28 session,
	// without the per-request _meta (for probes of the envelope rules).
	Envelope *bool `json:"envelope,omitempty"`
	// TimeoutMs shortens the request's deadline, for probes where silence
	// is a recorded outcome rather than a fault.
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// SilenceRecorded reports whether the step is a request whose silence is
// a recorded outcome (TimeoutMs): the runner may stop waiting for its
// answer soon after the server answered a later request, so the deadline
// is the runner's, and an answer arriving after it is still the answer.
func (s Step) SilenceRecorded() bool { return s.Request != nil && s.Request.TimeoutMs > 0 }

// Outcome is one acceptable (or graded) outcome.
type Outcome struct {
	Verdict string `json:"verdict"`
	// Requirement, when set, is the catalogue requirement this outcome's
	// verdict rests on, when it is not the test's own: the result then
	// carries that requirement, its level and its quote. A test of a MUST
	// whose wrong error code only a SHOULD names grades the code so.
	Requirement string `json:"requirement,omitempty"`
	// Versions restricts the outcome to sessions of these versions.
	Versions []string `json:"versions,omitempty"`
	Note     string   `json:"note,omitempty"`
	// At most one of Result, Error, Response; or Silence.
	Result   json.RawMessage `json:"result,omitempty"`
	Error    json.RawMessage `json:"error,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	Silence  bool            `json:"silence,omitempty"`
	// Alive, when set, requires the follow-up ping to have (or not have) an answer.
	Alive *bool `json:"alive,omitempty"`
}

// AcceptsAnything says why the test would pass whatever the server
// answered, or "" when it would not: a pass when nothing matches, or a
// made-up success holding nothing the test asks about (any result, any
// response) whose first matching outcome is a pass. Passing any error is
// left alone: many tests ask only that a request be refused. Such a test
// judges nothing; a vector file from outside (an evidence file, say) that
// holds one could grade any server conformant.
func (t *Test) AcceptsAnything() string {
	if t.Otherwise == "pass" {
		return `"otherwise": "pass" passes whatever no outcome matches`
	}
	for _, c := range []struct{ kind, canary string }{
		{"result", `{"mcpconformCanary":true}`},
		{"response", `{"jsonrpc":"2.0","id":"mcpconform-canary","result":{"mcpconformCanary":true}}`},
	} {
		for i, o := range t.Expect {
			pattern := o.Result
			if c.kind == "response" {
				pattern = o.Response
			}
			if pattern == nil {
				continue
			}
			p, err := CompilePattern(pattern)
			if err != nil || p.Match(json.RawMessage(c.canary)) != nil {
				continue
			}
			if o.Verdict == "pass" {
				return fmt.Sprintf("outcome %d passes any %s", i+1, c.kind)
			}
			break // the first outcome that matches grades it
		}
	}
	return ""
}
