//go:build !linux

package transport

import (
	"os"
	"runtime"
)

// tracked stands for a server's registration, which needs /proc.
type tracked struct{}

func lockRegistry()   {}
func unlockRegistry() {}

func registerLocked(pid int, pipes map[uint64]string) *tracked { return nil }

func regroup(t *tracked, group int) {}

func forget(t *tracked) {}

func observe() {}

// sweep needs /proc: beyond the server's process group, which shutdown
// kills, nothing is found or killed.
func sweep(t *tracked) {}

// findStrays needs /proc; elsewhere no strays are reported.
func findStrays(server, pgid int, pipes map[uint64]string) []Stray { return nil }

func strayCoverage() string {
	return "none: strays are looked for through /proc, which " + runtime.GOOS + " lacks; only the server's process group is killed at shutdown"
}

func pipeInode(f *os.File) (uint64, bool) { return 0, false }

func killStray(pid int) bool { return false }

func alive(pid int) bool { return false }
