//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package reports

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal. A character device is not
// enough (/dev/null is one): the terminal attributes must be readable.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}

// terminalWidth returns the number of columns of the terminal f, or 80.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80
	}
	return int(ws.Col)
}
