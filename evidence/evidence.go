// Package evidence is what a conformance run observed, as plain data: the
// server processes it started, each with its whole transcript, and the
// sessions judged in them. The executor produces a Run; checks judge only
// a Run; a Run saved as JSON can be judged again later, with no server.
//
// Everything a check needs beyond the transcripts — the pages of a list,
// the reads of discovery, the exchange of a probe — is derived here from
// the transcripts and the tags the executor put on what it sent, by pure
// functions.
package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Format is the version of the evidence file layout. Format 2 names the
// transport of the run and of each process, and its transcripts may hold
// the events of an HTTP transport; Load reads format 1 too, as the stdio
// run every format 1 file is.
const Format = 2

// TransportStdio names the stdio transport: a server process spoken to
// over its stdin and stdout.
const TransportStdio = "stdio"

// TransportHTTP names the Streamable HTTP transport: a server at a URL
// (or a Unix socket), each process of the run one HTTP session with it.
const TransportHTTP = "http"

// Run is everything one run of the suite observed.
type Run struct {
	Format int `json:"format"`
	// Tool is the version of mcpconform that recorded the run.
	Tool string `json:"tool"`
	// Transport is how the run reached the server: TransportStdio (a
	// command whose stdio carried the messages) or TransportHTTP.
	Transport string   `json:"transport"`
	Command   []string `json:"command"`
	// URL is the endpoint of an HTTP run, as the user named it (a
	// unix:// URL for a Unix socket), or where the launched server
	// listened.
	URL string `json:"url,omitempty"`
	// Server is the server process an HTTP run launched from Command:
	// its output and its end. It carries no messages, so it is none of
	// Processes.
	Server *Process `json:"server,omitempty"`
	// SpecVersion is what the user asked to judge: "" (the newest
	// handshake version the server agrees to), a version, or "all".
	SpecVersion string        `json:"specVersion,omitempty"`
	Nonce       string        `json:"nonce"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"durationNs"`
	// Versions are the versions judged, in report order.
	Versions []string `json:"versions"`
	// Timeout is the deadline of one request the run used.
	Timeout time.Duration `json:"timeoutNs"`
	// RequestWindow is how long, at least, the probe process stayed open
	// after its initialize for requests the server makes of the client
	// (--server-request-window); one arriving later was not seen. Zero in
	// evidence recorded before the window was recorded.
	RequestWindow time.Duration `json:"requestWindowNs,omitempty"`
	Sessions      []*Session    `json:"sessions"`
	Processes     []*Process    `json:"processes"`
	// Fatal is set when no session could be established.
	Fatal *Fatal `json:"fatal,omitempty"`
	// Interrupted says why the run was cut short (a signal, its deadline).
	Interrupted string `json:"interrupted,omitempty"`
	// StrayCoverage says how processes left behind were looked for, and so
	// what stayed out of sight.
	StrayCoverage string `json:"strayCoverage,omitempty"`
	// Vectors are the vector files the run used when they were not the
	// embedded ones (a user's --vectors), as their JSON text.
	Vectors []VectorFile `json:"vectors,omitempty"`
	// Selection records --only/--skip, which decided what ran.
	Only []string `json:"only,omitempty"`
	Skip []string `json:"skip,omitempty"`
	// CallTools is the --call-tools policy that decided which listed tools
	// were called (empty in evidence recorded while readonly was the
	// default).
	CallTools string `json:"callTools,omitempty"`
	// Unlisted is set when --call-tools named tools the server does not
	// list: a usage error, found at discovery, where the run stopped.
	Unlisted *Unlisted `json:"unlisted,omitempty"`

	mu sync.Mutex // guards Processes and Sessions while a run is recorded
}

// VectorFile is a vector file as the run read it.
type VectorFile struct {
	Name string          `json:"name"`
	JSON json.RawMessage `json:"json"`
}

// Fatal says why a run established no session.
type Fatal struct {
	// Stage is "start" (the command could not run), "initialize" (no
	// process completed initialize or server/discover), or "version" (the
	// server does not serve the version asked for).
	Stage   string `json:"stage"`
	Message string `json:"message"`
}

// Unlisted says which tools --call-tools named that a session's
// tools/list did not list, and what it listed.
type Unlisted struct {
	Version string   `json:"version"`
	Names   []string `json:"names"`
	// Listed are the names the server listed; NoTools is set when it
	// declared no tools capability at all.
	Listed  []string `json:"listed"`
	NoTools bool     `json:"noTools,omitempty"`
}

// Role is what a process was started for.
type Role string

// Process roles.
const (
	// RoleShared opens the session a version is judged in; only
	// well-formed traffic goes to it.
	RoleShared Role = "shared"
	// RoleReplacement carries on a shared session whose process died.
	RoleReplacement Role = "replacement"
	// RoleProbe is a disposable process for probes: requests before
	// initialize, the unknown-version offer, and traffic that may kill or
	// wedge the server. It is replaced when it dies.
	RoleProbe Role = "probe"
	// RoleNegotiation is an initialize with one offered version, kept only
	// for what it answered.
	RoleNegotiation Role = "negotiation"
	// RoleOwn is a process of its own for a vector test that needs one
	// nobody else has talked to.
	RoleOwn Role = "own"
	// RoleServer is the server process an HTTP run launched (Run.Server).
	RoleServer Role = "server"
)

// Process is one server process the run started. In an HTTP run it is
// one HTTP session with the server: what a process is for stdio (a
// shared session, a probe replaced when it dies), a new session is.
type Process struct {
	ID   int  `json:"id"`
	Pid  int  `json:"pid,omitempty"`
	Role Role `json:"role"`
	// Version is the protocol version this process's traffic is judged
	// under (the offered one before a handshake completes).
	Version string `json:"version"`
	// Why says what the process was started for, in words.
	Why string `json:"why,omitempty"`
	// Transport is the transport of its connection (TransportStdio,
	// TransportHTTP).
	Transport string `json:"transport"`
	// StartError is set when the command could not be started.
	StartError  string                 `json:"startError,omitempty"`
	Transcript  *transcript.Transcript `json:"transcript"`
	StderrTail  []string               `json:"stderrTail,omitempty"`
	StderrBytes int64                  `json:"stderrBytes,omitempty"`

	mu sync.Mutex
	x  *exchanges // the index of the transcript as it was at xn entries
	xn int
}

// Exit returns how the process ended, from its transcript (nil while it
// runs, or when it never started).
func (p *Process) Exit() *transcript.Exit {
	if p.Transcript == nil {
		return nil
	}
	var exit *transcript.Exit
	for _, e := range p.Transcript.Entries() {
		if e.Event != nil && e.Event.Exit != nil {
			exit = e.Event.Exit
		}
	}
	return exit
}

// Strays returns the processes left behind at its shutdown.
func (p *Process) Strays() []transcript.Stray {
	var out []transcript.Stray
	for _, e := range p.Entries() {
		if e.Event != nil && e.Event.Stray != nil {
			out = append(out, *e.Event.Stray)
		}
	}
	return out
}

// Entries returns the process's transcript entries.
func (p *Process) Entries() []transcript.Entry {
	if p.Transcript == nil {
		return nil
	}
	return p.Transcript.Entries()
}

// Echoes reports whether the first line the process wrote on stdout is
// the first line it was sent, byte for byte: a program that copies its
// input (cat) rather than a server answering it.
func (p *Process) Echoes() bool {
	var sent, got []byte
	for _, e := range p.Entries() {
		if e.Dir == transcript.Send && sent == nil {
			sent = e.Data
		}
		if e.Dir == transcript.Recv && got == nil {
			got = e.Data
		}
	}
	return sent != nil && bytes.Equal(sent, got)
}

// Session is a session judged under one version: its shared process and
// the replacements that carried it on.
type Session struct {
	Version string `json:"version"`
	// Processes are the ids of the shared process, then its replacements.
	Processes []int `json:"processes"`
	// Probes are the ids of the probe processes of this version.
	Probes []int `json:"probes,omitempty"`
	// Requested is the version the client offered; Negotiated what the
	// server answered (for 2026-07-28, the version server/discover listed).
	Requested  string `json:"requested"`
	Negotiated string `json:"negotiated"`
	Modern     bool   `json:"modern,omitempty"`

	run  *Run
	mu   sync.Mutex
	view *view // built when the session's transcripts held vn entries
	vn   int
	// holds counts Hold calls not yet released: while any is, the view
	// is not rebuilt.
	holds int
	// ids guards Processes and Probes: the executor adds to them from the
	// shared session's goroutine and the probe process's while either
	// reads them.
	ids sync.Mutex
}

// AddProcess records a replacement of the session's shared process.
func (s *Session) AddProcess(id int) {
	s.ids.Lock()
	defer s.ids.Unlock()
	s.Processes = append(s.Processes, id)
}

// AddProbe records a probe process of the session's version.
func (s *Session) AddProbe(id int) {
	s.ids.Lock()
	defer s.ids.Unlock()
	s.Probes = append(s.Probes, id)
}

// processIDs returns the ids of the shared process and its replacements,
// or of the probe processes.
func (s *Session) processIDs(probes bool) []int {
	s.ids.Lock()
	defer s.ids.Unlock()
	if probes {
		return slices.Clone(s.Probes)
	}
	return slices.Clone(s.Processes)
}

// Process returns the process with the id, or nil.
func (r *Run) Process(id int) *Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.Processes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// AddProcess records a new process and gives it the next id.
func (r *Run) AddProcess(p *Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p.ID = len(r.Processes) + 1
	r.Processes = append(r.Processes, p)
}

// AddSession records a session of the run.
func (r *Run) AddSession(s *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.run = r
	r.Sessions = append(r.Sessions, s)
}

// RemoveSession forgets a session (its processes stay on record).
func (r *Run) RemoveSession(s *Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.Sessions {
		if x == s {
			r.Sessions = append(r.Sessions[:i], r.Sessions[i+1:]...)
			return
		}
	}
}

// AllProcesses returns the processes recorded so far.
func (r *Run) AllProcesses() []*Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Process(nil), r.Processes...)
}

// Session returns the session judged under version v, or nil.
func (r *Run) Session(v string) *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.Sessions {
		if s.Version == v {
			s.run = r
			return s
		}
	}
	return nil
}

// Bind links sessions to their run; Load calls it.
func (r *Run) Bind() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.Sessions {
		s.run = r
	}
}

// Shared returns the session's first process.
func (s *Session) Shared() *Process {
	ids := s.processIDs(false)
	if len(ids) == 0 || s.run == nil {
		return nil
	}
	return s.run.Process(ids[0])
}

// All returns the shared process and its replacements.
func (s *Session) All() []*Process {
	var out []*Process
	for _, id := range s.processIDs(false) {
		if p := s.run.Process(id); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// ProbeProcesses returns the probe processes of the session's version.
func (s *Session) ProbeProcesses() []*Process {
	var out []*Process
	for _, id := range s.processIDs(true) {
		if p := s.run.Process(id); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Run returns the run the session belongs to.
func (s *Session) Run() *Run { return s.run }

// Capabilities is what a server declared, read leniently: a flag is true
// only when the member is the JSON boolean true.
type Capabilities struct {
	Raw         json.RawMessage
	Resources   bool
	Subscribe   bool
	ListChanged bool
	Logging     bool
	Completions bool
	Tools       bool
	Prompts     bool
	keys        map[string]json.RawMessage
}

// ParseCapabilities reads a capabilities object.
func ParseCapabilities(raw json.RawMessage) Capabilities {
	c := Capabilities{Raw: raw}
	m := wire.Object(raw)
	if m == nil {
		return c
	}
	c.keys = m
	if r := wire.Object(m["resources"]); r != nil {
		c.Resources = true
		c.Subscribe = string(r["subscribe"]) == "true"
		c.ListChanged = string(r["listChanged"]) == "true"
	}
	_, c.Logging = m["logging"]
	_, c.Completions = m["completions"]
	c.Tools = wire.Object(m["tools"]) != nil
	c.Prompts = wire.Object(m["prompts"]) != nil
	return c
}

// Has reports whether a capability path such as "resources.subscribe" is
// declared.
func (c Capabilities) Has(path string) bool {
	switch path {
	case "resources":
		return c.Resources
	case "resources.subscribe":
		return c.Subscribe
	case "resources.listChanged":
		return c.ListChanged
	case "logging":
		return c.Logging
	case "completions":
		return c.Completions
	case "tools":
		return c.Tools
	case "prompts":
		return c.Prompts
	}
	top, rest, nested := strings.Cut(path, ".")
	if !nested {
		_, ok := c.keys[top]
		return ok
	}
	// A flag below a capability (tools.listChanged) is declared only
	// when it is the JSON boolean true.
	m := wire.Object(c.keys[top])
	for {
		k, more, deeper := strings.Cut(rest, ".")
		if !deeper {
			return string(m[k]) == "true"
		}
		m, rest = wire.Object(m[k]), more
	}
}

// SafeModern reports whether s is a 2026-07-28 session (false for nil).
func (s *Session) SafeModern() bool { return s != nil && s.Modern }

// Incomplete says what the run could not see: each process the harness
// stopped past a budget of its own (a flood of lines), with what it did
// not keep. A run with any is never called conformant.
func (r *Run) Incomplete() []string {
	var out []string
	for _, p := range r.AllProcesses() {
		var last *transcript.Budget
		for _, e := range p.Entries() {
			if e.Event != nil && e.Event.Budget != nil && e.Event.Budget.What == "transcript" {
				last = e.Event.Budget
			}
		}
		if last != nil {
			out = append(out, fmt.Sprintf("process %d was stopped mid-run, the server's output past the harness's budget (%s)", p.ID, last))
		}
	}
	return out
}

// FloodSeq is where the process's transcript passed its budget and began
// to drop entries, or -1: what came after it is known only in part.
func (p *Process) FloodSeq() int {
	for _, e := range p.Entries() {
		if e.Event != nil && e.Event.Budget != nil && e.Event.Budget.What == "transcript" {
			return e.Seq
		}
	}
	return -1
}
