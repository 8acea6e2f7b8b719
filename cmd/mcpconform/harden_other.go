//go:build !linux

package main

// harden has nothing to do where /proc does not expose a process's
// environment and descriptors to its user's other processes.
func harden() error { return nil }
