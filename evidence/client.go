package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// ClientRun is everything one run of client mode (`mcpconform client --
// CLIENT_CMD`) observed: the client under test was started once per
// scenario, with the contract's environment (MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT and, over
// stdio, MCP_CONFORMANCE_SERVER_COMMAND), and every time it spawned the
// recording mock, the mock wrote down what crossed its stdio.
//
// The transcripts of the spawns keep the direction words of server mode:
// transcript.Send is what the client wrote (the mock's stdin) and
// transcript.Recv what the server wrote (the mock's stdout), so the
// transcript package, its text form and its JSON serve both modes.
type ClientRun struct {
	Format int `json:"format"`
	// Tool is the version of mcpconform that recorded the run.
	Tool string `json:"tool"`
	// Transport is how the client reached the mock (TransportStdio, or
	// TransportHTTP: the URL of the mock was the client's last argument).
	Transport string `json:"transport"`
	// Command is the client's argv.
	Command  []string      `json:"command"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	// Scenarios are the scenario runs, in report order.
	Scenarios []*ScenarioRun `json:"scenarios"`
	// Interrupted says why the run was cut short (a signal, its deadline).
	Interrupted string `json:"interrupted,omitempty"`
}

// Classes of a scenario run: only conformance decides the exit code;
// interoperability (a legal variant of the mock) and resilience (a fault
// of the mock) are reported apart.
const (
	ClassConformance      = "conformance"
	ClassInteroperability = "interoperability"
	ClassResilience       = "resilience"
)

// ScenarioRun is one run of the client for one scenario.
type ScenarioRun struct {
	// Name is the scenario (MCP_CONFORMANCE_SCENARIO).
	Name string `json:"name"`
	// Version is the protocol version the run asked the client to use
	// (MCP_CONFORMANCE_PROTOCOL_VERSION); the version a spawn is judged
	// under is the one its traffic shows (Spawn.Version).
	Version string `json:"version"`
	// Context is MCP_CONFORMANCE_CONTEXT, a JSON object.
	Context json.RawMessage `json:"context,omitempty"`
	// Class is ClassConformance, ClassInteroperability or
	// ClassResilience; Variant and Fault name the mock's legal variant or
	// fault for the latter two.
	Class   string `json:"class"`
	Variant string `json:"variant,omitempty"`
	Fault   string `json:"fault,omitempty"`
	// Client is the client process of this run.
	Client ClientProcess `json:"client"`
	// Spawns are the recording mock's processes the client started, in
	// the order they started: zero, one or several.
	Spawns []*Spawn `json:"spawns"`
}

// ClientProcess is what was seen of the client process itself.
type ClientProcess struct {
	Pid int `json:"pid,omitempty"`
	// StartError is set when the client could not be started.
	StartError string `json:"startError,omitempty"`
	// Exit says how it ended; nil when the harness stopped it (see
	// Stopped).
	Exit *transcript.Exit `json:"exit,omitempty"`
	// Stopped says why the harness ended the client (its deadline, an
	// interrupt), empty when it exited on its own.
	Stopped    string        `json:"stopped,omitempty"`
	Duration   time.Duration `json:"durationNs"`
	StdoutTail []string      `json:"stdoutTail,omitempty"`
	StderrTail []string      `json:"stderrTail,omitempty"`
	// Strays are the processes it left behind, found and killed when it
	// ended (as for a server: see transport.Stray).
	Strays []string `json:"strays,omitempty"`
}

// Spawn is one process of the recording mock that the client started.
type Spawn struct {
	ID int `json:"id"`
	// Argv is the argv the client ran (MCP_CONFORMANCE_SERVER_COMMAND, as
	// the mock saw its own arguments).
	Argv []string `json:"argv,omitempty"`
	// Transport is TransportHTTP for the connection of a client run over
	// Streamable HTTP ("" over stdio): then the spawn is the mock served
	// at URL for the scenario run, and its transcript holds every HTTP
	// exchange the client made with it.
	Transport string `json:"transport,omitempty"`
	URL       string `json:"url,omitempty"`
	// Version is the protocol version its traffic negotiated (the
	// initialize result, or the version of its 2026-07-28 requests);
	// empty when nothing was negotiated.
	Version string `json:"version,omitempty"`
	// Transcript is every line in both directions, with arrival times,
	// and the mock's events (stdin closed, signals received, its exit).
	Transcript *transcript.Transcript `json:"transcript"`
}

// SaveFile writes the client run to a file as JSON.
func (r *ClientRun) SaveFile(path string) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// IsClientRunFile reports whether the file at path holds a client run
// (what `mcpconform client --evidence` writes) rather than a server run.
func IsClientRunFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var top struct {
		Scenarios json.RawMessage `json:"scenarios"`
		Format    int             `json:"format"`
	}
	return json.Unmarshal(data, &top) == nil && top.Scenarios != nil && top.Format > 0
}

// LoadClientRunFile reads a client run saved by SaveFile.
func LoadClientRunFile(path string) (*ClientRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r ClientRun
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: reading client evidence: %w", path, err)
	}
	if r.Format != 1 {
		return nil, fmt.Errorf("%s: client evidence format %d: this mcpconform reads format 1", path, r.Format)
	}
	return &r, nil
}
