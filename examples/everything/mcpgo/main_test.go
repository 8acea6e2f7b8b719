package main

import (
	"testing"

	"github.com/mcpconform/mcpconform/examples/everything/internal/clienttest"
)

func TestMain(m *testing.M) { clienttest.Main(m, run) }

func TestClient(t *testing.T) { clienttest.RunAll(t, clienttest.Self("mcpgo")) }
