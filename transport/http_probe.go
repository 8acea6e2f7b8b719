package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// HTTPEdit changes the header of one request a probe sends, after the
// transport built it as it builds every request of the session.
type HTTPEdit struct {
	// Set are fields set, each replacing the fields of its name.
	Set transcript.Header
	// Drop names fields left out.
	Drop []string
	// LowerCase writes the names of the MCP fields (Mcp-*, MCP-*) in
	// lower case.
	LowerCase bool
}

// apply changes f as e says.
func (e HTTPEdit) apply(f *fields) {
	for _, n := range e.Drop {
		f.del(n)
	}
	for _, h := range e.Set {
		f.set(h.Name, h.Value)
	}
	if !e.LowerCase {
		return
	}
	for i, n := range f.names {
		if strings.HasPrefix(strings.ToLower(n), "mcp-") {
			low := strings.ToLower(n)
			f.values[low] = f.values[n]
			if low != n {
				delete(f.values, n)
			}
			f.names[i] = low
		}
	}
}

// HTTPProbe is a request of the harness's own, outside the session's
// traffic of messages: a GET or a DELETE, with no body.
type HTTPProbe struct {
	// Tag is recorded on the request's entry (transcript.Entry.Tag).
	Tag string
	// Method is GET or DELETE.
	Method string
	// Path, when set, is the path requested instead of the endpoint's,
	// on the endpoint's own host (a well-known URI).
	Path string
	// Edit changes the header the transport builds for it.
	Edit HTTPEdit
	// NoSession leaves out the session id and the version header: a
	// request of no session.
	NoSession bool
	// Window bounds how long the response is read once its header came:
	// past it the harness closes it (0: until the session ends). Events,
	// when positive, ends it once that many server-sent events were read.
	Window time.Duration
	Events int
}

// HTTPProber is a connection that sends the HTTP transport's probes: the
// session's Streamable HTTP connection.
type HTTPProber interface {
	// Edit changes the header of the POST that will carry the request
	// with id, once.
	Edit(id json.RawMessage, e HTTPEdit)
	// Probe sends r and returns once its response's header came or the
	// exchange failed, at most wait; the rest of the response is read in
	// the background, as r's Window says. It returns the exchange's
	// number, or an error when the session is closed.
	Probe(r HTTPProbe, wait time.Duration) (*ProbeHandle, error)
	// Session is the session id the server issued ("" for none).
	Session() string
}

// ProbeHandle is a probe's exchange under way.
type ProbeHandle struct {
	ex *exchange
}

// Done is closed once the exchange ended and the transcript holds all of
// it.
func (h *ProbeHandle) Done() <-chan struct{} { return h.ex.recorded }

// Stop ends the exchange, for the reason given.
func (h *ProbeHandle) Stop(why string) { h.ex.stop(why) }

// Edit keeps e for the POST that will carry the request id.
func (c *httpConn) Edit(id json.RawMessage, e HTTPEdit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.edits == nil {
		c.edits = map[string]HTTPEdit{}
	}
	c.edits[wire.IDKey(id)] = e
}

// editFor takes the edit kept for the first request of ids; c.mu is held.
func (c *httpConn) editFor(ids []json.RawMessage) (HTTPEdit, bool) {
	if len(ids) == 0 || c.edits == nil {
		return HTTPEdit{}, false
	}
	k := wire.IDKey(ids[0])
	e, ok := c.edits[k]
	delete(c.edits, k)
	return e, ok
}

// sessionDeleted reports whether a probe ended the session with DELETE: its
// streams are not resumed.
func (c *httpConn) sessionDeleted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deleted
}

// Session returns the session id the server issued.
func (c *httpConn) Session() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// errProbeClosed says a probe came after the session was closed.
var errProbeClosed = errors.New("the session is closed")

// Probe sends a probe's request.
func (c *httpConn) Probe(r HTTPProbe, wait time.Duration) (*ProbeHandle, error) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil, errProbeClosed
	}
	u := c.url
	if r.Path != "" {
		ref, err := c.url.Parse(r.Path)
		if err != nil || ref.Host != c.url.Host || ref.Scheme != c.url.Scheme {
			c.mu.Unlock()
			return nil, fmt.Errorf("%q is not on the endpoint's host", r.Path)
		}
		u = ref
	}
	f := newFields()
	f.set(hdrUserAgent, userAgent)
	if r.Method == http.MethodGet {
		f.set(hdrAccept, "text/event-stream")
	}
	if !r.NoSession {
		if c.version != "" && wire.AtLeast(c.version, wire.V20250618) {
			f.set(hdrProtocolVersion, c.version)
		}
		if c.session != "" {
			f.set(hdrSessionID, c.session)
		}
	}
	c.userFields(f)
	r.Edit.apply(f)
	if r.Method == http.MethodDelete && !r.NoSession {
		// The session the probe ends is not ended again at Close; and its
		// own GET stream, opened as it began, is answered first, so that
		// the GET is judged as the live session's.
		c.deleted = true
		if l := c.listenEx; l != nil {
			c.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-l.head:
			case <-t.C:
			}
			t.Stop()
			c.mu.Lock()
		}
	}
	c.exchanges++
	ex := &exchange{c: c, n: c.exchanges, method: r.Method, url: u, fields: f, events: r.Events, recorded: make(chan struct{})}
	c.mu.Unlock()
	ex.init(c.ctx)
	c.push(item{events: []transcript.Event{{HTTPRequest: ex.event(-1)}}, tag: r.Tag})
	c.running.Add(1)
	go ex.run()
	if r.Window > 0 {
		go func() {
			select {
			case <-ex.head:
			case <-ex.finished:
				return
			}
			t := time.NewTimer(r.Window)
			defer t.Stop()
			select {
			case <-t.C:
				ex.stop(fmt.Sprintf("closed by the harness: the probe reads %s of it", r.Window))
			case <-ex.finished:
			}
		}()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ex.head:
	case <-t.C:
		// Its header, when it comes, gets the request deadline, as a
		// request's does.
		ex.boundHead()
	}
	return &ProbeHandle{ex: ex}, nil
}
