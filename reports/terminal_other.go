//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package reports

import "os"

// isTerminal reports whether f is a character device. Without a portable
// terminal query this is the best guess; it errs towards plain output only
// for devices such as NUL.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func terminalWidth(*os.File) int { return 80 }
