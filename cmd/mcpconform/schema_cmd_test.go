package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/schema"
)

// TestVersionAndMockCompileNoSchema: mcpconform --version and mcpconform
// mock judge nothing, so neither asks for a compiled schema (each version's
// is compiled on the first message judged under it).
func TestVersionAndMockCompileNoSchema(t *testing.T) {
	before := schema.Uses()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("--version: exit %d: %s", code, stderr.String())
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	stdout.Reset()
	if code := run([]string{"mock"}, strings.NewReader(input), &stdout, &stderr); code != 0 {
		t.Fatalf("mock: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"tools"`) {
		t.Fatalf("the mock did not answer tools/list: %s", stdout.String())
	}
	if got := schema.Uses(); got != before {
		t.Errorf("--version and mock asked for a compiled schema %d times, want none", got-before)
	}
}
