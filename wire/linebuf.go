package wire

import (
	"bytes"
	"strings"
	"unsafe"
)

// lineBuf holds the bytes of one line while it arrives and hands them on
// as one slice of exactly the line's size. A line of a few pieces is kept
// in them; a longer one waits in a spill, memory outside the Go heap that
// is given back, a step at a time, as the line is copied out of it. So a
// line held whole costs its size once, plus a step, even at the moment
// it is joined: pieces joined into a new buffer cost twice the line until
// the collector takes the pieces, and a buffer grown by append more.
type lineBuf struct {
	pieces [][]byte
	n      int
	spill  *spill
	// most is the longest line the buffer is asked to hold (the reader's
	// maximum and a terminator): the size of a spill.
	most int
}

// spillFrom is the length past which a line moves to a spill: shorter
// lines cost little to join.
const spillFrom = 1 << 20

// spillStep is how much of a spill is copied out before it is given
// back: a multiple of every page size.
const spillStep = 1 << 20

// add appends a copy of p.
func (b *lineBuf) add(p []byte) {
	if len(p) == 0 {
		return
	}
	if b.spill == nil && b.n+len(p) > spillFrom && b.n+len(p) <= b.most {
		if b.spill = newSpill(b.most); b.spill != nil {
			for _, q := range b.pieces {
				b.spill.write(q)
			}
			b.pieces = nil
		}
	}
	if b.spill != nil && b.spill.fits(len(p)) {
		b.spill.write(p)
	} else {
		b.pieces = append(b.pieces, bytes.Clone(p))
	}
	b.n += len(p)
}

// prefix returns a copy of the first n bytes of the line followed by
// more.
func (b *lineBuf) prefix(n int, more []byte) []byte {
	out := make([]byte, 0, n)
	b.each(func(p []byte) bool {
		out = append(out, p[:min(len(p), n-len(out))]...)
		return len(out) < n
	})
	return append(out, more[:min(len(more), n-len(out))]...)
}

// each calls f with the line's bytes in order, a part at a time, until f
// returns false.
func (b *lineBuf) each(f func(p []byte) bool) {
	if b.spill != nil && b.spill.n > 0 && !f(b.spill.mem[:b.spill.n]) {
		return
	}
	for _, p := range b.pieces {
		if !f(p) {
			return
		}
	}
}

// drain calls f with the line's bytes in order, a part at a time, giving
// each part back once f returned, and leaves the buffer empty.
func (b *lineBuf) drain(f func(p []byte)) {
	if b.spill != nil {
		b.spill.drain(f)
		b.spill = nil
	}
	for i, p := range b.pieces {
		f(p)
		b.pieces[i] = nil
	}
	b.pieces, b.n = nil, 0
}

// take returns the line as one slice of exactly its size (the piece
// itself when there is one) and leaves the buffer empty.
func (b *lineBuf) take() []byte {
	switch {
	case b.n == 0:
		b.free()
		return nil
	case b.spill == nil && len(b.pieces) == 1:
		p := b.pieces[0]
		b.pieces, b.n = nil, 0
		return p
	}
	// The buffer is had from a strings.Builder, the one way to allocate
	// memory the runtime does not clear first: cleared, each of its pages
	// would be in memory before the spill gave back any of its own, and
	// the line would cost twice its size again. Nothing else refers to
	// the string, so its bytes may be handed on as a slice.
	var sb strings.Builder
	sb.Grow(b.n)
	b.drain(func(p []byte) { sb.Write(p) })
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// free lets go of what the buffer holds.
func (b *lineBuf) free() {
	if b.spill != nil {
		b.spill.free()
		b.spill = nil
	}
	b.pieces, b.n = nil, 0
}
