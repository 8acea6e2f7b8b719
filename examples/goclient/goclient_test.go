package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The test binary doubles as the example program: with this variable set,
// TestMain runs main's body on the arguments instead of the tests, so that
// flags, output and exit status are tested without another build.
const runMainEnv = "MCPCONFORM_GOCLIENT_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildDir  string
	mockBin   string
	buildErr  error
)

// mcpconform returns the path of an mcpconform binary built from this
// module, once per test process.
func mcpconform(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("building mcpconform: %v", err)
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "mcpconform-goclient-")
		if buildErr != nil {
			return
		}
		mockBin = filepath.Join(buildDir, "mcpconform")
		if runtime.GOOS == "windows" {
			mockBin += ".exe"
		}
		out, err := exec.Command(gobin, "build", "-o", mockBin, "github.com/mcpconform/mcpconform/cmd/mcpconform").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building mcpconform: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return mockBin
}

// lockedBuffer collects a server's stderr for failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runMock runs the example client against `mcpconform mock ARGS...` within
// deadline, and returns the summary, the server's stderr and the error.
func runMock(t *testing.T, deadline time.Duration, opts Options, args ...string) (*Summary, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var stderr lockedBuffer
	opts.Command = append([]string{mcpconform(t), "mock"}, args...)
	opts.Stderr = &stderr
	if opts.RequestTimeout == 0 {
		// Generous: the point is that there is a deadline, and a loaded
		// machine must not turn a slow answer into a failure.
		opts.RequestTimeout = 10 * time.Second
	}
	sum, err := Run(ctx, opts)
	return sum, stderr.String(), err
}

// fixtureResource is the part of a fixture resource the tests compare.
type fixtureResource struct {
	URI  string  `json:"uri"`
	Text *string `json:"text"`
	Blob *string `json:"blob"`
}

func loadFixture(t *testing.T, name string) []fixtureResource {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "mockserver", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Resources []fixtureResource `json:"resources"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fx.Resources
}

func TestDefaultFixture(t *testing.T) {
	t.Parallel()
	sum, stderr, err := runMock(t, 90*time.Second, Options{})
	if err != nil {
		t.Fatalf("Run: %v\nserver stderr:\n%s", err, stderr)
	}
	want := loadFixture(t, "default.json")

	// 10 resources at 3 per page: 4 pages, every resource once, in order.
	var wantURIs, gotURIs []string
	for _, r := range want {
		wantURIs = append(wantURIs, r.URI)
	}
	for _, r := range sum.Resources {
		gotURIs = append(gotURIs, r.URI)
	}
	if diff := cmp.Diff(wantURIs, gotURIs); diff != "" {
		t.Errorf("listed URIs (-want +got):\n%s", diff)
	}
	if sum.ResourcePages != 4 {
		t.Errorf("resource pages: got %d, want 4", sum.ResourcePages)
	}
	if len(sum.Templates) != 5 || sum.TemplatePages != 3 {
		t.Errorf("templates: got %d on %d pages, want 5 on 3", len(sum.Templates), sum.TemplatePages)
	}

	// Every read succeeds, and what it returns is what the fixture holds:
	// blobs decoded from base64 byte for byte, texts as they are.
	if len(sum.Reads) != len(want) {
		t.Fatalf("reads: got %d, want %d", len(sum.Reads), len(want))
	}
	for i, r := range sum.Reads {
		w := want[i]
		if r.Err != nil {
			t.Errorf("read %s: %v", r.URI, r.Err)
			continue
		}
		if len(r.Contents) != 1 {
			t.Errorf("read %s: got %d contents, want 1", r.URI, len(r.Contents))
			continue
		}
		c := r.Contents[0]
		switch {
		case w.Blob != nil:
			data, err := base64.StdEncoding.Strict().DecodeString(*w.Blob)
			if err != nil {
				t.Fatalf("fixture blob of %s: %v", w.URI, err)
			}
			if !c.Blob || !bytes.Equal(c.Data, data) {
				t.Errorf("read %s: got blob=%v %d bytes, want blob of %d bytes", r.URI, c.Blob, c.Bytes, len(data))
			}
		case w.Text != nil:
			if c.Blob || c.Text != *w.Text {
				t.Errorf("read %s: got blob=%v text %q, want text %q", r.URI, c.Blob, c.Text, *w.Text)
			}
		}
	}
	png := findRead(sum, "test://static/pixel.png")
	if png == nil || len(png.Contents) == 0 || !bytes.HasPrefix(png.Contents[0].Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("test://static/pixel.png did not decode to a PNG: %+v", png)
	}
	empty := findRead(sum, "test://static/empty.bin")
	if empty == nil || len(empty.Contents) == 0 || !empty.Contents[0].Blob || empty.Contents[0].Bytes != 0 {
		t.Errorf("test://static/empty.bin is not a zero-byte blob: %+v", empty)
	}
}

func findRead(sum *Summary, uri string) *Read {
	for i := range sum.Reads {
		if sum.Reads[i].URI == uri {
			return &sum.Reads[i]
		}
	}
	return nil
}

// A server that dies must give the client an error, not a hang: the
// client's deadline is far longer than the test's patience would need, so
// an error caused by a deadline would show a hang.
func TestServerDies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault     string
		version   string // "" lets the SDK choose
		wantReads int    // reads attempted before the session ended
	}{
		{"crash-on-start", "", 0},
		// 2026-07-28 has no initialize to exit after.
		{"exit-after-initialize", legacyVersion, 0},
		{"crash-on-read", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			sum, stderr, err := runMock(t, 90*time.Second, Options{RequestTimeout: 20 * time.Second, ProtocolVersion: tt.version}, "--fault", tt.fault)
			if err == nil {
				t.Fatalf("Run: no error against a server with the fault %s", tt.fault)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Run: %v after %v: the client waited for its deadline instead of seeing the server die", err, time.Since(start))
			}
			if _, ok := ErrorCode(err); ok {
				t.Errorf("Run: %v: a dead server is not a JSON-RPC error answer", err)
			}
			if len(sum.Reads) != tt.wantReads {
				t.Errorf("reads: got %d, want %d", len(sum.Reads), tt.wantReads)
			}
			if tt.fault != "exit-after-initialize" && !strings.Contains(stderr, tt.fault) {
				t.Errorf("server stderr %q does not mention %s", stderr, tt.fault)
			}
		})
	}
}

// A server that never answers costs the client one request deadline.
func TestHangOnRead(t *testing.T) {
	t.Parallel()
	sum, _, err := runMock(t, 90*time.Second, Options{RequestTimeout: time.Second}, "--fault", "hang-on-read")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run: got %v, want a context.DeadlineExceeded", err)
	}
	if len(sum.Reads) != 1 {
		t.Errorf("reads: got %d, want 1 (the first read that hung)", len(sum.Reads))
	}
}

func TestCursorLoop(t *testing.T) {
	t.Parallel()
	sum, stderr, err := runMock(t, 90*time.Second, Options{}, "--fault", "cursor-loop")
	if !errors.Is(err, ErrCursorLoop) {
		t.Fatalf("Run: got %v, want ErrCursorLoop\nserver stderr:\n%s", err, stderr)
	}
	// 4 pages, the first page again under a new cursor, then a cursor
	// already seen.
	if sum.ResourcePages != 5 {
		t.Errorf("resource pages: got %d, want 5", sum.ResourcePages)
	}
	if len(sum.Reads) != 0 {
		t.Errorf("reads: got %d, want none after a failed listing", len(sum.Reads))
	}
}

// legacyVersion is the version the tests ask for when what they check
// belongs to the handshake era (initialize, resources/subscribe, -32002).
const legacyVersion = "2025-11-25"

// The not-found code differs by version: -32002 up to 2025-11-25, -32602
// from 2026-07-28. go-sdk's servers answer -32602 in every session; the
// fault unknown-uri-32602 makes the mock do the same.
func TestUnknownURICode(t *testing.T) {
	t.Parallel()
	const uri = "test://mcpconform-goclient/missing"
	tests := []struct {
		name    string
		version string // asked for; "" lets the SDK choose
		args    []string
		// wantCode is the code expected in a session of version v.
		wantCode func(v string) int64
	}{
		{"default", legacyVersion, nil, func(string) int64 { return -32002 }},
		{"unknown-uri-32602", legacyVersion, []string{"--fault", "unknown-uri-32602"}, func(string) int64 { return -32602 }},
		{"version of the SDK's choice", "", nil, func(v string) int64 {
			if v >= "2026-07-28" {
				return -32602
			}
			return -32002
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum, stderr, err := runMock(t, 90*time.Second, Options{Read: uri, ProtocolVersion: tt.version}, tt.args...)
			if err == nil {
				t.Fatalf("Run: no error reading %s\nserver stderr:\n%s", uri, stderr)
			}
			code, ok := ErrorCode(err)
			if !ok {
				t.Fatalf("Run: %v is not a JSON-RPC error answer", err)
			}
			if tt.version != "" && sum.ProtocolVersion != tt.version {
				t.Errorf("protocol version: got %q, want %q", sum.ProtocolVersion, tt.version)
			}
			if want := tt.wantCode(sum.ProtocolVersion); code != want {
				t.Errorf("error code in a %s session: got %d, want %d", sum.ProtocolVersion, code, want)
			}
		})
	}
}

// recordLine is one line of `mcpconform mock --record`.
type recordLine struct {
	T   time.Time       `json:"t"`
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

func TestRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "record.jsonl")
	if _, stderr, err := runMock(t, 90*time.Second, Options{ProtocolVersion: legacyVersion}, "--record", path); err != nil {
		t.Fatalf("Run: %v\nserver stderr:\n%s", err, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var in []string // methods of what the client sent, in order
	outs := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var l recordLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", n, err, sc.Bytes())
		}
		if l.T.IsZero() || len(l.Msg) == 0 {
			t.Errorf("line %d lacks t or msg: %s", n, sc.Bytes())
		}
		switch l.Dir {
		case "in":
			var msg struct {
				Method string `json:"method"`
				Params struct {
					ClientInfo struct {
						Name string `json:"name"`
					} `json:"clientInfo"`
				} `json:"params"`
			}
			if err := json.Unmarshal(l.Msg, &msg); err != nil {
				t.Fatalf("line %d: msg is not a message: %v", n, err)
			}
			in = append(in, msg.Method)
			if msg.Method == "initialize" && msg.Params.ClientInfo.Name != "mcpconform-goclient" {
				t.Errorf("initialize clientInfo.name: got %q, want mcpconform-goclient", msg.Params.ClientInfo.Name)
			}
		case "out":
			outs++
		default:
			t.Errorf("line %d: dir %q, want in or out", n, l.Dir)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, m := range in {
		count[m]++
	}
	for method, want := range map[string]int{
		"initialize":                1,
		"notifications/initialized": 1,
		"resources/list":            4, // one request per page
		"resources/templates/list":  3,
		"resources/read":            10,
	} {
		if count[method] != want {
			t.Errorf("%s requests: got %d, want %d (all: %q)", method, count[method], want, in)
		}
	}
	if outs == 0 {
		t.Errorf("no server messages recorded")
	}
}

// Reading resources of the triggers fixture fires its triggers: an update
// of a subscribed resource, and two list changes, after which the client
// lists again. Subscriptions differ by era (resources/subscribe up to
// 2025-11-25, subscriptions/listen in 2026-07-28); the client must see the
// same in both.
func TestTriggers(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs(filepath.Join("..", "..", "mockserver", "testdata", "triggers.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{legacyVersion, ""} {
		name := version
		if name == "" {
			name = "version of the SDK's choice"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sum, stderr, err := runMock(t, 90*time.Second, Options{ProtocolVersion: version, Subscribe: []string{"test://triggers/watched"}}, "--fixture", fixture)
			if err != nil {
				t.Fatalf("Run: %v\nserver stderr:\n%s", err, stderr)
			}
			// test://triggers/self updates itself, but nobody subscribed to it.
			if diff := cmp.Diff([]string{"test://triggers/watched"}, sum.Updated); diff != "" {
				t.Errorf("resources/updated URIs in a %s session (-want +got):\n%s", sum.ProtocolVersion, diff)
			}
			if sum.ListChanged != 2 {
				t.Errorf("list_changed in a %s session: got %d, want 2", sum.ProtocolVersion, sum.ListChanged)
			}
			added, removed := diffURIs(sum.Resources, sum.Relisted)
			if diff := cmp.Diff([]string{"test://triggers/added"}, added); diff != "" {
				t.Errorf("added after list_changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"test://triggers/doomed"}, removed); diff != "" {
				t.Errorf("removed after list_changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProgram runs the example as a program: flags, output, exit status.
func TestProgram(t *testing.T) {
	t.Parallel()
	bin := mcpconform(t)
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    []string
	}{
		{"default", []string{"--", bin, "mock"}, 0,
			[]string{"resources: 10 on 4 pages", "read test://static/pixel.png: blob 73 bytes image/png", "reads: 10 ok, 0 failed"}},
		{"unknown uri", []string{"-read", "test://nowhere", "-protocol-version", legacyVersion, bin, "mock"}, 1,
			[]string{"JSON-RPC error -32002"}},
		{"hostile error message is quoted", []string{"-read", "test://nowhere", bin, "mock", "--fault", "hostile-strings"}, 1,
			[]string{`\x1b[31mred\x1b[0m`}},
		{"no command", nil, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), runMainEnv+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				status = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus {
				t.Errorf("exit status: got %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.wantStatus, &stdout, &stderr)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, &stdout)
				}
			}
			// Whatever the server sends, no escape character reaches the
			// terminal.
			if i := bytes.IndexByte(stdout.Bytes(), 0x1b); i >= 0 {
				t.Errorf("stdout holds ESC at byte %d:\n%q", i, &stdout)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	t.Parallel()
	// Pages of one item each; next returns the cursor after a cursor.
	walkWith := func(next func(cursor string) string) (int, error) {
		_, pages, err := walk(context.Background(), time.Second, 50,
			func(_ context.Context, cursor string) ([]int, string, error) {
				return []int{0}, next(cursor), nil
			})
		return pages, err
	}
	tests := []struct {
		name      string
		next      func(string) string
		wantPages int
		wantErr   error
	}{
		{"ends", func(c string) string {
			return map[string]string{"": "a", "a": "b"}[c]
		}, 3, nil},
		{"loops back", func(c string) string {
			return map[string]string{"": "a", "a": "b", "b": "a"}[c]
		}, 3, ErrCursorLoop},
		{"points at itself", func(string) string { return "same" }, 2, ErrCursorLoop},
		{"new cursors forever", func(c string) string { return c + "x" }, 50, ErrTooManyPages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, err := walkWith(tt.next)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Errorf("err: got %v, want %v", err, tt.wantErr)
			}
			if pages != tt.wantPages {
				t.Errorf("pages: got %d, want %d", pages, tt.wantPages)
			}
		})
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"test://static/hello.txt", "test://static/hello.txt"},
		{"héllo wörld ✓", "héllo wörld ✓"},
		{"\x1b[31mred\x1b[0m", `"\x1b[31mred\x1b[0m"`},
		{"a\nb", `"a\nb"`},
		{"\u202eevil", `"\u202eevil"`},
	} {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q): got %s, want %s", tt.in, got, tt.want)
		}
	}
}
