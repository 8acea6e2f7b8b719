package wire

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Type names the JSON type of raw: "string", "integer", "number",
// "boolean", "object", "array", "null", or "" when raw is empty. A number
// is an integer when its value has no fractional part, as both JSON Schema
// drafts the spec's schemas use define it: 256.0 and 1e2 are integers.
func Type(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if IsInteger(string(raw)) {
		return "integer"
	}
	return "number"
}

// maxExponent bounds the exponents this package evaluates exactly: a
// number such as 1e999999999 is judged by its text instead of being
// expanded into a gigantic integer.
const maxExponent = 400

// rat returns the exact value of a JSON number literal, or nil when the
// literal is malformed or its exponent is beyond maxExponent.
func rat(lit string) *big.Rat {
	lit = strings.TrimSpace(lit)
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp := strings.TrimLeft(lit[i+1:], "+-")
		exp = strings.TrimLeft(exp, "0")
		if len(exp) > 3 || (len(exp) == 3 && exp > "400") {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil
	}
	return r
}

// IsInteger reports whether a JSON number literal has an integer value: no
// fraction, or a fraction of zero (1, -0, 1.0, 1e2, 15e-1 is not).
func IsInteger(lit string) bool {
	if lit == "" {
		return false
	}
	if !strings.ContainsAny(lit, ".eE") {
		return isDigits(strings.TrimPrefix(lit, "-"))
	}
	r := rat(lit)
	return r != nil && r.IsInt()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Int returns the value of raw when it is a JSON integer (by value, so
// 256.0 is 256) that fits an int64.
func Int(raw json.RawMessage) (int64, bool) {
	if Type(raw) != "integer" {
		return 0, false
	}
	r := rat(string(bytes.TrimSpace(raw)))
	if r == nil || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// Number returns the value of raw when it is a JSON number.
func Number(raw json.RawMessage) (float64, bool) {
	if t := Type(raw); t != "integer" && t != "number" {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// String returns the value of raw when it is a JSON string. A long string
// with nothing to decode (no escapes, valid UTF-8) is not copied: its value
// shares raw's bytes, which are never written once read (see
// DecodeMessage), so judging a 50 MB text costs no second 50 MB.
func String(raw json.RawMessage) (string, bool) {
	if Type(raw) != "string" {
		return "", false
	}
	if body, ok := plainBody(raw); ok {
		if len(body) >= plainStringMin {
			// A long string shares its bytes.
			return unsafe.String(unsafe.SliceData(body), len(body)), true
		}
		return string(body), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plainStringMin is the length from which String shares a string's bytes.
const plainStringMin = 64 << 10

// plainBody returns the body of a string literal that decodes to its own
// bytes (no escape, valid UTF-8): most strings, read without a decoder.
func plainBody(raw []byte) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(body) {
		return nil, false // decoding replaces what is not UTF-8
	}
	return body, true
}

// Object returns the members of raw when it is a JSON object, or nil.
func Object(raw json.RawMessage) map[string]json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && valid(t) {
		return ObjectOfValid(t)
	}
	return nil
}

// ObjectOfValid is Object for raw known to be valid JSON, such as an item
// of an array Array split: it is not checked again. Checks that walk the
// items of a list of 200,000 resources spent most of their time checking
// again, item by item, what the list's check had found valid.
func ObjectOfValid(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	m, _ := splitObject(raw)
	return m
}

// Member returns the value of the member called name when raw is a JSON
// object that has one (the last, when it is named twice, as Object gives),
// or nil. It builds no map: a check that wants one member of each of
// 200,000 listed items reads them in one pass each.
func Member(raw json.RawMessage, name string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !valid(raw) {
		return nil
	}
	var v json.RawMessage
	_ = eachMember(raw, func(k string, val json.RawMessage) {
		if k == name {
			v = val
		}
	})
	return v
}

// EachItem calls f with the items of raw, a JSON array, in order, until f
// returns false, splitting no more than it gives: a slim copy of a line
// of 30 million items reads 256 of them. It reports false when raw is not
// a valid JSON array.
func EachItem(raw json.RawMessage, f func(item json.RawMessage) bool) bool {
	if i := skipSpace(raw, 0); i == len(raw) || raw[i] != '[' || !valid(raw) {
		return false
	}
	eachItem(raw, f)
	return true
}

// EachMember calls f with the members of raw, a JSON object, in order
// (a name given twice comes twice), until f returns false. It reports
// false when raw is not a valid JSON object.
func EachMember(raw json.RawMessage, f func(name string, v json.RawMessage) bool) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !valid(raw) {
		return false
	}
	more := true
	_ = eachMember(raw, func(k string, v json.RawMessage) {
		if more {
			more = f(k, v)
		}
	})
	return true
}

// Array returns the items of raw when it is a JSON array.
func Array(raw json.RawMessage) ([]json.RawMessage, bool) {
	if Type(raw) != "array" {
		return nil, false
	}
	return SplitArray(raw)
}

// Equal reports whether two JSON texts hold the same value: strings are
// compared after decoding escapes ("\u00fc" equals "ü"), numbers by value
// (1.0 equals 1), objects by their members whatever the order. Invalid JSON
// equals only the same bytes.
func Equal(a, b json.RawMessage) bool {
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		// The same text is the same value (and decoding both is what a
		// check of every message's "2.0" spent most of its memory on).
		return true
	}
	va, errA := decodeAny(a)
	vb, errB := decodeAny(b)
	if errA != nil || errB != nil {
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return EqualValues(va, vb)
}

func decodeAny(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// EqualValues compares values decoded with json.Decoder.UseNumber the way
// Equal compares texts.
func EqualValues(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ry := rat(string(x)), rat(string(y))
		if rx == nil || ry == nil {
			return x == y
		}
		return rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !EqualValues(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
