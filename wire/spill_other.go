//go:build !linux

package wire

import "sync/atomic"

// spill is where a long line would wait outside the Go heap; only Linux
// has one here, and elsewhere a long line stays in pieces.
type spill struct {
	mem []byte
	n   int
}

// spillsOpen counts the spills mapped (for tests): none here.
var spillsOpen atomic.Int64

// SpillHeld returns how many bytes of lines still arriving are held
// outside the Go heap: none here.
func SpillHeld() int64 { return 0 }

func newSpill(int) *spill { return nil }

func (*spill) fits(int) bool      { return false }
func (*spill) write([]byte)       {}
func (*spill) drain(func([]byte)) {}
func (*spill) free()              {}
