package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

// A Peer is a server on go-sdk, served over Streamable HTTP from the test
// process: the HTTP branch of the contract, and the scenarios the mock
// cannot serve, since it never asks a client anything. It has the tools
// add_numbers, ask_client (roots/list, sampling/createMessage and
// elicitation/create, one each) and test_client_elicitation_defaults, and
// records the methods the client sent, its tool calls, and its answers as
// they came: go-sdk's Elicit fills in the schema's defaults itself
// afterwards, which would hide a client that did not.
type Peer struct {
	URL string

	mu      sync.Mutex
	methods []string
	calls   []json.RawMessage            // {name, arguments} of each tools/call
	answers map[string][]json.RawMessage // the client's results, by method
}

// ElicitedSchema is the form the peer asks for: a property of each
// primitive type with a default, as SEP-1034 has them.
var ElicitedSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":       map[string]any{"type": "string", "default": "Ada"},
		"age":        map[string]any{"type": "integer", "default": 36},
		"score":      map[string]any{"type": "number", "default": 9.5},
		"colour":     map[string]any{"type": "string", "enum": []string{"red", "green"}, "default": "green"},
		"subscribed": map[string]any{"type": "boolean", "default": true},
	},
}

// ElicitedDefaults is the content that accepts ElicitedSchema with its
// defaults.
var ElicitedDefaults = map[string]any{"name": "Ada", "age": 36, "score": 9.5, "colour": "green", "subscribed": true}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// HTTPPeer starts a Peer for one test.
func HTTPPeer(t testing.TB) *Peer {
	p := &Peer{answers: map[string][]json.RawMessage{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpconform-everything-peer", Version: "0.1.0"}, nil)
	server.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err == nil && res != nil {
				p.mu.Lock()
				p.answers[method] = append(p.answers[method], Raw(res))
				p.mu.Unlock()
			}
			return res, err
		}
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p.mu.Lock()
			p.methods = append(p.methods, method)
			if call, ok := req.(*mcp.CallToolRequest); ok {
				p.calls = append(p.calls, Raw(map[string]any{"name": call.Params.Name, "arguments": call.Params.Arguments}))
			}
			p.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(server, &mcp.Tool{Name: "add_numbers", Description: "Adds a and b."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "ask_client", Description: "Asks the client for its roots, a sampled message and a form."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if _, err := req.Session.ListRoots(ctx, nil); err != nil {
				return nil, nil, fmt.Errorf("roots/list: %w", err)
			}
			_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 50,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say something."}}},
			})
			if err != nil {
				return nil, nil, fmt.Errorf("sampling/createMessage: %w", err)
			}
			if err := elicit(ctx, req.Session); err != nil {
				return nil, nil, err
			}
			return text("asked"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "test_client_elicitation_defaults", Description: "Asks for a form whose every property has a default."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if err := elicit(ctx, req.Session); err != nil {
				return nil, nil, err
			}
			return text("elicited"), nil, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(ts.Close)
	p.URL = ts.URL
	return p
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func elicit(ctx context.Context, ss *mcp.ServerSession) error {
	if _, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "Confirm the defaults.", RequestedSchema: ElicitedSchema}); err != nil {
		return fmt.Errorf("elicitation/create: %w", err)
	}
	return nil
}

// HTTPCase is a scenario run against a Peer.
type HTTPCase struct {
	Name    string
	Context map[string]any
	Check   func(t *testing.T, p *Peer, r Result)
}

// HTTPCases are the scenarios a Peer serves.
var HTTPCases = []HTTPCase{
	{Name: "initialize", Check: func(t *testing.T, p *Peer, r Result) {
		if !p.received("tools/list") {
			t.Errorf("methods received %q: no tools/list", p.methods)
		}
	}},
	{Name: "session-expiry", Check: func(t *testing.T, p *Peer, r Result) {
		if !p.received("tools/list") {
			t.Errorf("methods received %q: no tools/list", p.methods)
		}
	}},
	{Name: "tools_call", Check: func(t *testing.T, p *Peer, r Result) {
		want := Raw(map[string]any{"name": "add_numbers", "arguments": map[string]int{"a": 2, "b": 3}})
		if len(p.calls) != 1 || !Equal(p.calls[0], want) {
			t.Errorf("tools/call: got %s, want %s", p.calls, want)
		}
		printed(t, r, "add_numbers: ", "5")
	}},
	{Name: "server-requests", Context: map[string]any{"tool": "ask_client"}, Check: func(t *testing.T, p *Peer, r Result) {
		roots := p.answers["roots/list"]
		if len(roots) != 1 || !Equal(Member(roots[0], "roots"), Raw([]map[string]string{{"uri": contract.RootURI, "name": "mcpconform-root"}})) {
			t.Errorf("roots/list answers %s, want one with the root %s", roots, contract.RootURI)
		}
		sampled := p.answers["sampling/createMessage"]
		if len(sampled) != 1 || String(sampled[0], "role") != "assistant" || String(sampled[0], "content", "text") != contract.SampledText {
			t.Errorf("sampling/createMessage answers %s, want one with the assistant's text %q", sampled, contract.SampledText)
		}
		p.defaultsAccepted(t)
	}},
	{Name: "elicitation-sep1034-client-defaults", Check: func(t *testing.T, p *Peer, r Result) {
		p.defaultsAccepted(t)
	}},
}

func (p *Peer) received(method string) bool {
	for _, m := range p.methods {
		if m == method {
			return true
		}
	}
	return false
}

func (p *Peer) defaultsAccepted(t *testing.T) {
	t.Helper()
	elicited := p.answers["elicitation/create"]
	if len(elicited) != 1 || String(elicited[0], "action") != "accept" || !Equal(Member(elicited[0], "content"), Raw(ElicitedDefaults)) {
		t.Errorf("elicitation/create answers %s, want one accept with the content %s", elicited, Raw(ElicitedDefaults))
	}
}

// RunHTTPCases runs every HTTPCase against c over Streamable HTTP, at the
// handshake version, in parallel.
func RunHTTPCases(t *testing.T, c Client) {
	for _, tc := range HTTPCases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			p := HTTPPeer(t)
			r := c.Run(t, Run{Scenario: tc.Name, Version: Legacy, Context: tc.Context, URL: p.URL + "/mcp"})
			if r.Status != contract.ExitCompleted {
				t.Fatalf("exit status %d, want 0\nstdout:\n%s\nstderr:\n%s", r.Status, r.Stdout, r.Stderr)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			tc.Check(t, p, r)
		})
	}
}
