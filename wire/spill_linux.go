package wire

import (
	"sync/atomic"
	"syscall"
)

// spill is anonymous memory mapped for one long line: pages are in
// memory only once written, and each is given back to the system as soon
// as it has been copied out, which memory of the Go heap cannot be.
type spill struct {
	mem []byte
	n   int
	// held is what of mem was written and not yet given back.
	held int
}

// spillsOpen counts the spills mapped and not yet unmapped (for tests).
var spillsOpen atomic.Int64

// spillHeld is what every spill holds: see SpillHeld.
var spillHeld atomic.Int64

// SpillHeld returns how many bytes of lines still arriving are held
// outside the Go heap, which a soft memory limit (debug.SetMemoryLimit)
// does not count: a program that bounds its memory lowers its limit by
// as much.
func SpillHeld() int64 { return spillHeld.Load() }

// newSpill maps a spill of size bytes, or returns nil when it cannot: the
// line then stays in pieces.
func newSpill(size int) *spill {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	spillsOpen.Add(1)
	return &spill{mem: mem}
}

func (s *spill) fits(n int) bool { return s.n+n <= len(s.mem) }

func (s *spill) write(p []byte) {
	n := copy(s.mem[s.n:], p)
	s.n += n
	s.hold(n)
}

// hold counts n more bytes held (fewer when n is negative).
func (s *spill) hold(n int) {
	s.held += n
	spillHeld.Add(int64(n))
}

// drain calls f with the bytes written, spillStep at a time, gives each
// step back to the system once f returned, and unmaps the spill.
func (s *spill) drain(f func(p []byte)) {
	for i := 0; i < s.n; i += spillStep {
		step := s.mem[i:min(i+spillStep, s.n)]
		f(step)
		// The start is page-aligned (the mapping is, and so is every
		// step); the end is rounded up to a page, past what was written.
		_ = syscall.Madvise(step, syscall.MADV_DONTNEED)
		s.hold(-len(step))
	}
	s.free()
}

func (s *spill) free() {
	if s.mem != nil {
		_ = syscall.Munmap(s.mem)
		s.mem, s.n = nil, 0
		s.hold(-s.held)
		spillsOpen.Add(-1)
	}
}
