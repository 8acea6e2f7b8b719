// Package memlimit holds the harness's soft memory limit: the heap size
// past which the collector works at once, lowered while lines arrive
// outside the heap.
package memlimit

import (
	"os"
	"runtime/debug"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// Limit is the heap size past which the collector runs at once. The
// harness's goal is 150 MB of its own memory whatever the server sends;
// about 25 MB of that is memory the limit does not count (the program's
// code, a line arriving outside the heap), and a run that keeps its 96
// MiB of lines whole holds most of the rest alive: at 128 MiB the
// collector let such a run reach 157 MB, at 112 MiB 146 MB, for a quarter
// more of its CPU.
const Limit = 112 << 20

// Set sets the soft limit unless GOMEMLIMIT already chose one, and keeps
// it following what lines still arriving hold outside the heap. A soft
// limit makes the collector work harder as the heap nears it, so a
// server that floods the harness meets a small process, not one that has
// not collected yet. (Live data can still pass it: a 50 MB response is
// kept whole.)
func Set() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(Limit)
	go followSpills()
}

// followSpills lowers the limit by wire.SpillHeld, which the limit does
// not count: a 50 MB read kept whole, with the same read arriving in
// another process, would otherwise leave the collector at ease while the
// process holds both (154 MB with --spec-version all against
// huge-response). The limit never drops below half.
func followSpills() {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	var set int64
	for range t.C {
		held := wire.SpillHeld()
		if held-set >= 1<<20 || set-held >= 1<<20 || held == 0 && set != 0 {
			debug.SetMemoryLimit(Limit - min(held, Limit/2))
			set = held
		}
	}
}
