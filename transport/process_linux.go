//go:build linux

package transport

import (
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolation is how a server is cut off from this process and its terminal.
//
// Setsid puts it in a session of its own with no controlling terminal: it
// cannot open /dev/tty to write to the user's terminal, make itself the
// terminal's foreground group (which would keep the user's Ctrl-C from
// reaching this process), or push input into the user's shell with
// TIOCSTI. It still leads a process group whose id is its pid, so group
// signals reach it and its children. A server running as the terminal's
// owner can still open the terminal by its path (/dev/pts/N) and write to
// it, and with CAP_SYS_ADMIN also use TIOCSTI or take it over as a
// controlling terminal: only a separate user or namespace would close that.
//
// Pdeathsig kills it when this process dies, even by SIGKILL, which no
// shutdown code survives. The signal fires when the thread that forked the
// server exits: hence the spawner. A server can clear it for itself, and
// its own children never had it.
func isolation() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// subreaper records whether this process became a child subreaper. err is
// written on the spawner's thread and read by the runs that say what
// strays they could see, several at once in a fleet: mu guards it.
var subreaper struct {
	once sync.Once
	mu   sync.Mutex
	err  error
}

// subreaperErr is why this process is no child subreaper, or nil.
func subreaperErr() error {
	subreaper.mu.Lock()
	defer subreaper.mu.Unlock()
	return subreaper.err
}

// prepareSpawn runs on the spawner's thread before each start.
func prepareSpawn() {
	// Every orphaned descendant of a server is reparented to the nearest
	// subreaper among its ancestors: this process rather than init, where a
	// double-forking daemon would be out of sight.
	subreaper.once.Do(func() {
		err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		subreaper.mu.Lock()
		subreaper.err = err
		subreaper.mu.Unlock()
	})
	markInheritedCloseOnExec()
}

// markInheritedCloseOnExec makes every descriptor above stderr
// close-on-exec, so that a server gets its stdio and nothing else. Go opens
// its own descriptors close-on-exec; what is left are those this process
// inherited without the flag (the shell's fd 5, a CI runner's pipes).
// Redone before every start, since code outside Go's conventions (cgo,
// raw syscalls) may open more.
func markInheritedCloseOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Kernels before 5.11 lack the flag.
	closeOnExecListed("/proc/self/fd")
}
