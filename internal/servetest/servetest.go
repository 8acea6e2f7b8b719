// Package servetest lets a test binary serve the reference server on stdio
// in place of running its tests, so that a test names the binary itself as
// a server's command, with nothing to build (the TestMain trick of go-sdk's
// mcp/cmd_test.go).
package servetest

import (
	"context"
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/mockserver"
)

// Main serves the reference server when the variable env is "1" (with the
// fault the arguments give as --fault NAME), and otherwise runs the tests.
// It does not return.
func Main(m *testing.M, env string) {
	if os.Getenv(env) != "1" {
		os.Exit(m.Run())
	}
	opts := mockserver.Options{}
	if len(os.Args) > 2 && os.Args[1] == "--fault" {
		opts.Faults = []string{os.Args[2]}
	}
	if err := mockserver.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, opts); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}
