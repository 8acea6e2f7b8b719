package fleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
)

// A fleet of two servers, one of which needs a key the environment does
// not have. The server is the reference server, served by this test
// binary (see TestMain); a program names its own servers' commands.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "fleet-example")
	defer os.RemoveAll(dir)
	list := fmt.Sprintf(`
targets:
  - id: reference
    command: [%q]
    env: [%s]
    only: [area:ping]
  - id: hosted
    command: [%q]
    requires: [EXAMPLE_API_KEY]
`, os.Args[0], serveEnv, os.Args[0])
	path := filepath.Join(dir, "targets.yaml")
	os.WriteFile(path, []byte(list), 0o644)
	f, err := fleet.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fl, err := fleet.Run(context.Background(), f, fleet.Options{Environ: []string{serveEnv + "=1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range fl.Targets {
		fmt.Println(t.ID, t.Class, t.ExitCode)
	}
	fmt.Println(fl.Summary.Class, fl.Summary.Class.ExitCode(), fl.Summary.Class == reports.ClassSetupError)
	// Output:
	// hosted setup-error 3
	// reference conformant 0
	// setup-error 3 true
}
