package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpconform/mcpconform/wire"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pattern is a compiled expectation: a JSON value in which objects match as
// subsets, arrays element by element, scalars by equality, and objects whose
// keys start with "$" are operators ($type, $in, $absent, $present, $base64,
// $regex, $not, $anyOf, $allOf, $each, $contains, $nonEmpty, $onlyKeys, $eq,
// $min, $max, $uri).
type Pattern struct {
	kind   patternKind
	lit    any // literal for scalars and $eq
	fields map[string]*Pattern
	keys   []string
	items  []*Pattern
	ops    []op
}

type patternKind int

const (
	kindLiteral patternKind = iota
	kindObject
	kindArray
	kindOps
)

type op struct {
	name string
	arg  any
	sub  []*Pattern
	re   *regexp.Regexp
}

var knownTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "object": true, "array": true, "null": true}

// CompilePattern parses a pattern from JSON. Errors name the JSON path.
func CompilePattern(raw json.RawMessage) (*Pattern, error) {
	v, err := decodeValue(raw)
	if err != nil {
		return nil, err
	}
	return compile(v, "$")
}

func decodeValue(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func compile(v any, path string) (*Pattern, error) {
	switch t := v.(type) {
	case map[string]any:
		hasOp, hasPlain := false, false
		for k := range t {
			if strings.HasPrefix(k, "$") {
				hasOp = true
			} else {
				hasPlain = true
			}
		}
		if hasOp && hasPlain {
			return nil, fmt.Errorf("%s: operators ($...) and member names cannot be mixed in one object", path)
		}
		if hasOp {
			return compileOps(t, path)
		}
		p := &Pattern{kind: kindObject, fields: map[string]*Pattern{}}
		for k, sub := range t {
			c, err := compile(sub, path+"."+k)
			if err != nil {
				return nil, err
			}
			p.fields[k] = c
			p.keys = append(p.keys, k)
		}
		sort.Strings(p.keys)
		return p, nil
	case []any:
		p := &Pattern{kind: kindArray}
		for i, sub := range t {
			c, err := compile(sub, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			p.items = append(p.items, c)
		}
		return p, nil
	default:
		return &Pattern{kind: kindLiteral, lit: v}, nil
	}
}

func compileOps(m map[string]any, path string) (*Pattern, error) {
	p := &Pattern{kind: kindOps}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		arg := m[name]
		at := path + "." + name
		o := op{name: name, arg: arg}
		switch name {
		case "$type":
			var ts []any
			switch a := arg.(type) {
			case string:
				ts = []any{a}
			case []any:
				ts = a
			default:
				return nil, fmt.Errorf("%s: want a type name or a list of them", at)
			}
			for _, x := range ts {
				s, ok := x.(string)
				if !ok || !knownTypes[s] {
					return nil, fmt.Errorf("%s: unknown type %v (want one of string, integer, number, boolean, object, array, null)", at, x)
				}
			}
			o.arg = ts
		case "$in":
			if _, ok := arg.([]any); !ok {
				return nil, fmt.Errorf("%s: want a list of values", at)
			}
		case "$absent", "$present", "$base64", "$nonEmpty", "$uri":
			if b, ok := arg.(bool); !ok || !b {
				return nil, fmt.Errorf("%s: want true", at)
			}
		case "$regex":
			s, ok := arg.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want a regular expression string", at)
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", at, err)
			}
			o.re = re
		case "$not", "$each", "$contains":
			c, err := compile(arg, at)
			if err != nil {
				return nil, err
			}
			o.sub = []*Pattern{c}
		case "$anyOf", "$allOf":
			list, ok := arg.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s: want a non-empty list of patterns", at)
			}
			for i, x := range list {
				c, err := compile(x, fmt.Sprintf("%s[%d]", at, i))
				if err != nil {
					return nil, err
				}
				o.sub = append(o.sub, c)
			}
		case "$onlyKeys":
			list, ok := arg.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: want a list of member names", at)
			}
			for _, x := range list {
				if _, ok := x.(string); !ok {
					return nil, fmt.Errorf("%s: member names are strings", at)
				}
			}
		case "$eq":
		case "$min", "$max":
			n, ok := arg.(json.Number)
			if !ok {
				return nil, fmt.Errorf("%s: want a number", at)
			}
			if _, ok := new(big.Float).SetString(n.String()); !ok {
				return nil, fmt.Errorf("%s: %s is out of the range of numbers that can be compared", at, n)
			}
		default:
			return nil, fmt.Errorf("%s: unknown operator %s", at, name)
		}
		p.ops = append(p.ops, o)
	}
	return p, nil
}

// Mismatch explains why a value did not match: where, and what differed.
type Mismatch struct {
	Path   string
	Reason string
}

func (m *Mismatch) Error() string { return m.Path + ": " + m.Reason }

// Match reports whether the JSON value raw matches; nil means it does.
//
// The value is decoded only as far as the pattern looks into it: a
// result listing 200,000 resources is matched against {"resources":
// {"$type": "array"}} by finding its members, not by decoding every item.
func (p *Pattern) Match(raw json.RawMessage) *Mismatch {
	if t := bytes.TrimSpace(raw); json.Valid(t) {
		return p.match(lazy(t), true, "$")
	}
	v, err := decodeValue(raw)
	if err != nil {
		return &Mismatch{Path: "$", Reason: "not JSON: " + err.Error()}
	}
	return p.match(v, true, "$")
}

// lazy is a valid JSON value, trimmed, not decoded yet: a value being
// matched is one, or what decodeValue gives (a scalar, []any or
// map[string]any), whose members and items may be lazy in turn.
type lazy []byte

// decoded returns v decoded, when it is lazy.
func decoded(v any) any {
	l, ok := v.(lazy)
	if !ok || len(l) == 0 {
		return v
	}
	// Scalars are most of what is matched, one per listed item: they
	// are read without a decoder.
	switch c := l[0]; {
	case c == 't':
		return true
	case c == 'f':
		return false
	case c == 'n':
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return json.Number(l)
	case c == '"':
		if body := l[1 : len(l)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return string(body)
		}
	}
	d, _ := decodeValue(l)
	return d
}

// isKind reports whether v, lazy or decoded, is an object (open '{') or
// an array ('[').
func isKind(v any, open byte) bool {
	if l, ok := v.(lazy); ok {
		return len(l) > 0 && l[0] == open
	}
	if open == '{' {
		_, ok := v.(map[string]any)
		return ok
	}
	_, ok := v.([]any)
	return ok
}

// member returns the member k of v, an object, lazy when v is: a lazy
// object is read for the member, not split into a map.
func member(v any, k string) (any, bool) {
	if l, ok := v.(lazy); ok {
		if m := wire.Member(json.RawMessage(l), k); m != nil {
			return lazy(m), true
		}
		return nil, false
	}
	sub, ok := v.(map[string]any)[k]
	return sub, ok
}

// eachKey calls f with the member names of v, an object.
func eachKey(v any, f func(k string) bool) {
	if l, ok := v.(lazy); ok {
		wire.EachMember(json.RawMessage(l), func(k string, _ json.RawMessage) bool { return f(k) })
		return
	}
	for k := range v.(map[string]any) {
		if !f(k) {
			return
		}
	}
}

// eachItem calls f with the items of v, an array, in order, lazy when v
// is, until f returns false.
func eachItem(v any, f func(i int, it any) bool) {
	if l, ok := v.(lazy); ok {
		i := 0
		wire.EachItem(json.RawMessage(l), func(it json.RawMessage) bool {
			more := f(i, lazy(it))
			i++
			return more
		})
		return
	}
	for i, it := range v.([]any) {
		if !f(i, it) {
			return
		}
	}
}

// shallow returns v decoded when it is a scalar, and an empty object or
// array of its kind when it is a container: what its type is judged on.
func shallow(v any) any {
	l, ok := v.(lazy)
	if !ok || len(l) == 0 {
		return v
	}
	switch l[0] {
	case '{':
		return map[string]any{}
	case '[':
		return []any{}
	}
	return decoded(l)
}

// MatchAbsent matches the pattern against a member that is not there.
func (p *Pattern) MatchAbsent() *Mismatch { return p.match(nil, false, "$") }

func (p *Pattern) match(v any, present bool, path string) *Mismatch {
	if p.kind == kindOps {
		return p.matchOps(v, present, path)
	}
	if !present {
		return &Mismatch{path, "missing"}
	}
	switch p.kind {
	case kindObject:
		if !isKind(v, '{') {
			return &Mismatch{path, "want an object, got " + typeName(v)}
		}
		for _, k := range p.keys {
			sub, has := member(v, k)
			if m := p.fields[k].match(sub, has, path+"."+k); m != nil {
				return m
			}
		}
		return nil
	case kindArray:
		if !isKind(v, '[') {
			return &Mismatch{path, "want an array, got " + typeName(v)}
		}
		var arr []any
		eachItem(v, func(_ int, it any) bool {
			arr = append(arr, it)
			return true
		})
		if len(arr) != len(p.items) {
			return &Mismatch{path, fmt.Sprintf("want %d items, got %d", len(p.items), len(arr))}
		}
		for i, it := range p.items {
			if m := it.match(arr[i], true, fmt.Sprintf("%s[%d]", path, i)); m != nil {
				return m
			}
		}
		return nil
	default:
		if !equalTo(p.lit, v) {
			return &Mismatch{path, fmt.Sprintf("want %s, got %s", show(p.lit), show(v))}
		}
		return nil
	}
}

func (p *Pattern) matchOps(v any, present bool, path string) *Mismatch {
	for _, o := range p.ops {
		switch o.name {
		case "$absent":
			if present {
				return &Mismatch{path, "want no such member, got " + show(v)}
			}
			continue
		case "$not":
			if o.sub[0].match(v, present, path) == nil {
				return &Mismatch{path, "want no match for " + o.sub[0].String() + ", got " + show(v)}
			}
			continue
		case "$anyOf":
			ok := false
			for _, s := range o.sub {
				if s.match(v, present, path) == nil {
					ok = true
					break
				}
			}
			if !ok {
				return &Mismatch{path, "matches none of " + p.String() + ", got " + show(v)}
			}
			continue
		case "$allOf":
			for _, s := range o.sub {
				if m := s.match(v, present, path); m != nil {
					return m
				}
			}
			continue
		}
		if !present {
			return &Mismatch{path, "missing"}
		}
		switch o.name {
		case "$present":
		case "$type":
			ok := false
			for _, t := range o.arg.([]any) {
				if isType(v, t.(string)) {
					ok = true
				}
			}
			if !ok {
				return &Mismatch{path, fmt.Sprintf("want type %s, got %s", joinAny(o.arg.([]any)), typeName(v))}
			}
		case "$in":
			ok := false
			for _, x := range o.arg.([]any) {
				if equalTo(x, v) {
					ok = true
				}
			}
			if !ok {
				return &Mismatch{path, fmt.Sprintf("want one of %s, got %s", show(o.arg), show(v))}
			}
		case "$eq":
			if !equalTo(o.arg, v) {
				return &Mismatch{path, fmt.Sprintf("want %s, got %s", show(o.arg), show(v))}
			}
		case "$base64":
			s, ok := shallow(v).(string)
			if !ok {
				return &Mismatch{path, "want a base64 string, got " + typeName(v)}
			}
			if err := StrictBase64(s); err != nil {
				return &Mismatch{path, err.Error()}
			}
		case "$regex":
			s, ok := shallow(v).(string)
			if !ok || !o.re.MatchString(s) {
				return &Mismatch{path, fmt.Sprintf("want a string matching /%s/, got %s", o.re, show(v))}
			}
		case "$uri":
			s, ok := shallow(v).(string)
			if !ok {
				return &Mismatch{path, "want a URI string, got " + typeName(v)}
			}
			if err := AbsoluteURI(s); err != nil {
				return &Mismatch{path, err.Error()}
			}
		case "$nonEmpty":
			n := -1
			switch t := shallow(v).(type) {
			case string:
				n = len(t)
			case []any:
				n = len(t)
				if l, ok := v.(lazy); ok {
					n = len(bytes.TrimSpace(l[1 : len(l)-1]))
				}
			case map[string]any:
				n = len(t)
				if l, ok := v.(lazy); ok {
					n = len(bytes.TrimSpace(l[1 : len(l)-1]))
				}
			}
			if n == 0 {
				return &Mismatch{path, "want a non-empty value, got " + show(v)}
			}
			if n < 0 {
				return &Mismatch{path, "want a string, array or object, got " + typeName(v)}
			}
		case "$each", "$contains":
			if !isKind(v, '[') {
				return &Mismatch{path, "want an array, got " + typeName(v)}
			}
			var first *Mismatch
			found := false
			eachItem(v, func(i int, it any) bool {
				m := o.sub[0].match(it, true, fmt.Sprintf("%s[%d]", path, i))
				if m == nil {
					found = true
				} else if first == nil {
					first = m
				}
				return true
			})
			if o.name == "$each" && first != nil {
				return first
			}
			if o.name == "$contains" && !found {
				return &Mismatch{path, "no item matches " + o.sub[0].String()}
			}
		case "$onlyKeys":
			if !isKind(v, '{') {
				return &Mismatch{path, "want an object, got " + typeName(v)}
			}
			allowed := map[string]bool{}
			for _, k := range o.arg.([]any) {
				allowed[k.(string)] = true
			}
			// The first unexpected name in sorted order, whatever the
			// order of the members.
			unexpected, found := "", false
			eachKey(v, func(k string) bool {
				if !allowed[k] && (!found || k < unexpected) {
					unexpected, found = k, true
				}
				return true
			})
			if found {
				return &Mismatch{path, fmt.Sprintf("unexpected member %q", unexpected)}
			}
		case "$min", "$max":
			n, ok := shallow(v).(json.Number)
			if !ok {
				return &Mismatch{path, "want a number, got " + typeName(v)}
			}
			a, ok := new(big.Float).SetString(n.String())
			if !ok {
				// JSON allows exponents no float can hold (1e99999999999).
				return &Mismatch{path, fmt.Sprintf("%s is out of the range of numbers that can be compared", n)}
			}
			b, _ := new(big.Float).SetString(o.arg.(json.Number).String())
			c := a.Cmp(b)
			if (o.name == "$min" && c < 0) || (o.name == "$max" && c > 0) {
				return &Mismatch{path, fmt.Sprintf("%s is out of range (%s %s)", n, o.name, o.arg)}
			}
		}
	}
	return nil
}

// String renders the pattern as compact JSON.
func (p *Pattern) String() string {
	b, _ := json.Marshal(p.JSON())
	return string(b)
}

// JSON returns the pattern as a plain JSON-able value (for reports).
func (p *Pattern) JSON() any {
	switch p.kind {
	case kindObject:
		m := map[string]any{}
		for k, f := range p.fields {
			m[k] = f.JSON()
		}
		return m
	case kindArray:
		a := []any{}
		for _, it := range p.items {
			a = append(a, it.JSON())
		}
		return a
	case kindOps:
		m := map[string]any{}
		for _, o := range p.ops {
			switch {
			case len(o.sub) == 1 && o.name != "$anyOf" && o.name != "$allOf":
				m[o.name] = o.sub[0].JSON()
			case len(o.sub) > 0:
				var l []any
				for _, s := range o.sub {
					l = append(l, s.JSON())
				}
				m[o.name] = l
			default:
				m[o.name] = o.arg
			}
		}
		return m
	}
	return p.lit
}

func isType(v any, t string) bool {
	v = shallow(v)
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && IsInteger(string(n))
	}
	return false
}

// IsInteger reports whether a JSON number literal has an integer value
// (see wire.IsInteger: 1.0 and 1e2 are integers).
func IsInteger(lit string) bool { return wire.IsInteger(lit) }

func typeName(v any) string {
	switch t := shallow(v).(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number:
		if IsInteger(string(t)) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// equal compares decoded values by value (numbers exactly, objects
// whatever the order of their members).
func equal(a, b any) bool { return wire.EqualValues(a, b) }

// equalTo is equal for a value that may be lazy: decoded only when it is
// of the kind of want (an object or an array is never a scalar).
func equalTo(want, v any) bool {
	if l, ok := v.(lazy); ok && len(l) > 0 {
		_, obj := want.(map[string]any)
		_, arr := want.([]any)
		if (l[0] == '{') != obj || (l[0] == '[') != arr {
			return false
		}
	}
	return equal(want, decoded(v))
}

func show(v any) string {
	v = decoded(v)
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

func joinAny(l []any) string {
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " or ")
}

// StrictBase64 checks s against RFC 4648 § 4 (see wire.StrictBase64).
func StrictBase64(s string) error { return wire.StrictBase64(s) }

// AbsoluteURI checks that s is an absolute URI by the grammar of RFC 3986
// (see wire.AbsoluteURI).
func AbsoluteURI(s string) error { return wire.AbsoluteURI(s) }

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
