package mockclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
// only its first keep bytes are retained.
type LineReader struct {
	r    *bufio.Reader
	max  int
	keep int
}

// NewLineReader returns a reader for lines of at most max bytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	keep := 4096
	if max < keep {
		keep = max
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64*1024), max: max, keep: keep}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next line, or io.EOF when the stream ended cleanly.
func (lr *LineReader) Next() (*Line, error) {
	var buf []byte
	total := 0
	over := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		total += len(chunk)
		if !over {
			if total > lr.max+2 { // allow the \r\n terminator itself
				over = true
				keepN := lr.keep - len(buf)
				if keepN > 0 {
					if keepN > len(chunk) {
						keepN = len(chunk)
					}
					buf = append(buf, chunk[:keepN]...)
				}
			} else {
				buf = append(buf, chunk...)
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
			l := lr.classify(buf, total, over, false)
			l.Issues = append(l.Issues, IssuePartialEOF)
			return l, nil
		}
		return nil, err
	}
	return lr.classify(buf, total, over, true), nil
}

func (lr *LineReader) classify(buf []byte, total int, over, terminated bool) *Line {
	l := &Line{}
	if terminated && !over {
		buf = buf[:len(buf)-1]
		total--
		if bytes.HasSuffix(buf, []byte("\r")) {
			buf = buf[:len(buf)-1]
			total--
			l.Issues = append(l.Issues, IssueCRLF)
		}
	} else if terminated {
		total--
	}
	l.Raw = buf
	l.Len = total
	if over {
		if len(l.Raw) > lr.keep {
			l.Raw = l.Raw[:lr.keep]
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
