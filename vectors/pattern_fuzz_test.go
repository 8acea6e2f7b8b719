package vectors

import (
	"encoding/json"
	"testing"
)

// FuzzPattern drives the expectation matcher the way the judge does:
// Expand the pattern with a binding, CompilePattern, then Match a value. It
// must never panic, and a compiled pattern printed with String must compile
// again to a pattern that judges the value the same way. The seed corpus is
// in testdata/fuzz/FuzzPattern.
func FuzzPattern(f *testing.F) {
	f.Add([]byte(`{"code":{"$in":[-32602,-32002]},"data":{"uri":"{{resource.uri}}"}}`), []byte(`{"code":-32002,"data":{"uri":"x:/a"}}`), "x:/a")
	f.Add([]byte(`{"contents":{"$each":{"$anyOf":[{"text":{"$type":"string"}},{"blob":{"$base64":true}}]}}}`), []byte(`{"contents":[{"blob":"AA=="}]}`), "")
	f.Add([]byte(`{"n":{"$min":1,"$max":1e3},"s":{"$regex":"^a+$","$nonEmpty":true},"k":{"$onlyKeys":["a"]}}`), []byte(`{"n":2.5,"s":"aa","k":{"a":1}}`), "")
	f.Add([]byte(`{"a":{"$nonEmpty":true},"b":{"$eq":{"x":[1,2.0]}},"c":{"$in":[[1],{"y":null},"s"]},"d":{"$not":{"$type":["object","array"]}},"e":[{"$present":true},1]}`), []byte(` { "a" : [ ] , "b":{"x":[1,2]},"c":{"y":null},"d":[],"e":[{},1.0]}`), "")
	f.Add([]byte(`{"a":{"$each":{"$type":"integer"}},"b":{"$contains":"x"},"c":{"$onlyKeys":[]},"d":null}`), []byte(`{"a":[1,2,3.5],"b":["y",{"x":1}],"c":{ },"d":{}}`), "")
	f.Fuzz(func(t *testing.T, pattern, value []byte, binding string) {
		b := map[string]string{"nonce": binding, "version": "2025-06-18", "resource.uri": binding}
		exp, err := Expand(pattern, b)
		if err != nil {
			return
		}
		if _, err := ExpandString(string(pattern), b); err != nil {
			t.Fatalf("Expand accepted %q but ExpandString did not: %v", pattern, err)
		}
		p, err := CompilePattern(exp)
		if err != nil {
			return
		}
		m := p.Match(value)
		p.MatchAbsent()
		// Matched as it is decoded, a little at a time, the value is
		// judged as when decoded whole, with the same words.
		if v, err := decodeValue(value); err == nil && json.Valid(value) {
			if whole := p.match(v, true, "$"); (m == nil) != (whole == nil) || m != nil && *m != *whole {
				t.Fatalf("%s on %s: got %v, decoded whole %v", exp, value, m, whole)
			}
		}
		again, err := CompilePattern(json.RawMessage(p.String()))
		if err != nil {
			t.Fatalf("%s compiles, but its String %s does not: %v", exp, p.String(), err)
		}
		if m2 := again.Match(value); (m == nil) != (m2 == nil) {
			t.Fatalf("%s on %s: %v, but its String %s gives %v", exp, value, m, p.String(), m2)
		}
	})
}
