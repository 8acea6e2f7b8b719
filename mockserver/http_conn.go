package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// httpConn is the HTTP transport of one mock (see conn): the frames are
// the bodies of its session's POSTs, and each message goes out on the
// stream of the POST it answers or belongs to (a notification of a
// listen stream, of a progress token, or sent while its request was
// served), else on the session's GET stream, or, with none open, waits
// for one.
type httpConn struct {
	s       *httpSession
	rec     *recorder
	frames  chan frame
	input   chan struct{} // closed when the input ends
	endOnce sync.Once
	gone    chan struct{} // closed when the mock has returned
	gonce   sync.Once
	// discard drops what answers a stateless POST's set-up (its
	// initialize), which no client asked for.
	discard bool

	mu      sync.Mutex
	seq     int
	posts   []*post
	get     *post // the open GET stream
	streams map[int]*post
	backlog [][]byte // messages that waited for a GET stream
	version string   // the version the session's initialize negotiated
}

// maxBacklog bounds the messages kept for a GET stream that may never
// come.
const maxBacklog = 256

func newHTTPConn(s *httpSession) *httpConn {
	return &httpConn{s: s, frames: make(chan frame), input: make(chan struct{}), gone: make(chan struct{}), streams: map[int]*post{}}
}

// errSessionGone says a session ended before its mock took the frame.
var errSessionGone = errors.New("the session has ended")

func (c *httpConn) next() (frame, error) {
	select {
	case f := <-c.frames:
		c.rec.record("in", f.Raw)
		return f, nil
	case <-c.input:
		return frame{}, io.EOF
	}
}

// endInput ends the session's input: the mock finishes as at stdin EOF.
func (c *httpConn) endInput() { c.endOnce.Do(func() { close(c.input) }) }

// finish is called once the mock has returned: every stream still open
// ends.
func (c *httpConn) finish() {
	c.gonce.Do(func() { close(c.gone) })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.posts {
		p.end()
	}
	if c.get != nil {
		c.get.end()
	}
}

// push hands a body to the mock as a frame, registering p (when the body
// holds requests) to receive what answers it.
func (c *httpConn) push(ctx context.Context, raw []byte, p *post) error {
	c.mu.Lock()
	c.seq++
	f := frame{seq: c.seq, Line: &wire.Line{Raw: raw, Len: len(raw)}}
	if p != nil {
		p.seq = c.seq
		c.posts = append(c.posts, p)
	}
	c.mu.Unlock()
	select {
	case c.frames <- f:
		return nil
	case <-c.input:
	case <-c.gone:
	case <-ctx.Done():
	}
	if p != nil {
		c.mu.Lock()
		c.drop(p)
		c.mu.Unlock()
	}
	return errSessionGone
}

// drop forgets a post; c.mu is held.
func (c *httpConn) drop(p *post) {
	for i, q := range c.posts {
		if q == p {
			c.posts = append(c.posts[:i:i], c.posts[i+1:]...)
			return
		}
	}
}

// post is a stream of the session: the answer to a POST of requests, or
// the GET stream. Messages routed to it queue until its writer takes them.
type post struct {
	seq    int
	n      int             // the stream's number, in its event ids
	method string          // the method of its (first) request
	ids    map[string]bool // requests not answered yet, by wire.IDKey
	all    map[string]bool // every request id it carried
	raw    map[string]bool // ... as the JSON the client wrote
	tokens map[string]bool // the progress tokens of its requests
	mode   string          // "json", "sse", or "lazy": decided by the first message (2026-07-28)
	modern bool
	// missingMeta: a 2026-07-28 request without a required _meta field,
	// whose -32602 goes with 400.
	missingMeta bool
	queue       [][]byte
	answers     bool // a message that answers a request came
	done        bool // every request answered, or the session ended
	wake        chan struct{}
	// events are the stream's events as written (for resumption); k
	// numbers the next.
	events []sseEvent
	k      int
}

type sseEvent struct {
	id   string
	data []byte
}

func newPost(b *body, mode string, modern bool) *post {
	p := &post{method: b.method, ids: map[string]bool{}, all: map[string]bool{}, raw: map[string]bool{}, tokens: map[string]bool{}, mode: mode, modern: modern, wake: make(chan struct{}, 1)}
	for _, id := range b.requests {
		p.ids[wire.IDKey(id)], p.all[wire.IDKey(id)], p.raw[string(id)] = true, true, true
	}
	for _, m := range b.msgs {
		meta := wire.Object(wire.Object(m["params"])["_meta"])
		_, version := meta[wire.MetaProtocolVersion]
		_, caps := meta[wire.MetaClientCapabilities]
		p.missingMeta = p.missingMeta || modern && (!version || !caps)
		if tok, ok := wire.Object(wire.Object(m["params"])["_meta"])["progressToken"]; ok {
			p.tokens[wire.IDKey(tok)] = true
		}
	}
	return p
}

func (p *post) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// end marks the stream over; c.mu is held.
func (p *post) end() {
	p.done = true
	p.signal()
}

// take returns what queued for the stream and whether it is over.
func (c *httpConn) take(p *post) ([][]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := p.queue
	p.queue = nil
	return q, p.done
}

// outKind is what routing needs to know of a message the mock wrote.
type outKind struct {
	responses []string // the ids it answers (a batch: several)
	response  bool
	request   bool
	subID     string // the listen stream a notification belongs to
	token     string // the progress token it reports on
	version   string // an initialize result's protocolVersion
}

func classify(data []byte) outKind {
	var m outKind
	var items []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		_ = json.Unmarshal(data, &items)
	} else {
		items = []json.RawMessage{data}
	}
	for _, it := range items {
		obj := wire.Object(it)
		_, method := obj["method"]
		id, hasID := obj["id"]
		switch {
		case method && hasID:
			m.request = true
		case method:
			params := wire.Object(obj["params"])
			if s := wire.Object(params["_meta"])[wire.MetaSubscriptionID]; s != nil {
				m.subID = wire.IDKey(s)
			}
			if t, ok := params["progressToken"]; ok {
				m.token = wire.IDKey(t)
			}
		default:
			m.response = true
			m.responses = append(m.responses, wire.IDKey(id))
			if v, ok := wire.String(wire.Object(obj["result"])["protocolVersion"]); ok {
				m.version = v
			}
		}
	}
	return m
}

// send routes one message of the mock.
func (c *httpConn) send(m outFrame) {
	c.rec.record("out", m.data)
	data := m.data
	if m.pretty {
		var ind bytes.Buffer
		if json.Indent(&ind, data, "", "  ") == nil {
			data = ind.Bytes()
		}
	}
	msg := classify(m.data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if msg.version != "" && c.version == "" {
		c.version = msg.version
	}
	if c.discard && msg.response {
		for _, id := range msg.responses {
			if id == wire.IDKey(json.RawMessage(`"mcpconform-mock-stateless"`)) {
				return
			}
		}
	}
	p := c.route(msg, m.re)
	faults := c.s.h.faults
	if p != nil && msg.response && c.get != nil && !c.get.done {
		switch {
		case faults.has("http-response-on-get") && p.method == "tools/list":
			c.deliver(c.get, data, false)
			for _, id := range msg.responses {
				delete(p.ids, id)
			}
			p.end()
			return
		case faults.has("http-broadcast"):
			c.deliver(c.get, data, false)
		}
	}
	if p == nil {
		c.toGet(data)
		return
	}
	c.deliver(p, data, msg.response)
	if msg.response {
		for _, id := range msg.responses {
			delete(p.ids, id)
		}
		if len(p.ids) == 0 || len(msg.responses) == 1 && !p.all[msg.responses[0]] {
			// Answered, or refused as a whole (an error with a null id).
			p.end()
		}
	}
}

// route finds the stream a message goes on; c.mu is held.
func (c *httpConn) route(msg outKind, re int) *post {
	var current *post
	for _, p := range c.posts {
		if p.seq == re && !p.done {
			current = p
		}
	}
	switch {
	case msg.response:
		for _, id := range msg.responses {
			if current != nil && current.ids[id] {
				return current
			}
		}
		for _, p := range c.posts {
			for _, id := range msg.responses {
				if !p.done && p.ids[id] {
					return p
				}
			}
		}
		return current
	case msg.subID != "":
		for _, p := range c.posts {
			if !p.done && p.all[msg.subID] {
				return p
			}
		}
	case msg.token != "":
		for _, p := range c.posts {
			if !p.done && p.tokens[msg.token] {
				return p
			}
		}
	}
	if current != nil && current.mode != "json" && !(msg.request && current.modern) {
		return current
	}
	return nil
}

// deliver queues a message on a stream; c.mu is held.
func (c *httpConn) deliver(p *post, data []byte, answers bool) {
	if p.mode == "json" && !answers && p != c.get {
		c.toGet(data)
		return
	}
	p.queue = append(p.queue, data)
	p.answers = p.answers || answers
	p.signal()
}

// toGet sends a message on the GET stream, or keeps it for one; c.mu is
// held.
func (c *httpConn) toGet(data []byte) {
	if c.discard {
		return
	}
	if c.get != nil && !c.get.done {
		c.deliver(c.get, data, false)
		return
	}
	if len(c.backlog) < maxBacklog {
		c.backlog = append(c.backlog, data)
	}
}

func (c *httpConn) raw(b []byte, terminate bool) { c.rec.record("out", b) }

func (c *httpConn) endless(head, chunk []byte, pause time.Duration) {
	c.rec.record("out", head)
	<-c.gone
}

func (c *httpConn) failed() error { return nil }

// newStream numbers a stream and registers it for resumption.
func (c *httpConn) newStream(p *post) {
	h := c.s.h
	h.mu.Lock()
	h.streams++
	p.n = h.streams
	h.mu.Unlock()
	c.mu.Lock()
	c.streams[p.n] = p
	c.mu.Unlock()
}

// answer writes the answer to a POST of requests: one JSON body, or an
// SSE stream of what the mock sends for them until the last is answered.
func (c *httpConn) answer(w http.ResponseWriter, r *http.Request, b *body) {
	h := c.s.h
	modern := b.modern(r)
	mode := "sse"
	switch {
	case h.variants.has("http-json-responses") && b.method != "subscriptions/listen", h.faults.has("http-request-text-plain") && b.method != "initialize":
		// A listen stream is a stream whatever the variant: its
		// notifications have nowhere else to go.
		mode = "json"
	case h.variants.has("http-sse-always"), modern && h.faults.has("http-request-on-stream"):
	case modern:
		mode = "lazy"
	}
	p := newPost(b, mode, modern)
	c.lead(p, b)
	if err := c.push(r.Context(), b.raw, p); err != nil {
		h.write(w, &httpError{status: http.StatusNotFound, code: -32001, msg: "Session not found"})
		return
	}
	first, done := c.wait(r.Context(), p)
	final := done && len(first) == 1 && p.answers // the answer came first, and alone
	switch {
	case mode == "lazy" && final:
		mode = "json"
	case mode == "lazy":
		mode = "sse"
	case final && c.status(p, first[0]) != http.StatusOK:
		// A status the spec pairs with the error must go in the header,
		// which a stream has sent already.
		mode = "json"
	}
	if mode == "json" {
		c.writeJSON(w, r, p, first, done)
		return
	}
	c.stream(w, r, p, first, done)
}

// lead queues the messages HTTPOptions.Lead gives for a POST of the
// handshake era, before the mock gets the POST, so that they go out
// ahead of its answer.
func (c *httpConn) lead(p *post, b *body) {
	h := c.s.h
	if h.lead == nil || p.modern || c.s.id == "" {
		return
	}
	msgs := h.lead(c.s.id, b.raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		if c.get != nil && !c.get.done {
			c.deliver(c.get, m, false)
		} else {
			c.deliver(p, m, false)
		}
	}
}

// forget ends a stream the client has left or that is over. A stream of
// the handshake era left before its end stays, for a GET to resume it
// with Last-Event-ID; in 2026-07-28, which resumes nothing, closing the
// stream cancels its request ("Closing the SSE response stream MUST be
// treated by the server as cancellation of that request"), so the mock
// gets notifications/cancelled for it.
func (c *httpConn) forget(ctx context.Context, p *post) {
	c.mu.Lock()
	over := p.done
	if over || p.modern {
		c.drop(p)
	}
	c.mu.Unlock()
	if over || !p.modern || ctx.Err() == nil {
		return
	}
	for id := range p.raw {
		cancel := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"the client closed the stream"}}`)
		go func() { _ = c.push(context.Background(), cancel, nil) }()
	}
}

// wait waits for the first messages of a stream, or its end.
func (c *httpConn) wait(ctx context.Context, p *post) ([][]byte, bool) {
	for {
		q, done := c.take(p)
		if len(q) > 0 || done {
			return q, done
		}
		select {
		case <-p.wake:
		case <-ctx.Done():
			return nil, true
		case <-c.gone:
		}
	}
}

// writeJSON answers with one JSON body: the response, once every request
// of the POST is answered.
func (c *httpConn) writeJSON(w http.ResponseWriter, r *http.Request, p *post, got [][]byte, done bool) {
	defer c.forget(r.Context(), p)
	for !done {
		more, d := c.wait(r.Context(), p)
		got, done = append(got, more...), d
	}
	if len(got) == 0 {
		c.s.h.write(w, &httpError{status: http.StatusInternalServerError, code: wire.CodeInternalError, msg: "the session ended before its answer"})
		return
	}
	ct := "application/json"
	if c.s.h.faults.has("http-request-text-plain") && p.method != "initialize" {
		ct = "text/plain; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(c.status(p, got[0]))
	_, _ = w.Write(got[0])
	for _, more := range got[1:] {
		c.mu.Lock()
		c.toGet(more)
		c.mu.Unlock()
	}
}

// status is the HTTP status of a 2026-07-28 answer: the error codes that
// name one keep it ("400 Bad Request and an UnsupportedProtocolVersionError",
// "404 Not Found and a JSON-RPC error with code -32601", ...). Any other
// answer, and every one of the handshake era, is 200.
func (c *httpConn) status(p *post, data []byte) int {
	if !p.modern {
		return http.StatusOK
	}
	var code int64
	ok := false
	if m, err := wire.DecodeMessage(data); err == nil {
		if e := m.DecodeError(); e != nil {
			code, ok = e.IntCode()
		}
	}
	f := c.s.h.faults
	switch {
	case !ok:
	case code == wire.CodeMethodNotFound && !f.has("http-unknown-method-200"):
		return http.StatusNotFound
	case code == wire.CodeUnsupportedProtocolVersion && !f.has("http-version-header-ignored"),
		code == wire.CodeMissingClientCapability, code == wire.CodeHeaderMismatch:
		return http.StatusBadRequest
	case code == wire.CodeInvalidParams && p.missingMeta && !f.has("http-missing-meta-200"):
		return http.StatusBadRequest
	}
	return http.StatusOK
}
