package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

func TestInitializeNegotiatesVersion(t *testing.T) {
	icons := []any{map[string]any{"src": "https://example.com/icons/mcpconform.png", "mimeType": "image/png", "sizes": []any{"64x64"}, "theme": "light"}}
	tests := []struct {
		requested, want string
		serverInfo      map[string]any
	}{
		{"2024-11-05", "2024-11-05", map[string]any{"name": "mcpconform-mock", "version": "1.0.0"}},
		{"2025-03-26", "2025-03-26", map[string]any{"name": "mcpconform-mock", "version": "1.0.0"}},
		{"2025-06-18", "2025-06-18", map[string]any{"name": "mcpconform-mock", "version": "1.0.0", "title": "mcpconform mock server"}},
		{"2025-11-25", "2025-11-25", map[string]any{
			"name": "mcpconform-mock", "version": "1.0.0", "title": "mcpconform mock server",
			"description": "A reference MCP server for testing the mcpconform suite and MCP clients.",
			"websiteUrl":  "https://github.com/mcpconform/mcpconform", "icons": icons,
		}},
		{"2099-01-01", "2025-11-25", nil},
		{"1.0.0", "2025-11-25", nil},
		{"", "2025-11-25", nil},
		{"2024-10-07", "2025-11-25", nil},
		{"2026-07-28", "2025-11-25", nil}, // no handshake in 2026-07-28: counter-offer
	}
	for _, tt := range tests {
		t.Run(tt.requested, func(t *testing.T) {
			s := start(t, Options{})
			res := s.initialize(tt.requested)
			if got := res["protocolVersion"]; got != tt.want {
				t.Errorf("protocolVersion = %v, want %v", got, tt.want)
			}
			wantCaps := map[string]any{"resources": map[string]any{"subscribe": true, "listChanged": true}, "tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true}, "logging": map[string]any{}}
			if tt.want != "2024-11-05" {
				// The capability exists from 2025-03-26.
				wantCaps["completions"] = map[string]any{}
			}
			if diff := cmp.Diff(wantCaps, res["capabilities"]); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
			if _, ok := res["instructions"].(string); !ok {
				t.Errorf("instructions = %v, want a string", res["instructions"])
			}
			if tt.serverInfo != nil {
				if diff := cmp.Diff(tt.serverInfo, res["serverInfo"]); diff != "" {
					t.Errorf("serverInfo (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestInitializeRestrictedVersions(t *testing.T) {
	fx := DefaultFixture()
	fx.ProtocolVersions = []string{"2024-11-05", "2025-06-18"}
	for requested, want := range map[string]string{
		"2024-11-05": "2024-11-05",
		"2025-03-26": "2025-06-18",
		"2025-11-25": "2025-06-18",
	} {
		s := start(t, Options{Fixture: fx})
		if got := s.initialize(requested)["protocolVersion"]; got != want {
			t.Errorf("requested %s: protocolVersion = %v, want %v", requested, got, want)
		}
	}
}

func TestInitializeInvalidParams(t *testing.T) {
	for _, params := range []string{
		`{}`,
		`{"protocolVersion":"2025-06-18","capabilities":{}}`,
		`{"protocolVersion":"2025-06-18","clientInfo":{"name":"x","version":"1"}}`,
		`{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}`,
		`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x"}}`,
	} {
		s := start(t, Options{})
		s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
		if m := s.recvMsg(); m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("initialize %s: got %+v, want error -32602", params, m)
		}
	}
}

func TestBeforeInitialize(t *testing.T) {
	s := start(t, Options{})
	// Notifications before initialize are ignored, initialized included.
	s.send(notification("notifications/initialized", nil))
	s.send(notification("notifications/x-conformance", map[string]any{}))
	m, notes := s.call("ping", nil)
	if string(m.Result) != "{}" || len(notes) > 0 {
		t.Errorf("ping before initialize: got %s %+v, notes %v; want {}", m.Result, m.Error, notes)
	}
	for _, method := range []string{"resources/list", "resources/read", "resources/templates/list"} {
		m, _ := s.call(method, map[string]any{"uri": "test://static/hello.txt"})
		if m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
			t.Errorf("%s before initialize: got %s %+v, want error -32600", method, m.Result, m.Error)
		}
	}
	m, _ = s.call("no/such/method", nil)
	if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("unknown method before initialize: got %+v, want -32601", m.Error)
	}
}

func TestServesBeforeInitializedNotification(t *testing.T) {
	s := start(t, Options{})
	var res map[string]any
	s.result("initialize", initParams("2025-06-18"), &res)
	var list struct{ Resources []any }
	s.result("resources/list", nil, &list)
	if len(list.Resources) == 0 {
		t.Errorf("resources/list before notifications/initialized returned no resources")
	}
}

func TestSecondInitializeIsRefused(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	m, _ := s.call("initialize", initParams("2025-06-18"))
	if m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
		t.Errorf("second initialize: got %s %+v, want error -32600", m.Result, m.Error)
	}
}

func TestPingParams(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-11-25")
	for _, params := range []any{nil, map[string]any{}, map[string]any{"_meta": map[string]any{}}} {
		m, _ := s.call("ping", params)
		if string(m.Result) != "{}" {
			t.Errorf("ping %v: got %s %+v, want {}", params, m.Result, m.Error)
		}
	}
}

func TestUnknownClientCapabilitiesAccepted(t *testing.T) {
	s := start(t, Options{})
	p := initParams("2025-06-18")
	p["capabilities"] = map[string]any{"experimental": map[string]any{"com.example.test/probe": map[string]any{}}, "x-unknown": map[string]any{}}
	m, _ := s.call("initialize", p)
	if m.Error != nil {
		t.Errorf("initialize with unknown capabilities: error %+v", m.Error)
	}
}

func TestNoResourcesCapability(t *testing.T) {
	data := `{"server":{"name":"bare","version":"1"},"capabilities":{}}`
	fx, err := ParseFixture("bare.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, Options{Fixture: fx})
	res := s.initialize("2025-06-18")
	if diff := cmp.Diff(map[string]any{}, res["capabilities"]); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	for _, method := range []string{"resources/list", "resources/read", "resources/subscribe"} {
		m, _ := s.call(method, map[string]any{"uri": "test://x"})
		if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("%s without the capability: got %s %+v, want -32601", method, m.Result, m.Error)
		}
	}
}

func TestLoggingCapability(t *testing.T) {
	fx := DefaultFixture()
	fx.Capabilities.Logging = &struct{}{}
	s := start(t, Options{Fixture: fx})
	res := s.initialize("2025-06-18")
	if _, ok := res["capabilities"].(map[string]any)["logging"]; !ok {
		t.Errorf("capabilities lack logging: %v", res["capabilities"])
	}
	m, _ := s.call("logging/setLevel", map[string]any{"level": "debug"})
	if string(m.Result) != "{}" {
		t.Errorf("logging/setLevel: got %s %+v, want {}", m.Result, m.Error)
	}
	m, _ = s.call("logging/setLevel", map[string]any{"level": "loud"})
	if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
		t.Errorf("logging/setLevel loud: got %+v, want -32602", m.Error)
	}
	// Without the capability the method does not exist.
	fx = DefaultFixture()
	fx.Capabilities.Logging = nil
	s2 := start(t, Options{Fixture: fx})
	s2.initialize("2025-06-18")
	m, _ = s2.call("logging/setLevel", map[string]any{"level": "debug"})
	if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
		t.Errorf("logging/setLevel undeclared: got %+v, want -32601", m.Error)
	}
}

func TestRecord(t *testing.T) {
	var rec syncBuffer
	s := start(t, Options{Record: &rec})
	s.initialize("2025-06-18")
	s.send("not json")
	s.recv()
	if err, _ := s.closeInput(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var dirs []string
	var notJSON int
	for _, line := range splitLines(rec.String()) {
		var r struct {
			T   string          `json:"t"`
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record line %q: %v", line, err)
		}
		if r.T == "" {
			t.Errorf("record line without time: %s", line)
		}
		if string(r.Msg) == `"not json"` {
			notJSON++
		}
		dirs = append(dirs, r.Dir)
	}
	want := []string{"in", "out", "in", "in", "out"}
	if diff := cmp.Diff(want, dirs); diff != "" {
		t.Errorf("record directions (-want +got):\n%s", diff)
	}
	if notJSON != 1 {
		t.Errorf("the unparseable line was recorded %d times as a string, want 1", notJSON)
	}
}
