package reports

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/ptytest"
)

func TestProgressOnTerminal(t *testing.T) {
	master, tty := ptytest.Open(t, 40)
	p := NewProgress(tty, 180)
	p.Step("resources-read-unknown-uri")
	p.Step("a-very-long-check-id-that-would-wrap-the-line-\x1b]0;x\x07")
	p.Done()
	tty.Close()
	out, _ := io.ReadAll(master) // EIO once the terminal side is closed and drained
	got := string(out)
	want := "\r\x1b[K[  1/180] resources-read-unknown-uri\r\x1b[K"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got %q, want it to start with %q", got, want)
	}
	for _, line := range strings.Split(got, "\r\x1b[K") {
		if n := len([]rune(line)); n > 39 {
			t.Errorf("progress line of %d characters on a 40-column terminal: %q", n, line)
		}
		if strings.ContainsAny(line, "\x1b\x07") {
			t.Errorf("id not sanitized: %q", line)
		}
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("Done did not clear the line: %q", got)
	}
}

func TestColorEnabledOnTerminal(t *testing.T) {
	_, tty := ptytest.Open(t, 80)
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")
	if !ColorEnabled(tty) {
		t.Error("ColorEnabled is false on a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if ColorEnabled(tty) {
		t.Error("ColorEnabled ignores NO_COLOR")
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "dumb")
	if ColorEnabled(tty) {
		t.Error("ColorEnabled is true for TERM=dumb")
	}
}

func TestProgressStatus(t *testing.T) {
	master, tty := ptytest.Open(t, 30)
	if !IsTerminal(tty) {
		t.Fatal("IsTerminal is false on a terminal")
	}
	p := NewProgress(tty, 0)
	p.Status("running against ./srv\x1b[31m --and-a-very-long-flag … 1.2s")
	p.Done()
	tty.Close()
	out, _ := io.ReadAll(master)
	got := string(out)
	want := "\r\x1b[Krunning against ./srv\\x1b[31…\r\x1b[K"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIsTerminalNotForDevNull(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("IsTerminal is true for /dev/null")
	}
	if IsTerminal(nil) {
		t.Error("IsTerminal is true for nil")
	}
	p := NewProgress(f, 3)
	p.Status("x") // silent, no panic
	var nilp *Progress
	nilp.Status("x")
}

// Progress goes to stderr when it is a terminal, else to stdout when it
// is one; to neither on a dumb terminal, or when neither is a terminal.
func TestProgressTerminal(t *testing.T) {
	_, tty := ptytest.Open(t, 80)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var b strings.Builder
	t.Setenv("TERM", "xterm")
	for _, tc := range []struct {
		name           string
		stdout, stderr io.Writer
		want           *os.File
	}{
		{"stderr a terminal", null, tty, tty},
		{"stdout a terminal", tty, null, tty},
		{"a buffer and a file", &b, null, nil},
	} {
		if got := ProgressTerminal(tc.stdout, tc.stderr); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	t.Setenv("TERM", "dumb")
	if got := ProgressTerminal(tty, tty); got != nil {
		t.Errorf("a dumb terminal: got %v, want none", got)
	}
}
