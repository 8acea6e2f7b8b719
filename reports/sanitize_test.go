package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		in        string
		one, many string
	}{
		{"plain text", "plain text", "plain text"},
		{"a\tb\nc", `a\tb\nc`, "a\tb\nc"},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`, `\x1b]0;title\x07`},
		{"nul\x00del\x7f", `nul\x00del\x7f`, `nul\x00del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`, `c1\u0085\u009b`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`},
		{"cut\xe2\x82", `cut\xe2\x82`, `cut\xe2\x82`},
		{"surrogate\xed\xa0\x80", `surrogate\xed\xa0\x80`, `surrogate\xed\xa0\x80`},
		{"rtl\u202eoverride\u2028", `rtl\u202eoverride\u2028`, `rtl\u202eoverride\u2028`},
		{"noncharacter\ufffe", `noncharacter\ufffe`, `noncharacter\ufffe`},
		{"ünïcode ✓ 日本", "ünïcode ✓ 日本", "ünïcode ✓ 日本"},
	} {
		if got := sanitize(tc.in, oneLine); got != tc.one {
			t.Errorf("sanitize(%q, oneLine): got %q, want %q", tc.in, got, tc.one)
		}
		if got := sanitize(tc.in, multiLine); got != tc.many {
			t.Errorf("sanitize(%q, multiLine): got %q, want %q", tc.in, got, tc.many)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"this is too long", 8, "this is…"},
		{"日本語のテキスト", 4, "日本語…"},
	} {
		if got := truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d): got %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	got := truncateBytes(strings.Repeat("é", 10), 5)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "éé…") || !strings.Contains(got, "16 more bytes") {
		t.Errorf("truncateBytes: got %q", got)
	}
}

func TestIsHTTPS(t *testing.T) {
	for in, want := range map[string]bool{
		"https://modelcontextprotocol.io/specification/2025-11-25/basic#x": true,
		"HTTPS://example.invalid/":  true,
		"http://example.invalid/":   false,
		"javascript:alert(1)":       false,
		"https://":                  false,
		"https://a b":               false,
		"https://a\"><script>":      false,
		"data:text/html,x":          false,
		"file:///etc/passwd":        false,
		" https://leading.space/":   false,
		"https://ok/\u202eevil":     false,
		"//protocol-relative.host/": false,
	} {
		if got := isHTTPS(in); got != want {
			t.Errorf("isHTTPS(%q): got %v, want %v", in, got, want)
		}
	}
}

func TestJSONValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{json.RawMessage(nil), "null"},
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{json.RawMessage(`{"a":`), `"{\"a\":"`},
		{math.Inf(1), `{"$unencodable":"json: unsupported value: +Inf"}`},
		{map[string]any{"ch": make(chan int)}, `{"$unencodable":"json: unsupported type: chan int"}`},
		{"\xff", `"\ufffd"`},
	} {
		b, err := json.Marshal(jsonValue(tc.in))
		if err != nil {
			t.Errorf("jsonValue(%v): marshal: %v", tc.in, err)
			continue
		}
		if string(b) != tc.want {
			t.Errorf("jsonValue(%v): got %s, want %s", tc.in, b, tc.want)
		}
	}
}

func TestClipJSON(t *testing.T) {
	big := strings.Repeat("é", 40_000) // 80,000 bytes
	raw, _ := json.Marshal(map[string]any{"name": "s", "description": big, "list": []any{big, 1}})
	got := ClipJSON(raw, 1024, 64<<10)
	if len(got) > 4<<10 {
		t.Fatalf("clipped to %d bytes", len(got))
	}
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	if v["name"] != "s" || !strings.HasSuffix(v["description"].(string), "… (80000 bytes)") || !utf8.ValidString(v["description"].(string)) {
		t.Errorf("got %.80q", got)
	}
	if small := json.RawMessage(`{"a":1}`); string(ClipJSON(small, 1024, 64<<10)) != string(small) {
		t.Errorf("a small value changed")
	}
}

func TestDefuseCommands(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"::add-mask::FAIL", `\::add-mask::FAIL`},
		{"  ::error::x", `  \::error::x`},
		{"\u00a0::error::x", "\u00a0\\::error::x"},
		{"name ::warning::x", `name \::warning::x`},
		{"log ##[group]x", `log ##\[group]x`},
		{"std::string and ::1", `std::string and \::1`},
		{"a: b", "a: b"},
		{"# heading [x]", "# heading [x]"},
	} {
		if got := defuseCommands(tc.in); got != tc.want {
			t.Errorf("defuseCommands(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCommandSafeWriterDefusesEveryLine(t *testing.T) {
	// Lines as a console lays them out: a value cut at the width, so that
	// the next printed line starts with "::", written in pieces of any size.
	text := "target: x\n  " + strings.Repeat("x", 40) + "\n    ::error::forged\nlog ##[group]g\n::end"
	want := "target: x\n  " + strings.Repeat("x", 40) + "\n    \\::error::forged\nlog ##\\[group]g\n\\::end"
	for n := 1; n <= len(text); n++ {
		var b strings.Builder
		w := &commandSafeWriter{w: &b}
		for rest := text; rest != ""; {
			k := min(n, len(rest))
			if _, err := io.WriteString(w, rest[:k]); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != want {
			t.Fatalf("in pieces of %d: got %q, want %q", n, got, want)
		}
	}
}

// TestIndentedSize: the size computed is the size encoding/json writes.
func TestIndentedSize(t *testing.T) {
	for _, v := range []string{
		`1`, `"a"`, `[]`, `{}`, `[1,2,[3,[]],{}]`, `{"a":{"b":[1,{"c":"]["}]},"d":"\"{"}`,
		`[[[[[[]]]]],[[[]]]]`, `{"x":"\\\\"}`, `[{"a":[]},{"b":{}}]`,
	} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(v), strings.Repeat(" ", 6), "  "); err != nil {
			t.Fatal(err)
		}
		// The prefix stands for the three levels above a value in the report.
		if got, want := indentedSize([]byte(v), 2, 3), b.Len(); got != want {
			t.Errorf("indentedSize(%s): got %d, want %d\n%s", v, got, want, b.String())
		}
	}
}

// TestNestedValuesRenderBounded: 64 arrays nested 500 deep (64 KB) are
// kept as a start and sizes in every format, not pretty-printed whole.
func TestNestedValuesRenderBounded(t *testing.T) {
	one := strings.Repeat("[", 500) + strings.Repeat("]", 500)
	nested := json.RawMessage("[" + strings.TrimSuffix(strings.Repeat(one+",", 64), ",") + "]")
	r := &Report{Results: []Result{{ID: "x", Verdict: Fail, Message: "m", Actual: nested, Expected: nested}}}
	var out bytes.Buffer
	if err := WriteJSON(&out, r); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 16<<10 {
		t.Errorf("report.json of one nested value: %d bytes, want it bounded", out.Len())
	}
	if !strings.Contains(out.String(), `"indentedBytes"`) {
		t.Errorf("report.json does not say the value was cut:\n%.2000s", out.String())
	}
	small := json.RawMessage(`{"a":[1,2,3]}`)
	if got := jsonValue(small); string(got.(json.RawMessage)) != string(small) {
		t.Errorf("a small value changed: %v", got)
	}
}
