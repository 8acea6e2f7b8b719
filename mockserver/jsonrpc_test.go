package mockserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func TestEnvelopeErrors(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		code   int
		wantID string // the raw id of the error response
	}{
		{"unparseable", `{"jsonrpc":"2.0","id":1,"method":`, wire.CodeParseError, "null"},
		{"not json at all", `hello`, wire.CodeParseError, "null"},
		{"missing jsonrpc", `{"id":5,"method":"ping"}`, wire.CodeInvalidRequest, "5"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":6,"method":"ping"}`, wire.CodeInvalidRequest, "6"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"s","method":"ping"}`, wire.CodeInvalidRequest, `"s"`},
		{"method number", `{"jsonrpc":"2.0","id":7,"method":42}`, wire.CodeInvalidRequest, "7"},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, wire.CodeInvalidRequest, "null"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, wire.CodeInvalidRequest, "null"},
		{"id float", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, wire.CodeInvalidRequest, "null"},
		{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, wire.CodeInvalidRequest, "null"},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, wire.CodeInvalidRequest, "null"},
		{"params array", `{"jsonrpc":"2.0","id":8,"method":"resources/list","params":[]}`, wire.CodeInvalidRequest, "8"},
		{"params null", `{"jsonrpc":"2.0","id":9,"method":"ping","params":null}`, wire.CodeInvalidRequest, "9"},
		{"no method", `{"jsonrpc":"2.0","id":10}`, wire.CodeInvalidRequest, "10"},
		{"a number", `42`, wire.CodeInvalidRequest, "null"},
		{"a string", `"ping"`, wire.CodeInvalidRequest, "null"},
		{"empty array", `[]`, wire.CodeInvalidRequest, "null"},
		{"array outside 2025-03-26", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, wire.CodeInvalidRequest, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":12,"method":"mcp-conformance/unknown-method"}`, wire.CodeMethodNotFound, "12"},
		{"read without uri", `{"jsonrpc":"2.0","id":13,"method":"resources/read","params":{}}`, wire.CodeInvalidParams, "13"},
		{"read with numeric uri", `{"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"uri":5}}`, wire.CodeInvalidParams, "14"},
		{"list with numeric cursor", `{"jsonrpc":"2.0","id":15,"method":"resources/list","params":{"cursor":3}}`, wire.CodeInvalidParams, "15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Options{})
			s.initialize("2025-06-18")
			s.send(tt.line)
			m := s.recvMsg()
			if m.Error == nil {
				t.Fatalf("got result %s, want error %d", m.Result, tt.code)
			}
			if m.Error.Code != tt.code {
				t.Errorf("code = %d, want %d (%s)", m.Error.Code, tt.code, m.Error.Message)
			}
			id := string(m.ID)
			if id == "" {
				id = "null"
			}
			if id != tt.wantID {
				t.Errorf("id = %s, want %s", id, tt.wantID)
			}
			if strings.Contains(m.Error.Message, "\n") || len(m.Error.Message) > 200 {
				t.Errorf("message is not one short sentence: %q", m.Error.Message)
			}
			// The server keeps serving.
			if p, _ := s.call("ping", nil); string(p.Result) != "{}" {
				t.Errorf("ping afterwards: %s %+v", p.Result, p.Error)
			}
		})
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	for _, id := range []string{
		`"a"`, `""`, `"ü-1"`, `"\u00fc-2"`, `"1"`, `0`, `-1`, `2147483648`,
		`9007199254740991`, `9007199254740993`, `123456789012345678901234567890`,
	} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m := s.recvMsg()
		if string(m.ID) != id {
			t.Errorf("id %s echoed as %s", id, m.ID)
		}
	}
}

func TestNotificationsGetNoReply(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-06-18")
	for _, n := range []string{
		notification("notifications/initialized", nil),
		notification("notifications/initialized", map[string]any{}),
		notification("notifications/initialized", map[string]any{"_meta": map[string]any{}}),
		notification("notifications/x-conformance", nil),
		notification("notifications/cancelled", map[string]any{"requestId": 999, "reason": "test"}),
		`{"jsonrpc":"2.0","method":"notifications/x","params":null}`,
		`{"jsonrpc":"2.0","method":"notifications/x","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, // a client response to nothing
		"",
		"   ",
	} {
		s.send(n)
	}
	m, notes := s.call("ping", nil)
	if string(m.Result) != "{}" || len(notes) != 0 {
		t.Errorf("after notifications: ping got %s, other messages %v; want only the ping's {}", m.Result, notes)
	}
}

func TestCRLFInputAccepted(t *testing.T) {
	s := start(t, Options{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r")
	if m := s.recvMsg(); string(m.Result) != "{}" {
		t.Errorf("ping with CRLF: got %s %+v", m.Result, m.Error)
	}
}

func TestOutputFraming(t *testing.T) {
	// Every stdout line is one JSON value, valid UTF-8, with U+2028 escaped.
	out, _, err := transcript(Options{}, strings.Join([]string{
		request("1", "initialize", initParams("2025-11-25")),
		request("2", "resources/read", map[string]any{"uri": "test://static/unicode.txt"}),
	}, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if strings.Contains(line, "\u2028") || strings.Contains(line, "\r") || !utf8.ValidString(line) || !json.Valid([]byte(line)) {
			t.Errorf("bad framing in %q", line)
		}
	}
	if !strings.Contains(string(out), `\u2028`) {
		t.Errorf("U+2028 not escaped in %s", out)
	}
}

func TestBatches(t *testing.T) {
	s := start(t, Options{})
	s.initialize("2025-03-26")
	s.send(`[{"jsonrpc":"2.0","id":"p","method":"ping"},{"jsonrpc":"2.0","id":2,"method":"resources/list"},{"jsonrpc":"2.0","method":"notifications/x"}]`)
	line := s.recv()
	var batch []msg
	if err := json.Unmarshal(line, &batch); err != nil {
		t.Fatalf("batch response %q: %v", line, err)
	}
	var ids []string
	for _, m := range batch {
		ids = append(ids, string(m.ID))
	}
	if diff := cmp.Diff([]string{`"p"`, "2"}, ids); diff != "" {
		t.Errorf("batch response ids (-want +got):\n%s", diff)
	}

	// An all-notification batch gets no output at all.
	s.send(`[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/y"}]`)
	if m, notes := s.call("ping", nil); string(m.Result) != "{}" || len(notes) != 0 {
		t.Errorf("after an all-notification batch: %s, %v", m.Result, notes)
	}

	// Invalid members are answered inside the batch.
	s.send(`[1,{"jsonrpc":"2.0","id":3,"method":"nope"}]`)
	if err := json.Unmarshal(s.recv(), &batch); err != nil || len(batch) != 2 ||
		batch[0].Error.Code != wire.CodeInvalidRequest || batch[1].Error.Code != wire.CodeMethodNotFound {
		t.Errorf("mixed batch: %+v (%v)", batch, err)
	}

	// An empty batch is a single -32600.
	s.send(`[]`)
	if m := s.recvMsg(); m.Error == nil || m.Error.Code != wire.CodeInvalidRequest {
		t.Errorf("empty batch: %+v", m)
	}
}
