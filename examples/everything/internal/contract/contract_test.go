package contract

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		vars    map[string]string
		want    *Env
		wantErr string
	}{
		{
			name: "stdio",
			vars: map[string]string{EnvServerCommand: `["mcpconform","mock","--fault","slow"]`, EnvProtocolVersion: "2025-11-25"},
			want: &Env{Scenario: "s", ProtocolVersion: "2025-11-25", Context: Context{Name: "s"}, ServerCommand: []string{"mcpconform", "mock", "--fault", "slow"}},
		},
		{
			name: "http: the URL is the last argument",
			args: []string{"--verbose", "http://127.0.0.1:3001/mcp"},
			vars: map[string]string{EnvContext: `{"name":"s","tool":"t","arguments":{"a":1},"uri":"test://x","timeoutMs":500,"extra":true}`},
			want: &Env{Scenario: "s", URL: "http://127.0.0.1:3001/mcp", Context: Context{Name: "s", Tool: "t", Arguments: map[string]any{"a": 1.0}, URI: "test://x", TimeoutMs: 500}},
		},
		{name: "context not an object", vars: map[string]string{EnvContext: `[1]`, EnvServerCommand: `["x"]`}, wantErr: EnvContext},
		{name: "command not an array of strings", vars: map[string]string{EnvServerCommand: `["x", 1]`}, wantErr: EnvServerCommand},
		{name: "empty command", vars: map[string]string{EnvServerCommand: `[]`}, wantErr: "names no command"},
		{name: "no server", args: []string{"not-a-url"}, wantErr: "no server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("s", tt.args, getenv(tt.vars))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse: got %v, want an error about %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMainExitStatus(t *testing.T) {
	handlers := map[string]Handler{
		"initialize": func(context.Context, *Env, io.Writer) error { return nil },
		"tools_call": func(context.Context, *Env, io.Writer) error { return errors.New("no add_numbers") },
		"prompts":    func(context.Context, *Env, io.Writer) error { return ErrUnsupported },
	}
	stdio := map[string]string{EnvServerCommand: `["server"]`}
	tests := []struct {
		scenario string
		vars     map[string]string
		want     int
		stderr   string
	}{
		{"initialize", stdio, ExitCompleted, ""},
		{"tools_call", stdio, ExitFailed, "scenario tools_call failed: no add_numbers"},
		{"prompts", stdio, ExitUnsupported, "unsupported by this SDK"},
		{"resources", stdio, ExitUnsupported, "unsupported by this SDK"}, // no handler
		{"no-such-scenario", stdio, ExitUsage, `unknown scenario "no-such-scenario"`},
		{"", stdio, ExitUsage, EnvScenario + " is not set"},
		{"initialize", nil, ExitUsage, "no server"},
	}
	for _, tt := range tests {
		vars := map[string]string{EnvScenario: tt.scenario}
		for k, v := range tt.vars {
			vars[k] = v
		}
		var stderr bytes.Buffer
		got := Main("test", nil, getenv(vars), io.Discard, &stderr, handlers)
		if got != tt.want || !strings.Contains(stderr.String(), tt.stderr) || strings.Count(stderr.String(), "\n") > 1 {
			t.Errorf("scenario %q: exit %d, stderr %q; want %d and one line with %q", tt.scenario, got, stderr.String(), tt.want, tt.stderr)
		}
	}
}

// The guide's scenario table is the contract's list, in the same order.
func TestGuideListsEveryScenario(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "client-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	start := strings.Index(guide, "\n## The contract")
	if start < 0 {
		t.Fatal(`docs/client-guide.md has no section "## The contract"`)
	}
	section := guide[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_-]+)` \\|")
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1])
	}
	for _, s := range Scenarios {
		want = append(want, s.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios in the guide's table (-contract +guide):\n%s", diff)
	}
}
