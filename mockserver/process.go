package mockserver

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// ignoreSIGTERM makes the process deaf to SIGTERM (ignore-sigterm). It also
// undoes any signal.Notify for SIGTERM, such as a context the caller set up.
func ignoreSIGTERM() { signal.Ignore(syscall.SIGTERM) }

// startOrphan starts `sleep 600` in a session of its own, holding the
// server's stdout open (leave-child), and forgets about it: a harness that
// waits for stdout to close, or kills only the process group, is stuck.
func startOrphan(out io.Writer) (pid int, err error) {
	cmd := exec.Command("sleep", "600")
	if f, ok := out.(*os.File); ok {
		cmd.Stdout = f
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid = cmd.Process.Pid
	return pid, cmd.Process.Release()
}
