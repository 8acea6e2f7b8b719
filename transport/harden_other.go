//go:build !linux

package transport

// Harden has nothing to do where /proc does not expose a process's
// environment and descriptors to its user's other processes.
func Harden() error { return nil }
