package runner_test

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/runner"
)

// parseFlags parses args with the flags of a run.
func parseFlags(t *testing.T, args ...string) (*runner.Config, *flag.FlagSet) {
	t.Helper()
	var cfg runner.Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return &cfg, fs
}

func TestFlagDefaults(t *testing.T) {
	cfg, _ := parseFlags(t)
	if cfg.Timeout != 10*time.Second || cfg.StartTimeout != 20*time.Second || cfg.RunTimeout != 5*time.Minute ||
		cfg.Grace != 2*time.Second || cfg.ServerRequestWindow != runner.DefaultServerRequestWindow ||
		cfg.MaxMessageSize != 64<<20 || cfg.Parallel != 4 || cfg.Transport != "stdio" || cfg.HTTPPath != "/mcp" {
		t.Errorf("defaults: got %+v", cfg)
	}
	if warnings, err := cfg.CheckFlags(); err != nil || len(warnings) > 0 {
		t.Errorf("the defaults do not pass: %v, %q", err, warnings)
	}
	cfg, _ = parseFlags(t, "--only", "area:ping,level:MUST", "--header", "Authorization: Bearer x", "--env", "A=B", "--spec-version", " ALL ")
	if _, err := cfg.CheckFlags(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Only, []string{"area:ping", "level:MUST"}) || cfg.Header[0] != "Authorization: Bearer x" || cfg.Env[0] != "A=B" || cfg.SpecVersion != "all" {
		t.Errorf("got %+v", cfg)
	}
}

func TestCheckFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "server.js")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "0s"}, "--timeout 0s: must be more than zero; write e.g. --timeout 10s"},
		{[]string{"--server-request-window", "-1s"}, "--server-request-window -1s: must be more than zero"},
		{[]string{"--run-timeout", "500ms"}, "--run-timeout 500ms: too short for any run (the least is 1s)"},
		{[]string{"--max-message-size", "0"}, "--max-message-size 0: must be a positive number of bytes"},
		{[]string{"--parallel", "0"}, "--parallel 0: at least one server process must run"},
		{[]string{"--cwd", file + "-none"}, "no such directory; write e.g. --cwd ./server"},
		{[]string{"--cwd", file}, "not a directory; write e.g. --cwd " + filepath.Dir(file)},
		{[]string{"--spec-version", "1999-01-01"}, `unknown --spec-version "1999-01-01": want one of`},
	} {
		cfg, _ := parseFlags(t, tc.args...)
		if _, err := cfg.CheckFlags(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
		}
	}
	t.Setenv("RUNNER_TEST_SHORT", "ab")
	cfg, _ := parseFlags(t, "--redact-env", "RUNNER_TEST_NONE,RUNNER_TEST_SHORT,RUNNER_TEST_SET", "--env", "RUNNER_TEST_SET=long-enough")
	warnings, err := cfg.CheckFlags()
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], "--redact-env RUNNER_TEST_NONE: no such variable") || !strings.HasPrefix(warnings[1], "--redact-env RUNNER_TEST_SHORT: its value is shorter than") {
		t.Errorf("warnings: got %q, want one for the missing variable and one for the short one", warnings)
	}
}

func TestSetTarget(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		command []string // the command wanted, when no error is
		url     string
		want    string // a part of the error wanted, or ""
	}{
		{args: []string{"--", "./srv", "-v"}, command: []string{"./srv", "-v"}},
		{args: nil, command: nil},
		{args: []string{"http://127.0.0.1:3000/mcp"}, url: "http://127.0.0.1:3000/mcp"},
		{args: []string{"--transport", "http", "--", "./srv", "--port", "{port}"}, command: []string{"./srv", "--port", "{port}"}},
		{args: []string{"--transport", "http", "--env", "PORT={port}", "--", "./srv"}, command: []string{"./srv"}},
		{args: []string{"--", ""}, want: "the server command is empty"},
		{args: []string{"http://127.0.0.1:3000/mcp", "x"}, want: `a URL names a running server, which takes no arguments ("x")`},
		{args: []string{"--transport", "stdio", "http://127.0.0.1:3000/mcp"}, want: "--transport stdio: http://127.0.0.1:3000/mcp is reached over HTTP"},
		{args: []string{"--cwd", ".", "http://127.0.0.1:3000/mcp"}, want: "--cwd: http://127.0.0.1:3000/mcp names a server already running"},
		{args: []string{"--host", "localhost", "--", "./srv"}, want: "--host is for an HTTP server"},
		{args: []string{"--transport", "http"}, want: "--transport http starts a server"},
		{args: []string{"--transport", "http", "--", "./srv"}, want: "--transport http: nothing tells the server its port"},
		{args: []string{"--transport", "sctp", "--", "./srv"}, want: "--transport sctp: want stdio or http"},
	} {
		cfg, fs := parseFlags(t, tc.args...)
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		command, err := cfg.SetTarget(fs.Args(), func(name string) bool { return set[name] })
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
			}
			continue
		}
		if err != nil || !slices.Equal(command, tc.command) || cfg.URL != tc.url || tc.url != "" && cfg.Transport != "http" {
			t.Errorf("%q: got %q, URL %q, transport %s, %v; want %q, URL %q", tc.args, command, cfg.URL, cfg.Transport, err, tc.command, tc.url)
		}
	}
}
