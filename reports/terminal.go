package reports

import "os"

// IsTerminal reports whether f is a terminal (a character device is not
// enough: /dev/null is one).
func IsTerminal(f *os.File) bool {
	return f != nil && isTerminal(f)
}

// ColorEnabled reports whether output to f may be coloured: only when f is a
// terminal, NO_COLOR is unset or empty (https://no-color.org), and TERM is
// not "dumb".
func ColorEnabled(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return f != nil && isTerminal(f)
}

// TerminalWidth returns the number of columns of f when it is a terminal,
// and otherwise def.
func TerminalWidth(f *os.File, def int) int {
	if !IsTerminal(f) {
		return def
	}
	return terminalWidth(f)
}
