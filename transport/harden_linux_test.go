package transport

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Harden leaves the process non-dumpable: its /proc files belong to root,
// out of reach of a server running as the same user.
func TestHarden(t *testing.T) {
	if err := Harden(); err != nil {
		t.Fatal(err)
	}
	if got, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || got != 0 {
		t.Errorf("PR_GET_DUMPABLE: got %d, %v; want 0", got, err)
	}
}
