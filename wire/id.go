package wire

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
)

// IDKey canonicalises a JSON-RPC id so that ids are compared by value and
// type: "\u00fc-1" and "ü-1" are the same string id, 7 and 7.0 the same
// integer id, and "7" and 7 different ids. Every package that matches ids
// uses it.
func IDKey(id json.RawMessage) string {
	switch Type(id) {
	case "string":
		s, _ := String(id)
		return "s:" + s
	case "integer", "number":
		if lit := bytes.TrimSpace(id); plainInteger(lit) {
			return "n:" + string(lit) // already as RatString writes it
		}
		if r := rat(string(bytes.TrimSpace(id))); r != nil {
			return "n:" + r.RatString()
		}
		return "n:" + string(bytes.TrimSpace(id))
	case "":
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return "?:" + string(id)
	}
	return "j:" + b.String()
}

// LooseIDKey is IDKey ignoring the difference between a string id and a
// number id with the same text ("7" and 7), and, for an integer id beyond
// ±(2^53-1), the digits a 64-bit float cannot hold (9007199254740993 read
// by JavaScript comes back as 9007199254740992): it finds the request a
// response meant when the response got the id's type or precision wrong.
func LooseIDKey(id json.RawMessage) string {
	k := IDKey(id)
	if len(k) > 2 && k[0] == 'n' && !(plainInteger([]byte(k[2:])) && len(k) < 2+16) {
		if r := rat(k[2:]); r != nil && r.IsInt() && r.Num().CmpAbs(maxSafeInteger) > 0 {
			f, _ := r.Float64()
			return "x:~" + strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	if len(k) > 2 && (k[0] == 's' || k[0] == 'n') {
		return "x:" + k[2:]
	}
	return k
}

// BeyondSafeInteger reports whether id is an integer outside ±(2^53-1):
// RFC 8259 section 6 warns that such numbers are not interoperable, and a
// JavaScript reader loses their last digits.
func BeyondSafeInteger(id json.RawMessage) bool {
	if Type(id) != "integer" {
		return false
	}
	r := rat(string(bytes.TrimSpace(id)))
	return r != nil && r.IsInt() && r.Num().CmpAbs(maxSafeInteger) > 0
}

// maxSafeInteger is 2^53-1, the largest integer every 64-bit float holds
// exactly, and so every JavaScript number.
var maxSafeInteger = big.NewInt(1<<53 - 1)

// IsNullID reports whether an id member is absent or null, as in a response
// to a request whose id could not be read.
func IsNullID(id json.RawMessage) bool {
	return len(bytes.TrimSpace(id)) == 0 || Type(id) == "null"
}

// plainInteger reports whether lit is an integer written the way
// big.Rat's RatString writes it: an optional minus sign and digits with no
// leading zero, and not "-0".
func plainInteger(lit []byte) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || digits[0] == '0' && (len(digits) > 1 || len(lit) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsIntegerLiteral reports whether lit is written as a JSON integer: an
// optional minus sign and digits with no leading zero, with neither
// fraction nor exponent ("-0" is one). Type goes by value and calls 1.0
// and 1e2 integers too; this goes by the text.
func IsIntegerLiteral(lit []byte) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || digits[0] == '0' && len(digits) > 1 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsIDLiteral reports whether raw is an id written as MCP asks, "a string
// or integer", read by its text: a JSON string, or an integer literal (see
// IsIntegerLiteral). A reader that keeps an id as the text it came in, to
// echo it back unchanged, accepts exactly these; null, 1.0, 1e2, booleans,
// arrays and objects are no ids to it.
func IsIDLiteral(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '"' || IsIntegerLiteral(raw))
}
