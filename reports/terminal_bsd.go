//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package reports

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
