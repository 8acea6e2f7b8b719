//go:build unix

package mockserver

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProcessLeaveChild(t *testing.T) {
	t.Parallel()
	p := spawn(t, "leave-child")
	line, _ := p.next(p.stderr)
	var pid int
	if _, err := fmt.Sscanf(line, "mockserver: leave-child: started pid %d", &pid); err != nil {
		t.Fatalf("stderr %q does not name the child: %v", line, err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	p.initialize()
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	// The server is gone, but its child lives on in a session of its own
	// and holds stdout open.
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the child is not running: %v", err)
	}
	if sid, err := unix.Getsid(pid); err != nil || sid != pid {
		t.Errorf("the child's session is %d (%v), want its own (%d)", sid, err, pid)
	}
	select {
	case l, ok := <-p.stdout:
		if !ok {
			t.Errorf("stdout closed although the child holds it")
		} else if !strings.HasPrefix(l, "{") {
			t.Errorf("unexpected stdout %q", l)
		}
	default:
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for l := range p.stdout {
		t.Errorf("stdout after the child died: %q", l)
	}
}
