package main

import (
	"strings"
	"testing"
)

// TestInputErrorsNamePlace: a vector file, fixture or baseline with an
// error stops mcpconform with exit 2 before anything runs, and the message
// names the file, the line or the JSON path, and what is wrong.
func TestInputErrorsNamePlace(t *testing.T) {
	const vector = `{"group":"g","description":"d","area":"ping","session":"shared","tests":[
  {"id":"my-ping","requirement":"PING-01","spec":"basic/utilities/ping","description":"d",
   "steps":[{"request":{"method":"ping"}}],"expect":[{"verdict":"pass","result":{}}]}]}`
	const fixture = `{
  "server": {"name": "s", "version": "1"},
  "capabilities": {"resources": {}},
  "resources": [
    {"uri": "test://a", "name": "a", "mimeType": "text/plain", "text": "a"}
  ]
}`
	for _, tc := range []struct {
		name    string
		file    string // written into the test's directory
		content string
		args    []string
		want    []string
	}{
		{"vector syntax", "v.json", strings.Replace(vector, `"steps":[`, `"steps":[,`, 1), []string{"--vectors", "v.json"},
			[]string{"v.json", "line 3, column 13", "invalid character ','"}},
		{"vector schema", "v.json", strings.Replace(vector, `"id":"my-ping"`, `"id":7`, 1), []string{"--vectors", "v.json"},
			[]string{"v.json", "$.tests[0].id", "want string"}},
		{"vector operator", "v.json", strings.Replace(vector, `"result":{}`, `"result":{"code":{"$tpye":"integer"}}`, 1), []string{"--vectors", "v.json"},
			[]string{"v.json", "$.tests[0].expect[0].result.code.$tpye", "unknown operator $tpye", "my-ping"}},
		{"vector binding", "v.json", strings.Replace(vector, `{"method":"ping"}`, `{"method":"ping","params":{"u":"{{nonse}}"}}`, 1), []string{"--vectors", "v.json"},
			[]string{"v.json", "$.tests[0].steps[0]", "unknown binding {{nonse}}"}},
		{"vector duplicate id", "v.json", strings.Replace(vector, `]}]}`, `]},{"id":"my-ping","requirement":"PING-01","spec":"basic/utilities/ping","description":"d","steps":[{"request":{"method":"ping"}}],"expect":[{"verdict":"pass","result":{}}]}]}`, 1), []string{"--vectors", "v.json"},
			[]string{"v.json", "$.tests[1]", `id "my-ping" is already used`, "$.tests[0]"}},
		{"missing vector file", "", "", []string{"--vectors", "nowhere.json"}, []string{"nowhere.json", "no such file"}},
		{"fixture syntax", "f.json", strings.Replace(fixture, `"text": "a"}`, `"text": "a"},`, 1), []string{"mock", "--fixture", "f.json"},
			[]string{"f.json", "line 6, column 3", "invalid character ']'"}},
		{"fixture schema", "f.json", strings.Replace(fixture, `"uri": "test://a"`, `"uri": 7`, 1), []string{"mock", "--fixture", "f.json"},
			[]string{"f.json", "$.resources[0].uri", "want string"}},
		{"baseline syntax", "b.yaml", "entries:\n  - id: ping-empty-result\n    reason: [unclosed\n", []string{"--baseline", "b.yaml", "/nonexistent/server"},
			[]string{"b.yaml", "line 3"}},
		{"baseline entry", "b.yaml", "entries:\n  - id: ping-empty-result\n    reason: r\n  - id: ping-string-id\n    reasons: r\n", []string{"--baseline", "b.yaml", "/nonexistent/server"},
			[]string{"b.yaml", "entry 2", `unknown field "reasons"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.file != "" {
				writeFile(t, dir, tc.file, tc.content)
			}
			r := runCLIIn(t, dir, tc.args...)
			if r.code != exitUsage {
				t.Fatalf("got exit %d, want %d\n%v", r.code, exitUsage, r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			if strings.Contains(r.stdout, "pass") {
				t.Errorf("something ran: %s", r.stdout)
			}
		})
	}
}
