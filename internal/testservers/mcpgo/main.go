// Command mcpgo is an MCP server over stdio built on
// github.com/mark3labs/mcp-go. mcpconform's own tests run the suite against
// it to see how a real implementation fares.
//
// It serves the same resources as the gosdk server (package fixture): three
// static resources listed two per page, the templates greeting://{name} and
// test://bytes/{count}, resource subscriptions, and a tool "touch" that sends
// notifications/resources/updated for a URI the client subscribed to.
// Everything but JSON-RPC stays off stdout.
//
// With --http ADDR it serves the same server over Streamable HTTP
// (server.NewStreamableHTTPServer, stateful) at ADDR, endpoint /mcp.
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"log"
	"os"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpconform/mcpconform/internal/testservers/fixture"
)

func main() {
	log.SetOutput(os.Stderr)
	log.SetPrefix("mcpgo: ")
	addr := flag.String("http", "", "serve Streamable HTTP at this address (endpoint /mcp) instead of stdio")
	flag.Parse()
	if *addr != "" {
		log.Printf("serving Streamable HTTP at http://%s/mcp", *addr)
		log.Fatal(server.NewStreamableHTTPServer(newServer(), server.WithStateful(true)).Start(*addr))
	}
	if err := server.ServeStdio(newServer()); err != nil {
		log.Fatal(err)
	}
}

// subscriptions is the set of URIs the client subscribed to. mcp-go only
// acknowledges resources/subscribe; tracking is left to the application.
type subscriptions struct {
	mu   sync.Mutex
	uris map[string]bool
}

func (s *subscriptions) set(uri string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.uris[uri] = true
	} else {
		delete(s.uris, uri)
	}
}

func (s *subscriptions) has(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uris[uri]
}

func newServer() *server.MCPServer {
	subs := &subscriptions{uris: map[string]bool{}}
	hooks := &server.Hooks{}
	hooks.AddAfterSubscribe(func(_ context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		subs.set(req.Params.URI, true)
	})
	hooks.AddAfterUnsubscribe(func(_ context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		subs.set(req.Params.URI, false)
	})

	s := server.NewMCPServer("mcpconform-mcpgo", "0.1.0",
		server.WithResourceCapabilities(true, true),
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithPaginationLimit(fixture.PageSize),
		server.WithHooks(hooks),
	)

	text := func(mime, body string) server.ResourceHandlerFunc {
		return func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: mime, Text: body}}, nil
		}
	}
	s.AddResource(mcp.NewResource(fixture.ConfigURI, fixture.ConfigName, mcp.WithMIMEType(fixture.ConfigMIME)), text(fixture.ConfigMIME, fixture.ConfigText))
	s.AddResource(mcp.NewResource(fixture.NoteURI, fixture.NoteName, mcp.WithMIMEType(fixture.NoteMIME)), text(fixture.NoteMIME, fixture.NoteText))
	s.AddResource(mcp.NewResource(fixture.PixelURI, fixture.PixelName, mcp.WithMIMEType(fixture.PixelMIME), mcp.WithResourceSize(int64(len(fixture.Pixel)))),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: req.Params.URI, MIMEType: fixture.PixelMIME, Blob: fixture.PixelBase64}}, nil
		})

	s.AddResourceTemplate(mcp.NewResourceTemplate(fixture.GreetingTemplate, fixture.GreetingName, mcp.WithTemplateMIMEType(fixture.GreetingMIME)),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			body, ok := fixture.Greeting(req.Params.URI)
			if !ok {
				// mcp-go answers any template handler error with -32603.
				return nil, fmt.Errorf("no greeting in %s", req.Params.URI)
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: fixture.GreetingMIME, Text: body}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate(fixture.BytesTemplate, fixture.BytesName, mcp.WithTemplateMIMEType(fixture.BytesMIME)),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			b, err := fixture.Bytes(req.Params.URI)
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: req.Params.URI, MIMEType: fixture.BytesMIME, Blob: base64.StdEncoding.EncodeToString(b)}}, nil
		})

	s.AddTool(mcp.NewTool("touch",
		mcp.WithDescription("Send notifications/resources/updated for a URI to its subscribers."),
		mcp.WithString("uri", mcp.Required(), mcp.Description("the URI of the resource that changed")),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		uri, err := req.RequireString("uri")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if subs.has(uri) {
			if err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": uri}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("touched " + uri), nil
	})
	// A read-only tool with an output schema: the suite calls it by
	// default and judges its structured result.
	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Adds a and b."),
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithOutputSchema[addOutput](),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.RequireFloat("a")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		b, err := req.RequireFloat("b")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		out := addOutput{Sum: a + b}
		return mcp.NewToolResultStructured(out, fmt.Sprintf(`{"sum":%v}`, out.Sum)), nil
	})
	// A prompt with a required argument: the suite gets it, and gets it
	// without the argument.
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greets someone by name."), mcp.WithArgument("name", mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name, ok := req.Params.Arguments["name"]
			if !ok {
				return nil, fmt.Errorf("missing required argument %q", "name")
			}
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+name+"."))}), nil
		})
	return s
}

type addOutput struct {
	Sum float64 `json:"sum"`
}
