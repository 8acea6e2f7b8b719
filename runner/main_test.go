package runner_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/servetest"
)

// serveEnv makes this test binary serve the reference server on stdio, as
// `mcpconform mock` does, instead of running the tests: the examples and
// tests judge it without a build of the command.
const serveEnv = "MCPCONFORM_RUNNER_TEST_SERVE"

func TestMain(m *testing.M) { servetest.Main(m, serveEnv) }
