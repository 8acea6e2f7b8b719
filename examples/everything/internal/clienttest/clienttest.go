// Package clienttest runs an everything client of examples/everything the
// way `mcpconform client` will: once per scenario, with the contract's
// environment, against `mcpconform mock --record`, and judges what the
// mock recorded. Cases (cases.go) holds what every client must do against
// the mock; HTTPPeer (peer.go) serves the scenarios the mock cannot
// (requests from the server, elicitation defaults) over Streamable HTTP.
package clienttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

var (
	mockOnce sync.Once
	mockDir  string
	mockBin  string
	mockErr  error
)

// Mcpconform returns an mcpconform binary built from this module, once per
// test process. A test binary that calls it should call Cleanup from its
// TestMain.
func Mcpconform(t testing.TB) string {
	t.Helper()
	mockOnce.Do(func() {
		mockDir, mockErr = os.MkdirTemp("", "mcpconform-everything-")
		if mockErr != nil {
			return
		}
		mockBin = filepath.Join(mockDir, "mcpconform")
		out, err := exec.Command("go", "build", "-o", mockBin, "github.com/mcpconform/mcpconform/cmd/mcpconform").CombinedOutput()
		if err != nil {
			mockErr = fmt.Errorf("building mcpconform: %v\n%s", err, out)
		}
	})
	if mockErr != nil {
		t.Fatal(mockErr)
	}
	return mockBin
}

// Cleanup removes what Mcpconform built.
func Cleanup() {
	if mockDir != "" {
		os.RemoveAll(mockDir)
	}
}

// asClient, set to 1 in its environment, makes a Go client's test binary
// run the client instead of the tests.
const asClient = "MCPCONFORM_EVERYTHING_AS_CLIENT"

// Main is the TestMain of a Go everything client: the test binary doubles
// as the client (run is its main's body), so that the client is tested as
// a program (environment, arguments, exit status) without another build.
func Main(m *testing.M, run func(args []string, getenv func(string) string, stdout, stderr io.Writer) int) {
	if os.Getenv(asClient) == "1" {
		os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Self is the test binary of a Go everything client whose TestMain is
// Main, as a client under test; its SDK speaks 2026-07-28.
func Self(name string) Client {
	return Client{Name: name, Argv: []string{os.Args[0]}, Env: []string{asClient + "=1"}, Modern: true}
}

// RunAll runs RunCases, RunHTTPCases and RunUsage.
func RunAll(t *testing.T, c Client) {
	t.Run("mock", func(t *testing.T) { RunCases(t, c) })
	t.Run("http", func(t *testing.T) { RunHTTPCases(t, c) })
	t.Run("usage", func(t *testing.T) { RunUsage(t, c) })
}

// Testdata returns the absolute path of a fixture in
// examples/everything/testdata.
func Testdata(t testing.TB, name string) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("clienttest: cannot locate its source")
	}
	path := filepath.Join(filepath.Dir(here), "..", "..", "testdata", name)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// A Client is an everything client under test.
type Client struct {
	Name string
	// Argv starts it; over HTTP the server's URL is appended.
	Argv []string
	// Env is added to its environment.
	Env []string
	// Modern says that its SDK speaks 2026-07-28.
	Modern bool
	// Unsupported lists the scenarios it exits 3 for.
	Unsupported []string
}

func (c Client) unsupported(scenario string) bool {
	for _, s := range c.Unsupported {
		if s == scenario {
			return true
		}
	}
	return false
}

// A Run is one start of a client.
type Run struct {
	Scenario string
	// Version is MCP_CONFORMANCE_PROTOCOL_VERSION; empty leaves it unset.
	Version string
	// Context is MCP_CONFORMANCE_CONTEXT beyond "name"; nil leaves the
	// variable unset.
	Context map[string]any
	// Mock are the arguments of `mcpconform mock` besides --record: the
	// client spawns it over stdio. Ignored when URL is set.
	Mock []string
	// URL, when set, is the server's URL, given as the client's last
	// argument (the HTTP branch).
	URL string
}

// A Result is what a run left behind.
type Result struct {
	Status         int
	Stdout, Stderr string
	// Record is what the mock recorded; empty over HTTP.
	Record Record
	// Spawned reports whether the mock was started at all.
	Spawned bool
}

// runDeadline guards against a client that hangs: the contract gives a
// scenario 30 s, and a loaded machine gets the rest.
const runDeadline = 90 * time.Second

// Run starts c once for r and waits for it to exit.
func (c Client) Run(t testing.TB, r Run) Result {
	t.Helper()
	env := append(os.Environ(), c.Env...)
	env = append(env, contract.EnvScenario+"="+r.Scenario)
	if r.Version != "" {
		env = append(env, contract.EnvProtocolVersion+"="+r.Version)
	}
	if r.Context != nil {
		ctx := map[string]any{"name": r.Scenario}
		for k, v := range r.Context {
			ctx[k] = v
		}
		env = append(env, contract.EnvContext+"="+mustJSON(t, ctx))
	}
	argv := append([]string{}, c.Argv...)
	record := filepath.Join(t.TempDir(), "record.jsonl")
	if r.URL != "" {
		argv = append(argv, r.URL)
	} else {
		mock := append([]string{Mcpconform(t), "mock", "--record", record}, r.Mock...)
		env = append(env, contract.EnvServerCommand+"="+mustJSON(t, mock))
	}
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s, scenario %s: still running after %v\nstderr:\n%s", c.Name, r.Scenario, runDeadline, &stderr)
	case errors.As(err, &exit):
		res.Status = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", c.Name, err)
	}
	if r.URL == "" {
		res.Record, res.Spawned = readRecord(t, record)
	}
	return res
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Message is one JSON-RPC message of a record.
type Message struct {
	PID    int
	Dir    string // "in": client to mock; "out": mock to client
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
}

// Request reports whether m is a request (it has a method and an id).
func (m Message) Request() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// Record is what `mcpconform mock --record` wrote, in order.
type Record []Message

func readRecord(t testing.TB, path string) (Record, bool) {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rec Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			PID int
			Dir string
			Msg json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("record line %q: %v", sc.Text(), err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		// A line that was no JSON object is recorded as a string: keep
		// its direction, with nothing else.
		_ = json.Unmarshal(line.Msg, &m)
		rec = append(rec, Message{PID: line.PID, Dir: line.Dir, ID: m.ID, Method: m.Method, Params: m.Params, Result: m.Result, Error: m.Error})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rec, true
}

// Processes counts the mock processes of the record.
func (r Record) Processes() int {
	pids := map[int]bool{}
	for _, m := range r {
		pids[m.PID] = true
	}
	return len(pids)
}

// Sent returns the client's requests and notifications of method, in order.
func (r Record) Sent(method string) []Message { return r.messages("in", method) }

// Received returns the mock's requests and notifications of method.
func (r Record) Received(method string) []Message { return r.messages("out", method) }

func (r Record) messages(dir, method string) []Message {
	var ms []Message
	for _, m := range r {
		if m.Dir == dir && m.Method == method {
			ms = append(ms, m)
		}
	}
	return ms
}

// Answer returns the mock's response to the client's request req.
func (r Record) Answer(req Message) (Message, bool) {
	return r.response("out", req)
}

// Reply returns the client's response to the mock's request req.
func (r Record) Reply(req Message) (Message, bool) {
	return r.response("in", req)
}

func (r Record) response(dir string, req Message) (Message, bool) {
	for _, m := range r {
		if m.Dir == dir && m.Method == "" && m.PID == req.PID && Equal(m.ID, req.ID) {
			return m, true
		}
	}
	return Message{}, false
}

// Index returns the position of m in r, or -1.
func (r Record) Index(m Message) int {
	for i, x := range r {
		if x.Dir == m.Dir && x.PID == m.PID && x.Method == m.Method && Equal(x.ID, m.ID) && bytes.Equal(x.Params, m.Params) {
			return i
		}
	}
	return -1
}

// Modern reports whether the client used 2026-07-28: it never sent an
// initialize.
func (r Record) Modern() bool {
	return len(r.Sent("initialize")) == 0 && len(r.Sent("server/discover")) > 0
}

// Equal compares two JSON texts by value; empty texts are equal only to
// each other.
func Equal(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Member returns a member of a JSON object by a path of keys; nil when it
// is absent.
func Member(raw json.RawMessage, path ...string) json.RawMessage {
	for _, k := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		raw = obj[k]
	}
	return raw
}

// String returns a JSON string member, or "".
func String(raw json.RawMessage, path ...string) string {
	var s string
	_ = json.Unmarshal(Member(raw, path...), &s)
	return s
}

// Raw encodes v as JSON.
func Raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// lines counts the non-empty lines of s.
func lines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}
