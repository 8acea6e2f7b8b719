package reports

import (
	"strings"
	"testing"
)

func TestAbridge(t *testing.T) {
	page := `{"result":{"resources":[` + strings.Repeat(`{"uri":"demo://resource/static/document/a.md","name":"a.md","mimeType":"text/markdown"},`, 6) +
		`{"uri":"demo://x"}]},"jsonrpc":"2.0","id":72}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short JSON is kept", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"a page is counted", page, `{"result":{"resources":[… 7 items]},"jsonrpc":"2.0","id":72}`},
		{"long strings are cut, never inside an escape",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"[\n  {\n    \"expected\": \"object\",\n    \"code\": \"invalid_type\"\n  }\n]"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"[\n  {\n    \"expected\": \"object\",\n    \"cod…"}}`},
		{"text around JSON is kept", "the server ignored the invalid cursor; got result " + page[len(`{"result":`):len(page)-len(`,"jsonrpc":"2.0","id":72}`)],
			`the server ignored the invalid cursor; got result {"resources":[… 7 items]}`},
		{"a value clipped by a check is closed after the mark", `got result {"prompts":[{"name":"simple-prompt","title":"Simple Prompt","description":"A prompt with no arguments"},{"na…`,
			`got result {"prompts":[…]}`},
		{"brackets in prose are not JSON", `gives contents[0].mimeType text/plain, a [long bracketed remark that is not json, really not json at all]`,
			`gives contents[0].mimeType text/plain, a [long bracketed remark that is not json, really not json at all]`},
		{"a URI template is not an object", `reading "demo://resource/dynamic/text/{resourceId}" and "demo://resource/dynamic/blob/{resourceId}" failed`,
			`reading "demo://resource/dynamic/text/{resourceId}" and "demo://resource/dynamic/blob/{resourceId}" failed`},
		{"small values deep down are shown", `{"jsonrpc":"2.0","id":9,"result":{"resources":[{"uri":"file:///a"}],"nextCursor":"page-2"}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"resources":[{"uri":"file:///a"}],"nextCursor":"page-2"}}`},
		{"scalars are listed, then counted", `{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05","1999-01-01"]}`,
			`{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26",… 6 items]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := abridge(tc.in); got != tc.want {
				t.Errorf("abridge(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestAbridgeNeverLengthens: whatever the text, the outline is never
// longer than what it abridges, and never loses text that is not JSON.
func TestAbridgeNeverLengthens(t *testing.T) {
	for _, s := range []string{"", "{", "[", "{}", "[]", `{"a":`, `[1,2,`, `{"a"}`, `{"a":[{"b":"` + strings.Repeat("x", 500), "a { b } c [ d ] e", `"unterminated {"a":1`} {
		if got := abridge(s); len(got) > len(s)+len(ellipsis)*4 {
			t.Errorf("abridge(%q) = %q: longer", s, got)
		}
	}
}
