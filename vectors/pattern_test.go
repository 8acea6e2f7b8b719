package vectors

import (
	"encoding/json"
	"testing"
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
