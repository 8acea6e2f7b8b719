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
			fmt.Printf("%s breaks %s (%s): %s\n", f.Name, f.Requirement, f.Level, f.Description)
		}
	}
	// Output:
	// cursor-loop breaks PAG-03 (MUST): the last page of resources/list points back to the first page, so paging never ends
}
