package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests of this package drive the built binary, as users and CI scripts
// do: exit codes, output and report files are the contract. The binary is
// built once per test binary, on first use, into a directory TestMain
// removes.
var cli struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cli.dir != "" {
		os.RemoveAll(cli.dir)
	}
	os.Exit(code)
}

// cliBinary returns the path of the built mcpconform binary.
func cliBinary(t testing.TB) string {
	t.Helper()
	cli.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			cli.err = fmt.Errorf("the go command is not on PATH: %v", err)
			return
		}
		if cli.dir, err = os.MkdirTemp("", "mcpconform-cli-test-"); err != nil {
			cli.err = err
			return
		}
		cli.path = filepath.Join(cli.dir, "mcpconform")
		out, err := exec.Command(goTool, "build", "-o", cli.path, ".").CombinedOutput()
		if err != nil {
			cli.err = fmt.Errorf("building mcpconform: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.path
}

// cliResult is what one run of the binary produced.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLIIn runs the binary with args in dir (the test's temporary directory
// when empty) and returns its exit code and output. A run that takes over a
// minute fails the test.
func runCLIIn(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), args...)
	if dir == "" {
		dir = t.TempDir()
	}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running mcpconform %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("mcpconform %s did not finish within a minute", strings.Join(args, " "))
	}
	return cliResult{code, stdout.String(), stderr.String()}
}

func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLIIn(t, "", args...)
}

// mockArgs is the argv of the reference server with faults, built from the
// same binary.
func mockArgs(t *testing.T, faults ...string) []string {
	args := []string{cliBinary(t), "mock"}
	if len(faults) > 0 {
		args = append(args, "--fault", strings.Join(faults, ","))
	}
	return args
}

// against returns flags, then "--", then the mock server's argv.
func against(t *testing.T, flags []string, faults ...string) []string {
	return append(append(append([]string(nil), flags...), "--"), mockArgs(t, faults...)...)
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, tail(r.stdout, 2000), tail(r.stderr, 2000))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
