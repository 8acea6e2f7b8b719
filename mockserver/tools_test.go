package mockserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

// allVersions are the handshake versions and 2026-07-28.
var allVersions = append(slices.Clone(knownVersions), modernVersion)

// startAt starts a session at version: the handshake, or nothing for
// 2026-07-28, whose requests carry the envelope.
func startAt(t *testing.T, opts Options, version string) *session {
	t.Helper()
	s := start(t, opts)
	if version != modernVersion {
		s.initialize(version)
	}
	return s
}

// callAt sends a request in the manner of version.
func (s *session) callAt(version, method string, params map[string]any) msg {
	s.t.Helper()
	if version == modernVersion {
		m, _ := s.modern(method, params)
		return m
	}
	var p any
	if params != nil {
		p = params
	}
	m, _ := s.call(method, p)
	return m
}

// walkAt lists every page of a list and returns its items and pages,
// failing on an error answer.
func (s *session) walkAt(version, method, member string) (items []map[string]any, pages []map[string]any) {
	s.t.Helper()
	items, pages, e := walkPages(s.t, method, member, 100, func(params map[string]any) msg { return s.callAt(version, method, params) })
	if e != nil {
		s.t.Fatalf("%s: %d %s", method, e.Code, e.Message)
	}
	return items, pages
}

// walkPages follows a list's nextCursor from page to page, at most max
// pages, and returns its items and pages, or the first error answer.
func walkPages(t *testing.T, method, member string, max int, call func(params map[string]any) msg) (items, pages []map[string]any, e *wireErr) {
	t.Helper()
	var params map[string]any
	for range max {
		m := call(params)
		if m.Error != nil {
			return items, pages, m.Error
		}
		res := decode(t, m.Result)
		pages = append(pages, res)
		list, _ := res[member].([]any)
		for _, it := range list {
			items = append(items, it.(map[string]any))
		}
		next, ok := res["nextCursor"].(string)
		if !ok {
			return items, pages, nil
		}
		params = map[string]any{"cursor": next}
	}
	t.Fatalf("%s: more than %d pages", method, max)
	return nil, nil, nil
}

func TestToolsList(t *testing.T) {
	echoSchema := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			tools, pages := s.walkAt(version, "tools/list", "tools")
			// shout is hidden until enable_extras is called.
			if len(pages) != 3 || len(tools) != 5 {
				t.Fatalf("%d pages, %d tools; want 3 and 5", len(pages), len(tools))
			}
			want := map[string]any{"name": "echo", "description": "Returns the text it is given.", "inputSchema": echoSchema}
			if version >= "2025-03-26" {
				want["annotations"] = map[string]any{"readOnlyHint": true}
			}
			if version >= v20250618 {
				want["title"] = "Echo"
			}
			if diff := cmp.Diff(want, tools[0]); diff != "" {
				t.Errorf("echo (-want +got):\n%s", diff)
			}
			if _, ok := tools[1]["outputSchema"]; ok != (version >= v20250618) {
				t.Errorf("add: outputSchema present %v in a %s session", ok, version)
			}
			for i, p := range pages {
				_, cached := p["ttlMs"]
				if cached != (version == modernVersion) || (version == modernVersion) != (p["cacheScope"] == "public") {
					t.Errorf("page %d: ttlMs %v, cacheScope %v in a %s session", i+1, p["ttlMs"], p["cacheScope"], version)
				}
			}
		})
	}
}

func TestToolsListCursors(t *testing.T) {
	s := startAt(t, Options{}, "2025-11-25")
	for _, cursor := range []string{"mcp-conformance-invalid-cursor", "", (&server{cat: mustCompile(t)}).encodeCursor(listPrompts, 1)} {
		m := s.callAt("2025-11-25", "tools/list", map[string]any{"cursor": cursor})
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("cursor %q: %s %+v, want -32602", cursor, m.Result, m.Error)
		}
	}
}

func TestToolsCall(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]any
		versions []string // nil: all
		code     int      // the error code, or 0 for a result
		text     string   // a part of the error message or of the result's text
		isError  bool
	}{
		{"echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil, 0, "hi", false},
		{"delete", map[string]any{"name": "delete_note", "arguments": map[string]any{"id": "n1"}}, nil, 0, "deleted", false},
		{"add", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2.5}}, nil, 0, `{"sum":3.5}`, false},
		{"unknown tool", map[string]any{"name": "nope", "arguments": map[string]any{}}, nil, wire.CodeInvalidParams, `Unknown tool "nope"`, false},
		{"no name", map[string]any{"arguments": map[string]any{}}, nil, wire.CodeInvalidParams, "needs name", false},
		{"name not a string", map[string]any{"name": 7}, nil, wire.CodeInvalidParams, "needs name", false},
		{"arguments not an object", map[string]any{"name": "echo", "arguments": []any{"hi"}}, nil, wire.CodeInvalidParams, "arguments must be an object", false},
		{"missing argument, protocol error", map[string]any{"name": "echo", "arguments": map[string]any{}}, knownVersions[:3], wire.CodeInvalidParams, `the required argument "text" is missing`, false},
		{"wrong type, protocol error", map[string]any{"name": "add", "arguments": map[string]any{"a": "1", "b": 2}}, knownVersions[:3], wire.CodeInvalidParams, "arguments.a is string, want number", false},
		{"no arguments, protocol error", map[string]any{"name": "add"}, knownVersions[:3], wire.CodeInvalidParams, `the required arguments "a", "b" are missing`, false},
		{"missing argument, execution error", map[string]any{"name": "echo", "arguments": map[string]any{}}, []string{"2025-11-25", modernVersion}, 0, `the required argument "text" is missing`, true},
		{"wrong type, execution error", map[string]any{"name": "add", "arguments": map[string]any{"a": "1", "b": 2}}, []string{"2025-11-25", modernVersion}, 0, "arguments.a is string, want number", true},
	}
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			for _, tt := range tests {
				if tt.versions != nil && !slices.Contains(tt.versions, version) {
					continue
				}
				m := s.callAt(version, "tools/call", tt.params)
				if tt.code != 0 {
					if m.Error == nil || m.Error.Code != tt.code || !strings.Contains(m.Error.Message, tt.text) {
						t.Errorf("%s: %s %+v, want error %d with %q", tt.name, m.Result, m.Error, tt.code, tt.text)
					}
					continue
				}
				if m.Error != nil {
					t.Errorf("%s: error %+v, want a result", tt.name, m.Error)
					continue
				}
				var res struct {
					Content []map[string]any
					IsError bool
				}
				if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) != 1 ||
					res.Content[0]["type"] != "text" || !strings.Contains(res.Content[0]["text"].(string), tt.text) || res.IsError != tt.isError {
					t.Errorf("%s: result %s, want one text block with %q and isError %v", tt.name, m.Result, tt.text, tt.isError)
				}
				if res.IsError != strings.Contains(string(m.Result), `"isError"`) {
					t.Errorf("%s: isError false written out: %s", tt.name, m.Result)
				}
			}
		})
	}
}

// TestToolsStructuredContent: structuredContent exists from 2025-06-18;
// the text block holds the same JSON in every version.
func TestToolsStructuredContent(t *testing.T) {
	for _, version := range allVersions {
		s := startAt(t, Options{}, version)
		m := s.callAt(version, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 3}})
		res := decode(t, m.Result)
		sc, ok := res["structuredContent"]
		if ok != (version >= v20250618) {
			t.Errorf("%s: structuredContent present %v", version, ok)
		}
		if ok && !cmp.Equal(sc, map[string]any{"sum": 5.0}) {
			t.Errorf("%s: structuredContent %v", version, sc)
		}
		if version == modernVersion && (res["resultType"] != "complete" || res["ttlMs"] != nil) {
			t.Errorf("%s: resultType %v, ttlMs %v; want complete and no cache hints", version, res["resultType"], res["ttlMs"])
		}
	}
}

// TestToolsUndeclared: without the tools capability, tools/* are -32601.
func TestToolsUndeclared(t *testing.T) {
	fx := DefaultFixture()
	fx.Capabilities.Tools, fx.Tools = nil, nil
	for _, version := range []string{"2025-11-25", modernVersion} {
		s := startAt(t, Options{Fixture: fx}, version)
		for _, method := range []string{"tools/list", "tools/call"} {
			if m := s.callAt(version, method, map[string]any{"name": "echo"}); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
				t.Errorf("%s %s: %s %+v, want -32601", version, method, m.Result, m.Error)
			}
		}
	}
}

// TestListenListChanged: a stream is granted toolsListChanged and
// promptsListChanged only when the capability declares listChanged.
func TestListenListChanged(t *testing.T) {
	filter := map[string]any{"toolsListChanged": true, "promptsListChanged": true}
	for _, declared := range []bool{false, true} {
		fx := DefaultFixture()
		fx.Capabilities.Tools.ListChanged, fx.Capabilities.Prompts.ListChanged = declared, declared
		s := start(t, Options{Fixture: fx})
		s.send(request(`"l"`, "subscriptions/listen", enveloped(map[string]any{"notifications": filter})))
		m := s.recvMsg()
		agreed := decode(t, m.Params)["notifications"]
		want := map[string]any{}
		if declared {
			want = filter
		}
		if diff := cmp.Diff(want, agreed); diff != "" {
			t.Errorf("listChanged declared %v: agreed (-want +got):\n%s", declared, diff)
		}
		var res map[string]any
		s.modernResult("server/discover", nil, &res)
		tools := res["capabilities"].(map[string]any)["tools"]
		if _, ok := tools.(map[string]any)["listChanged"]; ok != declared {
			t.Errorf("listChanged declared %v: capabilities.tools %v", declared, tools)
		}
	}
}

// TestToolSchemaDialect: an inputSchema may name its dialect; calls are
// validated in it.
func TestToolSchemaDialect(t *testing.T) {
	fx, err := ParseFixture("draft7.json", []byte(`{"server":{"name":"x","version":"1"},"capabilities":{"tools":{}},"tools":[
		{"name":"count","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		 "properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false},
		 "call":{"rule":"echo","format":"n is {{n}}"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := startAt(t, Options{Fixture: fx}, "2025-06-18")
	for _, tt := range []struct {
		args map[string]any
		want string // the result's text, or a part of the error message
	}{
		{map[string]any{"n": 3}, "n is 3"},
		{map[string]any{"n": 0}, "arguments.n: minimum"},
		{map[string]any{"n": 1, "x": true}, "additional properties 'x' not allowed"},
	} {
		m := s.callAt("2025-06-18", "tools/call", map[string]any{"name": "count", "arguments": tt.args})
		got := string(m.Result)
		if m.Error != nil {
			got = m.Error.Message
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("arguments %v: got %s, want %q", tt.args, got, tt.want)
		}
	}
}

// TestToolProgress: a call of the logo tool whose request carries
// _meta.progressToken gets three notifications/progress before its result,
// naming that token, progress 1, 2, 3 of total 3 (with a message from
// 2025-03-26); without a token, or for a tool that reports no progress,
// none.
func TestToolProgress(t *testing.T) {
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			call := func(name string, token any) []msg {
				args := map[string]any{}
				if name == "echo" {
					args["text"] = "hi"
				}
				params := map[string]any{"name": name, "arguments": args}
				if version == modernVersion {
					params = enveloped(params)
				}
				if token != nil {
					meta, _ := params["_meta"].(map[string]any)
					meta = maps.Clone(meta)
					if meta == nil {
						meta = map[string]any{}
					}
					meta["progressToken"] = token
					params["_meta"] = meta
				}
				m, notes := s.call("tools/call", params)
				if m.Error != nil {
					t.Fatalf("%s: %d %s", name, m.Error.Code, m.Error.Message)
				}
				return notes
			}
			notes := call("logo", "tok-1")
			if len(notes) != 3 {
				t.Fatalf("%d messages before the result, want 3 notifications/progress: %v", len(notes), notes)
			}
			for i, n := range notes {
				p := decode(t, n.Params)
				want := map[string]any{"progressToken": "tok-1", "progress": float64(i + 1), "total": float64(3)}
				if version >= "2025-03-26" {
					want["message"] = fmt.Sprintf("logo: step %d of 3", i+1)
				}
				if n.Method != "notifications/progress" || !cmp.Equal(want, p) {
					t.Errorf("notification %d: %s %v, want notifications/progress %v", i+1, n.Method, p, want)
				}
			}
			if notes := call("logo", 7); len(notes) != 3 || !strings.Contains(string(notes[0].Params), `"progressToken":7`) {
				t.Errorf("an integer token: %v", notes)
			}
			if notes := call("logo", nil); len(notes) != 0 {
				t.Errorf("without a token: %v", notes)
			}
			if notes := call("echo", "tok-2"); len(notes) != 0 {
				t.Errorf("echo reports no progress: %v", notes)
			}
		})
	}
}

// TestRevealChangesLists: calling enable_extras adds the hidden tool and
// prompt to their lists once, announcing each change as the version asks:
// in a handshake session with list_changed (listChanged is declared); in
// 2026-07-28 only on a listen stream that asked for that list, and not at
// all without one (a list may not change as a side effect of a request).
func TestRevealChangesLists(t *testing.T) {
	count := func(s *session, version, method, member string) int {
		items, _ := s.walkAt(version, method, member)
		return len(items)
	}
	t.Run("2025-11-25", func(t *testing.T) {
		s := startAt(t, Options{}, "2025-11-25")
		m, notes := s.call("tools/call", map[string]any{"name": "enable_extras", "arguments": map[string]any{}})
		if m.Error != nil {
			t.Fatalf("enable_extras: %+v", m.Error)
		}
		var methods []string
		for _, n := range notes {
			methods = append(methods, n.Method)
		}
		// The notifications may follow the response: a ping flushes them.
		_, more := s.call("ping", nil)
		for _, n := range more {
			methods = append(methods, n.Method)
		}
		if !slices.Equal(methods, []string{"notifications/tools/list_changed", "notifications/prompts/list_changed"}) {
			t.Errorf("notifications %v, want tools then prompts list_changed", methods)
		}
		if n := count(s, "2025-11-25", "tools/list", "tools"); n != 6 {
			t.Errorf("%d tools after the reveal, want 6", n)
		}
		if n := count(s, "2025-11-25", "prompts/list", "prompts"); n != 4 {
			t.Errorf("%d prompts after the reveal, want 4", n)
		}
		if text := toolText(t, s.callAt("2025-11-25", "tools/call", map[string]any{"name": "shout", "arguments": map[string]any{"text": "hi"}})); text != "hi!" {
			t.Errorf("shout answered %q", text)
		}
		if text := toolText(t, s.callAt("2025-11-25", "tools/call", map[string]any{"name": "enable_extras", "arguments": map[string]any{}})); text != "Nothing more to enable." {
			t.Errorf("a second enable_extras answered %q", text)
		}
	})
	t.Run("2026-07-28 without a stream", func(t *testing.T) {
		s := startAt(t, Options{}, modernVersion)
		m := s.callAt(modernVersion, "tools/call", map[string]any{"name": "enable_extras", "arguments": map[string]any{}})
		if text := toolText(t, m); text != "Nothing more to enable." {
			t.Errorf("enable_extras answered %q", text)
		}
		if n := count(s, modernVersion, "tools/list", "tools"); n != 5 {
			t.Errorf("%d tools, want the 5 of the start", n)
		}
	})
	t.Run("2026-07-28 with a stream for tools", func(t *testing.T) {
		s := startAt(t, Options{}, modernVersion)
		s.send(request(`"held"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"toolsListChanged": true}})))
		if ack := s.recvMsg(); ack.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first message %+v, want the acknowledgement", ack)
		}
		m, notes := s.modern("tools/call", map[string]any{"name": "enable_extras", "arguments": map[string]any{}})
		notes = append(notes, s.notesAfter()...)
		if text := toolText(t, m); text != "Enabled 1 tool(s)." {
			t.Errorf("enable_extras answered %q", text)
		}
		if len(notes) != 1 || notes[0].Method != "notifications/tools/list_changed" || !strings.Contains(string(notes[0].Params), `"io.modelcontextprotocol/subscriptionId":"held"`) {
			t.Errorf("notifications %+v, want tools/list_changed on the stream", notes)
		}
		if n := count(s, modernVersion, "prompts/list", "prompts"); n != 3 {
			t.Errorf("%d prompts, want the 3 of the start: no stream asked for prompt changes", n)
		}
	})
}

// toolText is the text of a tool result's first block.
func toolText(t *testing.T, m msg) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("tools/call: %+v", m.Error)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("tools/call result %s", m.Result)
	}
	return res.Content[0].Text
}
