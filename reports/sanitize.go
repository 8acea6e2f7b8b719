package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/wire"
)

// Strings in a report come from the server under test: names, URIs, error
// messages, raw transcript lines. Every writer treats them as data. The
// helpers here turn any Go string into text that cannot act on a terminal or
// break a document: control characters become visible escapes (ESC shows as
// `\x1b`, so an ANSI CSI or OSC sequence is printed, never interpreted), and
// bytes that are not UTF-8 show as `\xNN`.

// textMode says which layout characters survive sanitizing literally.
type textMode int

const (
	// oneLine escapes every control character, including tab and newline.
	oneLine textMode = iota
	// multiLine keeps tab and newline; a carriage return is still escaped, so
	// a line can never overwrite what came before it on a terminal.
	multiLine
)

// sanitize returns s with every control character (C0, DEL, C1), every
// bidirectional-override or line-separator character and every byte that is
// not part of valid UTF-8 replaced by a visible escape.
func sanitize(s string, mode textMode) string {
	if isPlain(s, mode) {
		return defuseCommands(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\n' && mode == multiLine, r == '\t' && mode == multiLine:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, isInvisibleFormat(r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return defuseCommands(b.String())
}

// defuseCommands keeps s from acting as a CI workflow command. GitHub's
// runner executes "::name args::value" when it starts a line (after any
// white space) and the legacy "##[name]value" anywhere in a line; server
// text reaches the job log through the console, and other tools print
// JUnit and Markdown into it. A backslash goes before every "::" that
// starts s or follows white space (a console wraps text at white space, so
// such a "::" may start a printed line) and before the "[" of every "##[".
// The text stays readable, and CommonMark renders both escapes as the
// original characters.
func defuseCommands(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	afterSpace := true
	for i := 0; i < len(s); {
		switch {
		case afterSpace && strings.HasPrefix(s[i:], "::"):
			b.WriteString(`\::`)
			i += 2
			afterSpace = false
			continue
		case strings.HasPrefix(s[i:], "##["):
			b.WriteString(`##\[`)
			i += 3
			afterSpace = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		i += size
		afterSpace = unicode.IsSpace(r)
	}
	return b.String()
}

// commandSafeWriter passes text through defuseCommands a line at a time, so
// that no line a writer prints, whatever it was assembled from, starts a
// workflow command. Close writes a last line that has no line break.
type commandSafeWriter struct {
	w    io.Writer
	line []byte
}

func (c *commandSafeWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.line = append(c.line, p...)
			return n, nil
		}
		c.line = append(c.line, p[:i+1]...)
		p = p[i+1:]
		if err := c.flushLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (c *commandSafeWriter) flushLine() error {
	if len(c.line) == 0 {
		return nil
	}
	_, err := io.WriteString(c.w, defuseCommands(string(c.line)))
	c.line = c.line[:0]
	return err
}

// Close writes what is left of the last line.
func (c *commandSafeWriter) Close() error { return c.flushLine() }

// isPlain reports whether s is printable ASCII (plus tab and newline in
// multiLine mode), the common case that needs no copy.
func isPlain(s string, mode textMode) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if mode == multiLine && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// isInvisibleFormat reports the characters that reorder or split text when
// displayed ("Trojan Source"): bidirectional embeddings, overrides and
// isolates, and the Unicode line and paragraph separators (which also end a
// JavaScript string in older engines).
func isInvisibleFormat(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0xfeff, r == 0xfffe, r == 0xffff:
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0x180e, r == 0x00ad:
		// Zero-width and invisible characters hide text inside text.
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		// Unicode tag characters can smuggle invisible ASCII.
		return true
	}
	return false
}

// Escape returns s safe to print on one line of a terminal or a log: every
// control, bidirectional, invisible or non-UTF-8 character shows as an
// escape. Every string from a server that a command prints goes through it.
func Escape(s string) string { return sanitize(s, oneLine) }

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// truncate shortens s to at most n runes, marking the cut with an ellipsis.
// It never splits a multi-byte character.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}

// truncateBytes shortens s to about n bytes (on a character boundary) and
// says how much was left out. Documents use it to keep a 50 MB line from a
// hostile server from turning into a 50 MB report.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d more bytes]", s[:cut], len(s)-cut)
}

// jsonValue returns v as a value that encoding/json can always encode:
// a json.RawMessage that is not valid JSON becomes a JSON string of its
// text, and a value that cannot be marshalled (a NaN, a channel) becomes an
// object naming the problem. A report must never fail to render because of
// one odd value.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		if x == nil {
			return nil
		}
		var b bytes.Buffer
		if json.Compact(&b, x) != nil {
			return string(x)
		}
		return boundedValue(x, b.Bytes())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]string{"$unencodable": err.Error()}
	}
	return boundedValue(v, b)
}

// maxRenderedValue bounds one value as any report renders it, indented:
// a value over it is kept as the start of its compact text and its size.
// Indentation grows with depth: 64 KB of arrays nested 500 deep take some
// 30 MB indented, which every format once wrote in full.
const maxRenderedValue = 64 << 10

// reportDepth is how deep the JSON report nests a result's values
// (report, results, result): their indentation starts there.
const reportDepth = 3

// boundedValue returns v, whose compact JSON is compact, or, when it
// would render over maxRenderedValue indented, the start of compact and
// the sizes.
func boundedValue(v any, compact []byte) any {
	n := indentedSize(compact, len("  "), reportDepth)
	if n <= maxRenderedValue {
		return v
	}
	return map[string]any{
		"truncated":     truncateBytes(string(compact[:min(len(compact), 1024)]), 1024),
		"bytes":         len(compact),
		"indentedBytes": n,
	}
}

// indentedSize is the size of the valid compact JSON text compact once
// indented by indent spaces a level, from depth on, as encoding/json
// indents it, computed without writing it.
func indentedSize(compact []byte, indent, depth int) int {
	n := len(compact)
	wire.EachStructural(compact, func(i int, c byte) {
		switch c {
		case '{', '[':
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				return // empty: written as is
			}
			depth++
			n += 1 + indent*depth
		case '}', ']':
			if i > 0 && (compact[i-1] == '{' || compact[i-1] == '[') {
				return
			}
			depth--
			n += 1 + indent*depth
		case ',':
			n += 1 + indent*depth
		case ':':
			n++
		}
	})
	return n
}

// rawJSON is jsonValue for the raw JSON fields of the model.
func rawJSON(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	if !json.Valid(m) {
		b, _ := json.Marshal(string(m))
		return b
	}
	return m
}

// compactJSON renders v as one line of JSON for the console and tables.
// It reports false when v is absent.
func compactJSON(v any) (string, bool) {
	v = jsonValue(v)
	if v == nil {
		return "", false
	}
	b, err := marshalNoEscape(v, "")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// prettyJSON renders v as indented JSON for documents. It reports false when
// v is absent.
func prettyJSON(v any) (string, bool) {
	v = jsonValue(v)
	if v == nil {
		return "", false
	}
	b, err := marshalNoEscape(v, "  ")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// marshalNoEscape is json.Marshal without the \u003c escaping of <, > and &,
// which each writer does itself in the way its format needs.
func marshalNoEscape(v any, indent string) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// isHTTPS reports whether a spec link may be rendered as a link: only https
// URLs are, so a report never carries a javascript: or file: link.
func isHTTPS(s string) bool {
	if !strings.HasPrefix(strings.ToLower(s), "https://") || len(s) <= len("https://") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '`' {
			return false
		}
	}
	return true
}

// ClipJSON returns raw with every string longer than maxString bytes cut
// to its first maxString bytes and its size ("… (N bytes)"), and, should
// it still be longer than maxTotal, a string holding its start and size.
// Values from the server are copied into reports through it: a 60 MB
// serverInfo costs a report a kilobyte.
func ClipJSON(raw json.RawMessage, maxString, maxTotal int) json.RawMessage {
	if len(raw) <= maxString {
		return raw
	}
	if !json.Valid(raw) {
		return clipped(raw, maxString)
	}
	short, long := shortenLongStrings(raw, maxString)
	var v any
	if json.Unmarshal(short, &v) != nil {
		return clipped(raw, maxString)
	}
	out, err := json.Marshal(clipStrings(v, maxString, long))
	if err != nil || len(out) > maxTotal {
		return clipped(raw, maxString)
	}
	return out
}

// longString is a string value of ClipJSON's input too long to decode for
// the kilobyte kept of it: its literal is replaced by a placeholder in
// the text decoded, and clipStrings puts back what clipString would have
// made of the whole string.
type longString struct {
	placeholder, clipped string
}

// shortenLongStrings returns raw with each string value whose literal is
// so long that its decoded text is surely over n bytes (more than six
// bytes of literal a byte) replaced by a placeholder, and those strings
// clipped; raw itself when it has none. A 60 MiB description is then
// read for its first kilobyte and its length, not decoded whole.
func shortenLongStrings(raw []byte, n int) ([]byte, []longString) {
	longer := 6*n + 16
	var out []byte
	var long []longString
	nonce := strconv.FormatUint(rand.Uint64(), 36)
	from := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := wire.StringEnd(raw, i) + 1
		if end == 0 {
			break // not JSON: the caller's decoding says so
		}
		j := end
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j++
		}
		if end-i > longer && (j == len(raw) || raw[j] != ':') { // a value, not a name
			ls := longString{placeholder: "\x00" + nonce + "#" + strconv.Itoa(len(long))}
			var head string
			if json.Unmarshal(append(raw[i:i+longer-2:i+longer-2], '"'), &head) != nil {
				// Cut inside an escape: back to where it starts.
				k := bytes.LastIndexByte(raw[i:i+longer-2], '\\')
				_ = json.Unmarshal(append(raw[i:i+k:i+k], '"'), &head)
			}
			ls.clipped = clipStringOf(head, decodedLen(raw[i+1:end-1]), n)
			p, _ := json.Marshal(ls.placeholder)
			out = append(append(out, raw[from:i]...), p...)
			from = end
			long = append(long, ls)
		}
		i = end - 1
	}
	if long == nil {
		return raw, nil
	}
	return append(out, raw[from:]...), long
}

// decodedLen returns how many bytes the body of a valid string literal
// decodes to, as encoding/json decodes it (invalid UTF-8 and lone
// surrogates become U+FFFD), without decoding it.
func decodedLen(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			r := hex4(b[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if utf16.DecodeRune(r, hex4(b[i+2:])) != utf8.RuneError {
						n += 4
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			n += utf8.RuneLen(r)
		case c == '\\':
			n++
			i += 2
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				n += len(string(utf8.RuneError))
			} else {
				n += size
			}
			i += size
		}
	}
	return n
}

// hex4 reads the four hex digits of a \u escape (-1 when they are not).
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(v)
}

func clipped(raw []byte, n int) json.RawMessage {
	b, _ := json.Marshal(clipStringOf(string(raw[:min(len(raw), n)]), len(raw), n))
	return b
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clipStringOf(s[:n], len(s), n)
}

// clipStringOf is clipString of a string of size bytes that starts with
// head (at least its first n bytes when it is longer than n).
func clipStringOf(head string, size, n int) string {
	if size <= n {
		return head
	}
	cut := head[:min(n, len(head))]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s… (%d bytes)", cut, size)
}

func clipStrings(v any, n int, long []longString) any {
	switch x := v.(type) {
	case string:
		for _, l := range long {
			if x == l.placeholder {
				return l.clipped
			}
		}
		return clipString(x, n)
	case []any:
		for i := range x {
			x[i] = clipStrings(x[i], n, long)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = clipStrings(e, n, long)
		}
	}
	return v
}
