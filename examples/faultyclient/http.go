package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/wire"
)

// Over Streamable HTTP (the server's URL as the last argument, no
// MCP_CONFORMANCE_SERVER_COMMAND) every message is a POST of its own; a
// JSON answer or the events of an SSE answer go to the same dispatch as
// the lines of a stdio server. A POST is sent, and its response header
// read, before the next message goes, so that the order of the messages
// is the order of the requests; bodies are read as they come.

// httpConn is the client's side of one HTTP session.
type httpConn struct {
	url    string
	ctx    context.Context
	cancel context.CancelFunc
	bodies sync.WaitGroup

	mu      sync.Mutex
	session string
	lost    bool // the server answered 404 for the session
}

// connect opens the HTTP side of a new session (spawn's counterpart).
func (c *client) connect() {
	ctx, cancel := context.WithCancel(context.Background())
	c.http = &httpConn{url: c.env.url, ctx: ctx, cancel: cancel}
	c.exit = make(chan struct{})
	c.waiting = map[string]chan *wire.Message{}
	c.notes = make(chan *wire.Message, 64)
	c.nextID = 0
}

// header names a header as the client writes it: in lower case with
// -legal http-odd-headers (servers compare names without regard to case).
func (c *client) header(h http.Header, name, value string) {
	if c.legal == "http-odd-headers" {
		h[strings.ToLower(name)] = []string{value}
		return
	}
	h.Set(name, value)
}

// post sends one message.
func (c *client) post(b []byte) {
	msgs, _ := wire.DecodeLine(b)
	var m *wire.Message
	if len(msgs) == 1 {
		m = msgs[0]
	}
	url := c.http.url
	if c.fault == "http-post-elsewhere" && m != nil && m.Method == "notifications/initialized" {
		url = strings.TrimSuffix(url, "/") + "/notifications"
	}
	req, err := http.NewRequestWithContext(c.http.ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		fmt.Fprintf(c.log, "faultyclient: %v\n", err)
		return
	}
	accept := "application/json, text/event-stream"
	switch {
	case c.fault == "http-accept-json-only":
		accept = "application/json"
	case c.legal == "http-odd-headers":
		accept = "application/json, text/event-stream;q=0.9"
	}
	c.header(req.Header, "Accept", accept)
	c.header(req.Header, "Content-Type", "application/json")
	initialize := m != nil && m.Method == "initialize"
	c.http.mu.Lock()
	session := c.http.session
	c.http.mu.Unlock()
	if session != "" && !(c.fault == "http-session-id-dropped" && !initialize) {
		c.header(req.Header, "Mcp-Session-Id", session)
	}
	if c.version != "" && !initialize && c.fault != "http-no-version-header" {
		v := c.version
		if c.fault == "http-other-version-header" {
			v = "2025-06-18"
		}
		c.header(req.Header, "MCP-Protocol-Version", v)
	}
	if c.modern && m != nil && m.Kind() == wire.KindRequest {
		method := m.Method
		if c.fault == "http-wrong-mcp-method" && method != "server/discover" {
			method = "tools/call"
			if m.Method == method {
				method = "tools/list"
			}
		}
		c.header(req.Header, "Mcp-Method", method)
		field := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}[m.Method]
		var name string
		if field != "" && json.Unmarshal(wire.Object(m.Params)[field], &name) == nil {
			c.header(req.Header, "Mcp-Name", headerValue(name))
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(c.log, "faultyclient: POST: %v\n", err)
		return
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && initialize {
		c.http.mu.Lock()
		c.http.session = id
		c.http.mu.Unlock()
	}
	if resp.StatusCode == http.StatusNotFound && session != "" {
		c.http.mu.Lock()
		c.http.lost = true
		c.http.mu.Unlock()
	}
	c.http.bodies.Add(1)
	go func() {
		defer c.http.bodies.Done()
		defer resp.Body.Close()
		got := c.readBody(resp)
		if m != nil && m.Kind() == wire.KindRequest && !got {
			// No answer came in the body (an error status): the waiter
			// gets an error of its own rather than a deadline.
			e, _ := json.Marshal(obj{"jsonrpc": "2.0", "id": m.ID, "error": obj{"code": -32000, "message": fmt.Sprintf("HTTP %d", resp.StatusCode)}})
			c.dispatch(e)
		}
	}()
}

// headerValue is a value as Mcp-Name carries it: as it is when it is
// plain visible ASCII, else in the Base64 sentinel form.
func headerValue(v string) string {
	plain := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// readBody dispatches the messages of a response body and reports
// whether it held a response.
func (c *client) readBody(resp *http.Response) bool {
	got := false
	deliver := func(data []byte) {
		msgs, _ := wire.DecodeLine(data)
		for _, m := range msgs {
			got = got || m.Kind() == wire.KindResponse && m.ID != nil && string(m.ID) != "null"
		}
		if len(msgs) > 0 {
			c.dispatch(data)
		}
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<24))
		if resp.StatusCode < 300 {
			deliver(b)
		}
		return got
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var data []string
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if len(data) > 0 {
				deliver([]byte(strings.Join(data, "\n")))
			}
			data = nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	return got
}

// listen opens the GET stream of a session of the handshake era (a MAY:
// -legal http-no-get does without it).
func (c *client) listen() {
	if c.legal == "http-no-get" || c.modern {
		return
	}
	req, err := http.NewRequestWithContext(c.http.ctx, http.MethodGet, c.http.url, nil)
	if err != nil {
		return
	}
	accept := "text/event-stream"
	if c.fault == "http-get-accept-json" {
		accept = "application/json"
	}
	c.header(req.Header, "Accept", accept)
	c.http.mu.Lock()
	c.header(req.Header, "Mcp-Session-Id", c.http.session)
	c.http.mu.Unlock()
	c.header(req.Header, "MCP-Protocol-Version", c.version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	c.http.bodies.Add(1)
	go func() {
		defer c.http.bodies.Done()
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			c.readBody(resp)
		}
	}()
}

// lostSession reports whether the server answered 404 for the session.
func (c *client) lostSession() bool {
	c.http.mu.Lock()
	defer c.http.mu.Unlock()
	return c.http.lost
}

// renew starts a new session after a 404: a new initialize without a
// session id.
func (c *client) renew() error {
	c.http.mu.Lock()
	c.http.session, c.http.lost = "", false
	c.http.mu.Unlock()
	return c.openLegacy()
}

// hangUp ends the session: a DELETE with its id (none with -fault
// http-no-delete), then the streams are closed.
func (c *client) hangUp() {
	c.http.mu.Lock()
	session, lost := c.http.session, c.http.lost
	c.http.mu.Unlock()
	if session != "" && !lost && c.fault != "http-no-delete" {
		if req, err := http.NewRequest(http.MethodDelete, c.http.url, nil); err == nil {
			c.header(req.Header, "Mcp-Session-Id", session)
			c.header(req.Header, "MCP-Protocol-Version", c.version)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	c.http.cancel()
	c.http.bodies.Wait()
	close(c.exit)
}
