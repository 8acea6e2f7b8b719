package vectors

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/memtest"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, value string
		want           bool
	}{
		{`{"code":-32002}`, `{"code":-32002,"message":"x"}`, true},
		{`{"code":-32002}`, `{"code":-32602}`, false},
		{`{"code":-32002}`, `{"code":"-32002"}`, false},
		{`{"code":{"$type":"integer"}}`, `{"code":1.5}`, false},
		{`{"code":{"$type":"integer"}}`, `{"code":-32000}`, true},
		{`{"code":{"$in":[-32602,-32600]}}`, `{"code":-32600}`, true},
		{`{"data":{"$absent":true}}`, `{"code":1}`, true},
		{`{"data":{"$absent":true}}`, `{"data":null}`, false},
		{`{"$onlyKeys":["_meta"]}`, `{}`, true},
		{`{"$onlyKeys":["_meta"]}`, `{"_meta":{}}`, true},
		{`{"$onlyKeys":["_meta"]}`, `{"ok":true}`, false},
		{`{"blob":{"$base64":true}}`, `{"blob":"aGk="}`, true},
		{`{"blob":{"$base64":true}}`, `{"blob":"aGk"}`, false},
		{`{"blob":{"$base64":true}}`, `{"blob":"aG\nk="}`, false},
		{`{"blob":{"$base64":true}}`, `{"blob":"a-_="}`, false},
		{`{"contents":[]}`, `{"contents":[]}`, true},
		{`{"contents":[]}`, `{"contents":[{}]}`, false},
		{`{"contents":{"$contains":{"text":{"$regex":"root:"}}}}`, `{"contents":[{"text":"a"},{"text":"root:x"}]}`, true},
		{`{"contents":{"$each":{"uri":{"$uri":true}}}}`, `{"contents":[{"uri":"a b"}]}`, false},
		{`{"id":"x"}`, `{"id":"x"}`, true},
		{`{"id":1}`, `{"id":"1"}`, false},
		{`{"id":9007199254740993}`, `{"id":9007199254740993}`, true},
		{`{"id":9007199254740993}`, `{"id":9007199254740992}`, false},
		{`{"p":{"$min":0,"$max":1}}`, `{"p":1.0000001}`, false},
		{`{"x":{"$not":{"$type":"null"}}}`, `{"x":null}`, false},
		{`{"x":{"$anyOf":[{"$type":"string"},{"$type":"null"}]}}`, `{"x":null}`, true},
		{`{"m":{"$nonEmpty":true}}`, `{"m":""}`, false},
	}
	for _, tt := range tests {
		p, err := CompilePattern(json.RawMessage(tt.pattern))
		if err != nil {
			t.Fatalf("compile %s: %v", tt.pattern, err)
		}
		m := p.Match(json.RawMessage(tt.value))
		if got := m == nil; got != tt.want {
			t.Errorf("%s against %s: got %v (%v), want %v", tt.pattern, tt.value, got, m, tt.want)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	for _, p := range []string{
		`{"$type":"str"}`, `{"$regex":"("}`, `{"$in":3}`, `{"a":1,"$type":"string"}`, `{"$absent":false}`, `{"$min":"x"}`,
	} {
		if _, err := CompilePattern(json.RawMessage(p)); err == nil {
			t.Errorf("%s compiled, want an error", p)
		}
	}
}

func TestExpandEscapes(t *testing.T) {
	got, err := Expand(json.RawMessage(`{"uri":"{{item.uri}}"}`), map[string]string{"item.uri": "a\"b\\c\n"})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("expanded JSON invalid: %v: %s", err, got)
	}
	if v["uri"] != "a\"b\\c\n" {
		t.Errorf("got %q", v["uri"])
	}
}

// A big value is matched decoded only as far as the pattern looks: the
// type of a list of 100,000 resources costs a small part of its size, and
// a pattern on each item no decoded copy of the list.
func TestMatchDecodesOnlyWhatItLooksAt(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"resources":[`)
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"uri":"file:///r/%d","name":"r%d","mimeType":"text/plain"}`, i, i)
	}
	b.WriteString(`]}`)
	list := json.RawMessage(b.String())
	for _, c := range []struct {
		pattern string
		most    int // bytes allocated, at most
	}{
		{`{"resources":{"$type":"array"}}`, 64 << 10},
		// Decoded whole, the list cost 11.7× its size (3× now, 5× under
		// the race detector, which allocates more).
		{`{"resources":{"$each":{"uri":{"$uri":true}}}}`, 8 * len(list)},
	} {
		p, err := CompilePattern(json.RawMessage(c.pattern))
		if err != nil {
			t.Fatal(err)
		}
		var m *Mismatch
		n := memtest.Allocated(func() { m = p.Match(list) })
		if m != nil {
			t.Errorf("%s: %v, want a match", c.pattern, m)
		}
		t.Logf("%s on %d KiB: %d KiB allocated", c.pattern, len(list)>>10, n>>10)
		if n > uint64(c.most) {
			t.Errorf("%s on %d KiB allocated %d KiB, want at most %d", c.pattern, len(list)>>10, n>>10, c.most>>10)
		}
	}
}
