//go:build unix

package transport

import (
	"os"
	"strconv"
	"syscall"
)

// closeOnExecListed makes every descriptor above stderr that dir lists
// (/proc/self/fd, /dev/fd) close-on-exec.
func closeOnExecListed(dir string) {
	d, err := os.Open(dir)
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
