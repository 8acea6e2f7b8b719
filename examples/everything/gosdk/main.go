// Command gosdk is an everything client on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp): a client under test for the
// scenarios of docs/client-guide.md, "The contract". It runs the scenario
// named by MCP_CONFORMANCE_SCENARIO once and exits 0 when it completed, 1
// when it failed, 2 for an unknown scenario and 3 for one the SDK cannot do.
//
// Over stdio it spawns the server that MCP_CONFORMANCE_SERVER_COMMAND names
// (mcp.CommandTransport); without that variable it connects to the URL given
// as its last argument (mcp.StreamableClientTransport). By hand, from the
// root of this repository, with mcpconform on the PATH:
//
//	MCP_CONFORMANCE_SCENARIO=resources MCP_CONFORMANCE_SERVER_COMMAND='["mcpconform","mock"]' go run ./examples/everything/gosdk
//	MCP_CONFORMANCE_SCENARIO=tools_call MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 go run ./examples/everything/gosdk http://127.0.0.1:3001/mcp
//
// Every scenario the contract lists is supported: go-sdk v1.8.0 speaks
// 2026-07-28 (server/discover, per-request _meta, input_required retries)
// as well as the handshake versions.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return contract.Main("everything-gosdk", args, getenv, stdout, stderr, map[string]contract.Handler{
		"initialize":                          initialize,
		"tools_call":                          toolsCall,
		"resources":                           resources,
		"prompts":                             prompts,
		"list-changed":                        listChanged,
		"server-requests":                     serverRequests,
		"elicitation-sep1034-client-defaults": elicitationDefaults,
		"cancellation":                        cancellation,
		"shutdown":                            shutdown,
		"version-negotiation":                 versionNegotiation,
		"session-expiry":                      initialize,
		"request-metadata":                    requestMetadata,
		"sep-2322-client-request-state":       requestState,
	})
}

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpconform-everything-gosdk", Version: "0.1.0"}, opts)
}

// transport is the way to the server env names: its command over stdio,
// or its URL over Streamable HTTP.
func transport(env *contract.Env) mcp.Transport {
	if env.Stdio() {
		cmd := exec.Command(env.ServerCommand[0], env.ServerCommand[1:]...)
		cmd.Stderr = os.Stderr
		return &mcp.CommandTransport{Command: cmd}
	}
	return &mcp.StreamableClientTransport{Endpoint: env.URL}
}

// connect starts a session of client over t. It offers env's protocol
// version, or the SDK's newest when env gives none.
func connect(ctx context.Context, env *contract.Env, client *mcp.Client, t mcp.Transport, out io.Writer) (*mcp.ClientSession, error) {
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: env.ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	fmt.Fprintf(out, "protocol version %s (%s)\n", cs.InitializeResult().ProtocolVersion, era(cs))
	return cs, nil
}

// era names how the session was opened: 2026-07-28 has no handshake.
func era(cs *mcp.ClientSession) string {
	if cs.InitializeResult().ProtocolVersion >= "2026-07-28" {
		return "2026-07-28 era: server/discover, _meta on every request"
	}
	return "handshake era: initialize"
}

// closeSession closes cs, reporting a failure to close without failing the
// scenario: what the server did on the way out is the judge's to see.
func closeSession(cs *mcp.ClientSession) {
	if err := cs.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "everything-gosdk: closing: %v\n", err)
	}
}

// capabilities returns what the server declared.
func capabilities(cs *mcp.ClientSession) *mcp.ServerCapabilities {
	if c := cs.InitializeResult().Capabilities; c != nil {
		return c
	}
	return &mcp.ServerCapabilities{}
}

// maxPages caps one walk of a list, for a server that makes up a new
// cursor for every page forever.
const maxPages = 1000

// walk follows a list's cursors to its last page and prints how many
// items came on how many pages. go-sdk's iterators (session.Tools and the
// like) follow cursors for as long as they come; a cursor handed out twice
// in one walk is a loop, and ends it with an error.
func walk[T any](ctx context.Context, kind string, out io.Writer, page func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	var items []T
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		got, next, err := page(ctx, cursor)
		if err != nil {
			return items, fmt.Errorf("listing %s, page %d: %w", kind, pages, err)
		}
		items = append(items, got...)
		switch {
		case next == "":
			fmt.Fprintf(out, "%s: %d on %d pages\n", kind, len(items), pages)
			return items, nil
		case seen[next]:
			return items, fmt.Errorf("listing %s: page %d hands out cursor %q again: a cursor loop", kind, pages, next)
		case pages == maxPages:
			return items, fmt.Errorf("listing %s: more than %d pages", kind, maxPages)
		}
		seen[next] = true
		cursor = next
	}
}

func listTools(ctx context.Context, cs *mcp.ClientSession, out io.Writer) ([]*mcp.Tool, error) {
	return walk(ctx, "tools", out, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

func listResources(ctx context.Context, cs *mcp.ClientSession, out io.Writer) ([]*mcp.Resource, error) {
	return walk(ctx, "resources", out, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

func listTemplates(ctx context.Context, cs *mcp.ClientSession, out io.Writer) ([]*mcp.ResourceTemplate, error) {
	return walk(ctx, "resource templates", out, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

func listPrompts(ctx context.Context, cs *mcp.ClientSession, out io.Writer) ([]*mcp.Prompt, error) {
	return walk(ctx, "prompts", out, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// callTool calls a tool and prints the text of its result.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out io.Writer) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("calling %q: %w", name, err)
	}
	return printResult(name, res, out)
}

// printResult prints the text of a tool's result; a result with isError is
// a failure.
func printResult(name string, res *mcp.CallToolResult, out io.Writer) error {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	fmt.Fprintf(out, "%s: %q\n", name, strings.Join(texts, "\n"))
	if res.IsError {
		return fmt.Errorf("tool %q answered with isError", name)
	}
	return nil
}

func initialize(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	if capabilities(cs).Tools == nil {
		fmt.Fprintln(out, "the server declares no tools")
		return nil
	}
	_, err = listTools(ctx, cs, out)
	return err
}

func toolsCall(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	tools, err := listTools(ctx, cs, out)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == "add_numbers" {
			return callTool(ctx, cs, t.Name, map[string]any{"a": 2, "b": 3}, out)
		}
	}
	return errors.New("the server lists no tool add_numbers")
}

func resources(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	if capabilities(cs).Resources == nil {
		fmt.Fprintln(out, "the server declares no resources")
		return nil
	}
	list, err := listResources(ctx, cs, out)
	if err != nil {
		return err
	}
	if _, err := listTemplates(ctx, cs, out); err != nil {
		return err
	}
	for _, r := range list {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			return fmt.Errorf("reading %q: %w", r.URI, err)
		}
		fmt.Fprintf(out, "read %q: %d contents\n", r.URI, len(res.Contents))
	}
	return nil
}

func prompts(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	if capabilities(cs).Prompts == nil {
		fmt.Fprintln(out, "the server declares no prompts")
		return nil
	}
	list, err := listPrompts(ctx, cs, out)
	if err != nil {
		return err
	}
	for _, p := range list {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "x"
			}
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil {
			return fmt.Errorf("getting prompt %q: %w", p.Name, err)
		}
		fmt.Fprintf(out, "prompt %q: %d messages\n", p.Name, len(res.Messages))
	}
	return nil
}

func listChanged(ctx context.Context, env *contract.Env, out io.Writer) error {
	changed := contract.NewChanges()
	// With these handlers set, go-sdk asks a 2026-07-28 server for the
	// changes on a subscriptions/listen stream of its own.
	cs, err := connect(ctx, env, newClient(&mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { changed.Note("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed.Note("resources") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { changed.Note("prompts") },
	}), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	caps := capabilities(cs)
	lists := map[string]func() error{}
	if caps.Tools != nil {
		lists["tools"] = func() error { _, err := listTools(ctx, cs, out); return err }
	}
	if caps.Resources != nil {
		lists["resources"] = func() error { _, err := listResources(ctx, cs, out); return err }
	}
	if caps.Prompts != nil {
		lists["prompts"] = func() error { _, err := listPrompts(ctx, cs, out); return err }
	}
	return contract.ListChanged(ctx, lists, changed, out)
}

// answering returns client options that declare roots (with listChanged),
// sampling and elicitation, and answer the server's requests for them.
func answering(out io.Writer) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			fmt.Fprintf(out, "sampling/createMessage: %d messages\n", len(req.Params.Messages))
			return &mcp.CreateMessageResult{
				Role:       "assistant",
				Model:      contract.SampledModel,
				Content:    &mcp.TextContent{Text: contract.SampledText},
				StopReason: "endTurn",
			}, nil
		},
		// go-sdk fills every property's schema default into the content
		// of an accepted form (SEP-1034), so an empty one accepts them all.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Fprintln(out, "elicitation/create: accepting the defaults")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	}
}

// connectAnswering is connect for the scenarios that answer the server's
// requests, with the client of answering offering one root.
func connectAnswering(ctx context.Context, env *contract.Env, out io.Writer) (*mcp.ClientSession, error) {
	client := newClient(answering(out))
	client.AddRoots(&mcp.Root{URI: contract.RootURI, Name: "mcpconform-root"})
	return connect(ctx, env, client, transport(env), out)
}

func serverRequests(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connectAnswering(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	if _, err := listTools(ctx, cs, out); err != nil {
		return err
	}
	if env.Context.Tool == "" {
		return nil
	}
	return callTool(ctx, cs, env.Context.Tool, env.Arguments(), out)
}

func elicitationDefaults(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(&mcp.ClientOptions{ElicitationHandler: answering(out).ElicitationHandler}), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	return callTool(ctx, cs, "test_client_elicitation_defaults", map[string]any{}, out)
}

func cancellation(ctx context.Context, env *contract.Env, out io.Writer) error {
	if env.Context.Tool == "" && env.Context.URI == "" {
		return errors.New("the context names neither a tool nor a uri")
	}
	t := transport(env)
	var watch *cancelWatch
	if env.Stdio() {
		watch = &cancelWatch{Transport: t, sent: make(chan struct{})}
		t = watch
	}
	cs, err := connect(ctx, env, newClient(nil), t, out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	// go-sdk sends notifications/cancelled for a request whose context
	// ends before its answer.
	rctx, cancel := context.WithTimeout(ctx, env.Timeout())
	defer cancel()
	if env.Context.Tool != "" {
		_, err = cs.CallTool(rctx, &mcp.CallToolParams{Name: env.Context.Tool, Arguments: env.Arguments()})
	} else {
		_, err = cs.ReadResource(rctx, &mcp.ReadResourceParams{URI: env.Context.URI})
	}
	abandoned, err := contract.Abandoned(ctx, env, err, out)
	if !abandoned || watch == nil {
		return err
	}
	return contract.AwaitCancelled(ctx, watch.sent, out)
}

// cancelWatch is a transport whose connection closes sent once the SDK has
// written a notifications/cancelled.
type cancelWatch struct {
	mcp.Transport
	sent chan struct{}
	once sync.Once
}

func (w *cancelWatch) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: conn, watch: w}, nil
}

type watchedConn struct {
	mcp.Connection
	watch *cancelWatch
}

func (c *watchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "notifications/cancelled" {
		c.watch.once.Do(func() { close(c.watch.sent) })
	}
	return err
}

func shutdown(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	if cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		if err := cs.Ping(ctx, nil); err != nil {
			closeSession(cs)
			return fmt.Errorf("ping: %w", err)
		}
		fmt.Fprintln(out, "ping answered")
	}
	// For a spawned server, Close is the stdio shutdown: close stdin, wait,
	// SIGTERM, wait, SIGKILL (mcp.CommandTransport).
	start := time.Now()
	closeSession(cs)
	fmt.Fprintf(out, "closed in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func versionNegotiation(ctx context.Context, env *contract.Env, out io.Writer) error {
	newest := *env
	newest.ProtocolVersion = ""
	cs, err := connect(ctx, &newest, newClient(nil), transport(&newest), out)
	if err != nil {
		return err
	}
	closeSession(cs)
	return nil
}

func requestMetadata(ctx context.Context, env *contract.Env, out io.Writer) error {
	cs, err := connect(ctx, env, newClient(nil), transport(env), out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	caps := capabilities(cs)
	if caps.Tools != nil {
		if _, err := listTools(ctx, cs, out); err != nil {
			return err
		}
	}
	if caps.Resources == nil {
		return nil
	}
	r, err := cs.ListResources(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing resources: %w", err)
	}
	if len(r.Resources) == 0 {
		fmt.Fprintln(out, "no resource listed: nothing to read")
		return nil
	}
	uri := r.Resources[0].URI
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return fmt.Errorf("reading %q: %w", uri, err)
	}
	fmt.Fprintf(out, "read %q: %d contents\n", uri, len(res.Contents))
	return nil
}

// maxStateRetries bounds the retries of a result that asks for nothing but
// to be retried with its requestState.
const maxStateRetries = 10

func requestState(ctx context.Context, env *contract.Env, out io.Writer) error {
	if env.Context.Tool == "" {
		return errors.New("the context names no tool")
	}
	cs, err := connectAnswering(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeSession(cs)
	// go-sdk's multi round-trip middleware (on by default) fulfils an
	// input_required result's inputRequests with the handlers of answering
	// and retries with its requestState. A result with a requestState and
	// no inputRequests, after which a client "MAY retry the original
	// request immediately", it hands back as it came: the retry is ours.
	params := &mcp.CallToolParams{Name: env.Context.Tool, Arguments: env.Arguments()}
	for retries := 0; ; retries++ {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return fmt.Errorf("calling %q: %w", params.Name, err)
		}
		if res.RequestState == "" {
			return printResult(params.Name, res, out)
		}
		if retries == maxStateRetries {
			return fmt.Errorf("calling %q: still input_required after %d retries", params.Name, retries)
		}
		fmt.Fprintf(out, "%s: input_required with a requestState: retrying\n", params.Name)
		params.RequestState = res.RequestState
	}
}
