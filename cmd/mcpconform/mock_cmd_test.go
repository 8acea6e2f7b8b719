package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/mockserver"
)

func TestMockListVariants(t *testing.T) {
	r := runCLI(t, "mock", "--list-variants")
	if r.code != exitConformant {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "VARIANT") || !strings.Contains(lines[0], "VERSIONS") || !strings.Contains(lines[0], "BREAKS") {
		t.Errorf("header %q", lines[0])
	}
	variants := append(mockserver.Variants(), mockserver.HTTPVariants()...)
	if len(lines) != len(variants)+1 {
		t.Fatalf("%d rows for %d variants", len(lines)-1, len(variants))
	}
	for i, v := range variants {
		if fields := strings.Fields(lines[i+1]); fields[0] != v.Name {
			t.Errorf("row %d is %q, want %s", i+1, lines[i+1], v.Name)
		}
	}
	if !strings.Contains(r.stdout, "long-error-messages") || !strings.Contains(r.stdout, "ERR-13") {
		t.Errorf("the variant that breaks ERR-13 is not shown with it")
	}
}

// runMockWith runs `mcpconform mock` with args and input on stdin.
func runMockWith(t *testing.T, input string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), append([]string{"mock"}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running mcpconform mock: %v", err)
	}
	return cliResult{code, stdout.String(), stderr.String()}
}

func TestMockVariantFlag(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":"ü-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	// Repeated and comma-separated, like --fault.
	r := runMockWith(t, initialize, "--variant", "only-2024-11-05", "--variant=python-json-escapes,escaped-slash")
	if r.code != exitConformant {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{`"id":"\u00fc-1"`, `"protocolVersion":"2024-11-05"`, `test:\/\/static\/`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %s: %q", want, r.stdout)
		}
	}
	// A variant that ends the session: the process exits 0.
	r = runMockWith(t, initialize+`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n", "--variant", "exit-on-batch")
	if r.code != exitConformant || strings.Contains(r.stdout, `"id":3`) {
		t.Errorf("exit-on-batch: exit %d, stdout %q", r.code, r.stdout)
	}
	// With a fault.
	r = runMockWith(t, initialize, "--variant", "spaced-json", "--fault", "missing-server-info")
	if r.code != exitConformant || !strings.Contains(r.stdout, `"jsonrpc": "2.0"`) || strings.Contains(r.stdout, "serverInfo") {
		t.Errorf("a variant with a fault: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestMockVariantErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--variant", "slow-anwsers"}, `did you mean "slow-answers"?`},
		{[]string{"--variant", "ids-escaped,ids-reencoded"}, "exclude each other"},
		{[]string{"--variant", "only-2024-11-05", "--variant", "only-2026-07-28"}, "no protocol version in common"},
	}
	for _, tt := range tests {
		r := runMockWith(t, "", tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", tt.args, r.code, r.stderr, r.stdout, exitUsage, tt.want)
		}
	}
}
