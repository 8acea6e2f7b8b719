// Package testservers builds and locates real MCP servers, written with the
// Go, mcp-go and TypeScript SDKs, so that tests in other packages can run the
// conformance suite against real implementations:
//
//	argv := testservers.GoServer(t, "gosdk") // or "mcpgo"
//	argv := testservers.TSServer(t)          // McpServer from the TypeScript SDK
//	argv := testservers.Everything(t)        // @modelcontextprotocol/server-everything
//
// The Go servers are compiled once per test process. The Node.js servers need
// node and the packages that setup.sh installs in internal/testservers/ts;
// without them the test is skipped, except under CI=true, where it fails, so
// that CI cannot pass by silently testing less. README.md in this folder
// records how each server actually behaves on the wire.
package testservers

import (
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
)

// GoServerNames are the names GoServer accepts.
var GoServerNames = []string{"gosdk", "mcpgo"}

// A build is the outcome of compiling one Go server, shared by every test
// of the process.
type build struct {
	once sync.Once
	path string
	err  error
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// GoServer compiles the named Go server ("gosdk" or "mcpgo") once per test
// binary into a temporary directory and returns the argv that runs it.
// A failed build fails the test.
func GoServer(tb testing.TB, name string) []string {
	tb.Helper()
	if !isGoServer(name) {
		tb.Fatalf("testservers: unknown Go server %q (have %s)", name, strings.Join(GoServerNames, ", "))
	}
	buildsMu.Lock()
	b := builds[name]
	if b == nil {
		b = &build{}
		builds[name] = b
	}
	buildsMu.Unlock()

	b.once.Do(func() { b.path, b.err = buildGoServer(name) })
	if b.err != nil {
		tb.Fatalf("testservers: %v", b.err)
	}
	return []string{b.path}
}

func isGoServer(name string) bool {
	for _, n := range GoServerNames {
		if n == name {
			return true
		}
	}
	return false
}

func buildGoServer(name string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building %s: %v", name, err)
	}
	// The directory outlives the test that asked first, since later tests of
	// the process reuse the binary, and nothing runs when the process ends;
	// so each build sweeps away what earlier processes left a day ago.
	sweepOldBuilds(24 * time.Hour)
	dir, err := os.MkdirTemp("", buildDirPrefix)
	if err != nil {
		return "", fmt.Errorf("building %s: %v", name, err)
	}
	out := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command(gobin, "build", "-o", out, "./internal/testservers/"+name)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		hint := ""
		if strings.Contains(string(msg), "missing go.sum entry") {
			hint = "\n(go.sum lacks the SDKs' dependencies: run `go mod tidy` at the module root)"
		}
		return "", fmt.Errorf("building %s: %v\n%s%s", name, err, msg, hint)
	}
	return out, nil
}

const buildDirPrefix = "mcpconform-testservers-"

// sweepOldBuilds removes, as well as it can, the build directories of
// earlier test processes that are older than age.
func sweepOldBuilds(age time.Duration) {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), buildDirPrefix+"*"))
	for _, dir := range old {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > age {
			os.RemoveAll(dir)
		}
	}
}

// TSServer returns the argv of ts/server.mjs, a server on the TypeScript
// SDK's McpServer: ["node", "<absolute path>/server.mjs"].
func TSServer(tb testing.TB) []string {
	tb.Helper()
	dir := nodeReady(tb)
	return []string{"node", filepath.Join(dir, "server.mjs")}
}

// Everything returns the argv of @modelcontextprotocol/server-everything in
// stdio mode: ["node", "<absolute path of its bin>", "stdio"].
func Everything(tb testing.TB) []string {
	tb.Helper()
	dir := nodeReady(tb)
	const pkg = "@modelcontextprotocol/server-everything"
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	raw, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		unavailable(tb, fmt.Sprintf("%s is not installed (%v); run internal/testservers/setup.sh", pkg, err))
		return nil
	}
	var meta struct {
		Bin map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		tb.Fatalf("testservers: reading %s/package.json: %v", pkg, err)
	}
	bin := meta.Bin["mcp-server-everything"]
	if bin == "" {
		tb.Fatalf("testservers: %s/package.json has no bin mcp-server-everything", pkg)
	}
	// The first argument picks the transport; stdio is also its default.
	return []string{"node", filepath.Join(pkgDir, filepath.FromSlash(bin)), "stdio"}
}

// Dir returns the absolute path of internal/testservers.
func Dir() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "internal", "testservers"), nil
}

// nodeReady returns the absolute path of the ts folder when node and the
// installed packages are there, and otherwise skips or fails tb.
func nodeReady(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(tb, "node is not on PATH; run internal/testservers/setup.sh")
		return ""
	}
	dir, err := Dir()
	if err != nil {
		tb.Fatalf("testservers: %v", err)
	}
	dir = filepath.Join(dir, "ts")
	sdk := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		unavailable(tb, "internal/testservers/ts/node_modules is not installed; run internal/testservers/setup.sh")
		return ""
	}
	return dir
}

// unavailable skips tb, or fails it under CI=true: a skipped real-server
// test in CI would hide a missing install step.
func unavailable(tb testing.TB, reason string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("testservers: %s (CI=true, so this is a failure, not a skip)", reason)
	}
	tb.Skipf("testservers: %s", reason)
}

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// moduleRoot finds the repository root: from this file's own location when
// the build kept absolute source paths, else from `go env GOMOD`.
func moduleRoot() (string, error) {
	rootOnce.Do(func() {
		if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
			dir := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
		}
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			rootErr = fmt.Errorf("finding the module root: go env GOMOD: %v", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			rootErr = errors.New("finding the module root: not inside the mcpconform module")
			return
		}
		root = filepath.Dir(gomod)
	})
	return root, rootErr
}
