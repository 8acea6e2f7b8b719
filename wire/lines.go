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
	// Value is the line's JSON when it parsed (nil otherwise).
	Value json.RawMessage
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
	lr := &LineReader{max: max, keep: keep}
	lr.r = bufio.NewReaderSize(countingReader{r, &lr.read}, 64*1024)
	return lr
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next line, or io.EOF when the stream ended cleanly.
//
// A long line arrives in many reads; they are kept as separate pieces and
// joined once at the end, into a buffer of exactly the line's size. Growing
// one buffer as the pieces come would allocate about five times the line
// (append grows large slices by a quarter), and a 50 MB response would cost
// a quarter of a gigabyte before the GC caught up.
func (lr *LineReader) Next() (*Line, error) {
	var pieces [][]byte
	total := 0 // bytes of the line so far, terminator included
	over := false
	var last2 [2]byte // the last two bytes seen, for \r\n after an oversize line
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
		if !over {
			if total > lr.max+2 { // not even a \r\n terminator makes it fit
				over = true
				pieces = append(pieces, chunk) // only its prefix is kept below
				pieces = [][]byte{prefix(pieces, lr.keep)}
			} else if len(chunk) > 0 {
				pieces = append(pieces, bytes.Clone(chunk))
			}
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
			l := lr.classify(join(pieces, total, over), total, over, false, last2)
			l.Issues = append(l.Issues, IssuePartialEOF)
			return l, nil
		}
		return nil, err
	}
	return lr.classify(join(pieces, total, over), total, over, true, last2), nil
}

// prefix returns a copy of the first n bytes of pieces.
func prefix(pieces [][]byte, n int) []byte {
	out := make([]byte, 0, n)
	for _, p := range pieces {
		if len(out) == n {
			break
		}
		out = append(out, p[:min(len(p), n-len(out))]...)
	}
	return out
}

// join returns the pieces as one slice of exactly total bytes (the pieces
// themselves when there is one).
func join(pieces [][]byte, total int, over bool) []byte {
	switch {
	case len(pieces) == 0:
		return nil
	case len(pieces) == 1 || over:
		return pieces[0]
	}
	buf := make([]byte, 0, total)
	for i, p := range pieces {
		buf = append(buf, p...)
		pieces[i] = nil // let the GC take each piece as soon as it is copied
	}
	return buf
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
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(buf, bom))
	if len(trimmed) == 0 {
		l.Issues = append(l.Issues, IssueBlank)
		return l
	}
	// A BOM or invalid UTF-8 makes the line unusable as strict JSON, but the
	// value is still decoded (BOM stripped) so that the rest of the session
	// can be judged: the issue itself is already on record.
	if Depth(trimmed) > MaxDepth {
		// No rule limits nesting; the harness's walks over values would
		// cost the square of the depth, so the value is not decoded.
		l.Issues = append(l.Issues, IssueTooDeep)
		return l
	}
	if !json.Valid(trimmed) {
		l.Issues = append(l.Issues, IssueNotJSON)
		return l
	}
	switch trimmed[0] {
	case '{', '[':
		l.Value = json.RawMessage(trimmed)
	default:
		l.Issues = append(l.Issues, IssueNotMessage)
	}
	return l
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
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
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
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
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
			end := stringEnd(b, i)
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

// stringEnd returns the index of the quote that closes the string opening
// at b[i], or -1.
func stringEnd(b []byte, i int) int {
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
		end = stringEnd(b, i) + 1
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
