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

// TestColorOnTerminal: with stdout a terminal, --color=auto (the default)
// colours unless NO_COLOR is set and non-empty; never and --no-color do
// not; always does even under NO_COLOR. A report on stdout (--json -) takes
// stdout alone: no colour, no progress line there.
func TestColorOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		noColor string
		color   bool
	}{
		{"auto", nil, "", true},
		{"auto with NO_COLOR", nil, "1", false},
		{"auto with NO_COLOR empty", []string{"--color=auto"}, "", true},
		{"never", []string{"--color=never"}, "", false},
		{"--no-color", []string{"--no-color"}, "", false},
		{"always with NO_COLOR", []string{"--color=always"}, "1", true},
		{"report on stdout", []string{"--json", "-"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			master, tty := ptytest.Open(t, 100)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, cliBinary(t), append(tc.args, "--only", "area:ping")...)
			cmd.Env = append(os.Environ(), "TERM=xterm", "NO_COLOR="+tc.noColor)
			var pipe bytes.Buffer
			cmd.Stdout, cmd.Stderr = tty, &pipe
			got := make(chan string)
			go func() {
				b, _ := io.ReadAll(master) // ends with EIO once every copy of tty is closed
				got <- string(b)
			}()
			err := cmd.Run()
			tty.Close()
			term := <-got
			if err != nil {
				t.Fatalf("run: %v\nterminal: %q\nstderr: %q", err, tail(term, 500), tail(pipe.String(), 500))
			}
			if coloured := strings.Contains(term, "\x1b[1;32mCONFORMANT\x1b[0m"); coloured != tc.color {
				t.Errorf("coloured: got %v, want %v\n%q", coloured, tc.color, tail(term, 400))
			}
			if len(tc.args) == 2 && tc.args[1] == "-" {
				if strings.Contains(term, "\x1b") || !strings.Contains(term, `"schemaVersion": 2`) {
					t.Errorf("stdout holds more than the JSON report: %q", tail(term, 400))
				}
				if !strings.Contains(pipe.String(), "CONFORMANT") {
					t.Errorf("the console report is not on stderr: %q", tail(pipe.String(), 300))
				}
			}
		})
	}
}

// TestMockAtATerminal: mcpconform mock started by hand, its stdin a
// terminal, says in one line on stderr what it is waiting for; started by
// a client (stdin a pipe) it says nothing.
func TestMockAtATerminal(t *testing.T) {
	t.Parallel()
	for _, atTerminal := range []bool{true, false} {
		master, tty := ptytest.Open(t, 80)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, cliBinary(t), "mock")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if atTerminal {
			cmd.Stdin = tty
			// The terminal's end of input (Ctrl-D), kept for the mock's
			// first read.
			if _, err := master.Write([]byte{4}); err != nil {
				t.Fatal(err)
			}
		} else {
			cmd.Stdin = strings.NewReader("")
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("at a terminal %v: %v\n%s", atTerminal, err, stderr.String())
		}
		want := ""
		if atTerminal {
			want = "mcpconform mock: speaking MCP on stdin/stdout; a client should start me (Ctrl-D ends)\n"
		}
		if stderr.String() != want {
			t.Errorf("at a terminal %v: stderr %q, want %q", atTerminal, stderr.String(), want)
		}
	}
}
