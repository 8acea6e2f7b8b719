//go:build linux

package reports

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
