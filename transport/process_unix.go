//go:build unix && !linux

package transport

import (
	"syscall"
)

// isolation puts the server in a session of its own, with no controlling
// terminal (see the Linux version). There is no parent-death signal here:
// a server outlives this process if this process is killed outright.
func isolation() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// prepareSpawn makes every descriptor above stderr close-on-exec, where the
// system lists them in /dev/fd, so that a server gets its stdio and nothing
// this process inherited.
func prepareSpawn() { closeOnExecListed("/dev/fd") }
