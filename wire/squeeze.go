package wire

import (
	"bytes"
	"encoding/json"
	"sort"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// SqueezeAbove is the length of a string literal, quotes included, past
// which a squeezed line keeps none of its contents.
const SqueezeAbove = 64 << 10

// Squeezed is a line read without being held whole, because it was going
// to be clipped anyway (see LineReader.ClipPast): its text with the
// contents of every string literal longer than SqueezeAbove removed (the
// literal becomes ""). Everything outside those strings is kept byte for
// byte, so the text has the line's structure, its short values and its
// nesting; its validity as JSON is the line's, since the contents removed
// were checked as they went by. Size gives the line's own length of any
// part of the text, so a slim copy of its messages can be made exactly as
// from the whole line.
type Squeezed struct {
	// Text is the squeezed line, its terminator removed.
	Text []byte
	// Value is the JSON value of Text (trimmed as Line.Value is) when the
	// line is an object or an array that parsed, else nil.
	Value json.RawMessage
	// cuts are the emptied strings in order of position in Text, with the
	// bytes removed up to and including each.
	cuts []squeezeCut
}

type squeezeCut struct {
	at  int // index in Text of the opening quote
	cum int // bytes removed from this string and every one before
}

// Size returns how long v, a slice of s.Text, was in the line.
func (s *Squeezed) Size(v []byte) int {
	if len(v) == 0 || len(s.cuts) == 0 {
		return len(v)
	}
	from := int(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(s.Text))))
	if from < 0 || from+len(v) > len(s.Text) {
		return len(v) // not a slice of Text
	}
	return len(v) + s.removedBefore(from+len(v)) - s.removedBefore(from)
}

// removedBefore returns the bytes removed from strings opening before i.
func (s *Squeezed) removedBefore(i int) int {
	k := sort.Search(len(s.cuts), func(k int) bool { return s.cuts[k].at >= i })
	if k == 0 {
		return 0
	}
	return s.cuts[k-1].cum
}

// squeezer builds a Squeezed line from its bytes as they arrive, and
// gathers the framing facts of the bytes it does not keep.
type squeezer struct {
	above int // SqueezeAbove, or less in tests
	out   []byte
	cuts  []squeezeCut
	cum   int

	inString, escaped bool
	hex               int  // \u digits still expected
	strStart          int  // index in out of the open string's quote
	strLen            int  // bytes of the open string literal so far
	cutting           bool // the open string is being emptied
	strBad            bool // the open string has text JSON forbids
	bad               bool // an emptied string had text JSON forbids

	// Framing facts of every byte, kept or not.
	badUTF8  bool
	pend     []byte // the start of a rune split between writes
	nul, sep bool
	last2    []byte // the last two bytes written, for U+2028 across writes

	// The containers open, outermost first: past SqueezeItems items, the
	// items of one below the top level are validated and dropped.
	frames []squeezeFrame
	// scratch holds a dropped member, braced, to validate it.
	scratch []byte
	// depth and deepest follow the nesting as Depth counts it.
	depth, deepest int
	// decided is set once the line's first byte is known; hopeless then
	// says that it cannot start JSON: only the start of the text is kept,
	// and the line's issues come from what was counted.
	decided, hopeless bool
}

// SqueezeItems is how many items (or members) of an array (or object)
// below the top level a squeezed line keeps: the slim copy a check sees
// keeps as many, so 60 MiB of [0,0,0,…] costs what 256 items do. The top
// level, a batch, keeps all its messages.
const SqueezeItems = 256

type squeezeFrame struct {
	commas    int  // the commas seen so far at this level
	dropping  bool // past SqueezeItems: each further item is dropped
	object    bool
	itemStart int // index in out of the comma before the item being dropped
}

// structureSpecial marks the bytes outside strings that open, separate or
// close items.
var structureSpecial = func() (t [256]bool) {
	for _, c := range "[]{}," {
		t[c] = true
	}
	return t
}()

// structure adds b, bytes outside any string, to the text, counting items
// and dropping those past SqueezeItems.
func (s *squeezer) structure(b []byte) {
	for len(b) > 0 {
		k := 0
		for k < len(b) && !structureSpecial[b[k]] {
			k++
		}
		s.out = append(s.out, b[:k]...)
		if k == len(b) {
			return
		}
		c := b[k]
		b = b[k+1:]
		// Frames are kept to the harness's depth: a line nested deeper is
		// never decoded, and 50 MiB of [ would be 50 million frames.
		tracked := !s.hopeless && s.depth >= 0 && s.depth == len(s.frames)
		switch c {
		case '[', '{':
			s.depth++
			s.deepest = max(s.deepest, s.depth)
			if tracked && s.depth <= MaxDepth+1 {
				s.frames = append(s.frames, squeezeFrame{object: c == '{'})
			}
		case ',':
			if n := len(s.frames); tracked && n > 1 {
				f := &s.frames[n-1]
				if f.dropping {
					s.dropItem(f)
				}
				f.commas++
				if f.commas >= SqueezeItems {
					f.dropping, f.itemStart = true, len(s.out)
				}
			}
		case ']', '}':
			if n := len(s.frames); tracked && n > 0 {
				if f := &s.frames[n-1]; f.dropping {
					s.dropItem(f)
				}
				s.frames = s.frames[:n-1]
			}
			s.depth--
		}
		s.out = append(s.out, c)
	}
}

// dropItem validates the item of f written since its comma, then removes
// it and the comma from the text, counting them as removed where they
// were.
func (s *squeezer) dropItem(f *squeezeFrame) {
	if f.itemStart >= len(s.out) {
		return // a hopeless line's text was cut before it
	}
	item := s.out[f.itemStart+1:]
	if f.object {
		s.scratch = append(append(append(s.scratch[:0], '{'), item...), '}')
		item = s.scratch
	}
	if !validItem(item) {
		s.bad = true
	}
	s.cum += len(s.out) - f.itemStart
	// The cuts of strings inside the item give way to one cut for the
	// item: its removed bytes are in s.cum already.
	k := len(s.cuts)
	for k > 0 && s.cuts[k-1].at >= f.itemStart {
		k--
	}
	s.cuts = append(s.cuts[:k], squeezeCut{at: f.itemStart, cum: s.cum})
	s.out = s.out[:f.itemStart]
}

// validItem is json.Valid, quicker for the plain numbers that make up
// most long lines of items.
func validItem(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && len(t) < 16 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		digits := t
		if digits[0] == '-' {
			digits = digits[1:]
		}
		plain := len(digits) > 0 && (digits[0] != '0' || len(digits) == 1)
		for _, c := range digits {
			plain = plain && c >= '0' && c <= '9'
		}
		if plain {
			return true
		}
	}
	return json.Valid(b)
}

// inStringSpecial marks the bytes a string's scan must stop at.
var inStringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (s *squeezer) write(p []byte) {
	s.facts(p)
	s.scan(p)
	s.decide()
	if s.hopeless && len(s.out) > hopelessKeep {
		s.out = s.out[:hopelessKeep]
	}
}

// hopelessKeep is how much of a line that cannot be JSON a squeezed text
// keeps: enough to show it, not 50 MiB of garbage.
const hopelessKeep = 64 << 10

// decide notes, once the line's first byte past a BOM and white space has
// come, whether the line can be JSON at all.
func (s *squeezer) decide() {
	if s.decided || len(s.out) < len(bom) {
		return
	}
	t := bytes.TrimLeftFunc(bytes.TrimPrefix(s.out, bom), unicode.IsSpace)
	if len(t) == 0 || !utf8.FullRune(t) {
		return
	}
	s.decided = true
	s.hopeless = bytes.IndexByte([]byte(`{["-0123456789tfn`), t[0]) < 0
}

// scan adds p to the squeezed text.
func (s *squeezer) scan(p []byte) {
	for i := 0; i < len(p); {
		if !s.inString {
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				s.structure(p[i:])
				return
			}
			s.structure(p[i : i+j])
			s.out = append(s.out, '"')
			i += j + 1
			s.inString, s.strStart, s.strLen, s.cutting, s.strBad = true, len(s.out)-1, 1, false, false
			continue
		}
		// Inside a string: take the plain run up to the next special byte.
		j := i
		if !s.escaped && s.hex == 0 {
			for j < len(p) && !inStringSpecial[p[j]] {
				j++
			}
		}
		if j > i {
			s.keep(p[i:j])
			i = j
			continue
		}
		c := p[i]
		closing := false
		switch {
		case s.hex > 0:
			s.hex--
			if !isHex(c) {
				s.strBad = true
			}
		case s.escaped:
			s.escaped = false
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				s.hex = 4
			default:
				s.strBad = true
			}
		case c == '\\':
			s.escaped = true
		case c == '"':
			closing = true
		default: // a control character
			s.strBad = true
		}
		if closing {
			s.inString = false
			if s.cutting {
				s.cum += s.strLen - 1 // the contents; the closing quote is kept
				s.cuts = append(s.cuts, squeezeCut{at: s.strStart, cum: s.cum})
				s.bad = s.bad || s.strBad
			}
			s.strLen++
			s.out = append(s.out, '"')
		} else {
			s.keep(p[i : i+1])
		}
		i++
	}
}

// keep adds bytes of an open string, or counts them once it is emptied.
func (s *squeezer) keep(b []byte) {
	s.strLen += len(b)
	if s.cutting {
		return
	}
	if s.strLen > s.above {
		s.cutting = true
		s.out = s.out[:s.strStart+1]
		return
	}
	s.out = append(s.out, b...)
}

var lineSeparators = [][]byte{[]byte("\u2028"), []byte("\u2029")}

// facts records the framing facts of p, as classify finds them in a whole
// line: invalid UTF-8, NUL bytes, raw line separators.
func (s *squeezer) facts(p []byte) {
	if len(p) == 0 {
		return
	}
	if !s.nul && bytes.IndexByte(p, 0) >= 0 {
		s.nul = true
	}
	if !s.sep {
		seam := append(append([]byte(nil), s.last2...), p[:min(len(p), 2)]...)
		for _, sep := range lineSeparators {
			if bytes.Contains(p, sep) || bytes.Contains(seam, sep) {
				s.sep = true
			}
		}
	}
	s.last2 = append(append([]byte(nil), s.last2...), p[max(0, len(p)-2):]...)
	s.last2 = s.last2[max(0, len(s.last2)-2):]
	if s.badUTF8 {
		return
	}
	if len(s.pend) > 0 {
		// Complete the rune split at the end of the last write.
		need := min(len(p), utf8.UTFMax-len(s.pend))
		buf := append(s.pend, p[:need]...)
		if !utf8.FullRune(buf) {
			s.pend = buf
			return
		}
		r, n := utf8.DecodeRune(buf)
		if r == utf8.RuneError && n == 1 {
			s.badUTF8 = true
			return
		}
		p = p[n-len(s.pend):]
		s.pend = nil
	}
	tail := splitRune(p)
	if !utf8.Valid(p[:len(p)-tail]) {
		s.badUTF8 = true
		return
	}
	s.pend = append([]byte(nil), p[len(p)-tail:]...)
}

// splitRune returns how many bytes at the end of p start a rune that p
// does not hold whole (0 when p ends on a rune's end).
func splitRune(p []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if utf8.RuneStart(p[len(p)-k]) {
			if utf8.FullRune(p[len(p)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// finish returns the squeezed text and the framing issues of the line,
// the way classify finds them in the whole line.
func (s *squeezer) finish(head []byte, crlf bool) (*Squeezed, []FrameIssue) {
	var issues []FrameIssue
	if crlf {
		issues = append(issues, IssueCRLF)
		if n := len(s.out); n > 0 && s.out[n-1] == '\r' && !s.inString {
			s.out = s.out[:n-1]
		}
	}
	if s.inString && s.cutting {
		s.bad = s.bad || s.strBad
	}
	sq := &Squeezed{Text: s.out, cuts: s.cuts}
	if bytes.HasPrefix(head, bom) {
		issues = append(issues, IssueBOM)
	}
	if s.badUTF8 || len(s.pend) > 0 {
		issues = append(issues, IssueInvalidUTF8)
	}
	if s.nul {
		issues = append(issues, IssueNUL)
	}
	if s.sep {
		issues = append(issues, IssueRawNewline)
	}
	var v json.RawMessage
	switch {
	case !s.hopeless:
		issues, v = valueIssues(issues, sq.Text, s.bad)
	case s.deepest > MaxDepth:
		issues = append(issues, IssueTooDeep)
	default:
		issues = append(issues, IssueNotJSON)
	}
	sq.Value = v
	return sq, issues
}
