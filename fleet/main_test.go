package fleet_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/servetest"
)

// serveEnv makes this test binary serve the reference server on stdio (as
// `mcpconform mock` does) instead of running the tests, so that a target
// list can name it: command [TESTBINARY, --fault, NAME], env [serveEnv].
const serveEnv = "MCPCONFORM_FLEET_TEST_SERVE"

func TestMain(m *testing.M) { servetest.Main(m, serveEnv) }
