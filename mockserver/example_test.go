package mockserver_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpconform/mcpconform/mockserver"
)

func ExampleServe() {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"resources/list"}` + "\n")
	err := mockserver.Serve(context.Background(), in, os.Stdout, nil, mockserver.Options{})
	fmt.Println("err:", err)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Server not initialized: send initialize first."}}
	// err: <nil>
}

// A 2026-07-28 request carries its version and capabilities in _meta; no
// initialize comes first.
func ExampleServe_modern() {
	fx, err := mockserver.ParseFixture("tiny.json", []byte(`{"server":{"name":"tiny","version":"1"},"capabilities":{},"eras":["modern"]}`))
	if err != nil {
		panic(err)
	}
	meta := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":` + meta + "}\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":` + meta + "}\n")
	_ = mockserver.Serve(context.Background(), in, os.Stdout, nil, mockserver.Options{Fixture: fx})
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tiny","version":"1"}},"cacheScope":"public","capabilities":{},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: ping (not part of protocol version 2026-07-28)."}}
}

func ExampleServe_fault() {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	opts := mockserver.Options{Faults: []string{"ping-not-empty"}}
	_ = mockserver.Serve(context.Background(), in, os.Stdout, nil, opts)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"status":"ok"}}
}

func ExampleFaults() {
	for _, f := range mockserver.Faults() {
		if f.Name == "cursor-loop" {
			fmt.Printf("%s breaks %s: %s\n", f.Name, f.Requirement, f.Description)
		}
	}
	// Output:
	// cursor-loop breaks PAG-03: the last page of resources/list points back to the first page, so paging never ends
}

// A variant changes how a correct server behaves, not whether it is
// correct: here the bytes of the JSON, not its values.
func ExampleServe_variant() {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":"ü-1","method":"ping"}` + "\n")
	opts := mockserver.Options{Variants: []string{"python-json-escapes", "spaced-json"}}
	_ = mockserver.Serve(context.Background(), in, os.Stdout, nil, opts)
	// Output:
	// {"jsonrpc": "2.0", "id": "\u00fc-1", "result": {}}
}

func ExampleVariants() {
	for _, v := range mockserver.Variants() {
		if v.Name == "batch-in-2024" {
			fmt.Printf("%s serves %v: %s\n", v.Name, v.Versions, v.Description)
		}
	}
	// Output:
	// batch-in-2024 serves [2024-11-05 2025-03-26]: answers a batch array with a batch array in 2024-11-05 sessions too, as in 2025-03-26
}
