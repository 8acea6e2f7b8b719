package mockclient_test

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/transport"
)

// New drives a server over any connection a dial opens: here the mock
// server, served on one end of an in-memory pipe.
func ExampleNew() {
	ctx := context.Background()
	dial := transport.Stream(func(context.Context) (io.ReadWriteCloser, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			_ = mockserver.Serve(ctx, server, server, nil, mockserver.Options{})
		}()
		return client, nil
	})
	c, err := mockclient.New(ctx, dial, mockclient.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "example", "version": "1"},
	})
	fmt.Println(x.Response.Kind() == "response", c.Transport())
	info := c.Close()
	fmt.Println(info)
	// Output:
	// true stream
	// kept the connection open; the harness closed it
}
