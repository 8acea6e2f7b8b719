package mockserver_test

import (
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/mockserver"
)

// Each line of the record names the process that wrote it, and a line
// written in pieces goes out whole.
func ExampleSharedRecord() {
	rec := mockserver.SharedRecord(os.Stdout, 42)
	fmt.Fprint(rec, `{"dir":"recv","msg":{"jsonrpc":"2.0"`)
	fmt.Fprint(rec, "}}\n{}\nnot JSON\n")
	// Output:
	// {"pid":42,"dir":"recv","msg":{"jsonrpc":"2.0"}}
	// {"pid":42}
	// not JSON
}
