package reports

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns both ends of a new pseudo-terminal with the given width,
// or skips when the machine has none.
func openPTY(t *testing.T, cols uint16) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: 24}); err != nil {
		t.Fatal(err)
	}
	return master, tty
}

func TestProgressOnTerminal(t *testing.T) {
	master, tty := openPTY(t, 40)
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
	_, tty := openPTY(t, 80)
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
	master, tty := openPTY(t, 30)
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
