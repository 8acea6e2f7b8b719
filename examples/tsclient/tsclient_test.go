// Package tsclient tests client.mjs, the TypeScript SDK example of
// docs/client-guide.md, against `mcpconform mock`. It needs node and the
// packages that internal/testservers/setup.sh installs; without them the
// tests are skipped, except under CI=true, where they fail.
package tsclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) {
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
		buildDir, buildErr = os.MkdirTemp("", "mcpconform-tsclient-")
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

// nodeReady returns the path of node, or skips the test (fails it under
// CI=true, where a skip would hide a missing install step).
func nodeReady(t *testing.T) string {
	t.Helper()
	unavailable := func(reason string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true, so this is a failure, not a skip)", reason)
		}
		t.Skip(reason)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH; run internal/testservers/setup.sh")
	}
	sdk := filepath.Join("..", "..", "internal", "testservers", "ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		unavailable("internal/testservers/ts/node_modules is not installed; run internal/testservers/setup.sh")
	}
	return node
}

// summary is what client.mjs prints.
type summary struct {
	Server        string   `json:"server"`
	Resources     []string `json:"resources"`
	ResourcePages int      `json:"resourcePages"`
	Templates     []string `json:"templates"`
	TemplatePages int      `json:"templatePages"`
	Reads         []struct {
		URI      string `json:"uri"`
		Contents []struct {
			Kind     string `json:"kind"`
			MIMEType string `json:"mimeType"`
			Bytes    int    `json:"bytes"`
			Head     string `json:"head"`
		} `json:"contents"`
		Error *clientError `json:"error"`
	} `json:"reads"`
	Updated     []string     `json:"updated"`
	ListChanged int          `json:"listChanged"`
	SDKErrors   []string     `json:"sdkErrors"`
	Error       *clientError `json:"error"`
}

type clientError struct {
	Code       int64  `json:"code"`
	Message    string `json:"message"`
	CursorLoop bool   `json:"cursorLoop"`
}

// runClient runs client.mjs with flags against `mcpconform mock ARGS...`
// and returns its summary and exit status.
func runClient(t *testing.T, flags []string, args ...string) (summary, int) {
	t.Helper()
	node := nodeReady(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	argv := append([]string{"client.mjs"}, flags...)
	argv = append(argv, "--", mcpconform(t), "mock")
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, node, argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	if exit, ok := err.(*exec.ExitError); ok {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("node client.mjs: %v\nstderr:\n%s", err, &stderr)
	}
	if ctx.Err() != nil {
		t.Fatalf("node client.mjs did not finish within its deadline\nstderr:\n%s", &stderr)
	}
	var sum summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("client.mjs output is not its JSON summary: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	return sum, status
}

func TestDefaultFixture(t *testing.T) {
	t.Parallel()
	sum, status := runClient(t, nil)
	if status != 0 || sum.Error != nil {
		t.Fatalf("exit status %d, error %+v", status, sum.Error)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "mockserver", "testdata", "default.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range fx.Resources {
		want = append(want, r.URI)
	}
	if diff := cmp.Diff(want, sum.Resources); diff != "" {
		t.Errorf("listed URIs (-want +got):\n%s", diff)
	}
	if sum.ResourcePages != 4 {
		t.Errorf("resource pages: got %d, want 4", sum.ResourcePages)
	}
	if len(sum.Templates) != 5 || sum.TemplatePages != 3 {
		t.Errorf("templates: got %d on %d pages, want 5 on 3", len(sum.Templates), sum.TemplatePages)
	}
	blobs := map[string]string{} // URI -> hex of the first decoded bytes
	for _, r := range sum.Reads {
		if r.Error != nil || len(r.Contents) != 1 {
			t.Errorf("read %s: error %+v, %d contents", r.URI, r.Error, len(r.Contents))
			continue
		}
		if c := r.Contents[0]; c.Kind == "blob" {
			blobs[r.URI] = c.Head
		}
	}
	wantBlobs := map[string]string{
		"test://static/pixel.png": "89504e470d0a1a0a", // the PNG signature
		"test://static/empty.bin": "",
	}
	if diff := cmp.Diff(wantBlobs, blobs); diff != "" {
		t.Errorf("decoded blobs (-want +got):\n%s", diff)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		flags      []string
		args       []string
		wantStatus int
		check      func(t *testing.T, sum summary)
	}{
		{"banner: skipped and reported", nil, []string{"--fault", "banner"}, 0, func(t *testing.T, sum summary) {
			if len(sum.Reads) != 10 || len(sum.SDKErrors) == 0 {
				t.Errorf("got %d reads and SDK errors %q, want 10 reads and the banner reported", len(sum.Reads), sum.SDKErrors)
			}
		}},
		{"crash-on-read: connection closed, no hang", nil, []string{"--fault", "crash-on-read"}, 1, func(t *testing.T, sum summary) {
			if sum.Error == nil || sum.Error.Code != -32000 {
				t.Errorf("error: got %+v, want code -32000 (connection closed)", sum.Error)
			}
		}},
		{"crash-on-start: connection closed", nil, []string{"--fault", "crash-on-start"}, 1, func(t *testing.T, sum summary) {
			if sum.Error == nil || sum.Error.Code != -32000 {
				t.Errorf("error: got %+v, want code -32000 (connection closed)", sum.Error)
			}
		}},
		{"exit-after-initialize: connection closed, no hang", nil, []string{"--fault", "exit-after-initialize"}, 1, func(t *testing.T, sum summary) {
			if sum.Error == nil || sum.Error.Code != -32000 {
				t.Errorf("error: got %+v, want code -32000 (connection closed)", sum.Error)
			}
		}},
		{"cursor-loop: detected", nil, []string{"--fault", "cursor-loop"}, 1, func(t *testing.T, sum summary) {
			if sum.Error == nil || !sum.Error.CursorLoop {
				t.Errorf("error: got %+v, want a cursor loop", sum.Error)
			}
		}},
		{"blob-wrapped-base64: refused", nil, []string{"--fault", "blob-wrapped-base64"}, 1, func(t *testing.T, sum summary) {
			if n := readErrors(sum); n != 1 {
				t.Errorf("failed reads: got %d, want 1 (the PNG)", n)
			}
		}},
		{"unknown URI: -32002", []string{"--read", "test://nowhere"}, nil, 1, func(t *testing.T, sum summary) {
			if len(sum.Reads) != 1 || sum.Reads[0].Error == nil || sum.Reads[0].Error.Code != -32002 {
				t.Errorf("reads: got %+v, want one error -32002", sum.Reads)
			}
		}},
		{"unknown URI with unknown-uri-32602: -32602", []string{"--read", "test://nowhere"}, []string{"--fault", "unknown-uri-32602"}, 1, func(t *testing.T, sum summary) {
			if len(sum.Reads) != 1 || sum.Reads[0].Error == nil || sum.Reads[0].Error.Code != -32602 {
				t.Errorf("reads: got %+v, want one error -32602", sum.Reads)
			}
		}},
		{"hang-on-read: request timeout", []string{"--timeout-ms", "1000"}, []string{"--fault", "hang-on-read"}, 1, func(t *testing.T, sum summary) {
			if sum.Error == nil || sum.Error.Code != -32001 {
				t.Errorf("error: got %+v, want code -32001 (request timeout)", sum.Error)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum, status := runClient(t, tt.flags, tt.args...)
			if status != tt.wantStatus {
				t.Errorf("exit status: got %d, want %d (error %+v)", status, tt.wantStatus, sum.Error)
			}
			tt.check(t, sum)
		})
	}
}

func readErrors(sum summary) int {
	n := 0
	for _, r := range sum.Reads {
		if r.Error != nil {
			n++
		}
	}
	return n
}

func TestTriggers(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs(filepath.Join("..", "..", "mockserver", "testdata", "triggers.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum, status := runClient(t, []string{"--subscribe", "test://triggers/watched"}, "--fixture", fixture)
	if status != 0 {
		t.Fatalf("exit status %d, error %+v", status, sum.Error)
	}
	if diff := cmp.Diff([]string{"test://triggers/watched"}, sum.Updated); diff != "" {
		t.Errorf("resources/updated URIs (-want +got):\n%s", diff)
	}
	if sum.ListChanged != 2 {
		t.Errorf("list_changed: got %d, want 2", sum.ListChanged)
	}
}
