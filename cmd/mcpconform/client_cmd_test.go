package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/reports"
)

var faultyClient struct {
	once sync.Once
	path string
	err  error
}

// faultyClientBinary builds examples/faultyclient once.
func faultyClientBinary(t *testing.T) string {
	t.Helper()
	cliBinary(t) // its directory
	faultyClient.once.Do(func() {
		faultyClient.path = filepath.Join(cli.dir, "faultyclient")
		out, err := exec.Command("go", "build", "-o", faultyClient.path, "../../examples/faultyclient").CombinedOutput()
		if err != nil {
			faultyClient.err = err
			faultyClient.path = string(out)
		}
	})
	if faultyClient.err != nil {
		t.Fatalf("building the faulty client: %v\n%s", faultyClient.err, faultyClient.path)
	}
	return faultyClient.path
}

// clientReport runs `mcpconform client` with args and returns the exit
// code and the JSON report.
func clientReport(t *testing.T, args ...string) (cliResult, *reports.Report) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	r := runCLI(t, append([]string{"client", "--json", out}, args...)...)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no report (exit %d, stderr %q): %v", r.code, r.stderr, err)
	}
	var rep reports.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return r, &rep
}

// problems lists the results of rep that are not pass, skip or info.
func problems(rep *reports.Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict == reports.Fail || r.Verdict == reports.Warn || r.Verdict == reports.Error {
			out = append(out, string(r.Verdict)+" "+r.ID+" "+r.Requirement+": "+r.Message)
		}
	}
	return out
}

func TestClientList(t *testing.T) {
	r := runCLI(t, "client", "--list")
	if r.code != exitConformant {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, sc := range clientrun.Scenarios() {
		if !strings.Contains(r.stdout, "\n"+sc.Name+" ") {
			t.Errorf("scenario %s not listed:\n%s", sc.Name, r.stdout)
		}
	}
}

func TestClientUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"client"},
		{"client", "--scenario", "nope", "--", "true"},
		{"client", "--protocol-version", "1999-01-01", "--", "true"},
		{"client", "--parallel", "0", "--", "true"},
		{"client", "--interactive", "--", "true"},
		{"client", "--transport", "pigeon", "--", "true"},
		{"client", "--transport", "http", "--scenario", "shutdown", "--", "true"},
		{"client", "--transport", "http", "--interactive"},
	} {
		if r := runCLI(t, args...); r.code != exitUsage || !strings.HasPrefix(r.stderr, "mcpconform client: ") {
			t.Errorf("%q: exit %d, stderr %q; want %d and one line", args, r.code, r.stderr, exitUsage)
		}
	}
}

func TestClientThatCannotStart(t *testing.T) {
	r, rep := clientReport(t, "--scenario", "initialize", "--", "./no-such-client")
	if r.code != exitTarget || rep.DidNotStart == nil {
		t.Errorf("exit %d, didNotStart %v; want %d", r.code, rep.DidNotStart, exitTarget)
	}
}

func TestClientThatNeverSpawnsFails(t *testing.T) {
	r, rep := clientReport(t, "--scenario", "initialize", "--", "true")
	if r.code != exitNonconformant || rep.Summary.Pass != 0 {
		t.Errorf("exit %d with %d passes, want %d and none", r.code, rep.Summary.Pass, exitNonconformant)
	}
}

// TestFaultyClientThroughTheCommand: the correct faulty client passes the
// scenarios it is run in; a sample of its faults fails under the
// requirement each breaks. (The faulty client's own test proves every
// fault; this proves the command's path: env, mock argv, judging, exit.)
func TestFaultyClientThroughTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client")
	}
	bin := faultyClientBinary(t)
	r, rep := clientReport(t, "--scenario", "initialize,resources,prompts,shutdown", "--", bin)
	if r.code != exitConformant || rep.Summary.Pass == 0 {
		t.Errorf("correct client: exit %d, %d passes; problems %q; stderr %q", r.code, rep.Summary.Pass, problems(rep), r.stderr)
	}
	for _, c := range []struct {
		fault, scenario, version, breaks string
		want                             reports.Verdict
	}{
		{"no-initialized", "initialize", "", "LIFE-07", reports.Fail},
		{"bom", "initialize", "", "STDIO-04", reports.Fail},
		{"id-reused", "initialize", "", "JSONRPC-04", reports.Fail},
		{"batch-initialize", "initialize", "2025-03-26", "LIFE-11", reports.Fail},
		{"sigterm-first", "shutdown", "", "STDIO-16", reports.Warn}, // a SHOULD
	} {
		t.Run(c.fault, func(t *testing.T) {
			args := []string{"--scenario", c.scenario}
			if c.version != "" {
				args = append(args, "--protocol-version", c.version)
			}
			expectBroken(t, append(args, "--", bin, "-fault", c.fault), c.breaks, c.want)
		})
	}
}

// expectBroken runs `mcpconform client` with args and expects the
// requirement broken at the verdict want, quoting its sentence, and the
// exit code that goes with it (a warning leaves the run conformant).
func expectBroken(t *testing.T, args []string, breaks string, want reports.Verdict) {
	t.Helper()
	r, rep := clientReport(t, args...)
	code := exitNonconformant
	if want == reports.Warn {
		code = exitConformant
	}
	if r.code != code {
		t.Errorf("exit %d, want %d; problems %q", r.code, code, problems(rep))
	}
	if !slices.ContainsFunc(rep.Results, func(res reports.Result) bool {
		return res.Requirement == breaks && res.Verdict == want && res.Quote != ""
	}) {
		t.Errorf("no %s quoting %s; problems %q", want, breaks, problems(rep))
	}
}

// TestClientInteractive: the printed block starts the recording mock; a
// host session through it is judged when the command gets SIGINT, sent
// once the session is over (its evidence is on disk by then).
func TestClientInteractive(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), "client", "--interactive", "--json", report)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	var block bytes.Buffer
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no block: %v; stderr %q", err, stderr.String())
		}
		block.WriteString(line)
		if line == "}\n" {
			break
		}
	}
	var servers struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(block.Bytes(), &servers); err != nil {
		t.Fatalf("block %q: %v", block.String(), err)
	}
	srv, ok := servers.MCPServers[clientrun.ServerName]
	if !ok || !filepath.IsAbs(srv.Command) {
		t.Fatalf("block %s: want %s with an absolute command", block.String(), clientrun.ServerName)
	}
	hostSession(t, srv.Command, srv.Args)
	cmd.Process.Signal(syscall.SIGINT)
	go io.Copy(io.Discard, out)
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("mcpconform client --interactive: %v; stderr %q", err, stderr.String())
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep reports.Report
	json.Unmarshal(data, &rep)
	if rep.Summary.Pass == 0 || rep.Summary.Verdict != reports.Conformant || rep.Interrupted != "" {
		t.Errorf("summary %+v, interrupted %q; problems %q", rep.Summary, rep.Interrupted, problems(&rep))
	}
}

// hostSession plays a host: it starts the server of the block, completes
// the handshake, lists tools and closes the server's stdin.
func hostSession(t *testing.T, command string, args []string) {
	t.Helper()
	srv := exec.Command(command, args...)
	in, _ := srv.StdinPipe()
	outPipe, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("no initialize result: %v", err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("no tools/list result: %v", err)
	}
	in.Close()
	if err := srv.Wait(); err != nil {
		t.Fatalf("the recording mock: %v", err)
	}
}

func TestMockRecordingUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--scenario", "initialize"},
		{"--scenario", "nope", "--evidence", t.TempDir()},
		{"--evidence", t.TempDir(), "--http", "127.0.0.1:0"},
		{"--evidence", t.TempDir(), "--fault", "no-such-fault"},
	} {
		if r := runMockWith(t, "", args...); r.code != exitUsage || !strings.HasPrefix(r.stderr, "mcpconform mock: ") {
			t.Errorf("mock %q: exit %d, stderr %q; want %d", args, r.code, r.stderr, exitUsage)
		}
	}
}

// TestClientEvidenceJudgedAgain: a client run saved with --evidence is
// judged by mcpconform judge to the same verdicts, with no client.
func TestClientEvidenceJudgedAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client")
	}
	saved := filepath.Join(t.TempDir(), "client-run.json")
	r, first := clientReport(t, "--scenario", "initialize", "--evidence", saved, "--", faultyClientBinary(t), "-fault", "no-initialized")
	if r.code != exitNonconformant {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitNonconformant, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "again.json")
	r = runCLI(t, "judge", "--json", out, saved)
	if r.code != exitNonconformant {
		t.Fatalf("judge: exit %d, want %d; stderr %q", r.code, exitNonconformant, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var again reports.Report
	json.Unmarshal(data, &again)
	verdicts := func(rep *reports.Report) map[string]reports.Verdict {
		m := map[string]reports.Verdict{}
		for _, res := range rep.Results {
			m[res.ID+"@"+res.ProtocolVersion] = res.Verdict
		}
		return m
	}
	if diff := cmp.Diff(verdicts(first), verdicts(&again)); diff != "" {
		t.Errorf("verdicts judged again (-run +judge):\n%s", diff)
	}
}

// TestFaultyClientOverHTTPThroughTheCommand: over Streamable HTTP the
// client gets the mock's URL as its last argument; the correct faulty
// client passes, each HTTP fault is reported under its requirement at
// its level, and the saved evidence is judged again the same.
func TestFaultyClientOverHTTPThroughTheCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client")
	}
	bin := faultyClientBinary(t)
	saved := filepath.Join(t.TempDir(), "client-run.json")
	r, rep := clientReport(t, "--transport", "http", "--scenario", "initialize,session-expiry,request-metadata", "--evidence", saved, "--", bin)
	if r.code != exitConformant || rep.Summary.Pass == 0 || rep.Target.Transport != "http" {
		t.Errorf("correct client: exit %d, %d passes, transport %q; problems %q; stderr %q", r.code, rep.Summary.Pass, rep.Target.Transport, problems(rep), r.stderr)
	}
	out := filepath.Join(t.TempDir(), "again.json")
	if again := runCLI(t, "judge", "--json", out, saved); again.code != exitConformant {
		t.Errorf("judge: exit %d, want %d; stderr %q", again.code, exitConformant, again.stderr)
	}
	for _, c := range []struct {
		fault, scenario, breaks string
		want                    reports.Verdict
	}{
		{"http-accept-json-only", "initialize", "HTTP-35", reports.Fail},
		{"http-session-id-dropped", "initialize", "HTTP-37", reports.Fail},
		{"http-no-version-header", "initialize", "HTTP-39", reports.Fail},
		{"http-wrong-mcp-method", "request-metadata", "HTTP-41", reports.Fail},
		{"http-no-delete", "initialize", "HTTP-42", reports.Warn}, // a SHOULD
	} {
		t.Run(c.fault, func(t *testing.T) {
			expectBroken(t, []string{"--transport", "http", "--scenario", c.scenario, "--", bin, "-fault", c.fault}, c.breaks, c.want)
		})
	}
	if r := runCLI(t, "client", "--transport", "http", "--scenario", "shutdown", "--", bin); r.code != exitUsage || !strings.Contains(r.stderr, "stdio only") {
		t.Errorf("shutdown over HTTP: exit %d, stderr %q; want %d saying stdio only", r.code, r.stderr, exitUsage)
	}
}
