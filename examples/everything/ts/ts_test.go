// Package ts tests client.mjs, the everything client on the TypeScript SDK,
// from Go: against `mcpconform mock` for every scenario the mock serves,
// and over Streamable HTTP against a server on go-sdk. It needs node and the
// packages of package-lock.json here (internal/testservers/setup.sh installs
// both); without them the tests are skipped, except under CI=true, where
// they fail.
package ts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpconform/mcpconform/examples/everything/internal/clienttest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	clienttest.Cleanup()
	os.Exit(code)
}

// underTest returns the client, or skips the test (fails it under CI=true,
// where a skip would hide a missing install step).
func underTest(t *testing.T) clienttest.Client {
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
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		unavailable("examples/everything/ts/node_modules is not installed; run internal/testservers/setup.sh")
	}
	script, err := filepath.Abs("client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	return clienttest.Client{
		Name:        "ts",
		Argv:        []string{node, script},
		Unsupported: []string{"request-metadata", "sep-2322-client-request-state"},
	}
}

func TestClient(t *testing.T) { clienttest.RunAll(t, underTest(t)) }

// The client is judged as the SDK the repository's TypeScript test servers
// are built on, so both pin the same version.
func TestSameSDKAsTestServers(t *testing.T) {
	version := func(path string) string {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Dependencies map[string]string `json:"dependencies"`
		}
		if err := json.Unmarshal(raw, &pkg); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return pkg.Dependencies["@modelcontextprotocol/sdk"]
	}
	here := version("package.json")
	there := version(filepath.Join("..", "..", "..", "internal", "testservers", "ts", "package.json"))
	if here == "" || here != there {
		t.Errorf("@modelcontextprotocol/sdk: %q here, %q in internal/testservers/ts", here, there)
	}
}
