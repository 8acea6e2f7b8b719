package main

import (
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/httpfake"
)

// TestHTTPFlagsRefuseNonsense: the flags of HTTP targets say what is
// wrong in one line, before anything runs.
func TestHTTPFlagsRefuseNonsense(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"http://127.0.0.1:9/mcp", "--verbose"}, []string{"takes no arguments", "mcpconform http://127.0.0.1:9/mcp"}},
		{[]string{"--transport", "stdio", "http://127.0.0.1:9/mcp"}, []string{"--transport stdio", "over HTTP"}},
		{[]string{"--env", "A=b", "http://127.0.0.1:9/mcp"}, []string{"--env", "already running"}},
		{[]string{"unix://"}, []string{"no socket path", "unix:///path/to.sock"}},
		{[]string{"http:///mcp"}, []string{"names no host"}},
		{[]string{"--transport", "http"}, []string{"--transport http starts a server", "{port}"}},
		{[]string{"--transport", "http", "--", "./server"}, []string{"nothing tells the server its port", "--env PORT={port}"}},
		{[]string{"--transport", "carrier-pigeon", "--", "./server"}, []string{"--transport carrier-pigeon", "stdio or http"}},
		{[]string{"--port-from", "3000", "--", "./server"}, []string{"--port-from", "--transport http"}},
		{[]string{"--header", "Authorization: x", "--", "./server"}, []string{"--header", "give its URL"}},
		{[]string{"--header", "no colon", "http://127.0.0.1:9/mcp"}, []string{"-header", "'Name: value'", "--header 'Authorization: Bearer TOKEN'"}},
		{[]string{"--header", "Host: evil", "http://127.0.0.1:9/mcp"}, []string{"-header", "Host is written by the HTTP client"}},
		{[]string{"--transport", "http", "--http-path", "mcp", "--", "./server", "{port}"}, []string{"must start with /"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tc.args...)
			if r.code != exitUsage {
				t.Fatalf("got exit %d, want 2\n%v", r.code, r)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcpconform: ") {
				t.Fatalf("stderr: got %q, want one line starting with \"mcpconform: \"", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr %q does not say %q", lines[0], w)
				}
			}
		})
	}
}

// TestHTTPTargetNotUp: a URL where nothing listens, and a launched server
// that exits before it listens, did not start (exit 3), and say so.
func TestHTTPTargetNotUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"http://" + addr + "/mcp"}, "nothing answers at http://" + addr + "/mcp"},
		{[]string{"--start-timeout", "5s", "--transport", "http", "--", "sh", "-c", "echo bye {port} >&2; exit 3"}, "exited with status 3 before it listened"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != exitTarget || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("got %v, want exit 3 saying %q", r, tc.want)
			}
		})
	}
}

// TestHTTPTargets: the same server judged at its URL, over a Unix socket,
// and launched on a port: each run reaches it over HTTP, records so in
// its evidence, and judge gives the same report again.
func TestHTTPTargets(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the test server")
	}
	dir := t.TempDir()
	server := filepath.Join(dir, "gosdk")
	if out, err := exec.Command("go", "build", "-o", server, "../../internal/testservers/gosdk").CombinedOutput(); err != nil {
		t.Fatalf("building the go-sdk test server: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fake := &httpfake.Server{}
	srv := &http.Server{Handler: fake}
	go srv.Serve(fake.Listen(ln))
	t.Cleanup(func() { srv.Close() })
	sock := filepath.Join(dir, "s.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	usrv := &http.Server{Handler: fake}
	go usrv.Serve(uln)
	t.Cleanup(func() { usrv.Close() })
	for _, tc := range []struct {
		name string
		args []string
		url  string
	}{
		{"url", []string{"http://" + ln.Addr().String() + "/mcp"}, "http://" + ln.Addr().String() + "/mcp"},
		{"unix", []string{"unix://" + sock}, "unix://" + sock},
		{"launched", []string{"--transport", "http", "--", server, "--http", "127.0.0.1:{port}"}, "http://127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			r := runCLIIn(t, d, append([]string{"--only", "area:ping,area:lifecycle", "--evidence", "ev.json", "--json", "r.json"}, tc.args...)...)
			if r.code == exitUsage || r.code == exitTarget {
				t.Fatalf("got %v", r)
			}
			rep := readJSONReport(t, filepath.Join(d, "r.json"))
			if rep.Target.Transport != "http" || !strings.HasPrefix(rep.Target.URL, tc.url) {
				t.Errorf("got transport %q at %q, want http at %s…", rep.Target.Transport, rep.Target.URL, tc.url)
			}
			for _, res := range rep.Results {
				if res.Verdict == "error" {
					t.Errorf("%s: harness error: %s", res.ID, res.Message)
				}
			}
			again := runCLIIn(t, d, "judge", "--only", "area:ping,area:lifecycle", "--json", "again.json", "ev.json")
			if again.code != r.code {
				t.Errorf("judge exited %d, the run %d", again.code, r.code)
			}
			if got := readJSONReport(t, filepath.Join(d, "again.json")); len(got.Results) != len(rep.Results) || got.Summary != rep.Summary {
				t.Errorf("judge gave %+v, the run %+v", got.Summary, rep.Summary)
			}
		})
	}
}
