package reports

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Bounds of an abridged JSON value: what a reader needs to see what
// differs, not the whole page a server sent.
const (
	// abridgeMin is the shortest JSON text worth abridging: shorter ones
	// are kept as they are.
	abridgeMin = 60
	// abridgeDepth is the depth from which objects and arrays are shown
	// as {…} and […] (the top level is depth 0).
	abridgeDepth = 3
	// abridgeString is the longest string shown whole, in characters.
	abridgeString = 40
	// abridgeDeep is the longest container shown whole below
	// abridgeDepth.
	abridgeDeep = 30
	// abridgeMembers is how many members of an object are shown.
	abridgeMembers = 8
	// abridgeItems is how many items of an array are shown, when they
	// are all scalars; an array of more, or of objects, is […N items].
	abridgeItems = 4
)

// ellipsis marks what was left out. Texts clipped by the checks end with
// it too, and a JSON value that stops at it was cut there.
const ellipsis = "…"

// abridge shortens every JSON object and array written in s (a message
// that quotes a response, a Got) to its outline: strings cut at
// abridgeString characters, containers below abridgeDepth and long arrays
// counted, not shown. Text around the JSON is kept, and so is JSON that
// abridging would not shorten. A value clipped before its end (at "…" or
// at the end of s) is closed after the mark.
func abridge(s string) string {
	if !strings.ContainsAny(s, "{[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '{' && c != '[' {
			b.WriteByte(c)
			i++
			continue
		}
		p := &outline{s: s, i: i}
		out := p.value(0)
		if p.i == i {
			// Not JSON after all ("contents[0]" is kept by the rule
			// below too; this is a lone bracket).
			b.WriteByte(c)
			i++
			continue
		}
		orig := s[i:p.i]
		if len(orig) >= abridgeMin && len(out) < len(orig) {
			b.WriteString(out)
		} else {
			b.WriteString(orig)
		}
		i = p.i
	}
	return b.String()
}

// outline reads one JSON value from s at i, tolerating a value cut short,
// and renders its outline.
type outline struct {
	s   string
	i   int
	cut bool // the text ended (or reached "…") inside the value
}

func (p *outline) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// atCut reports whether the value was cut here: the text ends, or a
// clipping mark follows.
func (p *outline) atCut() bool {
	if p.i >= len(p.s) || strings.HasPrefix(p.s[p.i:], ellipsis) {
		p.cut = true
		if p.i < len(p.s) {
			p.i += len(ellipsis)
		}
		return true
	}
	return false
}

// value renders the value at p.i; "" (with p.i unmoved) when none starts
// there.
func (p *outline) value(depth int) string {
	p.ws()
	if p.atCut() {
		return ellipsis
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	default:
		return p.scalar()
	}
}

func (p *outline) object(depth int) string {
	start := p.i
	p.i++ // {
	var members []string
	n := 0
	for {
		p.ws()
		if p.atCut() {
			break
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] != '"' {
			if n == 0 {
				p.i = start // not an object: "{r}" in a URI template
				return ""
			}
			p.cut = true
			break
		}
		key := p.str()
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ':' {
			p.i++
		}
		at := p.i
		v := p.value(depth + 1)
		if p.i == at && !p.cut {
			if n == 0 {
				p.i = start
				return ""
			}
			p.cut = true
			break
		}
		n++
		if len(members) < abridgeMembers {
			members = append(members, key+":"+v)
		}
		if p.cut {
			break
		}
	}
	if n > len(members) {
		members = append(members, ellipsis)
	}
	out := "{" + strings.Join(members, ",") + "}"
	if depth >= abridgeDepth && len(out) > abridgeDeep {
		return "{" + ellipsis + "}"
	}
	return out
}

func (p *outline) array(depth int) string {
	start := p.i
	p.i++ // [
	var items []string
	scalars := true
	for {
		p.ws()
		if p.atCut() {
			break
		}
		if p.s[p.i] == ']' {
			p.i++
			break
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		c := p.s[p.i]
		if c == '{' || c == '[' {
			scalars = false
		}
		at := p.i
		v := p.value(depth + 1)
		if p.i == at {
			if len(items) == 0 {
				p.i = start
				return ""
			}
			p.cut = true
			break
		}
		items = append(items, v)
		if p.cut {
			break
		}
	}
	count := fmt.Sprintf(" %d items", len(items))
	if len(items) == 1 {
		count = " 1 item"
	}
	if p.cut {
		count = "" // how many is not known
	}
	whole := "[" + strings.Join(items, ",") + "]"
	switch {
	case len(items) == 0:
		return "[]"
	case depth >= abridgeDepth && !p.cut && len(whole) <= abridgeDeep:
		return whole
	case depth >= abridgeDepth:
		return "[" + ellipsis + "]"
	case scalars && len(items) <= abridgeItems && !p.cut:
		return "[" + strings.Join(items, ",") + "]"
	case scalars:
		return "[" + strings.Join(items[:min(len(items), abridgeItems)], ",") + "," + ellipsis + count + "]"
	case len(items) <= 2 && !p.cut:
		return "[" + strings.Join(items, ",") + "]"
	}
	return "[" + ellipsis + count + "]"
}

// str renders the string at p.i, cut at abridgeString characters (never
// inside an escape).
func (p *outline) str() string {
	start := p.i
	p.i++ // "
	chars := 0
	keep := -1 // where the shown part ends, once known
	for p.i < len(p.s) {
		if strings.HasPrefix(p.s[p.i:], ellipsis) {
			p.cut = true
			break
		}
		c := p.s[p.i]
		if c == '"' {
			p.i++
			if keep < 0 {
				return p.s[start:p.i]
			}
			return p.s[start:keep] + ellipsis + `"`
		}
		if chars == abridgeString && keep < 0 {
			keep = p.i
		}
		if c == '\\' && p.i+1 < len(p.s) {
			if p.s[p.i+1] == 'u' {
				p.i = min(len(p.s), p.i+6)
			} else {
				p.i += 2
			}
		} else {
			_, size := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += size
		}
		chars++
	}
	p.cut = true
	if p.i < len(p.s) {
		p.i += len(ellipsis)
	}
	if keep < 0 {
		keep = min(p.i, len(p.s))
		return strings.TrimSuffix(p.s[start:keep], ellipsis) + ellipsis + `"`
	}
	return p.s[start:keep] + ellipsis + `"`
}

// scalar renders a number, true, false or null as written; "" (with p.i
// unmoved) for anything else, which is not JSON.
func (p *outline) scalar() string {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-.0123456789eEtruefalsn", p.s[p.i]) >= 0 {
		p.i++
	}
	tok := p.s[start:p.i]
	if tok == "true" || tok == "false" || tok == "null" || jsonNumber.MatchString(tok) {
		return tok
	}
	p.i = start
	return ""
}

var jsonNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
