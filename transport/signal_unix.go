//go:build unix

package transport

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName names a signal as people write it (SIGKILL, not "killed").
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}
