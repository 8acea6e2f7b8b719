package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// patternLine is a reader of one JSON line of exactly size bytes before
// its terminator (a string of repeated digits in an array), made as it is
// read so that the test holds none of it.
type patternLine struct {
	size, off int
	term      string
	err       error // returned instead of io.EOF when set
}

const patternOpen, patternClose = `["`, `"]`

func (r *patternLine) byteAt(i int) byte {
	switch {
	case i < len(patternOpen):
		return patternOpen[i]
	case i >= r.size+len(r.term):
		panic("past the end")
	case i >= r.size:
		return r.term[i-r.size]
	case i >= r.size-len(patternClose):
		return patternClose[i-(r.size-len(patternClose))]
	}
	return '0' + byte(i%10)
}

func (r *patternLine) Read(p []byte) (int, error) {
	end := r.size + len(r.term)
	if r.off >= end {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	// Reads of odd sizes, as a pipe gives them.
	n := min(len(p), end-r.off, 40000+r.off%9000)
	for i := range n {
		p[i] = r.byteAt(r.off + i)
	}
	r.off += n
	return n, nil
}

// same reports whether raw is the line r makes, terminator excluded.
func (r *patternLine) same(raw []byte) bool {
	if len(raw) != r.size {
		return false
	}
	for i, c := range raw {
		if c != r.byteAt(i) {
			return false
		}
	}
	return true
}

// Lines on either side of the length where they leave the Go heap while
// they arrive read back byte for byte, with their issues.
func TestLongLinesReadWhole(t *testing.T) {
	for _, c := range []struct {
		size   int
		term   string
		issues []FrameIssue
	}{
		{spillFrom - 1, "\n", nil},
		{spillFrom, "\n", nil},
		{spillFrom + 1, "\n", nil},
		{spillFrom - 1, "\r\n", []FrameIssue{IssueCRLF}},
		{3*spillStep + 17, "\r\n", []FrameIssue{IssueCRLF}},
		{5*spillStep + 5, "", []FrameIssue{IssuePartialEOF}},
	} {
		r := &patternLine{size: c.size, term: c.term}
		lr := NewLineReader(r, 8<<20)
		l, err := lr.Next()
		if err != nil {
			t.Fatalf("%d bytes: %v", c.size, err)
		}
		if !r.same(l.Raw) || l.Len != c.size || l.Value == nil || !equalIssues(l.Issues, c.issues) {
			t.Errorf("%d bytes %q: got %d bytes (Len %d, value %v, issues %v), want the line whole with %v", c.size, c.term, len(l.Raw), l.Len, l.Value != nil, l.Issues, c.issues)
		}
		if _, err := lr.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%d bytes: after the line got %v, want EOF", c.size, err)
		}
		if n := spillsOpen.Load(); n != 0 {
			t.Errorf("%d bytes: %d spills still mapped", c.size, n)
		}
	}
}

// What a long line was gathered in is let go however the line ends: over
// the maximum, squeezed, or cut by a failing read.
func TestLongLineLetsGoOfItsSpill(t *testing.T) {
	const size = 6 << 20
	cases := []struct {
		name string
		read func() (*Line, error)
		want func(*Line, error) bool
	}{
		{"over the maximum", func() (*Line, error) {
			return NewLineReader(&patternLine{size: size, term: "\n"}, 4<<20).Next()
		}, func(l *Line, err error) bool {
			start := &patternLine{size: 4096 + len(patternClose)}
			return err == nil && l.Has(IssueOversize) && l.Len == size && start.same(append(bytes.Clone(l.Raw), patternClose...))
		}},
		{"squeezed", func() (*Line, error) {
			lr := NewLineReader(&patternLine{size: size, term: "\n"}, 8<<20)
			lr.ClipPast(func(n int64) bool { return n < 3<<20 }, 64)
			return lr.Next()
		}, func(l *Line, err error) bool {
			return err == nil && l.Squeezed != nil && string(l.Squeezed.Value) == `[""]` && l.Len == size
		}},
		{"a failing read", func() (*Line, error) {
			return NewLineReader(&patternLine{size: size, err: io.ErrUnexpectedEOF}, 8<<20).Next()
		}, func(l *Line, err error) bool {
			return l == nil && errors.Is(err, io.ErrUnexpectedEOF)
		}},
	}
	for _, c := range cases {
		l, err := c.read()
		if !c.want(l, err) {
			t.Errorf("%s: got %+v, %v", c.name, l, err)
		}
		if n := spillsOpen.Load(); n != 0 {
			t.Errorf("%s: %d spills still mapped", c.name, n)
		}
	}
}

// A line the caller refuses is squeezed, and the caller is told (fits(0))
// once the reader let go of what it had gathered, before the line ends.
func TestSqueezedLineTellsWhenItLetGo(t *testing.T) {
	const size = 6 << 20
	r := &patternLine{size: size, term: "\n"}
	lr := NewLineReader(r, 8<<20)
	var asked []int64
	lr.ClipPast(func(n int64) bool {
		asked = append(asked, n)
		if n == 0 && r.off >= size {
			t.Errorf("told it was let go only after the whole line arrived")
		}
		return n < 3<<20
	}, 64)
	if l, err := lr.Next(); err != nil || l.Squeezed == nil {
		t.Fatalf("got %+v, %v; want a squeezed line", l, err)
	}
	if len(asked) < 2 || asked[len(asked)-1] != 0 || asked[len(asked)-2] < 3<<20 {
		t.Errorf("asked %v; want the refusal, then 0", asked)
	}
}
