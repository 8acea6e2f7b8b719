package mockclient

import (
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/internal/httpfake"
	"github.com/mcpconform/mcpconform/internal/stdiotest"
)

// The test binary doubles as the servers these tests talk to: run with
// stdiotest.Env set, it serves stdio in those modes instead of running
// tests, and with mockEnv set it serves the mock server.
func TestMain(m *testing.M) {
	if modes := os.Getenv(stdiotest.Env); modes != "" {
		os.Exit(stdiotest.Serve(modes))
	}
	if os.Getenv(mockEnv) != "" {
		os.Exit(serveMock())
	}
	if os.Getenv(httpfake.AddrEnv) != "" {
		os.Exit(httpfake.Serve())
	}
	os.Exit(m.Run())
}

// hugeSize is the length of the result the "huge" helper sends.
const hugeSize = stdiotest.HugeSize

// startHelper starts the test binary as a helper server in the given modes.
func startHelper(t testing.TB, modes string, opts Options) *Client {
	t.Helper()
	opts.Command, opts.Env = stdiotest.Command(modes)
	c, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
