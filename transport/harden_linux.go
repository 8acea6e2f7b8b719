package transport

import "golang.org/x/sys/unix"

// Harden makes the process non-dumpable. The server under test often runs
// as the same user as mcpconform, and a same-user process may otherwise
// read /proc/<pid>/environ (the caller's tokens), reopen the descriptors
// under /proc/<pid>/fd (a forged line on mcpconform's own stdout) or attach
// a debugger. Non-dumpable, those files belong to root; the flag is not
// inherited across exec, so the servers mcpconform starts are unaffected.
// It does not make a hostile server safe to run: see "Untrusted servers"
// in the README.
func Harden() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
