package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
	"unicode/utf8"
)

// FrameIssue names something about a stdout line that breaks the stdio
// transport's framing rules. The reader records issues; it never repairs them.
type FrameIssue string

// The framing issues a Line can carry.
const (
	IssueBlank       FrameIssue = "blank-line"         // an empty line (or only whitespace)
	IssueCRLF        FrameIssue = "crlf"               // the line ended in \r\n
	IssueBOM         FrameIssue = "bom"                // the line starts with a UTF-8 byte order mark
	IssueInvalidUTF8 FrameIssue = "invalid-utf8"       // bytes that are not UTF-8
	IssueNUL         FrameIssue = "nul-byte"           // a raw NUL byte
	IssueNotJSON     FrameIssue = "not-json"           // the line is not one JSON value
	IssueOversize    FrameIssue = "oversize"           // longer than the maximum message size; not kept whole
	IssuePartialEOF  FrameIssue = "partial-at-eof"     // stdout ended without a final newline
	IssueNotMessage  FrameIssue = "not-a-message"      // JSON, but neither an object nor an array
	IssueRawNewline  FrameIssue = "raw-line-separator" // a raw U+2028 or U+2029 inside the line
	IssueTooDeep     FrameIssue = "too-deep"           // nested deeper than MaxDepth: not decoded
)

// Line is one newline-terminated unit of the server's stdout.
type Line struct {
	// Raw is the line without its terminator, cut to the reader's keep limit.
	Raw []byte
	// Len is the full length of the line in bytes, terminator excluded.
	Len    int
	Issues []FrameIssue
	// Value is the line's JSON when it parsed (nil otherwise, and for a
	// squeezed line).
	Value json.RawMessage
	// Squeezed is set instead of Value for a line read squeezed (see
	// LineReader.ClipPast); Raw is then only its start.
	Squeezed *Squeezed
}

// Has reports whether the line carries the issue.
func (l *Line) Has(i FrameIssue) bool {
	for _, x := range l.Issues {
		if x == i {
			return true
		}
	}
	return false
}

// LineReader splits a stream into newline-delimited lines and classifies
// each one. A line longer than max is skipped without being held in memory:
// at most max bytes of it are ever buffered, and only its first keep bytes
// are retained.
type LineReader struct {
	r    *bufio.Reader
	max  int
	keep int
	// fits and head: see ClipPast.
	fits func(n int64) bool
	head int
	// squeezeMin and squeezeAbove are squeezeMin and SqueezeAbove, or
	// less in tests.
	squeezeMin, squeezeAbove int
	// read counts the bytes taken from the stream, consumed those of the
	// lines returned: the difference is a line still arriving.
	read, consumed atomic.Int64
}

// Progress returns how many bytes have arrived that belong to no line
// returned yet (a line on its way, or 0) and how many bytes arrived in all.
// It is safe to call concurrently with Next.
func (lr *LineReader) Progress() (pending, read int64) {
	read = lr.read.Load()
	return read - lr.consumed.Load(), read
}

// LineBuffered reports whether a whole line has already arrived and waits
// in the buffer, so that Next returns it without reading. Not safe to call
// concurrently with Next.
func (lr *LineReader) LineBuffered() bool {
	b, _ := lr.r.Peek(lr.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// countingReader counts what it reads into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// NewLineReader returns a reader for lines of at most max bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max < 0 {
		max = 0
	}
	keep := 4096
	if max < keep {
		keep = max
	}
	lr := &LineReader{max: max, keep: keep, squeezeMin: squeezeMin, squeezeAbove: SqueezeAbove}
	lr.r = bufio.NewReaderSize(countingReader{r, &lr.read}, 64*1024)
	return lr
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next line, or io.EOF when the stream ended cleanly.
//
// A long line arrives in many reads; it is gathered where it costs its
// size once (see lineBuf) and handed on as one buffer of exactly its size.
//
// A line the caller will not keep whole (see ClipPast) is squeezed instead
// once it is known to be one: what was gathered of it is let go, and the
// rest of it is read into a Squeezed text that keeps its structure but not
// the contents of its long strings.
func (lr *LineReader) Next() (*Line, error) {
	buf := lineBuf{most: lr.max + 2}
	defer buf.free()
	var sq *squeezer
	var head []byte   // while squeezing: the line's first bytes
	var kept []byte   // once over: the line's first keep bytes
	total := 0        // bytes of the line so far, terminator included
	over := false     // longer than max: only a prefix is kept
	var last2 [2]byte // the last two bytes seen, for \r\n after a line not held whole
	defer func() { lr.consumed.Add(int64(total)) }()
	for {
		chunk, err := lr.r.ReadSlice('\n')
		total += len(chunk)
		switch n := len(chunk); {
		case n >= 2:
			last2 = [2]byte{chunk[n-2], chunk[n-1]}
		case n == 1:
			last2 = [2]byte{last2[1], chunk[0]}
		}
		body := chunk // without the terminating newline
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		switch {
		case over:
		case total > lr.max+2: // not even a \r\n terminator makes it fit
			over = true
			if sq != nil {
				kept, sq = append(head[:len(head):len(head)], chunk...), nil
				kept = kept[:min(len(kept), lr.keep)]
			} else {
				kept = buf.prefix(lr.keep, chunk)
				buf.free()
			}
			if lr.fits != nil {
				lr.fits(0) // never to be kept whole: it sets nothing aside
			}
		case sq != nil:
			sq.write(body)
		case lr.fits != nil && total > lr.squeezeMin && !lr.fits(int64(total)):
			// Not to be kept whole, whatever its end: read on squeezed.
			sq = &squeezer{above: lr.squeezeAbove}
			head = buf.prefix(lr.head, body)
			buf.drain(sq.write)
			lr.fits(0) // what was gathered is let go: nothing stays set aside
			sq.write(body)
		default:
			buf.add(chunk)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if total == 0 {
				return nil, io.EOF
			}
			l := lr.finish(&buf, sq, head, kept, total, over, false, last2)
			l.Issues = append(l.Issues, IssuePartialEOF)
			return l, nil
		}
		return nil, err
	}
	return lr.finish(&buf, sq, head, kept, total, over, true, last2), nil
}

// finish classifies the line read: squeezed, over the maximum (kept is
// its start), or whole in buf.
func (lr *LineReader) finish(buf *lineBuf, sq *squeezer, head, kept []byte, total int, over, terminated bool, last2 [2]byte) *Line {
	switch {
	case sq != nil:
		return lr.squeezed(sq, head, total, terminated, last2)
	case over:
		return lr.classify(kept, total, over, terminated, last2)
	}
	return lr.classify(buf.take(), total, over, terminated, last2)
}

// squeezeMin is the length from which a line may be squeezed: shorter
// ones cost little to hold.
const squeezeMin = 1 << 20

// ClipPast makes the reader squeeze every line the caller will not keep
// whole: fits is asked, as a line grows past a mebibyte, whether a line
// of n bytes so far may still be kept whole; once it says no, the line is
// returned with its first head bytes as Raw, no Value, and its Squeezed
// text, and it is never held whole, and fits(0) says when the reader has
// let go of what it had gathered of it. Call it before Next.
func (lr *LineReader) ClipPast(fits func(n int64) bool, head int) {
	lr.fits, lr.head = fits, head
}

// squeezed classifies a squeezed line.
func (lr *LineReader) squeezed(sq *squeezer, head []byte, total int, terminated bool, last2 [2]byte) *Line {
	l := &Line{Len: total}
	crlf := false
	if terminated {
		l.Len--
		if last2[0] == '\r' {
			l.Len--
			crlf = true
		}
	}
	l.Raw = head[:min(len(head), l.Len)]
	if l.Len > lr.max {
		if crlf {
			l.Issues = append(l.Issues, IssueCRLF)
		}
		l.Raw = l.Raw[:min(len(l.Raw), lr.keep)]
		l.Issues = append(l.Issues, IssueOversize)
		return l
	}
	l.Squeezed, l.Issues = sq.finish(head, crlf)
	return l
}

func (lr *LineReader) classify(buf []byte, total int, over, terminated bool, last2 [2]byte) *Line {
	l := &Line{}
	switch {
	case terminated && !over:
		buf = buf[:len(buf)-1]
		total--
		if bytes.HasSuffix(buf, []byte("\r")) {
			buf = buf[:len(buf)-1]
			total--
			l.Issues = append(l.Issues, IssueCRLF)
		}
	case terminated:
		total--
		if last2[0] == '\r' {
			total--
			l.Issues = append(l.Issues, IssueCRLF)
		}
	}
	l.Raw = buf
	l.Len = total
	if over || total > lr.max {
		if len(l.Raw) > lr.keep {
			l.Raw = l.Raw[:lr.keep:lr.keep]
		}
		l.Issues = append(l.Issues, IssueOversize)
		return l
	}
	if bytes.HasPrefix(buf, bom) {
		l.Issues = append(l.Issues, IssueBOM)
	}
	if !utf8.Valid(buf) {
		l.Issues = append(l.Issues, IssueInvalidUTF8)
	}
	if bytes.IndexByte(buf, 0) >= 0 {
		l.Issues = append(l.Issues, IssueNUL)
	}
	if bytes.Contains(buf, []byte("\u2028")) || bytes.Contains(buf, []byte("\u2029")) {
		l.Issues = append(l.Issues, IssueRawNewline)
	}
	l.Issues, l.Value = valueIssues(l.Issues, buf, false)
	return l
}

// FrameOf classifies data as one whole frame of a transport that delimits
// messages itself (an HTTP body, the data of a server-sent event): the
// issues a line of the same bytes would have, and none of a line's
// framing, since newlines inside it are its own. total is the frame's
// full length; when it is more than len(data) or than max, data is only
// the frame's start and the frame is oversize (only its first 4 KiB are
// kept).
func FrameOf(data []byte, total, max int) *Line {
	lr := &LineReader{max: max, keep: min(4096, max)}
	return lr.classify(data, total, total > len(data) || total > max, false, [2]byte{})
}

// valueIssues adds the issues of a line's bytes as a JSON value to issues
// and returns the value when it is an object or an array. invalid says
// the line is not JSON whatever buf holds (a squeezed line whose removed
// text JSON forbids).
func valueIssues(issues []FrameIssue, buf []byte, invalid bool) ([]FrameIssue, json.RawMessage) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(buf, bom))
	if len(trimmed) == 0 {
		return append(issues, IssueBlank), nil
	}
	// A BOM or invalid UTF-8 makes the line unusable as strict JSON, but the
	// value is still decoded (BOM stripped) so that the rest of the session
	// can be judged: the issue itself is already on record.
	if Depth(trimmed) > MaxDepth {
		// No rule limits nesting; the harness's walks over values would
		// cost the square of the depth, so the value is not decoded.
		return append(issues, IssueTooDeep), nil
	}
	if invalid || !json.Valid(trimmed) {
		return append(issues, IssueNotJSON), nil
	}
	switch trimmed[0] {
	case '{', '[':
		return issues, json.RawMessage(trimmed)
	}
	return append(issues, IssueNotMessage), nil
}

// LineValue returns the JSON value of a stdout line's bytes (a byte order
// mark and surrounding whitespace removed) when it is an object or an
// array, the only values that can hold messages; otherwise nil. A Line's
// Value is exactly this.
func LineValue(data []byte) json.RawMessage {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || Depth(trimmed) > MaxDepth || !json.Valid(trimmed) {
		return nil
	}
	return json.RawMessage(trimmed)
}

// MaxDepth is the deepest nesting of objects and arrays the harness
// decodes. The spec sets none; JSON lets a reader set one (RFC 8259,
// section 9). MCP messages nest a few dozen levels at most.
const MaxDepth = 512

// Depth returns how deeply b nests objects and arrays, reading it as JSON
// text (brackets inside strings do not count); it works on any bytes.
func Depth(b []byte) int {
	depth, deepest := 0, 0
	EachStructural(b, func(_ int, c byte) {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	})
	return deepest
}

// EachStructural calls f with each byte of b, read as JSON text, that is
// outside a string literal, and its index; it works on any bytes.
func EachStructural(b []byte, f func(i int, c byte)) {
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
			f(i, c)
		default:
			f(i, c)
		}
	}
}

// TopLevelMember returns the value of a member of the object b holds,
// read without decoding the rest of it, when that value is a string, a
// number, true, false or null: it finds the id of a message nested too
// deeply to decode.
func TopLevelMember(b []byte, name string) (json.RawMessage, bool) {
	b = bytes.TrimSpace(bytes.TrimPrefix(b, bom))
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	depth, i := 0, 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			end := StringEnd(b, i)
			if end < 0 {
				return nil, false
			}
			if depth == 1 {
				// A key at the top level: is the next token a colon?
				j := skipSpace(b, end+1)
				if j < len(b) && b[j] == ':' {
					var key string
					if json.Unmarshal(b[i:end+1], &key) == nil && key == name {
						return scalarAt(b, skipSpace(b, j+1))
					}
				}
			}
			i = end + 1
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
		i++
	}
	return nil, false
}

// StringEnd returns the index of the quote that closes the string opening
// at b[i], or -1.
func StringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// scalarAt returns the scalar JSON value starting at b[i].
func scalarAt(b []byte, i int) (json.RawMessage, bool) {
	if i >= len(b) {
		return nil, false
	}
	end := i
	if b[i] == '"' {
		end = StringEnd(b, i) + 1
		if end == 0 {
			return nil, false
		}
	} else {
		for end < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[end])) {
			end++
		}
	}
	v := json.RawMessage(b[i:end])
	if !json.Valid(v) || v[0] == '{' || v[0] == '[' {
		return nil, false
	}
	return v, true
}
