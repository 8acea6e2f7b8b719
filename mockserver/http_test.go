package mockserver

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startHTTP serves the mock over HTTP on a free port for the test's life
// and returns its endpoint's URL.
func startHTTP(t *testing.T, faults, variants []string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTP(ctx, ln, io.Discard, HTTPOptions{Options: Options{Faults: faults, Variants: variants}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("ServeHTTP returned %v, want context.Canceled", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// httpClient is a Streamable HTTP client as plain as the tests need: it
// keeps the session id and the negotiated version.
type httpClient struct {
	t       *testing.T
	url     string
	session string
	version string
	header  map[string]string // added to every request
}

// answer is an HTTP response as the tests look at it.
type answer struct {
	status int
	header http.Header
	body   string
	events []sseTestEvent
	// cut: the stream ended inside an event, before its blank line.
	cut bool
}

type sseTestEvent struct {
	id, name, data string
	hasID          bool
	retry          string
}

// messages returns the JSON-RPC messages of a JSON body or of the events.
func (a *answer) messages() []map[string]any {
	var out []map[string]any
	add := func(s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			out = append(out, v)
		case []any:
			for _, it := range v {
				if m, ok := it.(map[string]any); ok {
					out = append(out, m)
				}
			}
		}
	}
	if strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
		for _, ev := range a.events {
			add(ev.data)
		}
		return out
	}
	add(a.body)
	return out
}

// readEvents parses an event stream the way the SSE standard does,
// noting a last event cut short.
func readEvents(r io.Reader) ([]sseTestEvent, bool) {
	var out []sseTestEvent
	var cur sseTestEvent
	var data []string
	pending := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			cur.data = strings.Join(data, "\n")
			out = append(out, cur)
			cur, data, pending = sseTestEvent{}, nil, false
			continue
		}
		pending = true
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			cur.id, cur.hasID = value, true
		case "event":
			cur.name = value
		case "data":
			data = append(data, value)
		case "retry":
			cur.retry = value
		}
	}
	return out, pending
}

func (c *httpClient) do(method, body string, extra map[string]string) *answer {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" && c.version >= "2025-06-18" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header[k] = []string{v}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	a := &answer{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a.events, a.cut = readEvents(resp.Body)
	} else {
		b, _ := io.ReadAll(resp.Body)
		a.body = string(b)
	}
	return a
}

func (c *httpClient) initialize(version string) *answer {
	c.t.Helper()
	a := c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, version), nil)
	if a.status != http.StatusOK {
		c.t.Fatalf("initialize: status %d: %s", a.status, a.body)
	}
	c.session, c.version = a.header.Get("Mcp-Session-Id"), version
	if n := c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); n.status != http.StatusAccepted || n.body != "" {
		c.t.Fatalf("notifications/initialized: status %d, body %q; want 202 and no body", n.status, n.body)
	}
	return a
}

// modernCall POSTs a 2026-07-28 request with its headers; extra changes
// them.
func (c *httpClient) modernCall(id int, method, params string, extra map[string]string) *answer {
	c.t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	p := "{" + meta + "}"
	if params != "" {
		p = "{" + params + "," + meta + "}"
	}
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	var m map[string]any
	_ = json.Unmarshal([]byte(p), &m)
	if n, ok := m["name"].(string); ok {
		h["Mcp-Name"] = n
	}
	if u, ok := m["uri"].(string); ok {
		h["Mcp-Name"] = u
	}
	for k, v := range extra {
		h[k] = v
	}
	return c.do(http.MethodPost, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p), h)
}

func errCode(t *testing.T, a *answer) float64 {
	t.Helper()
	for _, m := range a.messages() {
		if e, ok := m["error"].(map[string]any); ok {
			code, _ := e["code"].(float64)
			return code
		}
	}
	t.Fatalf("no error in %d %q %v", a.status, a.body, a.events)
	return 0
}

// TestHTTPSession: a handshake-era session over HTTP from initialize to
// DELETE, with the transport's rules kept at each step.
func TestHTTPSession(t *testing.T) {
	c := &httpClient{t: t, url: startHTTP(t, nil, nil)}
	init := c.initialize("2025-11-25")
	if init.header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("initialize answered with %q, want an SSE stream", init.header.Get("Content-Type"))
	}
	for _, b := range []byte(c.session) {
		if b < 0x21 || b > 0x7e {
			t.Fatalf("session id %q holds 0x%02x", c.session, b)
		}
	}
	a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	if a.status != http.StatusOK || len(a.events) < 2 || a.cut {
		t.Fatalf("tools/list: status %d, %d events, cut %v", a.status, len(a.events), a.cut)
	}
	if p := a.events[0]; !p.hasID || p.data != "" || p.retry == "" {
		t.Errorf("first event %+v, want a priming event: an id, retry and empty data", p)
	}
	if ms := a.messages(); len(ms) != 1 || ms[0]["id"] != float64(2) || ms[0]["result"] == nil {
		t.Errorf("tools/list stream carried %v, want its response alone", ms)
	}
	if a.header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("X-Accel-Buffering %q", a.header.Get("X-Accel-Buffering"))
	}
	sid := c.session
	c.session = ""
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); a.status != http.StatusBadRequest {
		t.Errorf("a ping without the session id: status %d, want 400", a.status)
	}
	c.session = sid
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "1900-01-01"}); a.status != http.StatusBadRequest {
		t.Errorf("a ping naming version 1900-01-01: status %d, want 400", a.status)
	}
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":"x","result":{}}`, nil); a.status != http.StatusAccepted || a.body != "" {
		t.Errorf("a response POSTed: status %d, body %q; want 202 and no body", a.status, a.body)
	}
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/x","params":"no"}`, nil); a.status != http.StatusBadRequest {
		t.Errorf("a notification whose params is a string: status %d, want 400", a.status)
	}
	for _, body := range []string{`[]`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":7}`, `{"jsonrpc":"1.0","method":"notifications/x"}`, `{"jsonrpc":"2.0","method":7}`} {
		// Refused in the POST's own answer, never on another stream.
		if a := c.do(http.MethodPost, body, nil); a.status != http.StatusBadRequest || errCode(t, a) != -32600 {
			t.Errorf("POST %s: status %d, body %q; want 400 with -32600", body, a.status, a.body)
		}
	}
	if a := c.do(http.MethodDelete, "", nil); a.status != http.StatusOK {
		t.Fatalf("DELETE: status %d", a.status)
	}
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, nil); a.status != http.StatusNotFound {
		t.Errorf("a ping in the ended session: status %d, want 404", a.status)
	}
}

// TestHTTPGetStream: the GET stream carries what goes with no request, no
// response; a second GET of the session is refused while one is open.
func TestHTTPGetStream(t *testing.T) {
	c := &httpClient{t: t, url: startHTTP(t, nil, nil)}
	c.initialize("2025-06-18")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: status %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if a := c.do(http.MethodGet, "", nil); a.status != http.StatusConflict {
		t.Errorf("a second GET: status %d, want 409", a.status)
	}
	cancel()
	resp.Body.Close()
	if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil); len(a.messages()) != 1 {
		t.Errorf("ping after the GET: %v", a.messages())
	}
}

// TestHTTPModern: 2026-07-28 requests need no session, carry their
// metadata in headers that must match the body, and get the statuses the
// spec pairs with their errors.
func TestHTTPModern(t *testing.T) {
	c := &httpClient{t: t, url: startHTTP(t, nil, nil)}
	a := c.modernCall(1, "server/discover", "", nil)
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" || a.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("server/discover: %d %q session %q: %s", a.status, a.header.Get("Content-Type"), a.header.Get("Mcp-Session-Id"), a.body)
	}
	for _, tc := range []struct {
		name          string
		id            int
		method, param string
		extra         map[string]string
		status        int
		code          float64
	}{
		{"Mcp-Method disagrees", 2, "tools/list", "", map[string]string{"Mcp-Method": "prompts/list"}, 400, -32020},
		{"Mcp-Method missing", 3, "tools/list", "", map[string]string{"Mcp-Method": ""}, 400, -32020},
		{"version header disagrees", 4, "tools/list", "", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, 400, -32020},
		{"Mcp-Name disagrees", 5, "prompts/get", `"name":"greeting"`, map[string]string{"Mcp-Name": "other"}, 400, -32020},
		{"unknown method", 6, "mcpconform/unknown", "", nil, 404, -32601},
		{"unsupported version", 7, "server/discover", "", map[string]string{"Mcp-Protocol-Version": "1900-01-01"}, 400, -32020},
	} {
		a := c.modernCall(tc.id, tc.method, tc.param, tc.extra)
		if a.status != tc.status || errCode(t, a) != tc.code {
			t.Errorf("%s: status %d, code %v; want %d and %v", tc.name, a.status, errCode(t, a), tc.status, tc.code)
		}
	}
	body := `{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if a := c.do(http.MethodPost, body, map[string]string{"Mcp-Protocol-Version": "1900-01-01", "Mcp-Method": "server/discover"}); a.status != 400 || errCode(t, a) != -32022 {
		t.Errorf("a version no server knows: status %d, code %v; want 400 and -32022", a.status, errCode(t, a))
	}
	body = `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	if a := c.do(http.MethodPost, body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}); a.status != 400 || errCode(t, a) != -32602 {
		t.Errorf("no clientCapabilities: status %d, code %v; want 400 and -32602", a.status, errCode(t, a))
	}
	uri := firstResourceURI(t, c)
	enc := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(uri)) + "?="
	if a := c.modernCall(10, "resources/read", fmt.Sprintf(`"uri":%q`, uri), map[string]string{"Mcp-Name": enc}); a.status != 200 || len(a.messages()) != 1 || a.messages()[0]["result"] == nil {
		t.Errorf("resources/read with Mcp-Name %s: status %d %v", enc, a.status, a.messages())
	}
	if a := c.modernCall(11, "server/discover", "", map[string]string{"Mcp-Protocol-Version": "", "Mcp-Method": "", "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}); a.status != 200 {
		t.Errorf("header names in lower case: status %d: %s", a.status, a.body)
	}
	if a := c.do(http.MethodGet, "", nil); a.status != http.StatusBadRequest {
		t.Errorf("GET without a session of a dual-era server: status %d, want 400", a.status)
	}
	m := &httpClient{t: t, url: startHTTP(t, nil, []string{"only-2026-07-28"})}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if a := m.do(method, "", nil); a.status != http.StatusMethodNotAllowed {
			t.Errorf("%s of a server of 2026-07-28 alone: status %d, want 405", method, a.status)
		}
	}
}

// firstResourceURI lists resources in 2026-07-28 and returns the first.
func firstResourceURI(t *testing.T, c *httpClient) string {
	t.Helper()
	a := c.modernCall(90, "resources/list", "", nil)
	for _, m := range a.messages() {
		if r, ok := m["result"].(map[string]any); ok {
			if rs, ok := r["resources"].([]any); ok && len(rs) > 0 {
				return rs[0].(map[string]any)["uri"].(string)
			}
		}
	}
	t.Fatalf("no resource listed: %v", a.messages())
	return ""
}

// TestHTTPOrigin: a foreign Origin is refused with 403; the machine's own
// pages are served.
func TestHTTPOrigin(t *testing.T) {
	for _, tc := range []struct {
		faults []string
		origin string
		status int
	}{
		{nil, "http://mcpconform.invalid", 403},
		{nil, "http://localhost:3000", 200},
		{nil, "http://127.0.0.1:8080", 200},
		{[]string{"http-origin-400"}, "http://mcpconform.invalid", 400},
		{[]string{"http-origin-ignored"}, "http://mcpconform.invalid", 200},
	} {
		c := &httpClient{t: t, url: startHTTP(t, tc.faults, nil)}
		a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, map[string]string{"Origin": tc.origin})
		if a.status != tc.status {
			t.Errorf("faults %v, Origin %s: status %d, want %d", tc.faults, tc.origin, a.status, tc.status)
		}
	}
}

// TestHTTPFaults: each fault of the HTTP transport breaks its rule, seen
// from a plain client.
func TestHTTPFaults(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	legacy := func(t *testing.T, fault, version string) *httpClient {
		c := &httpClient{t: t, url: startHTTP(t, []string{fault}, nil)}
		c.initialize(version)
		return c
	}
	for _, tc := range []struct {
		fault string
		check func(t *testing.T)
	}{
		{"http-request-text-plain", func(t *testing.T) {
			a := legacy(t, "http-request-text-plain", "2025-11-25").do(http.MethodPost, list, nil)
			if !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
				t.Errorf("Content-Type %q", a.header.Get("Content-Type"))
			}
		}},
		{"http-notice-200", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-notice-200"}, nil)}
			c.session = c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil).header.Get("Mcp-Session-Id")
			if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); a.status != 200 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-refusal-200", func(t *testing.T) {
			a := legacy(t, "http-refusal-200", "2025-11-25").do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/x","params":"no"}`, nil)
			if a.status != 200 || errCode(t, a) != -32600 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-stream-no-response", func(t *testing.T) {
			a := legacy(t, "http-stream-no-response", "2025-06-18").do(http.MethodPost, list, nil)
			if len(a.messages()) != 0 {
				t.Errorf("the stream carried %v", a.messages())
			}
		}},
		{"http-unterminated-event", func(t *testing.T) {
			a := legacy(t, "http-unterminated-event", "2025-11-25").do(http.MethodPost, list, nil)
			if !a.cut || len(a.messages()) != 0 {
				t.Errorf("cut %v, messages %v", a.cut, a.messages())
			}
		}},
		{"http-no-priming", func(t *testing.T) {
			a := legacy(t, "http-no-priming", "2025-11-25").do(http.MethodPost, list, nil)
			if len(a.events) != 1 {
				t.Errorf("%d events", len(a.events))
			}
		}},
		{"http-poll-without-retry", func(t *testing.T) {
			c := legacy(t, "http-poll-without-retry", "2025-11-25")
			a := c.do(http.MethodPost, list, nil)
			if len(a.events) != 1 || a.events[0].retry != "" || len(a.messages()) != 0 {
				t.Fatalf("events %+v", a.events)
			}
			r := c.do(http.MethodGet, "", map[string]string{"Last-Event-Id": a.events[0].id})
			if ms := r.messages(); len(ms) != 1 || ms[0]["id"] != float64(2) {
				t.Errorf("the resumed stream carried %v", ms)
			}
		}},
		{"http-get-404", func(t *testing.T) {
			if a := legacy(t, "http-get-404", "2025-11-25").do(http.MethodGet, "", nil); a.status != 404 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-session-id-space", func(t *testing.T) {
			if c := legacy(t, "http-session-id-space", "2025-11-25"); !strings.Contains(c.session, " ") {
				t.Errorf("session id %q", c.session)
			}
		}},
		{"http-no-session-404", func(t *testing.T) {
			c := legacy(t, "http-no-session-404", "2025-11-25")
			c.session = ""
			if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); a.status != 404 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-delete-keeps-session", func(t *testing.T) {
			c := legacy(t, "http-delete-keeps-session", "2025-11-25")
			c.do(http.MethodDelete, "", nil)
			if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); a.status != 200 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-event-ids-per-stream", func(t *testing.T) {
			c := legacy(t, "http-event-ids-per-stream", "2025-11-25")
			a, b := c.do(http.MethodPost, list, nil), c.do(http.MethodPost, list, nil)
			if a.events[0].id != b.events[0].id {
				t.Errorf("ids %q and %q", a.events[0].id, b.events[0].id)
			}
		}},
		{"http-replay-other-streams", func(t *testing.T) {
			c := legacy(t, "http-replay-other-streams", "2025-11-25")
			c.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil)
			a := c.do(http.MethodPost, list, nil)
			r := c.do(http.MethodGet, "", map[string]string{"Last-Event-Id": a.events[0].id})
			if len(r.messages()) < 2 {
				t.Errorf("the resumed stream replayed %v", r.messages())
			}
		}},
		{"http-version-header-ignored", func(t *testing.T) {
			c := legacy(t, "http-version-header-ignored", "2025-11-25")
			if a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "1900-01-01"}); a.status != 200 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-headers-unchecked", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-headers-unchecked"}, nil)}
			if a := c.modernCall(1, "tools/list", "", map[string]string{"Mcp-Method": "prompts/list"}); a.status != 200 || len(a.messages()) != 1 || a.messages()[0]["result"] == nil {
				t.Errorf("status %d: %v", a.status, a.messages())
			}
		}},
		{"http-unknown-method-200", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-unknown-method-200"}, nil)}
			if a := c.modernCall(1, "mcpconform/unknown", "", nil); a.status != 200 || errCode(t, a) != -32601 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-missing-meta-200", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-missing-meta-200"}, nil)}
			body := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
			if a := c.do(http.MethodPost, body, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}); a.status != 200 || errCode(t, a) != -32602 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-name-not-decoded", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-name-not-decoded"}, nil)}
			uri := firstResourceURI(t, c)
			enc := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(uri)) + "?="
			if a := c.modernCall(1, "resources/read", fmt.Sprintf(`"uri":%q`, uri), map[string]string{"Mcp-Name": enc}); a.status != 400 || errCode(t, a) != -32020 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-modern-get-stream", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-modern-get-stream"}, []string{"only-2026-07-28"})}
			if a := c.do(http.MethodGet, "", nil); a.status != 200 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-no-accel-buffering", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-no-accel-buffering"}, []string{"http-sse-always"})}
			if a := c.modernCall(1, "tools/list", "", nil); a.header.Get("Content-Type") != "text/event-stream" || a.header.Get("X-Accel-Buffering") != "" {
				t.Errorf("%v", a.header)
			}
		}},
		{"http-request-on-stream", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-request-on-stream"}, nil)}
			a := c.modernCall(1, "tools/list", "", nil)
			if ms := a.messages(); len(ms) != 2 || ms[0]["method"] != "ping" {
				t.Errorf("%v", ms)
			}
		}},
		{"http-batch-refused", func(t *testing.T) {
			c := legacy(t, "http-batch-refused", "2025-03-26")
			if a := c.do(http.MethodPost, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, nil); a.status != 400 {
				t.Errorf("status %d", a.status)
			}
		}},
		{"http-protected-no-metadata", func(t *testing.T) {
			c := &httpClient{t: t, url: startHTTP(t, []string{"http-protected-no-metadata"}, nil)}
			a := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
			if a.status != 401 || strings.Contains(a.header.Get("WWW-Authenticate"), "resource_metadata") {
				t.Errorf("status %d, WWW-Authenticate %q", a.status, a.header.Get("WWW-Authenticate"))
			}
		}},
	} {
		t.Run(tc.fault, tc.check)
	}
	for _, f := range HTTPFaults() {
		found := false
		for _, name := range []string{"http-request-text-plain", "http-notice-200", "http-refusal-200", "http-stream-no-response", "http-unterminated-event", "http-no-priming", "http-poll-without-retry", "http-get-404", "http-session-id-space", "http-no-session-404", "http-delete-keeps-session", "http-event-ids-per-stream", "http-replay-other-streams", "http-version-header-ignored", "http-headers-unchecked", "http-unknown-method-200", "http-missing-meta-200", "http-name-not-decoded", "http-modern-get-stream", "http-no-accel-buffering", "http-request-on-stream", "http-batch-refused", "http-protected-no-metadata"} {
			found = found || f.Name == name
		}
		if !found && !strings.HasPrefix(f.Name, "http-origin") && f.Name != "http-stream-left-open" && f.Name != "http-response-on-get" && f.Name != "http-broadcast" {
			t.Errorf("fault %s has no test here", f.Name)
		}
	}
}

// TestHTTPVariants: each legal variant of the HTTP transport behaves as
// it says.
func TestHTTPVariants(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	t.Run("http-json-responses", func(t *testing.T) {
		c := &httpClient{t: t, url: startHTTP(t, nil, []string{"http-json-responses"})}
		c.initialize("2025-11-25")
		if a := c.do(http.MethodPost, list, nil); a.header.Get("Content-Type") != "application/json" || len(a.messages()) != 1 {
			t.Errorf("%q %v", a.header.Get("Content-Type"), a.messages())
		}
	})
	t.Run("http-stateless", func(t *testing.T) {
		c := &httpClient{t: t, url: startHTTP(t, nil, []string{"http-stateless"})}
		c.initialize("2025-11-25")
		if c.session != "" {
			t.Errorf("session id %q", c.session)
		}
		if a := c.do(http.MethodPost, list, nil); len(a.messages()) != 1 || a.messages()[0]["result"] == nil {
			t.Errorf("tools/list: %d %v", a.status, a.messages())
		}
		if a := c.do(http.MethodGet, "", nil); a.status != 405 {
			t.Errorf("GET: status %d", a.status)
		}
	})
	t.Run("http-session-expires", func(t *testing.T) {
		c := &httpClient{t: t, url: startHTTP(t, nil, []string{"http-session-expires"})}
		c.initialize("2025-11-25")
		first := c.session
		for i := 0; i < 2; i++ {
			if a := c.do(http.MethodPost, list, nil); a.status != 404 {
				t.Errorf("tools/list %d in the first session: status %d, want 404", i+1, a.status)
			}
		}
		c.session = ""
		c.initialize("2025-11-25")
		if c.session == "" || c.session == first {
			t.Fatalf("new session id %q (the first was %q)", c.session, first)
		}
		if a := c.do(http.MethodPost, list, nil); a.status != 200 || len(a.messages()) != 1 || a.messages()[0]["result"] == nil {
			t.Errorf("tools/list in the new session: %d %v", a.status, a.messages())
		}
	})
	t.Run("http-no-delete", func(t *testing.T) {
		c := &httpClient{t: t, url: startHTTP(t, nil, []string{"http-no-delete"})}
		c.initialize("2025-11-25")
		if a := c.do(http.MethodDelete, "", nil); a.status != 405 {
			t.Errorf("DELETE: status %d", a.status)
		}
	})
	t.Run("http-event-names", func(t *testing.T) {
		c := &httpClient{t: t, url: startHTTP(t, nil, []string{"http-event-names"})}
		c.initialize("2025-11-25")
		a := c.do(http.MethodPost, list, nil)
		if ev := a.events[len(a.events)-1]; ev.name != "message" {
			t.Errorf("event %+v", ev)
		}
	})
	t.Run("http-protected", func(t *testing.T) {
		url := startHTTP(t, nil, []string{"http-protected"})
		c := &httpClient{t: t, url: url}
		a := c.do(http.MethodPost, list, nil)
		www := a.header.Get("WWW-Authenticate")
		if a.status != 401 || !strings.Contains(www, "resource_metadata=") {
			t.Fatalf("status %d, WWW-Authenticate %q", a.status, www)
		}
		meta := strings.TrimSuffix(strings.SplitN(www, `resource_metadata="`, 2)[1], `", scope="mcp"`)
		resp, err := http.Get(meta)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if as, _ := doc["authorization_servers"].([]any); len(as) == 0 {
			t.Errorf("metadata %v", doc)
		}
		c.header = map[string]string{"Authorization": "Bearer " + mockToken}
		c.initialize("2025-11-25")
	})
}
