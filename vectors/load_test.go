package vectors

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedVectorsLoad(t *testing.T) {
	files, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		n += len(f.Tests)
	}
	if n < 20 {
		t.Fatalf("got %d embedded tests, want at least 20", n)
	}
}

func TestParseErrorsNameFileAndPlace(t *testing.T) {
	valid := `{"group":"g","description":"d","area":"resources","tests":[{"id":"t","requirement":"RES-READ-05","spec":"server/resources","description":"d","steps":[{"request":{"method":"ping"}}],"expect":[{"verdict":"pass","result":{}}]}]}`
	if _, err := Parse("ok.json", []byte(valid)); err != nil {
		t.Fatalf("valid file refused: %v", err)
	}
	tests := []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"group\": \"g\",\n  \"tests\": [,]\n}", []string{"syntax.json", "line 3"}},
		{"typo-field", strings.Replace(valid, `"expect"`, `"expcet"`, 1), []string{"typo-field.json", "$.tests[0]", "expcet"}},
		{"bad-verdict", strings.Replace(valid, `"verdict":"pass"`, `"verdict":"passed"`, 1), []string{"$.tests[0].expect[0].verdict"}},
		{"bad-operator", strings.Replace(valid, `"result":{}`, `"result":{"x":{"$tpye":"string"}}`, 1), []string{"$.tests[0]", "$expect[0]", "unknown operator $tpye"}},
		{"bad-binding", strings.Replace(valid, `{"method":"ping"}`, `{"method":"ping","params":{"u":"{{item.uri}}"}}`, 1), []string{"binding {{item.uri}} is not available"}},
		{"unknown-binding", strings.Replace(valid, `{"method":"ping"}`, `{"method":"ping","params":{"u":"{{nonse}}"}}`, 1), []string{"unknown binding {{nonse}}"}},
		{"bad-requirement", strings.Replace(valid, `RES-READ-05`, `res-read-5`, 1), []string{"$.tests[0].requirement"}},
		{"alive-without-check", strings.Replace(valid, `"result":{}`, `"alive":true`, 1), []string{"checkAlive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.name+".json", []byte(tt.data))
			if err == nil {
				t.Fatal("accepted, want an error")
			}
			for _, w := range tt.want {
				w = strings.Replace(w, "$expect", ".expect", 1)
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestDuplicateIDsRefused(t *testing.T) {
	files, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	dup := *files[0]
	dup.Path = "copy.json"
	if err := CheckUnique(append(files, &dup)); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("got %v, want a duplicate-id error", err)
	}
}

// TestEmbeddedVectorsThatAcceptAnySuccess lists the embedded tests that
// pass any success: the ones whose failing successes an earlier outcome
// catches. An evidence file's copy of them is trusted only when it is the
// same test.
func TestEmbeddedVectorsThatAcceptAnySuccess(t *testing.T) {
	files, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		for _, tc := range f.Tests {
			if why := tc.AcceptsAnything(); why != "" {
				got = append(got, tc.ID)
			}
		}
	}
	if want := []string{"resources-read-unknown-uri-not-empty-success"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestAcceptsAnything(t *testing.T) {
	for _, tc := range []struct {
		name string
		test Test
		want bool
	}{
		{"any result", Test{Expect: []Outcome{{Verdict: "pass", Result: json.RawMessage(`{}`)}}}, true},
		{"any result after a fail", Test{Expect: []Outcome{{Verdict: "fail", Error: json.RawMessage(`{}`)}, {Verdict: "pass", Result: json.RawMessage(`{"$anyOf":[{},{"x":1}]}`)}}}, true},
		{"any error: a refusal", Test{Expect: []Outcome{{Verdict: "pass", Error: json.RawMessage(`{"code":{"$type":"integer"}}`)}}}, false},
		{"any response", Test{Expect: []Outcome{{Verdict: "pass", Response: json.RawMessage(`{"jsonrpc":"2.0"}`)}}}, true},
		{"otherwise pass", Test{Expect: []Outcome{{Verdict: "fail", Error: json.RawMessage(`{}`)}}, Otherwise: "pass"}, true},
		{"a result to match", Test{Expect: []Outcome{{Verdict: "pass", Result: json.RawMessage(`{"contents":{"$type":"array"}}`)}}}, false},
		{"an error code", Test{Expect: []Outcome{{Verdict: "pass", Error: json.RawMessage(`{"code":-32602}`)}}}, false},
		{"silence", Test{Expect: []Outcome{{Verdict: "pass", Silence: true}}}, false},
		{"a failing result first", Test{Expect: []Outcome{{Verdict: "fail", Result: json.RawMessage(`{}`)}, {Verdict: "pass", Result: json.RawMessage(`{}`)}}}, false},
		{"any result, a warning", Test{Expect: []Outcome{{Verdict: "warn", Result: json.RawMessage(`{}`)}}}, false},
	} {
		if got := tc.test.AcceptsAnything() != ""; got != tc.want {
			t.Errorf("%s: accepts anything %v, want %v", tc.name, got, tc.want)
		}
	}
}
