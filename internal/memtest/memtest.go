// Package memtest measures what code under test allocates, for tests that
// bound the memory a step costs.
package memtest

import "runtime"

// Allocated returns how many bytes of heap f allocated, counting what was
// collected too.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
