package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/wire"
)

// The wire variants write the same JSON values with other bytes: escapes,
// whitespace and member order that RFC 8259 allows.

// rewriteWire applies the variants that change how a message's JSON is
// written. Every change keeps the values and the single line.
func (s *server) rewriteWire(b []byte) []byte {
	if s.variants.has("members-reordered") {
		b = reorderMembers(b)
	}
	if s.variants.has("python-json-escapes") {
		b = asciiEscapes(b)
	}
	if s.variants.has("unescaped-line-separators") {
		b = rawLineSeparators(b)
	}
	if s.variants.has("escaped-slash") {
		// A "/" can only stand inside a string in JSON, and encoding/json
		// never writes one as part of an escape.
		b = bytes.ReplaceAll(b, []byte("/"), []byte(`\/`))
	}
	if s.variants.has("spaced-json") {
		b = spacedJSON(b)
	}
	return b
}

// reorderMembers rewrites every object of a JSON text with its members in
// descending order of name; numbers and strings keep their bytes.
func reorderMembers(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return b
	}
	switch b[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		slices.Reverse(keys)
		var out bytes.Buffer
		out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			out.Write(marshal(k))
			out.WriteByte(':')
			out.Write(reorderMembers(m[k]))
		}
		out.WriteByte('}')
		return out.Bytes()
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(b, &a) != nil {
			return b
		}
		var out bytes.Buffer
		out.WriteByte('[')
		for i, el := range a {
			if i > 0 {
				out.WriteByte(',')
			}
			out.Write(reorderMembers(el))
		}
		out.WriteByte(']')
		return out.Bytes()
	}
	return b
}

// asciiEscapes writes every non-ASCII character as \uXXXX, beyond the BMP
// as a surrogate pair, as Python's json.dumps does with ensure_ascii. Such
// characters only occur inside strings, so no parsing is needed; bytes
// that are not UTF-8 (a fault's) are left alone.
func asciiEscapes(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out.WriteByte(b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out.WriteByte(b[i])
			i++
			continue
		}
		writeEscaped(&out, r)
		i += size
	}
	return out.Bytes()
}

// writeEscaped writes r as a JSON \u escape (two for a rune beyond the BMP).
func writeEscaped(out *bytes.Buffer, r rune) {
	if r > 0xFFFF {
		r -= 0x10000
		fmt.Fprintf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		return
	}
	fmt.Fprintf(out, `\u%04x`, r)
}

// rawLineSeparators turns the escapes \u2028 and \u2029 back into the raw
// characters. It follows the strings, so that an escaped backslash
// followed by "u2028" is left as it is.
func rawLineSeparators(b []byte) []byte {
	var out bytes.Buffer
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) {
				switch string(bytes.ToLower(b[i+2 : i+6])) {
				case "2028":
					out.WriteString("\u2028")
					i += 5
					continue
				case "2029":
					out.WriteString("\u2029")
					i += 5
					continue
				}
			}
			out.WriteByte(c)
			i++
			c = b[i]
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// spacedJSON puts a space after every "," and ":" between tokens, as
// Python's json.dumps does by default.
func spacedJSON(b []byte) []byte {
	var out bytes.Buffer
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		out.WriteByte(c)
		switch {
		case inString && c == '\\' && i+1 < len(b):
			i++
			out.WriteByte(b[i])
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out.WriteByte(' ')
		}
	}
	return out.Bytes()
}

// variantID is the id a response echoes under the id variants: the same
// value as the request's, written afresh (ids-reencoded) or with every
// character of a string escaped (ids-escaped).
func (s *server) variantID(id json.RawMessage) []byte {
	reencode, escape := s.variants.has("ids-reencoded"), s.variants.has("ids-escaped")
	if !reencode && !escape {
		return nil
	}
	if id[0] != '"' {
		if string(id) == "-0" {
			return id
		}
		n, ok := new(big.Int).SetString(string(id), 10)
		if !ok {
			return nil
		}
		return []byte(n.String())
	}
	var str string
	if json.Unmarshal(id, &str) != nil {
		return nil
	}
	if reencode {
		return marshal(str)
	}
	var out bytes.Buffer
	out.WriteByte('"')
	for _, r := range str {
		writeEscaped(&out, r)
	}
	out.WriteByte('"')
	return out.Bytes()
}

// floatInt is an integer written with a zero fraction ("14.0"), and
// expInt one written with an exponent ("1.4e+01"): JSON Schema counts
// both as integers.
type (
	floatInt int64
	expInt   int64
)

func (n floatInt) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatInt(int64(n), 10) + ".0"), nil
}

func (n expInt) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(n), 'e', -1, 64)), nil
}

// num is an integer value as the number variants write it.
func (s *server) num(n int) any {
	switch {
	case s.variants.has("float-integers"):
		return floatInt(n)
	case s.variants.has("exponent-integers"):
		return expInt(n)
	}
	return n
}

// fraction is a number that may be integral (a priority, a progress
// value): float-integers writes the integral ones with a zero fraction.
func (s *server) fraction(f float64) any {
	if s.variants.has("float-integers") && f == float64(int64(f)) {
		return floatInt(int64(f))
	}
	return f
}

// Delays of the timing variants.
const (
	outOfOrderHold = 100 * time.Millisecond
	lateParseError = 120 * time.Millisecond
	slowAnswer     = 200 * time.Millisecond
)

// laterWrite is a group of messages whose writing a timing variant put
// off: until due, or (withNext) until the next response goes out.
type laterWrite struct {
	due      time.Time
	write    func()
	withNext bool
}

// schedule writes a group now or later, as the timing variants say. It
// runs on the server's goroutine; the run loop's timer writes what is due.
func (s *server) schedule(group []*outMsg, write func()) {
	var resp *outMsg
	for _, m := range group {
		if m.kind == kindResponse || m.kind == kindBatch {
			resp = m
			break
		}
	}
	now := time.Now()
	switch {
	case resp == nil:
	case resp.err != nil && resp.err.Code == wire.CodeParseError && s.variants.has("late-parse-error"):
		s.later = append(s.later, &laterWrite{due: now.Add(lateParseError), write: write})
		return
	case s.variants.has("slow-answers"):
		s.later = append(s.later, &laterWrite{due: now.Add(slowAnswer), write: write})
		return
	case resp.method != "initialize" && s.variants.has("pipelined-out-of-order"):
		var held []*laterWrite
		s.later = slices.DeleteFunc(s.later, func(w *laterWrite) bool {
			if w.withNext {
				held = append(held, w)
			}
			return w.withNext
		})
		if len(held) == 0 {
			s.later = append(s.later, &laterWrite{due: now.Add(outOfOrderHold), write: write, withNext: true})
			return
		}
		write()
		for _, w := range held {
			w.write()
		}
		return
	}
	write()
}

// flushLater writes every put-off group that is due at now, oldest due
// first.
func (s *server) flushLater(now time.Time) {
	slices.SortStableFunc(s.later, func(a, b *laterWrite) int { return a.due.Compare(b.due) })
	for len(s.later) > 0 && !s.later[0].due.After(now) {
		w := s.later[0]
		s.later = s.later[1:]
		w.write()
	}
}

// laterDue is when the next put-off group is due (ok false: none is).
func (s *server) laterDue() (due time.Time, ok bool) {
	for _, w := range s.later {
		if !ok || w.due.Before(due) {
			due, ok = w.due, true
		}
	}
	return due, ok
}
