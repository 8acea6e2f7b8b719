package transport

import (
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// A server that exits on stdin EOF ends at the first stage of the
// shutdown, with status 0, and leaves nothing behind.
func TestCleanShutdown(t *testing.T) {
	c := startServer(t, "plain", 2*time.Second)
	if err := c.ping(); err != nil {
		t.Fatal(err)
	}
	info := c.Close()
	if !info.Exited || info.Stage != "stdin-eof" || info.Code != 0 || info.Hangup {
		t.Errorf("got %+v, want an exit with status 0 on stdin EOF", info)
	}
	if s := c.Strays(); len(s) != 0 {
		t.Errorf("got strays %v, want none", s)
	}
	if got := info.Event(); got.Stage != transcript.StdinEOF || got.Code != 0 {
		t.Errorf("the exit event is %+v, want stdin-eof and status 0", got)
	}
}

// A server deaf to stdin EOF dies of SIGTERM, one deaf to SIGTERM too of
// SIGKILL; under a supervisor the same is read.
func TestShutdownEscalates(t *testing.T) {
	const grace = 200 * time.Millisecond
	for _, tc := range []struct {
		modes, stage, signal string
	}{
		{"ignore-eof", "sigterm", "SIGTERM"},
		{"ignore-eof,ignore-sigterm", "sigkill", "SIGKILL"},
	} {
		runBoth(t, tc.modes, func(t *testing.T) {
			c := startServer(t, tc.modes, grace)
			if err := c.ping(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			info := c.Close()
			if info.Stage != tc.stage || !info.Exited || info.Signal != tc.signal || info.Code != -1 {
				t.Errorf("got %+v, want stage %s, killed by %s", info, tc.stage, tc.signal)
			}
			// Two graces at most, plus the waits for the pipes: generous.
			if d := time.Since(start); d > 2*grace+3*postExitWait {
				t.Errorf("Close took %s", d)
			}
			if alive(c.Pid()) {
				t.Errorf("pid %d still alive", c.Pid())
			}
		})
	}
}

func TestStrayHoldingPipesIsFoundAndKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("strays are found through /proc")
	}
	c := startServer(t, "leave-child", 2*time.Second)
	if err := c.ping(); err != nil {
		t.Fatal(err)
	}
	child := childPid(t, c)
	start := time.Now()
	info := c.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s with a child holding stdout", d)
	}
	if info.Stage != "stdin-eof" {
		t.Errorf("got %+v, want an exit on stdin EOF", info)
	}
	strays := c.Strays()
	if len(strays) != 1 || strays[0].Pid != child || !strays[0].Killed ||
		!slices.Contains(strays[0].Holds, "stdout") || !slices.Contains(strays[0].Holds, "stderr") {
		t.Fatalf("got strays %+v, want pid %d holding stdout and stderr, killed", strays, child)
	}
	waitGone(t, child)
	found := false
	for _, e := range c.conn.rec.Entries() {
		found = found || e.Event != nil && e.Event.Stray != nil && e.Event.Stray.Pid == child
	}
	if !found {
		t.Error("the transcript does not record the stray")
	}
}

func TestGroupIsKilledWithTheServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("strays are found through /proc")
	}
	c := startServer(t, "leave-group", 2*time.Second)
	if err := c.ping(); err != nil {
		t.Fatal(err)
	}
	child := childPid(t, c)
	c.Close()
	// The child stayed in the group: the group's SIGKILL took it, so it is
	// no stray.
	if s := c.Strays(); len(s) != 0 {
		t.Errorf("got strays %+v, want none", s)
	}
	waitGone(t, child)
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("pid %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStderrLinesKeepTheirOwnText(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	r := strings.NewReader("first\r\n" + long + "\n" + "last line\n")
	tail := &stderrTail{max: 10}
	tr := transcript.New(time.Now(), transcript.Limits{})
	drainStderr(r, tail, tr, 10)
	got := tail.snapshot()
	if len(got) != 3 || got[0] != "first" || !strings.HasPrefix(got[1], "aaaa") || got[2] != "last line" {
		t.Errorf("got tail %q", got)
	}
	for i, want := range []int{5, 100_000, 9} {
		if e := tr.Entries()[i]; e.Len != want {
			t.Errorf("entry %d: Len %d, want %d (the line without its terminator)", i, e.Len, want)
		}
	}
}
