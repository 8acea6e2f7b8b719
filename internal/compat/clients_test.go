package compat_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/internal/compat"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
)

// goBuild builds the Go program at src (relative to the repository's
// root) into dir and returns its path.
func goBuild(t *testing.T, dir, src, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if b, err := exec.Command("go", "build", "-o", out, filepath.Join("..", "..", src)).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", src, err, b)
	}
	return out
}

// clientArgv gives the command of each client of compat.Clients.
func clientArgv(t *testing.T, dir string, c compat.Client) []string {
	t.Helper()
	if c.Name != "ts" {
		return []string{goBuild(t, dir, "./"+c.Source, c.Name)}
	}
	skip := t.Skip
	if os.Getenv("CI") == "true" {
		skip = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not on PATH; run internal/testservers/setup.sh")
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", c.Source))
	if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		skip("examples/everything/ts/node_modules is not installed; run internal/testservers/setup.sh")
	}
	return []string{node, script}
}

// TestClientGolden runs `mcpconform client`'s every scenario against each
// everything client, over stdio and over Streamable HTTP, and compares
// the verdicts with the golden files. Over stdio the clients pass every
// scenario they take part in (no fail, warn or error), so that a change
// there is either a client's or the suite's to explain; over HTTP what
// an SDK breaks is kept, each fail and warning quoting its sentence, and
// nothing is left in error.
func TestClientGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real clients in every scenario")
	}
	dir := t.TempDir()
	mock := []string{goBuild(t, dir, "./cmd/mcpconform", "mcpconform"), "mock"}
	for _, tr := range compat.ClientTransports {
		for _, c := range compat.Clients {
			t.Run(tr+"/"+c.Name, func(t *testing.T) {
				run, err := clientrun.Run(context.Background(), clientrun.Config{Command: clientArgv(t, dir, c), Mock: mock, Transport: tr, Parallel: 2})
				if err != nil {
					t.Fatal(err)
				}
				rep, _ := clientrun.Report(run, checks.JudgeScenario, clientrun.ReportOptions{})
				for _, r := range rep.Results {
					switch {
					case r.Verdict == reports.Error:
						t.Errorf("%s %s [%s]: %s", r.Verdict, r.ID, r.Requirement, r.Message)
					case r.Verdict != reports.Fail && r.Verdict != reports.Warn:
					case tr == "stdio":
						t.Errorf("%s %s [%s]: %s", r.Verdict, r.ID, r.Requirement, r.Message)
					case r.Quote == "":
						t.Errorf("%s %s [%s] quotes no sentence: %s", r.Verdict, r.ID, r.Requirement, r.Message)
					}
				}
				got, err := compat.FromClientResults(c.Name, rep.Results)
				if err != nil {
					t.Fatal(err)
				}
				path := compat.ClientPathOn("testdata", c.Name, tr)
				if *update {
					os.MkdirAll(filepath.Dir(path), 0o755)
					if err := got.Save(path); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := compat.Load(path)
				if err != nil {
					t.Fatalf("%v (run `go test ./internal/compat -run TestClientGolden -update` to create it)", err)
				}
				if diff := cmp.Diff(want.Verdicts, got.Verdicts); diff != "" {
					t.Errorf("verdicts of the %s client over %s changed (-want +got):\n%s\nIf intended: go test ./internal/compat -run TestClientGolden -update; go run ./internal/compat/gencompat", c.Title, tr, diff)
				} else if diff := cmp.Diff(want.Reasons, got.Reasons); diff != "" {
					t.Errorf("reasons of the %s client over %s changed (-want +got):\n%s", c.Title, tr, diff)
				}
			})
		}
	}
}
