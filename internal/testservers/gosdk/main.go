// Command gosdk is an MCP server over stdio built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). mcpconform's own tests run the
// suite against it to see how a real implementation fares.
//
// It serves the resources of package fixture: three static resources (JSON,
// plain text, a PNG blob) listed two per page, the templates greeting://{name}
// (text) and test://bytes/{count} (blob), resource subscriptions, and a tool
// "touch" that sends notifications/resources/updated for a URI to the
// sessions subscribed to it. Everything but JSON-RPC stays off stdout.
//
// With --http ADDR it serves the same server over Streamable HTTP
// (mcp.StreamableHTTPHandler) at ADDR, endpoint /mcp; --stateless makes
// it stateless (no session ids, GET and DELETE answered 405), --json
// answers with JSON bodies instead of event streams.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/mcpconform/mcpconform/internal/testservers/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	log.SetOutput(os.Stderr)
	log.SetPrefix("gosdk: ")
	addr := flag.String("http", "", "serve Streamable HTTP at this address (endpoint /mcp) instead of stdio")
	stateless := flag.Bool("stateless", false, "with --http, a stateless server")
	jsonResponse := flag.Bool("json", false, "with --http, answer with JSON bodies instead of event streams")
	flag.Parse()
	if *addr == "" {
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	server := newServer()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: *jsonResponse})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving Streamable HTTP at http://%s/mcp", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

// touchInput is the argument of the "touch" tool.
type touchInput struct {
	URI string `json:"uri" jsonschema:"the URI of the resource that changed"`
}

func newServer() *mcp.Server {
	// The SDK keeps the subscription table itself; the handlers only accept.
	accept := func(context.Context, *mcp.SubscribeRequest) error { return nil }
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpconform-gosdk", Version: "0.1.0"}, &mcp.ServerOptions{
		PageSize:           fixture.PageSize,
		SubscribeHandler:   accept,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})

	text := func(s string) mcp.ResourceHandler {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: s}}}, nil
		}
	}
	server.AddResource(&mcp.Resource{URI: fixture.ConfigURI, Name: fixture.ConfigName, MIMEType: fixture.ConfigMIME}, text(fixture.ConfigText))
	server.AddResource(&mcp.Resource{URI: fixture.NoteURI, Name: fixture.NoteName, MIMEType: fixture.NoteMIME}, text(fixture.NoteText))
	server.AddResource(&mcp.Resource{URI: fixture.PixelURI, Name: fixture.PixelName, MIMEType: fixture.PixelMIME, Size: int64(len(fixture.Pixel))},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Blob: fixture.Pixel}}}, nil
		})

	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: fixture.GreetingTemplate, Name: fixture.GreetingName, MIMEType: fixture.GreetingMIME},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			s, ok := fixture.Greeting(req.Params.URI)
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: s}}}, nil
		})
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: fixture.BytesTemplate, Name: fixture.BytesName, MIMEType: fixture.BytesMIME},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := fixture.Bytes(req.Params.URI)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Blob: b}}}, nil
		})

	mcp.AddTool(server, &mcp.Tool{Name: "touch", Description: "Send notifications/resources/updated for a URI to its subscribers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in touchInput) (*mcp.CallToolResult, any, error) {
			if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: in.URI}); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("touched %s", in.URI)}}}, nil, nil
		})
	// A read-only tool with an output schema the SDK infers: the suite
	// calls it by default and judges its structured result.
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds a and b.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in addInput) (*mcp.CallToolResult, addOutput, error) {
			return nil, addOutput{Sum: in.A + in.B}, nil
		})
	// A prompt with a required argument: the suite gets it, and gets it
	// without the argument.
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone by name.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name, ok := req.Params.Arguments["name"]
			if !ok {
				return nil, fmt.Errorf("missing required argument %q", "name")
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + name + "."}}}}, nil
		})
	return server
}

type addInput struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOutput struct {
	Sum float64 `json:"sum"`
}
