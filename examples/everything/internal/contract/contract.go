// Package contract holds what the everything clients of this folder share:
// the client-side contract of the conformance suite (the environment a
// client under test is started with, its exit statuses), the list of
// scenarios, and the few answers every client gives the same way (the
// root it offers, its sampled reply), and waits it shares.
//
// A client under test is run once per scenario with
//
//	MCP_CONFORMANCE_SCENARIO          the scenario's name
//	MCP_CONFORMANCE_PROTOCOL_VERSION  the version to offer (optional)
//	MCP_CONFORMANCE_CONTEXT           a JSON object of scenario data (optional)
//	MCP_CONFORMANCE_SERVER_COMMAND    the server's argv as a JSON array (stdio)
//
// and, without MCP_CONFORMANCE_SERVER_COMMAND, the server's URL as its last
// argument (Streamable HTTP). docs/client-guide.md, "The contract", is the
// reference; TestGuideListsEveryScenario keeps its table and Scenarios equal.
package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// The environment variables of the contract.
const (
	EnvScenario        = "MCP_CONFORMANCE_SCENARIO"
	EnvProtocolVersion = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	EnvContext         = "MCP_CONFORMANCE_CONTEXT"
	EnvServerCommand   = "MCP_CONFORMANCE_SERVER_COMMAND"
)

// Exit statuses of a client under test.
const (
	ExitCompleted   = 0 // the scenario completed
	ExitFailed      = 1 // the scenario failed
	ExitUsage       = 2 // unknown scenario or a malformed environment: recorded, not judged
	ExitUnsupported = 3 // the SDK lacks what the scenario needs
)

// Deadline bounds one scenario inside the client. The harness allows 30 s;
// ending a little earlier lets the client close its server itself, so that
// what the harness sees is the client's own shutdown, not its kill.
const Deadline = 25 * time.Second

// RootURI is the one root a client offers in answer to roots/list.
const RootURI = "file:///tmp/mcpconform-root"

// SampledText is the assistant's reply to every sampling/createMessage.
const SampledText = "A fixed reply from an mcpconform everything client."

// SampledModel names the model of that reply.
const SampledModel = "mcpconform-fixed-reply"

// A Scenario is one entry of the contract's list.
type Scenario struct {
	Name string
	// Does says what a client does in it, after connecting.
	Does string
}

// Scenarios lists every scenario of the contract, official names first.
var Scenarios = []Scenario{
	{"initialize", "list tools (all pages), then close"},
	{"tools_call", "list tools; call add_numbers with {\"a\": 2, \"b\": 3} and print the result (fail when it is not listed)"},
	{"resources", "list resources and resource templates to the last page (a repeated cursor is an error), read every listed resource"},
	{"prompts", "list prompts (all pages); get each, every required argument \"x\""},
	{"list-changed", "list tools, resources and prompts; list a kind again when its list_changed arrives; stop after one, or after 2 s"},
	{"server-requests", "declare roots (listChanged), sampling and elicitation; answer ping, roots/list, sampling/createMessage, elicitation/create; list tools; call context `tool` if given"},
	{"elicitation-sep1034-client-defaults", "declare elicitation; call test_client_elicitation_defaults; accept the elicitation with every property's default"},
	{"cancellation", "call context `tool` (or read context `uri`) with a deadline of context `timeoutMs`; the SDK cancels the request when it expires"},
	{"shutdown", "ping (handshake era only: 2026-07-28 has no ping), then close: the SDK's stdio shutdown is judged"},
	{"version-negotiation", "offer the newest version the SDK speaks, whatever MCP_CONFORMANCE_PROTOCOL_VERSION says; accept a counter-offer the SDK supports, else fail"},
	{"session-expiry", "over Streamable HTTP: list tools (all pages), then close, as initialize does; the server ends the session at a request, and the SDK is to start a new session and go on"},
	{"request-metadata", "in 2026-07-28: list tools, read the first listed resource, print the era used"},
	{"sep-2322-client-request-state", "in 2026-07-28: call context `tool`; the SDK answers input_required and retries with the requestState"},
}

// Known reports whether name is a scenario of the contract.
func Known(name string) bool {
	for _, s := range Scenarios {
		if s.Name == name {
			return true
		}
	}
	return false
}

// Context is MCP_CONFORMANCE_CONTEXT: the scenario's data.
type Context struct {
	Name      string         `json:"name"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	URI       string         `json:"uri"`
	TimeoutMs int            `json:"timeoutMs"`
}

// Env is everything the contract tells a client.
type Env struct {
	Scenario        string
	ProtocolVersion string // empty: the SDK's newest
	Context         Context
	// Exactly one of ServerCommand (stdio) and URL (Streamable HTTP) is set.
	ServerCommand []string
	URL           string
}

// Stdio reports whether the client is to spawn the server.
func (e *Env) Stdio() bool { return e.ServerCommand != nil }

// Timeout is the deadline of the cancellation scenario's request.
func (e *Env) Timeout() time.Duration {
	if e.Context.TimeoutMs > 0 {
		return time.Duration(e.Context.TimeoutMs) * time.Millisecond
	}
	return time.Second
}

// Arguments are the arguments of the context's tool: an empty object when
// the context gives none.
func (e *Env) Arguments() map[string]any {
	if e.Context.Arguments == nil {
		return map[string]any{}
	}
	return e.Context.Arguments
}

// ErrUnsupported is what a scenario returns when the SDK lacks what it
// needs; the client then exits with ExitUnsupported.
var ErrUnsupported = errors.New("unsupported by this SDK")

// A Handler runs one scenario. It prints what it saw to out and returns nil
// when the scenario completed.
type Handler func(ctx context.Context, env *Env, out io.Writer) error

// Main is the body of an everything client: it reads the contract's
// environment (and, for HTTP, the URL from args), runs the scenario's
// handler and returns the exit status. A contract scenario without a
// handler is unsupported by the SDK.
func Main(client string, args []string, getenv func(string) string, stdout, stderr io.Writer, handlers map[string]Handler) int {
	scenario := getenv(EnvScenario)
	if scenario == "" {
		fmt.Fprintf(stderr, "%s: %s is not set\n", client, EnvScenario)
		return ExitUsage
	}
	if !Known(scenario) {
		fmt.Fprintf(stderr, "%s: unknown scenario %q\n", client, scenario)
		return ExitUsage
	}
	h := handlers[scenario]
	if h == nil {
		fmt.Fprintf(stderr, "%s: scenario %s: %v\n", client, scenario, ErrUnsupported)
		return ExitUnsupported
	}
	env, err := Parse(scenario, args, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", client, err)
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch err := h(ctx, env, stdout); {
	case errors.Is(err, ErrUnsupported):
		fmt.Fprintf(stderr, "%s: scenario %s: %v\n", client, scenario, err)
		return ExitUnsupported
	case err != nil:
		fmt.Fprintf(stderr, "%s: scenario %s failed: %v\n", client, scenario, err)
		return ExitFailed
	}
	return ExitCompleted
}

// Parse reads the contract's environment for scenario; args are the
// client's arguments, whose last one is the server's URL when no server
// command is given.
func Parse(scenario string, args []string, getenv func(string) string) (*Env, error) {
	env := &Env{Scenario: scenario, ProtocolVersion: getenv(EnvProtocolVersion)}
	if raw := getenv(EnvContext); raw != "" {
		if err := json.Unmarshal([]byte(raw), &env.Context); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object of the expected members: %v", EnvContext, err)
		}
	}
	if env.Context.Name == "" {
		env.Context.Name = scenario
	}
	if raw := getenv(EnvServerCommand); raw != "" {
		if err := json.Unmarshal([]byte(raw), &env.ServerCommand); err != nil {
			return nil, fmt.Errorf("%s is not a JSON array of strings: %v", EnvServerCommand, err)
		}
		if len(env.ServerCommand) == 0 || env.ServerCommand[0] == "" {
			return nil, fmt.Errorf("%s names no command", EnvServerCommand)
		}
		return env, nil
	}
	if len(args) == 0 || !strings.Contains(args[len(args)-1], "://") {
		return nil, fmt.Errorf("no server: set %s to its argv, or give its URL as the last argument", EnvServerCommand)
	}
	env.URL = args[len(args)-1]
	return env, nil
}

// ListChangedWindow is how long the list-changed scenario waits for a
// notification after listing.
const ListChangedWindow = 2 * time.Second

// Changes carries the kinds ("tools", "resources", "prompts") of the
// list_changed notifications a client's handlers receive.
type Changes chan string

// NewChanges returns a Changes for one scenario.
func NewChanges() Changes { return make(Changes, 3) }

// Note records a list_changed of kind; a handler calls it, and never
// blocks: only the first one counts.
func (c Changes) Note(kind string) {
	select {
	case c <- kind:
	default:
	}
}

// ListChanged is the list-changed scenario of a connected client: lists
// holds a function that lists a kind to its end for every kind the server
// declares. It lists each, waits for the first change noted on changed
// (ListChangedWindow at most) and lists that kind again.
func ListChanged(ctx context.Context, lists map[string]func() error, changed Changes, out io.Writer) error {
	for _, kind := range []string{"tools", "resources", "prompts"} {
		if list := lists[kind]; list != nil {
			if err := list(); err != nil {
				return err
			}
		}
	}
	window := time.NewTimer(ListChangedWindow)
	defer window.Stop()
	select {
	case kind := <-changed:
		fmt.Fprintf(out, "notifications/%s/list_changed: listing again\n", kind)
		list := lists[kind]
		if list == nil {
			return fmt.Errorf("a list_changed for %s, which the server does not declare", kind)
		}
		return list()
	case <-window.C:
		fmt.Fprintf(out, "no list_changed within %v\n", ListChangedWindow)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Abandoned tells how the cancellation scenario's request ended: err is
// what the request returned, ctx the scenario's context. It reports true
// when the request's own deadline passed first, which is the SDK's cue to
// cancel it; an answer within the deadline completes the scenario too.
func Abandoned(ctx context.Context, env *Env, err error, out io.Writer) (bool, error) {
	switch {
	case err == nil:
		fmt.Fprintf(out, "answered within %v: nothing to cancel\n", env.Timeout())
		return false, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case !errors.Is(err, context.DeadlineExceeded):
		return false, err
	}
	fmt.Fprintf(out, "no answer within %v: abandoned\n", env.Timeout())
	return true, nil
}

// CancelGrace bounds the wait for an SDK's notifications/cancelled.
const CancelGrace = 5 * time.Second

// AwaitCancelled waits until sent is closed, which a client's transport
// does once the SDK has written notifications/cancelled, CancelGrace at
// most. Both Go SDKs write it off the caller's path, after the call has
// returned, and a client that closes the session at once can beat it;
// whether it goes out at all is the judge's to see, so a missing one is
// reported, not failed.
func AwaitCancelled(ctx context.Context, sent <-chan struct{}, out io.Writer) error {
	grace := time.NewTimer(CancelGrace)
	defer grace.Stop()
	select {
	case <-sent:
		fmt.Fprintln(out, "notifications/cancelled sent")
	case <-grace.C:
		fmt.Fprintf(out, "no notifications/cancelled written within %v\n", CancelGrace)
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
