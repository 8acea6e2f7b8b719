package wire

import (
	"encoding/json"
	"testing"
)

func TestIDKeys(t *testing.T) {
	for _, tc := range []struct {
		a, b          string
		strict, loose bool
	}{
		{`7`, `7`, true, true},
		{`7`, `7.0`, true, true},
		{`7`, `"7"`, false, true},
		{`"\u00fc-1"`, `"ü-1"`, true, true},
		{`7`, `8`, false, false},
		// Beyond 2^53 a 64-bit float keeps fewer digits: JavaScript reads
		// 9007199254740993 as 9007199254740992.
		{`9007199254740993`, `9007199254740992`, false, true},
		{`-9007199254740993`, `-9007199254740992`, false, true},
		{`9007199254740993`, `9007199254740994`, false, false},
		// Within the safe range every integer is exact.
		{`9007199254740991`, `9007199254740990`, false, false},
		{`9007199254740993`, `"9007199254740992"`, false, false},
	} {
		a, b := json.RawMessage(tc.a), json.RawMessage(tc.b)
		if got := IDKey(a) == IDKey(b); got != tc.strict {
			t.Errorf("IDKey(%s) == IDKey(%s): %v, want %v", tc.a, tc.b, got, tc.strict)
		}
		if got := LooseIDKey(a) == LooseIDKey(b); got != tc.loose {
			t.Errorf("LooseIDKey(%s) == LooseIDKey(%s): %v, want %v (%q, %q)", tc.a, tc.b, got, tc.loose, LooseIDKey(a), LooseIDKey(b))
		}
	}
}

// TestIDKeyFastPathAgreesWithRat: the shortcut for plain integers gives
// the key the rational form would.
func TestIDKeyFastPathAgreesWithRat(t *testing.T) {
	for _, lit := range []string{"0", "7", "-7", "10", "-0", "007", "9007199254740993", "-9007199254740993", "123456789012345678901234567890", "1e3", "1.0", "-1.50"} {
		want := "n:" + rat(lit).RatString()
		if got := IDKey(json.RawMessage(lit)); got != want {
			t.Errorf("IDKey(%s) = %q, want %q", lit, got, want)
		}
	}
}

func TestIDLiterals(t *testing.T) {
	for _, tc := range []struct {
		raw       string
		integer   bool // IsIntegerLiteral
		idLiteral bool // IsIDLiteral
		typeByVal string
	}{
		{`0`, true, true, "integer"},
		{`7`, true, true, "integer"},
		{`-7`, true, true, "integer"},
		{`-0`, true, true, "integer"},
		{`9007199254740993`, true, true, "integer"},
		{`"7"`, false, true, "string"},
		{`""`, false, true, "string"},
		{` 7 `, false, true, "integer"}, // IsIDLiteral trims, as Type does
		{`007`, false, false, "integer"},
		{`1.0`, false, false, "integer"}, // an integer by value only
		{`1e2`, false, false, "integer"},
		{`1.5`, false, false, "number"},
		{`+1`, false, false, "number"},
		{`-`, false, false, "number"},
		{`null`, false, false, "null"},
		{`true`, false, false, "boolean"},
		{`[1]`, false, false, "array"},
		{`{}`, false, false, "object"},
		{``, false, false, ""},
	} {
		raw := json.RawMessage(tc.raw)
		if got := IsIntegerLiteral(raw); got != tc.integer {
			t.Errorf("IsIntegerLiteral(%q) = %v, want %v", tc.raw, got, tc.integer)
		}
		if got := IsIDLiteral(raw); got != tc.idLiteral {
			t.Errorf("IsIDLiteral(%q) = %v, want %v", tc.raw, got, tc.idLiteral)
		}
		if got := Type(raw); got != tc.typeByVal {
			t.Errorf("Type(%q) = %q, want %q", tc.raw, got, tc.typeByVal)
		}
	}
}
