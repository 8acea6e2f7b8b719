package wire

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLongStringsAndBlobs: String and the base64 checks give what
// encoding/json and encoding/base64 give, for long texts too (which they
// judge without copying or decoding them whole).
func TestLongStringsAndBlobs(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", plainStringMin/16+1)
	for _, raw := range []string{
		`"` + long + `"`, ` "` + long + `" `, `"` + long + `\n"`, `"` + long + "\xff" + `"`,
		`"` + long + "\x01" + `"`, `"` + long + `"x"`, `"` + long, `"short"`, `"é\u00e9"`,
	} {
		var want string
		wantOK := Type(json.RawMessage(raw)) == "string" && json.Unmarshal([]byte(raw), &want) == nil
		got, ok := String(json.RawMessage(raw))
		if got != want || ok != wantOK {
			t.Errorf("String(%.20q…%q): got %d bytes, %v; want %d bytes, %v", raw, raw[len(raw)-4:], len(got), ok, len(want), wantOK)
		}
	}
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("binary\x00\xff", 40000)))
	for _, s := range []string{
		blob, blob[:len(blob)-4], blob + "=", blob[:100] + "=" + blob[101:], blob[:70000] + "\n" + blob[70000:],
		blob[:len(blob)-8] + "AAB=", blob[:70000] + "*" + blob[70001:], blob[:len(blob)-1] + "A", "", "QQ==",
	} {
		dec, wantErr := base64.StdEncoding.DecodeString(s)
		n, err := Base64Len(s)
		if n != len(dec) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("Base64Len(%d bytes): got %d, %v; want %d, %v", len(s), n, err, len(dec), wantErr)
		}
		_, strictErr := base64.StdEncoding.Strict().DecodeString(s)
		if _, err := decodedLen(base64.StdEncoding.Strict(), s); fmt.Sprint(err) != fmt.Sprint(strictErr) {
			t.Errorf("strict, %d bytes: got %v, want %v", len(s), err, strictErr)
		}
	}
}

// TestMemberIsObjectIndexed: Member gives what indexing Object gives, for
// duplicate, missing and escaped names and for what is not an object.
func TestMemberIsObjectIndexed(t *testing.T) {
	for _, raw := range []string{
		`{"uri":"a","name":"b"}`, ` {"uri":"a","uri":"b"} `, `{"\u0075ri":1}`, `{"name":"b"}`,
		`{}`, `null`, `[{"uri":"a"}]`, `"uri"`, `{"uri":`, `{"uri":"a"}x`, ``,
		`{"a":{"uri":"inner"},"uri":[1, 2]}`,
	} {
		want := Object(json.RawMessage(raw))["uri"]
		if got := Member(json.RawMessage(raw), "uri"); string(got) != string(want) {
			t.Errorf("Member(%s, uri): got %q, want %q", raw, got, want)
		}
		if json.Valid([]byte(raw)) {
			if got, want := ObjectOfValid(json.RawMessage(raw)), Object(json.RawMessage(raw)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ObjectOfValid(%s): got %q, want %q", raw, got, want)
			}
		}
	}
}

// TestShortStringsDecodeAsEncodingJSON: the plain path of String for
// short strings agrees with encoding/json.
func TestShortStringsDecodeAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{`"a"`, `""`, `"\u00e9"`, "\"\xff\"", `"a\"b"`, "\"a\x01\"", `"`, `"é"`, ` "x" `} {
		var want string
		wantOK := json.Unmarshal([]byte(raw), &want) == nil
		got, ok := String(json.RawMessage(raw))
		if got != want || ok != wantOK {
			t.Errorf("String(%q): got %q, %v; want %q, %v", raw, got, ok, want, wantOK)
		}
	}
}

// TestEachItemAndMemberStopWhenAsked: the iterators give what Array and
// Object give, in order, and stop when told.
func TestEachItemAndMemberStopWhenAsked(t *testing.T) {
	var items []string
	if !EachItem(json.RawMessage(` [1, "a" ,{"b":[2]},null] `), func(it json.RawMessage) bool {
		items = append(items, string(it))
		return len(items) < 3
	}) {
		t.Fatal("EachItem: not an array")
	}
	if got := strings.Join(items, "|"); got != `1|"a"|{"b":[2]}` {
		t.Errorf("EachItem: got %s", got)
	}
	var names []string
	EachMember(json.RawMessage(`{"a":1,"b":2,"a":3}`), func(k string, v json.RawMessage) bool {
		names = append(names, k+"="+string(v))
		return true
	})
	if got := strings.Join(names, "|"); got != "a=1|b=2|a=3" {
		t.Errorf("EachMember: got %s", got)
	}
	for _, bad := range []string{`[1,`, `{}`, `"x"`, ``} {
		if EachItem(json.RawMessage(bad), func(json.RawMessage) bool { return true }) {
			t.Errorf("EachItem(%q) took it for an array", bad)
		}
	}
	if EachMember(json.RawMessage(`[]`), func(string, json.RawMessage) bool { return true }) {
		t.Error("EachMember took an array for an object")
	}
	if !EachItem(json.RawMessage(`[]`), func(json.RawMessage) bool { t.Error("an item in []"); return true }) {
		t.Error("EachItem: [] is an array")
	}
}
