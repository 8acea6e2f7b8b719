package fleet_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/mockserver"
)

// serveEnv makes this test binary serve the reference server on stdio (as
// `mcpconform mock` does) instead of running the tests, so that a target
// list can name it: command [TESTBINARY, --fault, NAME], env [serveEnv].
const serveEnv = "MCPCONFORM_FLEET_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
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
	os.Exit(m.Run())
}
