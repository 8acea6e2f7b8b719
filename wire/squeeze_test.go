package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/memtest"
)

// FuzzSqueeze reads the same input whole and squeezed (every line, however
// short) and checks that a squeezed line says what the whole one does: the
// same length and issues, the same start, a value exactly when the whole
// line has one, that value with the contents of its long strings removed,
// and the whole line's size for every part of it.
func FuzzSqueeze(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"0123456789abcdef\"}}\n"), uint8(4), uint8(0))
	f.Add([]byte("\xef\xbb\xbf{\"a\":\"x\\u00e9\\\"yyyyyy\",\"b\":[\"zzzzzzzz\",1]}\r\n[{\"s\":\"\xe2\x80\xa8long string\"}]\n{\"a\":\"\x01bad\"}\n{\"a\":\"\\q......\"}\n{\"x\":\"unterminated"), uint8(3), uint8(1))
	f.Add([]byte("{\"a\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\",\"b\":\"\x00\x00\x00\x00\"}\n  \n\"just a string of some length\"\n[[[[\"deep........\"]]]]\n"), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, above uint8, mode uint8) {
		const limit, head = 1 << 16, 16
		whole := NewLineReader(bytes.NewReader(in), limit)
		squeezed := NewLineReader(pacedReader(in, mode), limit)
		squeezed.squeezeMin, squeezed.squeezeAbove = 0, int(above%32)+1
		squeezed.ClipPast(func(int64) bool { return false }, head)
		for i := 0; ; i++ {
			w, werr := whole.Next()
			s, serr := squeezed.Next()
			if werr != nil || serr != nil {
				if !errors.Is(werr, io.EOF) || !errors.Is(serr, io.EOF) {
					t.Fatalf("line %d: got %v, want %v", i, serr, werr)
				}
				return
			}
			if s.Len != w.Len || !equalIssues(s.Issues, w.Issues) {
				t.Fatalf("line %d %q: got len %d %v, want %d %v", i, w.Raw, s.Len, s.Issues, w.Len, w.Issues)
			}
			if !bytes.Equal(s.Raw, w.Raw[:min(len(w.Raw), head)]) {
				t.Fatalf("line %d: got start %q, want %q", i, s.Raw, w.Raw)
			}
			if s.Squeezed == nil {
				if len(in) > 0 && !w.Has(IssueOversize) && w.Len > 0 {
					t.Fatalf("line %d %q: not squeezed", i, w.Raw)
				}
				continue
			}
			sv := s.Squeezed.Value
			if (sv == nil) != (w.Value == nil) {
				t.Fatalf("line %d %q: got value %q, want %q", i, w.Raw, sv, w.Value)
			}
			if sv == nil {
				continue
			}
			if want := squeezeRef(w.Value, int(above%32)+1); !manyItems(w.Value) && !bytes.Equal(sv, want) {
				t.Fatalf("line %d: got %q, want %q", i, sv, want)
			}
			if n := s.Squeezed.Size(sv); n != len(w.Value) {
				t.Fatalf("line %d: Size of the value %d, want %d", i, n, len(w.Value))
			}
			var sm, wm []json.RawMessage
			_ = eachMember(sv, func(_ string, v json.RawMessage) { sm = append(sm, v) })
			_ = eachMember(w.Value, func(_ string, v json.RawMessage) { wm = append(wm, v) })
			for k, v := range sm {
				if n := s.Squeezed.Size(v); n != len(wm[k]) {
					t.Fatalf("line %d: Size of member %d %d, want %d", i, k, n, len(wm[k]))
				}
			}
		}
	})
}

func equalIssues(a, b []FrameIssue) bool {
	return strings.Join(issueStrings(a), ",") == strings.Join(issueStrings(b), ",")
}

func issueStrings(is []FrameIssue) []string {
	out := make([]string, len(is))
	for i, x := range is {
		out[i] = string(x)
	}
	return out
}

// squeezeRef is what squeezing does to valid JSON: every string literal
// with at least above bytes between its quotes becomes "".
func squeezeRef(v []byte, above int) []byte {
	var out []byte
	for i := 0; i < len(v); {
		if v[i] != '"' {
			out = append(out, v[i])
			i++
			continue
		}
		end := skipString(v, i)
		if end-i-2 >= above {
			out = append(out, '"', '"')
		} else {
			out = append(out, v[i:end]...)
		}
		i = end
	}
	return out
}

// manyItems reports whether a container below the top level of v has
// over SqueezeItems items, which squeezing drops (TestSqueezedItems).
func manyItems(v []byte) bool {
	var commas []int
	many := false
	EachStructural(v, func(_ int, c byte) {
		switch c {
		case '[', '{':
			commas = append(commas, 0)
		case ']', '}':
			commas = commas[:len(commas)-1]
		case ',':
			commas[len(commas)-1]++
			many = many || len(commas) > 1 && commas[len(commas)-1] >= SqueezeItems
		}
	})
	return many
}

// TestSqueezedItems: a squeezed line keeps SqueezeItems items of each
// container below the top level and drops the rest, yet its validity, its
// size and the size of each part are the whole line's; an invalid item
// among those dropped makes the line invalid, as it is.
func TestSqueezedItems(t *testing.T) {
	zeros := strings.Repeat(",0", 1<<20)
	for _, c := range []struct {
		line  string
		valid bool
		want  string
	}{
		{`{"a":[0` + zeros + `],"b":1}`, true, `{"a":[0` + strings.Repeat(",0", SqueezeItems-1) + `],"b":1}`},
		{`[{"a":[0` + zeros + `]}` + strings.Repeat(`,{}`, 300) + `]`, true, `[{"a":[0` + strings.Repeat(",0", SqueezeItems-1) + `]}` + strings.Repeat(`,{}`, 300) + `]`},
		{`{"a":[0` + zeros + `, 01]}`, false, ""},
		{`{"a":[0` + zeros + `, [1,]]}`, false, ""},
		{`{"a":{"k":0` + strings.Repeat(`,"k":0`, 1000) + `,"k" 1}}`, false, ""},
		{`{"a":{"k":0` + strings.Repeat(`, "k" : [0,{"x":"\u00e9"}]`, 1000) + ` }}`, true, `{"a":{"k":0` + strings.Repeat(`, "k" : [0,{"x":"\u00e9"}]`, SqueezeItems-1) + `}}`},
	} {
		lr := NewLineReader(strings.NewReader(c.line+"\n"), 64<<20)
		lr.squeezeMin = 0
		lr.ClipPast(func(int64) bool { return false }, 64)
		l, err := lr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if l.Squeezed == nil {
			t.Fatalf("%.40s: not squeezed", c.line)
		}
		if got := l.Squeezed.Value != nil; got != c.valid || json.Valid([]byte(c.line)) != c.valid {
			t.Errorf("%.40s: valid %v, want %v", c.line, got, c.valid)
			continue
		}
		if !c.valid {
			continue
		}
		if got := string(l.Squeezed.Value); got != c.want {
			t.Errorf("%.40s: got %.300s…, want %.300s…", c.line, got, c.want)
		}
		if n := l.Squeezed.Size(l.Squeezed.Value); n != len(c.line) {
			t.Errorf("%.40s: Size %d, want %d", c.line, n, len(c.line))
		}
		var sm, wm []json.RawMessage
		_ = eachMember(l.Squeezed.Value, func(_ string, v json.RawMessage) { sm = append(sm, v) })
		_ = eachMember([]byte(c.line), func(_ string, v json.RawMessage) { wm = append(wm, v) })
		for k := range sm {
			if n := l.Squeezed.Size(sm[k]); n != len(wm[k]) {
				t.Errorf("%.40s: Size of member %d %d, want %d", c.line, k, n, len(wm[k]))
			}
		}
	}
}

// A squeezed 50 MB line costs its squeezed text, not its size.
func TestSqueezedLineMemory(t *testing.T) {
	const size = 50 << 20
	r := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"a://b","text":"`),
		strings.NewReader(strings.Repeat("0123456789abcdef", size/16)), strings.NewReader("\"}]}}\n{}\n"))
	lr := NewLineReader(r, 64<<20)
	lr.ClipPast(func(int64) bool { return false }, 4096)
	l, err := lr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if l.Squeezed == nil || len(l.Issues) != 0 {
		t.Fatalf("got issues %v, squeezed %v; want a clean squeezed line", l.Issues, l.Squeezed != nil)
	}
	want := `{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"a://b","text":""}]}}`
	if got := string(l.Squeezed.Value); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if n := l.Squeezed.Size(l.Squeezed.Value); n != l.Len || n != len(want)+size {
		t.Errorf("Size %d, want %d", n, l.Len)
	}
	if len(l.Raw) != 4096 {
		t.Errorf("kept %d bytes of the line, want 4096", len(l.Raw))
	}
}

// TestSqueezedGarbageMemory: a 50 MiB line that cannot be JSON keeps the
// start of its text, and its issues are the whole line's.
func TestSqueezedGarbageMemory(t *testing.T) {
	const size = 50 << 20
	for _, c := range []struct {
		body string
		want FrameIssue
	}{{"garbage ", IssueNotJSON}, {"x[[[[[[[", IssueTooDeep}} {
		r := io.MultiReader(strings.NewReader(strings.Repeat(c.body, size/len(c.body))), strings.NewReader("\n{}\n"))
		lr := NewLineReader(r, 64<<20)
		lr.ClipPast(func(int64) bool { return false }, 4096)
		var l *Line
		var err error
		allocated := memtest.Allocated(func() { l, err = lr.Next() })
		if err != nil {
			t.Fatal(err)
		}
		if l.Squeezed == nil || l.Squeezed.Value != nil || len(l.Issues) != 1 || l.Issues[0] != c.want || l.Len != size {
			t.Fatalf("%q: got %v (%d bytes, squeezed %v); want a squeezed line of %d bytes with %v", c.body, l.Issues, l.Len, l.Squeezed != nil, size, c.want)
		}
		if allocated > 16<<20 {
			t.Errorf("%q: reading the line allocated %d MiB, want it bounded", c.body, allocated>>20)
		}
	}
}
