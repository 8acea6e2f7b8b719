//go:build unix && !linux

package mockclient

import (
	"os"
	"strconv"
	"syscall"
)

// isolation puts the server in a session of its own, with no controlling
// terminal (see the Linux version). There is no parent-death signal here:
// a server outlives this process if this process is killed outright.
func isolation() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// prepareSpawn makes every descriptor above stderr close-on-exec, where the
// system lists them in /dev/fd, so that a server gets its stdio and nothing
// this process inherited.
func prepareSpawn() {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
