//go:build unix

package mockserver

import (
	"os/exec"
	"syscall"
)

// detach puts the child in a new session, out of the server's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
