package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/ptytest"
)

// TestProgressOnTerminal runs the binary with a terminal on stderr (or only
// on stdout) and checks that it draws the running indicator and the judging
// counter in place, clears the line, and draws nothing with --quiet.
func TestProgressOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		onStdout bool
		quiet    bool
	}{
		{"stderr", false, false},
		{"stdout only", true, false},
		{"quiet", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			master, tty := ptytest.Open(t, 100)
			args := []string{}
			if tc.quiet {
				args = append(args, "--quiet")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, cliBinary(t), args...)
			cmd.Env = append(os.Environ(), "TERM=xterm", "NO_COLOR=1")
			var pipe bytes.Buffer
			if tc.onStdout {
				cmd.Stdout, cmd.Stderr = tty, &pipe
			} else {
				cmd.Stdout, cmd.Stderr = &pipe, tty
			}
			// Read the terminal while the command runs: a full pty buffer
			// would block it.
			got := make(chan string)
			go func() {
				b, _ := io.ReadAll(master) // ends with EIO once every copy of tty is closed
				got <- string(b)
			}()
			err := cmd.Run()
			tty.Close()
			term := <-got
			if err != nil {
				t.Fatalf("run: %v\nterminal: %q\npipe: %q", err, tail(term, 500), tail(pipe.String(), 500))
			}
			if tc.quiet {
				if strings.Contains(term, "\r") || strings.Contains(term, "running against") {
					t.Errorf("--quiet drew progress: %q", tail(term, 300))
				}
				return
			}
			for _, want := range []string{"\r\x1b[Krunning against the built-in reference server … ", "/", "\r\x1b[K"} {
				if !strings.Contains(term, want) {
					t.Errorf("terminal output lacks %q: %q", want, tail(term, 500))
				}
			}
			if !strings.Contains(term, "] ") {
				t.Errorf("no judging counter on the terminal: %q", tail(term, 500))
			}
			if strings.Contains(pipe.String(), "\r") || strings.Contains(pipe.String(), "\x1b") {
				t.Errorf("progress reached the stream that is not a terminal: %q", tail(pipe.String(), 300))
			}
			if tc.onStdout {
				// The report follows a cleared line, never a half-drawn one.
				i := strings.LastIndex(term, "\r\x1b[K")
				if !strings.Contains(term[i:], "CONFORMANT") {
					t.Errorf("the console report does not follow the cleared progress line: %q", tail(term, 300))
				}
			}
		})
	}
}

// TestNoProgressWhenNotATerminal: with pipes on both streams, nothing but
// the report reaches stdout and nothing at all reaches stderr.
func TestNoProgressWhenNotATerminal(t *testing.T) {
	t.Parallel()
	r := runCLI(t)
	if r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	if r.stderr != "" {
		t.Errorf("stderr: got %q, want nothing", r.stderr)
	}
	if strings.ContainsAny(r.stdout, "\r\x1b") || strings.Contains(r.stdout, "running against") {
		t.Errorf("progress in stdout: %q", tail(r.stdout, 300))
	}
}
