package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

type listPage struct {
	Resources         []map[string]any `json:"resources"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	NextCursor        *string          `json:"nextCursor"`
}

// walk pages through a list and returns the page sizes and every item.
func walk(t *testing.T, s *session, method string) (sizes []int, items []map[string]any) {
	t.Helper()
	var cursor *string
	for range 100 {
		var params any
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		var pg listPage
		s.result(method, params, &pg)
		page := append(pg.Resources, pg.ResourceTemplates...)
		sizes = append(sizes, len(page))
		items = append(items, page...)
		if pg.NextCursor == nil {
			return sizes, items
		}
		cursor = pg.NextCursor
	}
	t.Fatalf("%s did not end within 100 pages", method)
	return nil, nil
}

func TestPagination(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-11-25")
	sizes, items := walk(t, s, "resources/list")
	if diff := cmp.Diff([]int{3, 3, 3, 1}, sizes); diff != "" {
		t.Errorf("resource page sizes (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, it := range items {
		uri := it["uri"].(string)
		if seen[uri] {
			t.Errorf("duplicate URI %s", uri)
		}
		seen[uri] = true
	}
	sizes, _ = walk(t, s, "resources/templates/list")
	if diff := cmp.Diff([]int{2, 2, 1}, sizes); diff != "" {
		t.Errorf("template page sizes (-want +got):\n%s", diff)
	}

	// No params and params {} give the same first page (PAG-09).
	var a, b listPage
	s.result("resources/list", nil, &a)
	s.result("resources/list", map[string]any{}, &b)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("list without params differs from params {} (-nil +{}):\n%s", diff)
	}
	// Cursors are stable (PAG-04).
	var c1, c2 listPage
	s.result("resources/list", map[string]any{"cursor": *a.NextCursor}, &c1)
	s.result("resources/list", map[string]any{"cursor": *a.NextCursor}, &c2)
	if diff := cmp.Diff(c1, c2); diff != "" {
		t.Errorf("same cursor, different pages (-first +second):\n%s", diff)
	}
	// Invalid cursors are -32602 (PAG-05), also a templates cursor on resources.
	var tp listPage
	s.result("resources/templates/list", nil, &tp)
	for _, cursor := range []string{"mcp-conformance-invalid-cursor", "", "bWNwY29uZm9ybS1tb2NrOnJlc291cmNlczo5OTk6eA==", *tp.NextCursor} {
		m, _ := s.call("resources/list", map[string]any{"cursor": cursor})
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("cursor %q: got %s %+v, want -32602", cursor, m.Result, m.Error)
		}
	}
}

// defaultPNG is the blob of test://static/pixel.png.
const defaultPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGI6IfgLEAAA//8DgAHW9v42HwAAAABJRU5ErkJggg=="

func TestRead(t *testing.T) {
	tests := []struct {
		uri  string
		want map[string]any // the single contents item
	}{
		{"test://static/hello.txt", map[string]any{"uri": "test://static/hello.txt", "mimeType": "text/plain", "text": "Hello, world!\n"}},
		{"config://app/settings.json", map[string]any{"uri": "config://app/settings.json", "mimeType": "application/json",
			"text": "{\"theme\":\"dark\",\"retries\":3,\"features\":{\"beta\":false,\"languages\":[\"en\",\"de\"]}}\n"}},
		{"test://static/unicode.txt", map[string]any{"uri": "test://static/unicode.txt", "mimeType": "text/plain; charset=utf-8",
			"text": "Grüße aus Köln — 日本語 — 😀 👩🏽\u200d💻 — cafe\u0301 — שלום עולם — مرحبا — line\u2028separator — paragraph\u2029separator\n"}},
		{"test://static/empty.txt", map[string]any{"uri": "test://static/empty.txt", "mimeType": "text/plain", "text": ""}},
		{"test://static/pixel.png", map[string]any{"uri": "test://static/pixel.png", "mimeType": "image/png", "blob": defaultPNG}},
		{"test://static/empty.bin", map[string]any{"uri": "test://static/empty.bin", "mimeType": "application/octet-stream", "blob": ""}},
		{"test://items/42", map[string]any{"uri": "test://items/42", "mimeType": "application/json", "text": `{"id":"42"}`}},
		{"test://items/a%20b%2Fc", map[string]any{"uri": "test://items/a%20b%2Fc", "mimeType": "application/json", "text": `{"id":"a b/c"}`}},
		{"test://items/", map[string]any{"uri": "test://items/", "mimeType": "application/json", "text": `{"id":""}`}},
		{"test://files/readme.md", map[string]any{"uri": "test://files/readme.md", "mimeType": "text/markdown", "text": "# Files\n\nThe readme of the files tree.\n"}},
		{"test://files/docs/guide.md", map[string]any{"uri": "test://files/docs/guide.md", "mimeType": "text/markdown", "text": "# Guide\n\nA nested file.\n"}},
		{"test://search?q=hello&limit=5", map[string]any{"uri": "test://search?q=hello&limit=5", "mimeType": "application/json", "text": `{"limit":"5","q":"hello"}`}},
		{"test://search", map[string]any{"uri": "test://search", "mimeType": "application/json", "text": `{}`}},
		{"test://greeting/Ada", map[string]any{"uri": "test://greeting/Ada", "mimeType": "text/plain", "text": "Hello, Ada!"}},
		{"test://greeting/%C3%BC%F0%9F%98%80", map[string]any{"uri": "test://greeting/%C3%BC%F0%9F%98%80", "mimeType": "text/plain", "text": "Hello, ü😀!"}},
	}
	s := start(t, Options{})
	s.initialize("2025-06-18")
	for _, tt := range tests {
		var res struct{ Contents []map[string]any }
		s.result("resources/read", map[string]any{"uri": tt.uri}, &res)
		if len(res.Contents) != 1 {
			t.Errorf("%s: %d contents items, want 1", tt.uri, len(res.Contents))
			continue
		}
		if diff := cmp.Diff(tt.want, res.Contents[0]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.uri, diff)
		}
		if b, ok := res.Contents[0]["blob"].(string); ok {
			if _, msg := strictBase64(b); msg != "" {
				t.Errorf("%s: blob is not strict base64: %s", tt.uri, msg)
			}
		}
	}
}

func TestReadNotFound(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	long := "test://static/" + strings.Repeat("a", 64<<10)
	tests := []struct {
		uri  string
		code int
	}{
		{"test://mcp-conformance/does-not-exist-1234", wire.CodeResourceNotFound},
		{"test://static/nope.txt", wire.CodeResourceNotFound},
		{"test://files/missing.md", wire.CodeResourceNotFound}, // a table row that does not exist
		{"test://missing/7", wire.CodeResourceNotFound},        // the notFound rule
		{"file:///../../etc/passwd", wire.CodeResourceNotFound},
		{"file:///%2e%2e/%2e%2e/etc/passwd", wire.CodeResourceNotFound},
		{"file:///project/src/../../etc/passwd", wire.CodeResourceNotFound},
		{"test://files/../../etc/passwd", wire.CodeResourceNotFound},
		{"test://files/%2E%2E/secret", wire.CodeResourceNotFound},
		{"test://x/%00", wire.CodeResourceNotFound},
		{"test://items/%00", wire.CodeResourceNotFound},
		{"test://x/\U0001F600", wire.CodeResourceNotFound},
		{"", wire.CodeInvalidParams},
		{"not a uri", wire.CodeInvalidParams},
		{"test://static/hello world.txt", wire.CodeInvalidParams},
		{"test://items/\x00", wire.CodeInvalidParams},
		{"test://items/%zz", wire.CodeInvalidParams},
		{"test://items/{id}", wire.CodeInvalidParams},
		{long, wire.CodeInvalidParams},
	}
	for _, tt := range tests {
		m, _ := s.call("resources/read", map[string]any{"uri": tt.uri})
		name := tt.uri
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		if m.Error == nil {
			t.Errorf("%q: got result %s, want error %d", name, m.Result, tt.code)
			continue
		}
		if m.Error.Code != tt.code {
			t.Errorf("%q: code %d, want %d (%s)", name, m.Error.Code, tt.code, m.Error.Message)
		}
		var data struct{ URI *string }
		if err := json.Unmarshal(m.Error.Data, &data); err != nil || data.URI == nil || *data.URI != tt.uri {
			t.Errorf("%q: data = %s, want {\"uri\": <requested>}", name, m.Error.Data)
		}
		if strings.Contains(m.Error.Message, "\n") || utf8.RuneCountInString(m.Error.Message) > 200 {
			t.Errorf("%q: message is not one short sentence: %q", name, m.Error.Message)
		}
	}
	if m, _ := s.call("ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping after hostile reads: %s", m.Result)
	}
}

func TestListFieldsFollowVersion(t *testing.T) {
	type fields struct{ Title, Meta, Icons, LastModified bool }
	tests := []struct {
		version string
		want    fields
	}{
		{"2024-11-05", fields{}},
		{"2025-03-26", fields{}},
		{"2025-06-18", fields{Title: true, Meta: true, LastModified: true}},
		{"2025-11-25", fields{Title: true, Meta: true, Icons: true, LastModified: true}},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			s := start(t, Options{})
			s.initialize(tt.version)
			_, resources := walk(t, s, "resources/list")
			_, templates := walk(t, s, "resources/templates/list")
			var got fields
			for _, it := range append(resources, templates...) {
				_, title := it["title"]
				_, meta := it["_meta"]
				_, icons := it["icons"]
				got.Title = got.Title || title
				got.Meta = got.Meta || meta
				got.Icons = got.Icons || icons
				if a, ok := it["annotations"].(map[string]any); ok {
					_, lm := a["lastModified"]
					got.LastModified = got.LastModified || lm
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields present (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSizesMatchContent(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	_, resources := walk(t, s, "resources/list")
	if len(resources) < 7 {
		t.Errorf("the default fixture lists %d resources, want at least 7", len(resources))
	}
	for _, r := range resources {
		uri := r["uri"].(string)
		var res struct{ Contents []map[string]any }
		s.result("resources/read", map[string]any{"uri": uri}, &res)
		c := res.Contents[0]
		var n int
		if text, ok := c["text"].(string); ok {
			n = len(text)
		} else {
			b, err := base64.StdEncoding.DecodeString(c["blob"].(string))
			if err != nil {
				t.Fatal(err)
			}
			n = len(b)
		}
		if size := r["size"].(float64); int(size) != n {
			t.Errorf("%s: size %v, read returns %d bytes", uri, size, n)
		}
		if c["mimeType"] != r["mimeType"] {
			t.Errorf("%s: listed mimeType %v, read mimeType %v", uri, r["mimeType"], c["mimeType"])
		}
	}
}

func TestSubscriptionsAndTriggers(t *testing.T) {
	fx, err := LoadFixture("testdata/triggers.json")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, Options{Fixture: fx})
	s.initialize("2025-06-18")
	read := func(uri string) []msg {
		t.Helper()
		m, notes := s.call("resources/read", map[string]any{"uri": uri})
		if m.Error != nil {
			t.Fatalf("read %s: %+v", uri, m.Error)
		}
		// Notifications follow the response: collect them with a ping.
		_, after := s.call("ping", nil)
		return append(notes, after...)
	}

	// Not subscribed: a trigger sends nothing.
	if notes := read("test://triggers/touch"); len(notes) != 0 {
		t.Errorf("unsubscribed read sent %v", notes)
	}
	if m, _ := s.call("resources/subscribe", map[string]any{"uri": "test://triggers/watched"}); string(m.Result) != "{}" {
		t.Fatalf("subscribe: %s %+v", m.Result, m.Error)
	}
	notes := read("test://triggers/touch")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/updated" || string(notes[0].Params) != `{"uri":"test://triggers/watched"}` {
		t.Errorf("after subscribe, trigger sent %+v; want one updated for test://triggers/watched", notes)
	}
	if m, _ := s.call("resources/unsubscribe", map[string]any{"uri": "test://triggers/watched"}); string(m.Result) != "{}" {
		t.Fatalf("unsubscribe: %s %+v", m.Result, m.Error)
	}
	if notes := read("test://triggers/touch"); len(notes) != 0 {
		t.Errorf("after unsubscribe, trigger sent %v", notes)
	}
	// Unsubscribing twice is fine.
	if m, _ := s.call("resources/unsubscribe", map[string]any{"uri": "test://triggers/watched"}); string(m.Result) != "{}" {
		t.Errorf("second unsubscribe: %s %+v", m.Result, m.Error)
	}

	// A list-change trigger fires once.
	_, before := walk(t, s, "resources/list")
	notes = read("test://triggers/grow")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/list_changed" || notes[0].Params != nil {
		t.Errorf("list-change trigger sent %+v; want one list_changed without params", notes)
	}
	_, after := walk(t, s, "resources/list")
	if len(after) != len(before)+1 {
		t.Errorf("list has %d resources after the trigger, %d before; want one more", len(after), len(before))
	}
	if notes := read("test://triggers/grow"); len(notes) != 0 {
		t.Errorf("second read of the trigger sent %v", notes)
	}
	var added struct{ Contents []map[string]any }
	s.result("resources/read", map[string]any{"uri": "test://triggers/added"}, &added)
	if len(added.Contents) != 1 {
		t.Errorf("reading the added resource: %+v", added)
	}
}

func TestSubscribeUndeclared(t *testing.T) {
	fx := DefaultFixture()
	fx.Capabilities.Resources.Subscribe = false
	s := start(t, Options{Fixture: fx})
	res := s.initialize("2025-06-18")
	want := map[string]any{"resources": map[string]any{"listChanged": true}, "tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true},
		"logging": map[string]any{}, "completions": map[string]any{}}
	if diff := cmp.Diff(want, res["capabilities"]); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	m, _ := s.call("resources/subscribe", map[string]any{"uri": "test://static/hello.txt"})
	if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("subscribe undeclared: got %s %+v, want -32601", m.Result, m.Error)
	}
}

func TestSubscribeInvalidParams(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	for _, params := range []any{nil, map[string]any{}, map[string]any{"uri": 5}, map[string]any{"uri": "not a uri"}} {
		m, _ := s.call("resources/subscribe", params)
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("subscribe %v: got %s %+v, want -32602", params, m.Result, m.Error)
		}
	}
}

func TestPaginationFaults(t *testing.T) {
	first := func(s *session, params any) listPage {
		var pg listPage
		s.result("resources/list", params, &pg)
		return pg
	}
	t.Run("cursor-loop", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"cursor-loop"}})
		s.initialize("2025-06-18")
		seen := map[string]bool{}
		pg := first(s, nil)
		for range 10 {
			if pg.NextCursor == nil {
				t.Fatalf("paging ended")
			}
			if seen[*pg.NextCursor] {
				return // the cycle
			}
			seen[*pg.NextCursor] = true
			pg = first(s, map[string]any{"cursor": *pg.NextCursor})
		}
		t.Errorf("no cursor repeated within 10 pages")
	})
	t.Run("unstable-cursor", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"unstable-cursor"}})
		s.initialize("2025-06-18")
		c := first(s, nil).NextCursor
		a, b := first(s, map[string]any{"cursor": *c}), first(s, map[string]any{"cursor": *c})
		if cmp.Equal(a, b) {
			t.Errorf("the same cursor gave the same page twice")
		}
	})
	t.Run("no-params-differs", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"no-params-differs"}})
		s.initialize("2025-06-18")
		if cmp.Equal(first(s, nil), first(s, map[string]any{})) {
			t.Errorf("no params and params {} gave the same first page")
		}
		_, items := walk(t, s, "resources/list")
		uris := map[any]bool{}
		for _, it := range items {
			uris[it["uri"]] = true
		}
		if len(uris) != 10 || len(items) != 10 {
			t.Errorf("a walk without params saw %d resources (%d unique), want all 10 once", len(items), len(uris))
		}
	})
	t.Run("duplicate-uris", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"duplicate-uris"}})
		s.initialize("2025-06-18")
		_, items := walk(t, s, "resources/list")
		if items[0]["uri"] != items[len(items)-1]["uri"] {
			t.Errorf("the last resource does not repeat the first's URI")
		}
	})
	t.Run("invalid-cursor-accepted", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"invalid-cursor-accepted"}})
		s.initialize("2025-06-18")
		if diff := cmp.Diff(first(s, nil), first(s, map[string]any{"cursor": "bogus"})); diff != "" {
			t.Errorf("an invalid cursor did not give the first page (-first +invalid):\n%s", diff)
		}
	})
	t.Run("templates unaffected", func(t *testing.T) {
		s := start(t, Options{Faults: []string{"cursor-loop", "unstable-cursor", "cursor-not-string"}})
		s.initialize("2025-06-18")
		if sizes, _ := walk(t, s, "resources/templates/list"); !cmp.Equal(sizes, []int{2, 2, 1}) {
			t.Errorf("template pages %v", sizes)
		}
	})
}
