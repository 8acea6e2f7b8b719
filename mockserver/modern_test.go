package mockserver

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

// envMeta is the per-request _meta of a 2026-07-28 request.
func envMeta() map[string]any {
	return map[string]any{
		metaProtocolVersion:    modernVersion,
		metaClientCapabilities: map[string]any{},
		metaClientInfo:         map[string]any{"name": "mockserver-test", "version": "0"},
	}
}

// enveloped returns a copy of params with the 2026-07-28 envelope in _meta.
func enveloped(params map[string]any) map[string]any {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	p["_meta"] = envMeta()
	return p
}

// modern calls a method in the 2026-07-28 envelope.
func (s *session) modern(method string, params map[string]any) (msg, []msg) {
	s.t.Helper()
	return s.call(method, enveloped(params))
}

// modernResult calls in the envelope and decodes a success into v.
func (s *session) modernResult(method string, params map[string]any, v any) {
	s.t.Helper()
	s.result(method, enveloped(params), v)
}

// notesAfter collects the notifications that follow the last response,
// with a server/discover whose response comes after them.
func (s *session) notesAfter() []msg {
	s.t.Helper()
	_, notes := s.modern("server/discover", nil)
	return notes
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return m
}

var modernServerInfo = map[string]any{
	"name": "mcpconform-mock", "version": "1.0.0", "title": "mcpconform mock server",
	"description": "A reference MCP server for testing the mcpconform suite and MCP clients.",
	"websiteUrl":  "https://github.com/mcpconform/mcpconform",
	"icons":       []any{map[string]any{"src": "https://example.com/icons/mcpconform.png", "mimeType": "image/png", "sizes": []any{"64x64"}, "theme": "light"}},
}

func TestDiscover(t *testing.T) {
	s := start(t, Options{})
	var res map[string]any
	s.modernResult("server/discover", nil, &res)
	want := map[string]any{
		"supportedVersions": []any{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"},
		"capabilities": map[string]any{"resources": map[string]any{"subscribe": true, "listChanged": true}, "tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true},
			"logging": map[string]any{}, "completions": map[string]any{}},
		"instructions": DefaultFixture().Instructions,
		"resultType":   "complete",
		"ttlMs":        float64(DefaultTTLMs),
		"cacheScope":   "public",
		"_meta":        map[string]any{metaServerInfo: modernServerInfo},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("server/discover (-want +got):\n%s", diff)
	}
	// clientInfo is optional (LIFE-21).
	m, _ := s.call("server/discover", map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion, metaClientCapabilities: map[string]any{}}})
	if m.Error != nil {
		t.Errorf("server/discover without clientInfo: %+v", m.Error)
	}
}

func TestModernIDsEchoed(t *testing.T) {
	s := start(t, Options{})
	for _, id := range []string{`"mcpconform-a"`, `""`, `"1"`, `0`, `-1`, `9007199254740993`} {
		s.send(request(id, "server/discover", enveloped(nil)))
		if m := s.recvMsg(); string(m.ID) != id || m.Error != nil {
			t.Errorf("id %s: got id %s, error %+v", id, m.ID, m.Error)
		}
	}
}

func TestCacheHintsFromFixture(t *testing.T) {
	fx := DefaultFixture()
	zero := 0
	fx.Cache = &CacheHints{TTLMs: &zero, Scope: "private"}
	s := start(t, Options{Fixture: fx})
	for _, method := range []string{"server/discover", "resources/list", "resources/templates/list"} {
		var res map[string]any
		s.modernResult(method, nil, &res)
		if res["ttlMs"] != 0.0 || res["cacheScope"] != "private" {
			t.Errorf("%s: ttlMs %v, cacheScope %v; want 0, private", method, res["ttlMs"], res["cacheScope"])
		}
	}
}

func TestModernEnvelopeErrors(t *testing.T) {
	noCaps := map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion}}
	noVersion := map[string]any{"_meta": map[string]any{metaClientCapabilities: map[string]any{}}}
	tests := []struct {
		name   string
		params any
		code   int
	}{
		{"no params", nil, wire.CodeInvalidParams},
		{"empty params", map[string]any{}, wire.CodeInvalidParams},
		{"meta not an object", map[string]any{"_meta": "x"}, wire.CodeInvalidParams},
		{"no clientCapabilities", noCaps, wire.CodeInvalidParams},
		{"clientCapabilities not an object", map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion, metaClientCapabilities: []any{}}}, wire.CodeInvalidParams},
		{"no protocolVersion", noVersion, wire.CodeInvalidParams},
		{"protocolVersion not a string", map[string]any{"_meta": map[string]any{metaProtocolVersion: 20260728, metaClientCapabilities: map[string]any{}}}, wire.CodeInvalidParams},
		{"bad logLevel", map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion, metaClientCapabilities: map[string]any{}, metaLogLevel: "loud"}}, wire.CodeInvalidParams},
		{"unknown version", map[string]any{"_meta": map[string]any{metaProtocolVersion: "1900-01-01", metaClientCapabilities: map[string]any{}}}, wire.CodeUnsupportedProtocolVersion},
		{"handshake version in the envelope", map[string]any{"_meta": map[string]any{metaProtocolVersion: "2025-11-25", metaClientCapabilities: map[string]any{}}}, wire.CodeUnsupportedProtocolVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Options{})
			s.modern("server/discover", nil) // the process has seen 2026-07-28 traffic
			m, _ := s.call("resources/list", tt.params)
			if m.Error == nil || m.Error.Code != tt.code {
				t.Errorf("got %s %+v, want error %d", m.Result, m.Error, tt.code)
			}
			// Nothing carries over: the next valid request is served (LIFE-24).
			if m, _ := s.modern("resources/list", nil); m.Error != nil {
				t.Errorf("the next valid request: %+v", m.Error)
			}
		})
	}
}

func TestUnsupportedVersionData(t *testing.T) {
	s := start(t, Options{})
	m, _ := s.call("server/discover", map[string]any{"_meta": map[string]any{metaProtocolVersion: "1900-01-01", metaClientCapabilities: map[string]any{}}})
	if m.Error == nil || m.Error.Code != wire.CodeUnsupportedProtocolVersion {
		t.Fatalf("got %s %+v, want -32022", m.Result, m.Error)
	}
	want := map[string]any{"requested": "1900-01-01", "supported": []any{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}}
	if diff := cmp.Diff(want, decode(t, m.Error.Data)); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

func TestModernResults(t *testing.T) {
	s := start(t, Options{})
	var cursor any
	scopes := map[any]bool{}
	pages := 0
	for {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = cursor
		}
		var res map[string]any
		s.modernResult("resources/list", params, &res)
		pages++
		if res["resultType"] != "complete" || res["ttlMs"] != float64(DefaultTTLMs) {
			t.Errorf("page %d: resultType %v, ttlMs %v", pages, res["resultType"], res["ttlMs"])
		}
		scopes[res["cacheScope"]] = true
		if diff := cmp.Diff(map[string]any{metaServerInfo: modernServerInfo}, res["_meta"]); diff != "" {
			t.Errorf("page %d _meta (-want +got):\n%s", pages, diff)
		}
		if pages == 1 {
			// Fields are those of the newest version: title, icons, _meta, lastModified.
			first := res["resources"].([]any)[0].(map[string]any)
			for _, k := range []string{"title", "icons", "_meta"} {
				if _, ok := first[k]; !ok {
					t.Errorf("the first resource lacks %s: %v", k, first)
				}
			}
		}
		if cursor = res["nextCursor"]; cursor == nil {
			break
		}
	}
	if pages < 2 || len(scopes) != 1 {
		t.Errorf("%d pages with cacheScopes %v; want several pages, one scope", pages, scopes)
	}
	var read map[string]any
	s.modernResult("resources/read", map[string]any{"uri": "test://static/hello.txt"}, &read)
	for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta", "contents"} {
		if _, ok := read[k]; !ok {
			t.Errorf("the read result lacks %s: %v", k, read)
		}
	}
	var tpl map[string]any
	s.modernResult("resources/templates/list", nil, &tpl)
	if tpl["resultType"] != "complete" || tpl["cacheScope"] != "public" {
		t.Errorf("templates: %v", tpl)
	}
}

func TestModernMethodNotFound(t *testing.T) {
	s := start(t, Options{})
	for _, method := range []string{"ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel", "no/such/method"} {
		m, _ := s.modern(method, map[string]any{"uri": "test://static/hello.txt", "level": "info"})
		if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("%s in the envelope: got %s %+v, want -32601", method, m.Result, m.Error)
		}
	}
	bare, err := ParseFixture("bare.json", []byte(`{"server":{"name":"bare","version":"1"},"capabilities":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	s = start(t, Options{Fixture: bare})
	var res map[string]any
	s.modernResult("server/discover", nil, &res)
	if diff := cmp.Diff(map[string]any{}, res["capabilities"]); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	m, _ := s.modern("resources/list", nil)
	if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("resources/list without the capability: got %+v, want -32601", m.Error)
	}
}

func TestModernNotFound(t *testing.T) {
	s := start(t, Options{})
	for _, uri := range []string{"test://mcp-conformance/does-not-exist", "test://missing/1", "file:///../../etc/passwd", "not a uri"} {
		m, _ := s.modern("resources/read", map[string]any{"uri": uri})
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("read %q: got %s %+v, want -32602", uri, m.Result, m.Error)
			continue
		}
		if got := decode(t, m.Error.Data)["uri"]; got != uri {
			t.Errorf("read %q: data.uri %v", uri, got)
		}
	}
}

func TestListen(t *testing.T) {
	fx, err := LoadFixture("testdata/triggers.json")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, Options{Fixture: fx})
	s.send(request(`"L1"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": []string{"test://triggers/watched", "not a uri"}, "toolsListChanged": true,
	}})))
	ack := s.recvMsg()
	if ack.Method != "notifications/subscriptions/acknowledged" ||
		string(ack.Params) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"notifications":{"resourceSubscriptions":["test://triggers/watched"]}}` {
		t.Errorf("first acknowledgement: %s %s", ack.Method, ack.Params)
	}
	s.send(request(`7`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourcesListChanged": true}})))
	ack = s.recvMsg()
	if ack.Method != "notifications/subscriptions/acknowledged" ||
		string(ack.Params) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"resourcesListChanged":true}}` {
		t.Errorf("second acknowledgement: %s %s", ack.Method, ack.Params)
	}

	read := func(uri string) []msg {
		t.Helper()
		if m, _ := s.modern("resources/read", map[string]any{"uri": uri}); m.Error != nil {
			t.Fatalf("read %s: %+v", uri, m.Error)
		}
		return s.notesAfter()
	}
	notes := read("test://triggers/touch")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/updated" ||
		string(notes[0].Params) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"uri":"test://triggers/watched"}` {
		t.Errorf("update on the stream: %+v", notes)
	}
	notes = read("test://triggers/grow")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/list_changed" ||
		string(notes[0].Params) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}` {
		t.Errorf("list change on the stream: %+v", notes)
	}

	// Cancelling L1 ends it without a word; a string "7" is not the stream 7.
	s.send(notification("notifications/cancelled", map[string]any{"requestId": "L1"}))
	s.send(notification("notifications/cancelled", map[string]any{"requestId": "7"}))
	if notes := read("test://triggers/touch"); len(notes) != 0 {
		t.Errorf("after cancelling L1: %+v", notes)
	}
	notes = read("test://triggers/shrink")
	if len(notes) != 1 || notes[0].Method != "notifications/resources/list_changed" {
		t.Errorf("stream 7 after a cancel naming \"7\": %+v", notes)
	}

	// At EOF the open stream is closed with the listen result.
	err, rest := s.closeInput()
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if len(rest) != 1 {
		t.Fatalf("after EOF: %q, want the listen result of stream 7", rest)
	}
	var end msg
	if err := json.Unmarshal(rest[0], &end); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"resultType": "complete", "_meta": map[string]any{metaServerInfo: map[string]any{"name": "mcpconform-mock-triggers", "version": "1.0.0"}, metaSubscriptionID: 7.0}}
	if string(end.ID) != "7" || cmp.Diff(want, decode(t, end.Result)) != "" {
		t.Errorf("after EOF: %s, want the result %v for id 7", rest[0], want)
	}
}

func TestListenAgreesToWhatIsDeclared(t *testing.T) {
	fx := DefaultFixture()
	fx.Capabilities.Resources = &ResourcesCapability{}
	fx.Capabilities.Prompts = &ListCapability{}
	s := start(t, Options{Fixture: fx})
	s.send(request(`1`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": []string{"test://static/hello.txt"}, "resourcesListChanged": true, "promptsListChanged": true,
	}})))
	ack := s.recvMsg()
	if string(ack.Params) != `{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{}}` {
		t.Errorf("acknowledgement: %s", ack.Params)
	}
}

func TestListenInvalid(t *testing.T) {
	s := start(t, Options{})
	for _, params := range []map[string]any{{}, {"notifications": "all"}, {"notifications": map[string]any{"resourcesListChanged": "yes"}}} {
		m, _ := s.modern("subscriptions/listen", params)
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("listen %v: got %s %+v, want -32602", params, m.Result, m.Error)
		}
	}
	listen := request(`"dup"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{}}))
	s.send(listen)
	if ack := s.recvMsg(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("got %+v, want the acknowledgement", ack)
	}
	s.send(listen)
	if m := s.recvMsg(); m.Error == nil || m.Error.Code != wire.CodeInvalidRequest || string(m.ID) != `"dup"` {
		t.Errorf("a second listen with an open stream's id: %+v, want -32600", m)
	}
}

func TestDualEra(t *testing.T) {
	s := start(t, Options{})
	// Before any 2026-07-28 traffic, requests without the envelope are legacy traffic.
	if m, _ := s.call("ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping before initialize: %s %+v", m.Result, m.Error)
	}
	if m, _ := s.call("resources/list", nil); m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
		t.Errorf("resources/list before initialize: %+v, want -32600", m.Error)
	}
	if m, _ := s.modern("resources/list", nil); m.Error != nil {
		t.Fatalf("resources/list in the envelope: %+v", m.Error)
	}
	// Now a request without the envelope lacks it.
	if m, _ := s.call("resources/list", nil); m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
		t.Errorf("resources/list without the envelope after 2026-07-28 traffic: %+v, want -32602", m.Error)
	}
	if m, _ := s.call("ping", nil); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("ping after 2026-07-28 traffic: %+v, want -32601", m.Error)
	}
	// initialize switches the process to the handshake era; 2026-07-28 has
	// no handshake, so offering it gets a counter-offer.
	if got := s.initialize(modernVersion)["protocolVersion"]; got != "2025-11-25" {
		t.Errorf("initialize offering 2026-07-28: protocolVersion %v, want 2025-11-25", got)
	}
	m, _ := s.modern("resources/list", nil)
	if m.Error != nil || strings.Contains(string(m.Result), "resultType") {
		t.Errorf("resources/list in the envelope after initialize: %s %+v, want a legacy result", m.Result, m.Error)
	}
	if m, _ := s.modern("server/discover", nil); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("server/discover after initialize: %+v, want -32601", m.Error)
	}
	if m, _ := s.call("ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping after initialize: %s %+v", m.Result, m.Error)
	}
}

func TestModernOnly(t *testing.T) {
	fx := DefaultFixture()
	fx.Eras = []string{EraModern}
	s := start(t, Options{Fixture: fx})
	m, _ := s.call("initialize", initParams("2025-11-25"))
	if m.Error == nil || m.Error.Code != wire.CodeUnsupportedProtocolVersion || !strings.Contains(m.Error.Message, modernVersion) {
		t.Fatalf("initialize: %s %+v, want -32022 naming %s", m.Result, m.Error, modernVersion)
	}
	if diff := cmp.Diff(map[string]any{"supported": []any{modernVersion}, "requested": "2025-11-25"}, decode(t, m.Error.Data)); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if m, _ := s.call("resources/list", nil); m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
		t.Errorf("resources/list without the envelope: %+v, want -32602", m.Error)
	}
	if m, _ := s.call("ping", nil); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("ping: %+v, want -32601", m.Error)
	}
	var res map[string]any
	s.modernResult("server/discover", nil, &res)
	if diff := cmp.Diff([]any{modernVersion}, res["supportedVersions"]); diff != "" {
		t.Errorf("supportedVersions (-want +got):\n%s", diff)
	}
}

func TestLegacyOnly(t *testing.T) {
	fx := DefaultFixture()
	fx.Eras = []string{EraLegacy}
	s := start(t, Options{Fixture: fx})
	if m, _ := s.modern("server/discover", nil); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("server/discover: %+v, want -32601", m.Error)
	}
	if m, _ := s.modern("resources/list", nil); m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
		t.Errorf("resources/list in the envelope before initialize: %+v, want -32600", m.Error)
	}
	if got := s.initialize(modernVersion)["protocolVersion"]; got != "2025-11-25" {
		t.Errorf("initialize offering 2026-07-28: %v, want 2025-11-25", got)
	}
	if m, _ := s.modern("resources/list", nil); m.Error != nil || strings.Contains(string(m.Result), "resultType") {
		t.Errorf("resources/list in the envelope: %s %+v, want a legacy result", m.Result, m.Error)
	}
}

func TestFixtureEras(t *testing.T) {
	tests := []struct {
		eras, versions []string
		legacy, modern bool
		handshake      []string
	}{
		{nil, nil, true, true, knownVersions},
		{nil, []string{"2025-06-18"}, true, false, []string{"2025-06-18"}},
		{nil, []string{modernVersion}, false, true, nil},
		{[]string{EraModern}, nil, false, true, nil},
		{[]string{EraLegacy}, nil, true, false, knownVersions},
		{[]string{EraLegacy, EraModern}, []string{"2024-11-05", modernVersion}, true, true, []string{"2024-11-05"}},
	}
	for _, tt := range tests {
		fx := DefaultFixture()
		fx.Eras, fx.ProtocolVersions = tt.eras, tt.versions
		c, err := compile(fx)
		if err != nil {
			t.Errorf("eras %v, versions %v: %v", tt.eras, tt.versions, err)
			continue
		}
		if c.legacy != tt.legacy || c.modern != tt.modern || !cmp.Equal(c.versions, tt.handshake) {
			t.Errorf("eras %v, versions %v: legacy %v, modern %v, handshake %v; want %v, %v, %v",
				tt.eras, tt.versions, c.legacy, c.modern, c.versions, tt.legacy, tt.modern, tt.handshake)
		}
	}
	fx := DefaultFixture()
	bad := -5
	fx.Cache = &CacheHints{TTLMs: &bad, Scope: "everyone"}
	if _, err := compile(fx); err == nil || !strings.Contains(err.Error(), "$.cache.ttlMs") || !strings.Contains(err.Error(), "$.cache.scope") {
		t.Errorf("a bad cache: %v", err)
	}
}

// TestTraceContext: a 2026-07-28 request whose _meta carries a W3C
// traceparent gets it back in the result's _meta, the same trace with the
// mock's own span as parent, and its tracestate unchanged; an invalid one
// is not carried on.
func TestTraceContext(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	s := start(t, Options{})
	traced := envMeta()
	traced["traceparent"], traced["tracestate"] = tp, "congo=t61rcWkgMzE"
	m, _ := s.call("server/discover", map[string]any{"_meta": traced})
	res := decode(t, m.Result)
	meta := res["_meta"].(map[string]any)
	got, _ := meta["traceparent"].(string)
	if !strings.HasPrefix(got, "00-4bf92f3577b34da6a3ce929d0e0e4736-") || !strings.HasSuffix(got, "-01") || got == tp || len(got) != len(tp) {
		t.Errorf("traceparent %q, want the trace 4bf92f35… with another parent-id", got)
	}
	if meta["tracestate"] != "congo=t61rcWkgMzE" {
		t.Errorf("tracestate %v", meta["tracestate"])
	}
	bad := envMeta()
	bad["traceparent"] = "00-00000000000000000000000000000000-00f067aa0ba902b7-01"
	m, _ = s.call("server/discover", map[string]any{"_meta": bad})
	if _, ok := decode(t, m.Result)["_meta"].(map[string]any)["traceparent"]; ok {
		t.Errorf("an all-zero trace-id was carried on: %s", m.Result)
	}
}

// TestModernLogLevel: a 2026-07-28 request whose _meta asks for logs at a
// level gets one log message at that level before its response, when
// the server declares logging; a request that does not ask gets none.
func TestModernLogLevel(t *testing.T) {
	withLevel := func(level string) map[string]any {
		p := enveloped(nil)
		p["_meta"].(map[string]any)[metaLogLevel] = level
		return p
	}
	s := start(t, Options{})
	m, notes := s.call("server/discover", withLevel("warning"))
	if m.Error != nil || len(notes) != 1 || notes[0].Method != "notifications/message" {
		t.Fatalf("discover asking for warning: %+v, before it %+v", m.Error, notes)
	}
	if got := decode(t, notes[0].Params)["level"]; got != "warning" {
		t.Errorf("logged at %v, want warning", got)
	}
	if _, notes := s.modern("server/discover", nil); len(notes) != 0 {
		t.Errorf("a request without logLevel got %+v", notes)
	}
	fx := DefaultFixture()
	fx.Capabilities.Logging = nil
	s = start(t, Options{Fixture: fx})
	if _, notes := s.call("server/discover", withLevel("warning")); len(notes) != 0 {
		t.Errorf("a server without logging logged %+v", notes)
	}
}
