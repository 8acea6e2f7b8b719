// Command mcpgo is an everything client on mcp-go
// (github.com/mark3labs/mcp-go/client): a client under test for the
// scenarios of docs/client-guide.md, "The contract". It runs the scenario
// named by MCP_CONFORMANCE_SCENARIO once and exits 0 when it completed, 1
// when it failed, 2 for an unknown scenario and 3 for one the SDK cannot do.
//
// Over stdio it spawns the server that MCP_CONFORMANCE_SERVER_COMMAND names
// (transport.NewStdio); without that variable it connects to the URL given
// as its last argument (transport.NewStreamableHTTP). By hand, from the
// root of this repository, with mcpconform on the PATH:
//
//	MCP_CONFORMANCE_SCENARIO=resources MCP_CONFORMANCE_SERVER_COMMAND='["mcpconform","mock"]' go run ./examples/everything/mcpgo
//	MCP_CONFORMANCE_SCENARIO=tools_call MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 go run ./examples/everything/mcpgo http://127.0.0.1:3001/mcp
//
// Every scenario the contract lists is supported: mcp-go v1.2.1 speaks
// 2026-07-28 (server/discover, per-request _meta, input_required retries)
// as well as the handshake versions.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return contract.Main("everything-mcpgo", args, getenv, stdout, stderr, map[string]contract.Handler{
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

// newTransport is the way to the server env names: its command over
// stdio, with its stderr passed through, or its URL over Streamable HTTP.
func newTransport(env *contract.Env) (transport.Interface, error) {
	if env.Stdio() {
		return transport.NewStdioWithOptions(env.ServerCommand[0], nil, env.ServerCommand[1:],
			transport.WithCommandStderrWriter(os.Stderr)), nil
	}
	return transport.NewStreamableHTTP(env.URL)
}

// connect starts and initializes a client over t. It offers env's
// protocol version, or the SDK's newest when env gives none: mcp-go tries
// server/discover for 2026-07-28 and falls back to initialize.
func connect(ctx context.Context, env *contract.Env, t transport.Interface, out io.Writer, opts ...client.ClientOption) (*client.Client, error) {
	if env.ProtocolVersion != "" {
		opts = append(opts, client.WithProtocolVersion(env.ProtocolVersion))
	}
	c := client.NewClient(t, opts...)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the transport: %w", err)
	}
	_, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "mcpconform-everything-mcpgo", Version: "0.1.0"},
	}})
	if err != nil {
		closeClient(c)
		return nil, fmt.Errorf("initializing: %w", err)
	}
	fmt.Fprintf(out, "protocol version %s (%s)\n", c.ProtocolVersion(), era(c))
	return c, nil
}

// dial is connect over the transport env names.
func dial(ctx context.Context, env *contract.Env, out io.Writer, opts ...client.ClientOption) (*client.Client, error) {
	t, err := newTransport(env)
	if err != nil {
		return nil, err
	}
	return connect(ctx, env, t, out, opts...)
}

// era names how the session was opened: 2026-07-28 has no handshake.
func era(c *client.Client) string {
	if mcp.IsModernProtocol(c.ProtocolVersion()) {
		return "2026-07-28 era: server/discover, _meta on every request"
	}
	return "handshake era: initialize"
}

// closeClient closes c, reporting a failure to close without failing the
// scenario: what the server did on the way out is the judge's to see.
func closeClient(c *client.Client) {
	if err := c.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "everything-mcpgo: closing: %v\n", err)
	}
}

// mcp-go's ListTools, ListResources, ListResourceTemplates and ListPrompts
// follow every page, and end with ErrRepeatedListCursor when a cursor comes
// back that was already requested.

func listTools(ctx context.Context, c *client.Client, out io.Writer) ([]mcp.Tool, error) {
	r, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	fmt.Fprintf(out, "tools: %d\n", len(r.Tools))
	return r.Tools, nil
}

func listResources(ctx context.Context, c *client.Client, out io.Writer) ([]mcp.Resource, error) {
	r, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing resources: %w", err)
	}
	fmt.Fprintf(out, "resources: %d\n", len(r.Resources))
	return r.Resources, nil
}

func listPrompts(ctx context.Context, c *client.Client, out io.Writer) ([]mcp.Prompt, error) {
	r, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing prompts: %w", err)
	}
	fmt.Fprintf(out, "prompts: %d\n", len(r.Prompts))
	return r.Prompts, nil
}

// callTool calls a tool and prints the text of its result; a result with
// isError is a failure. mcp-go answers an input_required result (its
// inputRequests with the client's handlers) and retries with the
// requestState before it returns.
func callTool(ctx context.Context, c *client.Client, name string, args map[string]any, out io.Writer) error {
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return fmt.Errorf("calling %q: %w", name, err)
	}
	var texts []string
	for _, content := range res.Content {
		if t, ok := mcp.AsTextContent(content); ok {
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
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	if c.GetServerCapabilities().Tools == nil {
		fmt.Fprintln(out, "the server declares no tools")
		return nil
	}
	_, err = listTools(ctx, c, out)
	return err
}

func toolsCall(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	tools, err := listTools(ctx, c, out)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == "add_numbers" {
			return callTool(ctx, c, t.Name, map[string]any{"a": 2, "b": 3}, out)
		}
	}
	return errors.New("the server lists no tool add_numbers")
}

func resources(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	if c.GetServerCapabilities().Resources == nil {
		fmt.Fprintln(out, "the server declares no resources")
		return nil
	}
	list, err := listResources(ctx, c, out)
	if err != nil {
		return err
	}
	templates, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		return fmt.Errorf("listing resource templates: %w", err)
	}
	fmt.Fprintf(out, "resource templates: %d\n", len(templates.ResourceTemplates))
	for _, r := range list {
		res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: r.URI}})
		if err != nil {
			return fmt.Errorf("reading %q: %w", r.URI, err)
		}
		fmt.Fprintf(out, "read %q: %d contents\n", r.URI, len(res.Contents))
	}
	return nil
}

func prompts(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	if c.GetServerCapabilities().Prompts == nil {
		fmt.Fprintln(out, "the server declares no prompts")
		return nil
	}
	list, err := listPrompts(ctx, c, out)
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
		res, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: p.Name, Arguments: args}})
		if err != nil {
			return fmt.Errorf("getting prompt %q: %w", p.Name, err)
		}
		fmt.Fprintf(out, "prompt %q: %d messages\n", p.Name, len(res.Messages))
	}
	return nil
}

func listChanged(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	changed := contract.NewChanges()
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case mcp.MethodNotificationToolsListChanged:
			changed.Note("tools")
		case mcp.MethodNotificationResourcesListChanged:
			changed.Note("resources")
		case mcp.MethodNotificationPromptsListChanged:
			changed.Note("prompts")
		}
	})
	caps := c.GetServerCapabilities()
	if mcp.IsModernProtocol(c.ProtocolVersion()) {
		// In 2026-07-28 list changes come only on a subscriptions/listen
		// stream that asked for them.
		filter := mcp.SubscriptionFilter{
			ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
			ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
			PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
		}
		if !filter.IsEmpty() {
			stop, err := c.ListenAsync(ctx, filter, func(err error) {
				fmt.Fprintf(os.Stderr, "everything-mcpgo: subscriptions/listen: %v\n", err)
			})
			if err != nil {
				return fmt.Errorf("subscriptions/listen: %w", err)
			}
			defer stop()
		}
	}
	lists := map[string]func() error{}
	if caps.Tools != nil {
		lists["tools"] = func() error { _, err := listTools(ctx, c, out); return err }
	}
	if caps.Resources != nil {
		lists["resources"] = func() error { _, err := listResources(ctx, c, out); return err }
	}
	if caps.Prompts != nil {
		lists["prompts"] = func() error { _, err := listPrompts(ctx, c, out); return err }
	}
	return contract.ListChanged(ctx, lists, changed, out)
}

// answerer answers the server's requests: roots/list with one root,
// sampling/createMessage with a fixed reply, elicitation/create by
// accepting the requested schema's defaults.
type answerer struct{ out io.Writer }

func (a answerer) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	fmt.Fprintln(a.out, "roots/list: one root")
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: contract.RootURI, Name: "mcpconform-root"}}}, nil
}

func (a answerer) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	fmt.Fprintf(a.out, "sampling/createMessage: %d messages\n", len(req.Messages))
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(contract.SampledText)},
		Model:           contract.SampledModel,
		StopReason:      "endTurn",
	}, nil
}

func (a answerer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	content, err := defaults(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.out, "elicitation/create: accepting %d defaults\n", len(content))
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action:  mcp.ElicitationResponseActionAccept,
		Content: content,
	}}, nil
}

// defaults returns the content that accepts an elicitation with the
// default of every property of its requested schema that has one: mcp-go
// passes the content on as the handler returns it (go-sdk and the
// TypeScript SDK fill the defaults in themselves, SEP-1034). The schema
// may be any value that marshals to JSON.
func defaults(schema any) (map[string]any, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("requested schema: %v", err)
	}
	content := map[string]any{}
	for name, p := range s.Properties {
		if len(p.Default) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return nil, fmt.Errorf("default of %q: %v", name, err)
		}
		content[name] = v
	}
	return content, nil
}

// answering declares roots (with listChanged, which mcp-go implies for a
// roots handler), sampling and elicitation by setting their handlers.
func answering(out io.Writer) []client.ClientOption {
	a := answerer{out}
	return []client.ClientOption{client.WithRootsHandler(a), client.WithSamplingHandler(a), client.WithElicitationHandler(a)}
}

func serverRequests(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out, answering(out)...)
	if err != nil {
		return err
	}
	defer closeClient(c)
	if _, err := listTools(ctx, c, out); err != nil {
		return err
	}
	if env.Context.Tool == "" {
		return nil
	}
	return callTool(ctx, c, env.Context.Tool, env.Arguments(), out)
}

func elicitationDefaults(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out, client.WithElicitationHandler(answerer{out}))
	if err != nil {
		return err
	}
	defer closeClient(c)
	return callTool(ctx, c, "test_client_elicitation_defaults", map[string]any{}, out)
}

// watchedStdio is a stdio transport that closes sent once mcp-go has
// written a notifications/cancelled.
type watchedStdio struct {
	*transport.Stdio
	sent chan struct{}
	once sync.Once
}

func (w *watchedStdio) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	err := w.Stdio.SendNotification(ctx, n)
	if err == nil && n.Method == string(mcp.MethodNotificationCancelled) {
		w.once.Do(func() { close(w.sent) })
	}
	return err
}

func cancellation(ctx context.Context, env *contract.Env, out io.Writer) error {
	if env.Context.Tool == "" && env.Context.URI == "" {
		return errors.New("the context names neither a tool nor a uri")
	}
	t, err := newTransport(env)
	if err != nil {
		return err
	}
	var watch *watchedStdio
	if stdio, ok := t.(*transport.Stdio); ok {
		watch = &watchedStdio{Stdio: stdio, sent: make(chan struct{})}
		t = watch
	}
	c, err := connect(ctx, env, t, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	// Over stdio mcp-go sends notifications/cancelled for a request whose
	// context ends before its answer; over HTTP it sends nothing.
	rctx, cancel := context.WithTimeout(ctx, env.Timeout())
	defer cancel()
	if env.Context.Tool != "" {
		_, err = c.CallTool(rctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: env.Context.Tool, Arguments: env.Arguments()}})
	} else {
		_, err = c.ReadResource(rctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: env.Context.URI}})
	}
	abandoned, err := contract.Abandoned(ctx, env, err, out)
	if !abandoned || watch == nil {
		return err
	}
	return contract.AwaitCancelled(ctx, watch.sent, out)
}

func shutdown(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	// In 2026-07-28, which has no ping, mcp-go's Ping sends nothing.
	if !mcp.IsModernProtocol(c.ProtocolVersion()) {
		if err := c.Ping(ctx); err != nil {
			closeClient(c)
			return fmt.Errorf("ping: %w", err)
		}
		fmt.Fprintln(out, "ping answered")
	}
	// For a spawned server, Close is the stdio shutdown: close stdin, wait,
	// SIGTERM, wait, SIGKILL.
	start := time.Now()
	closeClient(c)
	fmt.Fprintf(out, "closed in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func versionNegotiation(ctx context.Context, env *contract.Env, out io.Writer) error {
	newest := *env
	newest.ProtocolVersion = ""
	c, err := dial(ctx, &newest, out)
	if err != nil {
		return err
	}
	closeClient(c)
	return nil
}

func requestMetadata(ctx context.Context, env *contract.Env, out io.Writer) error {
	c, err := dial(ctx, env, out)
	if err != nil {
		return err
	}
	defer closeClient(c)
	caps := c.GetServerCapabilities()
	if caps.Tools != nil {
		if _, err := listTools(ctx, c, out); err != nil {
			return err
		}
	}
	if caps.Resources == nil {
		return nil
	}
	r, err := c.ListResourcesByPage(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return fmt.Errorf("listing resources: %w", err)
	}
	if len(r.Resources) == 0 {
		fmt.Fprintln(out, "no resource listed: nothing to read")
		return nil
	}
	uri := r.Resources[0].URI
	res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		return fmt.Errorf("reading %q: %w", uri, err)
	}
	fmt.Fprintf(out, "read %q: %d contents\n", uri, len(res.Contents))
	return nil
}

func requestState(ctx context.Context, env *contract.Env, out io.Writer) error {
	if env.Context.Tool == "" {
		return errors.New("the context names no tool")
	}
	// mcp-go retries an input_required result by itself, a requestState
	// alone included (at most three times in a row without inputRequests).
	c, err := dial(ctx, env, out, answering(out)...)
	if err != nil {
		return err
	}
	defer closeClient(c)
	return callTool(ctx, c, env.Context.Tool, env.Arguments(), out)
}
