package transport

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// HTTP is an MCP endpoint spoken to over Streamable HTTP. Its Dial opens
// one session: every frame the client writes is a POST to the endpoint,
// answered by a JSON body or a server-sent event stream whose events
// carry frames back; once a handshake-era session is initialized, a GET
// stream listens for what the server sends on its own; the session ends
// with a DELETE when the server issued a session id. Everything is
// recorded as the transcript's HTTP events (transcript/http.go), exactly
// as it went on the wire: each request's line and header, each
// response's status line and header, body bytes that carry no message,
// every server-sent event's fields and whether its blank line came.
//
// Only the endpoint's own host is ever contacted: a redirect elsewhere is
// recorded, not followed.
type HTTP struct {
	// URL is the endpoint: an http or https URL.
	URL string
	// Header are fields added to every request (--header): a field named
	// like one the transport sets replaces it.
	Header transcript.Header
	// DialContext, when set, opens the byte stream of every HTTP
	// connection instead of a TCP connection to the URL's host: a Unix
	// socket (UnixSocket), an in-memory pipe in tests.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Server, when set, is the server process behind the endpoint, which
	// the harness launched: its exit ends every session, as a stdio
	// server's exit ends its connection.
	Server *Launched
	// NoListen leaves out the GET stream a handshake-era session opens
	// once initialized; ListenTag, when set, is the tag of that GET's
	// entry (a probe that needs the stream names it).
	NoListen  bool
	ListenTag string
	// TLS, when set, is the TLS configuration of an https URL (the roots
	// that trust a test server's certificate); HTTP/1.1 is always asked.
	TLS *tls.Config
}

// UnixSocket returns a dial that reaches path, a Unix socket, whatever
// address is asked: HTTP over a local byte stream, with the URL's host
// (localhost) only in the Host header.
func UnixSocket(path string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}

// Limits of an HTTP session, besides the frame size and the request
// deadline it shares with stdio.
const (
	// maxResponseHeader bounds a response's header: a server sending an
	// endless one is cut there.
	maxResponseHeader = 1 << 20
	// maxRedirects bounds the redirects followed for one request (a
	// redirect loop ends there).
	maxRedirects = 5
	// maxReconnects bounds how often a stream the server closed before
	// it ended is resumed (GET with Last-Event-ID).
	maxReconnects = 3
	// maxRetryWait bounds the wait a retry field asks before a resumption.
	maxRetryWait = 5 * time.Second
	// maxPlainEvents bounds the server-sent events that carry no message
	// recorded in one session: past it a stream is closed.
	maxPlainEvents = 10_000
	// queueLen is how many frames and events may wait to be read.
	queueLen = 128
)

// Dial opens a session with the endpoint. No request is sent until the
// client writes its first frame.
func (h HTTP) Dial(ctx context.Context, opts DialOptions) (Conn, error) {
	u, err := url.Parse(h.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http or https URL", ErrStart, h.URL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = 64 << 20
	}
	dial := h.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: opts.Timeout}
		dial = d.DialContext
	}
	c := &httpConn{
		cfg:     h,
		url:     u,
		rec:     opts.Transcript,
		max:     opts.MaxFrame,
		timeout: opts.Timeout,
		items:   make(chan item, queueLen),
		done:    make(chan struct{}),
		quit:    make(chan struct{}),
		hurryCh: make(chan struct{}),
		streams: map[string]*exchange{},
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.tr = &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &captureConn{Conn: nc, read: &c.read}, nil
		},
		// A gzip bomb stays a few compressed bytes: nothing is decompressed
		// (and no Accept-Encoding is sent).
		DisableCompression:     true,
		MaxResponseHeaderBytes: maxResponseHeader,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        30 * time.Second,
		TLSHandshakeTimeout:    opts.Timeout,
	}
	if u.Scheme == "https" {
		// The TLS connection is wrapped, not the socket under it, so that
		// what is captured is the plain HTTP.
		c.tr.DialContext = nil
		c.tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			host, _, _ := net.SplitHostPort(addr)
			tc := tlsClient(nc, host, h.TLS)
			if err := tc.HandshakeContext(ctx); err != nil {
				nc.Close()
				return nil, err
			}
			return &captureConn{Conn: tc, read: &c.read}, nil
		}
	}
	c.client = &http.Client{
		Transport: c.tr,
		// Redirects are followed by the exchange itself, which records
		// each one and never leaves the endpoint's host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if h.Server != nil {
		go func() {
			select {
			case <-h.Server.Done():
				c.end(ExitInfo{}, "")
			case <-c.quit:
			}
		}()
	}
	return c, nil
}

// httpConn is one session with a Streamable HTTP endpoint.
type httpConn struct {
	cfg     HTTP
	url     *url.URL
	rec     *transcript.Transcript
	max     int
	timeout time.Duration
	tr      *http.Transport
	client  *http.Client

	// ctx ends every exchange (Close, Stop).
	ctx    context.Context
	cancel context.CancelFunc
	// items are the frames and events the exchanges produced, in order,
	// waiting for Read; running counts the exchanges still producing.
	items   chan item
	running sync.WaitGroup
	quit    chan struct{} // closed once Read may return EOF when items is empty
	// read counts the bytes read from the server in all.
	read atomic.Int64

	mu        sync.Mutex
	exchanges int                  // the last exchange number given
	next      *prepared            // the request Announce prepared for the next Write
	session   string               // the Mcp-Session-Id the server issued
	version   string               // the version an initialize negotiated
	listening bool                 // the GET stream was opened
	streams   map[string]*exchange // the open exchange carrying each request id
	tools     map[string][]paramHeader
	plain     int  // server-sent events recorded that carried no message
	closing   bool // Close began: no more writes
	// modernSeen: a request named 2026-07-28 in its _meta.
	modernSeen bool
	// edits change the header of the POST of a request, by its id
	// (HTTPProber.Edit); deleted: a probe ended the session with DELETE.
	edits   map[string]HTTPEdit
	deleted bool
	// lingering are the streams that carried every response they owed
	// and were still open then (exchange.linger).
	lingering []chan struct{}
	// last is the last GET opened; listenEx, the session's own GET stream.
	last, listenEx *exchange
	quitOnce       sync.Once

	endMu   sync.Mutex
	ended   bool
	exit    ExitInfo
	done    chan struct{}
	stage   transcript.Stage
	closeAt time.Time
	hurried bool
	hurryCh chan struct{}
	grace   time.Duration
}

// item is what an exchange hands to Read: events to record, or a frame
// with the events that carried it, or requests it ended without
// answering.
type item struct {
	events []transcript.Event
	tag    string // of the first event's entry: a probe's request
	// after, when set, is called once Read has recorded everything
	// pushed before the item.
	after      func()
	line       *wire.Line
	unanswered *Unanswered
}

func (c *httpConn) Transport() string { return "http" }

// push hands an item to Read, unless Read is no longer expected to take
// any (the session was abandoned).
func (c *httpConn) push(it item) {
	select {
	case c.items <- it:
	case <-c.quit:
	}
}

// record pushes events alone.
func (c *httpConn) record(evs ...transcript.Event) { c.push(item{events: evs}) }

// Read returns the next frame, recording on the way the events that come
// alone; io.EOF once the session has ended and everything was read.
func (c *httpConn) Read() (Frame, error) {
	for {
		var it item
		select {
		case it = <-c.items:
		case <-c.quit:
			select {
			case it = <-c.items:
			default:
				return Frame{}, io.EOF
			}
		}
		switch {
		case it.after != nil:
			it.after()
			continue
		case it.line != nil:
			// More stays unset: frames of different exchanges did not
			// arrive together, and what waits may be events alone.
			return Frame{Line: it.line, Events: it.events}, nil
		case it.unanswered != nil:
			for _, ev := range it.events {
				c.rec.Event(ev)
			}
			return Frame{Unanswered: it.unanswered}, nil
		}
		for i := range it.events {
			e := transcript.Entry{Dir: transcript.Note, Event: &it.events[i]}
			if i == 0 {
				e.Tag = it.tag
			}
			c.rec.Add(e)
		}
	}
}

// Arriving reports no pending bytes: each exchange reads its own stream,
// and a frame still arriving on one holds up no other, so no deadline
// waits on it.
func (c *httpConn) Arriving() (pending, read int64) { return 0, c.read.Load() }

func (c *httpConn) Done() <-chan struct{} { return c.done }

// End says how the session ended: its server's exit (a launched server),
// the server going away (a refused connection), or the harness ending it.
func (c *httpConn) End(time.Duration) ExitInfo {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	if !c.ended {
		return ExitInfo{}
	}
	return c.exit
}

// end records that the session ended: the server's process exited (info
// zero: it is asked), or the server went away (why says how).
func (c *httpConn) end(info ExitInfo, why string) {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	if c.ended {
		return
	}
	switch {
	case c.cfg.Server != nil && c.stage != transcript.Stopped:
		select {
		case <-c.cfg.Server.Done():
			info = c.cfg.Server.End(0)
		default:
			info = ExitInfo{Exited: true, Hangup: true, Stage: string(c.stageOr(transcript.SessionEnded))}
		}
	case info.Exited:
	default:
		info = ExitInfo{Exited: true, Hangup: true, Stage: string(c.stageOr(transcript.BeforeShutdown))}
	}
	if !c.closeAt.IsZero() && info.Stage != string(transcript.BeforeShutdown) {
		info.AfterShutdown = time.Since(c.closeAt)
		info.Hurried, info.Grace = c.hurried, c.grace
	}
	c.ended, c.exit = true, info
	close(c.done)
	if why != "" {
		go c.record(transcript.Event{Text: "the session ended: " + why})
	}
}

func (c *httpConn) stageOr(s transcript.Stage) transcript.Stage {
	if c.stage != "" {
		return c.stage
	}
	return s
}

// gone reports whether err says the server is not there at all (nothing
// listens): the session has ended.
func gone(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// prepared is a request Announce built for the frame that Write sends.
type prepared struct {
	frame []byte
	facts frameFacts
	ex    *exchange
	// skip says why the frame goes out in no request (a 2026-07-28
	// cancellation, which closes the stream instead).
	skip   string
	cancel *exchange
}

// Announce builds the POST that will carry frame and returns its request
// line and header, to be recorded right before the frame.
func (c *httpConn) Announce(frame []byte) []transcript.Event {
	facts := readFrame(frame)
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &prepared{frame: frame, facts: facts}
	c.next = p
	if facts.cancels != nil {
		// 2026-07-28: "closing the SSE response stream is itself the
		// cancellation signal and no notifications/cancelled message is
		// expected".
		if ex := c.streams[wire.IDKey(facts.cancels)]; ex != nil && ex.modern {
			p.skip = fmt.Sprintf("not posted: over Streamable HTTP in %s a request is cancelled by closing its response stream; the harness closed the stream of exchange %d", wire.Modern, ex.n)
			p.cancel = ex
			return []transcript.Event{{Text: p.skip}}
		}
	}
	if facts.responses && c.version == "" && c.modernLocked() {
		p.skip = fmt.Sprintf("not posted: in %s a client sends no JSON-RPC responses over Streamable HTTP", wire.Modern)
		return []transcript.Event{{Text: p.skip}}
	}
	f := c.postFields(facts)
	if e, ok := c.editFor(facts.ids); ok {
		e.apply(f)
	}
	c.exchanges++
	p.ex = &exchange{c: c, n: c.exchanges, method: http.MethodPost, url: c.url, fields: f, body: frame, rpc: facts.method, ids: facts.ids, modern: facts.modern != "", initialize: facts.initialize}
	return []transcript.Event{{HTTPRequest: p.ex.event(len(frame))}}
}

// modernLocked reports whether the session speaks 2026-07-28: no
// initialize was answered, and its requests carry the version in _meta.
func (c *httpConn) modernLocked() bool { return c.version == "" && c.modernSeen }

// postFields builds the header of a POST carrying a frame.
func (c *httpConn) postFields(facts frameFacts) *fields {
	f := newFields()
	f.set(hdrUserAgent, userAgent)
	f.set(hdrAccept, "application/json, text/event-stream")
	f.set(hdrContentType, "application/json")
	switch {
	case facts.modern != "":
		c.modernSeen = true
		// The request metadata headers (2026-07-28): the version the
		// body's _meta names, the method, and the name it acts on.
		f.set(hdrProtocolVersion, facts.modern)
		if facts.request {
			f.set(hdrMethod, facts.method)
			if facts.hasName {
				f.set(hdrName, headerValue(facts.name))
			}
			if facts.method == "tools/call" {
				for _, ph := range c.tools[facts.name] {
					if v, ok := paramValue(wire.Object(facts.params)["arguments"], ph.path); ok {
						f.set(hdrParamPrefix+ph.name, v)
					}
				}
			}
		}
	case c.modernLocked() && facts.method != "" && !facts.initialize:
		// A message of a 2026-07-28 session whose body names no version
		// (a probe of a malformed envelope): the headers still say what
		// a client of the session's version always says.
		f.set(hdrProtocolVersion, wire.Modern)
		if facts.request {
			f.set(hdrMethod, facts.method)
		}
	case c.version != "" && wire.AtLeast(c.version, wire.V20250618):
		// "the client MUST include the MCP-Protocol-Version:
		// <protocol-version> HTTP header on all subsequent requests".
		f.set(hdrProtocolVersion, c.version)
	}
	if c.session != "" && facts.modern == "" {
		// A second initialize in the session carries it too: it is the
		// same session's, as a second initialize on a stdio connection.
		f.set(hdrSessionID, c.session)
	}
	c.userFields(f)
	return f
}

// userFields adds the user's --header fields, each replacing a field of
// the same name.
func (c *httpConn) userFields(f *fields) {
	for _, h := range c.cfg.Header {
		f.set(h.Name, h.Value)
	}
}

// Write sends the frame Announce prepared (or, unannounced, prepares it
// now) as a POST, and returns once its body has gone out; a frame that
// carries no request waits for the response's status too, as a server
// may act on it only then (notifications/initialized before the next
// request). The response is read in the background.
func (c *httpConn) Write(frame []byte, timeout time.Duration) error {
	c.mu.Lock()
	p := c.next
	c.next = nil
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return errors.New("the session is closed")
	}
	if p == nil || !sameFrame(p.frame, frame) {
		evs := c.Announce(frame)
		c.record(evs...)
		c.mu.Lock()
		p, c.next = c.next, nil
		c.mu.Unlock()
	}
	if p.skip != "" {
		if p.cancel != nil {
			p.cancel.stop("closed by the harness to cancel the request")
		}
		return nil
	}
	select {
	case <-c.done:
		return fmt.Errorf("the server is gone (%s)", c.End(0))
	default:
	}
	ex := p.ex
	ex.init(c.ctx)
	c.mu.Lock()
	for _, id := range ex.ids {
		c.streams[wire.IDKey(id)] = ex
	}
	c.mu.Unlock()
	c.running.Add(1)
	go ex.run()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-ex.wrote:
		if err != nil {
			return err
		}
	case <-t.C:
		ex.stop("the harness gave up: the server took none of the request within " + timeout.String())
		return fmt.Errorf("the server took none of the request within %s", timeout)
	}
	if len(ex.ids) == 0 {
		// The server must have taken notifications/initialized before the
		// requests that follow; any other message is waited for a moment
		// only, as a slow answer to it holds up every write.
		wait := min(timeout, noticeWait)
		if p.facts.method == "notifications/initialized" {
			wait = timeout
		}
		h := time.NewTimer(wait)
		select {
		case <-ex.head:
		case <-h.C:
			// Nothing waits for it any more: its header gets the
			// request deadline, as a request's does.
			ex.boundHead()
		}
		h.Stop()
		if p.facts.method == "notifications/initialized" {
			c.listen()
		}
	}
	return nil
}

// Abandon closes the exchange that carries the request id once the
// request deadline has passed since it was sent with no response header,
// when the client waits for none of its requests any more (see
// exchange.boundHead). A stream under way is left alone: an answer
// arriving late on it is still recorded.
func (c *httpConn) Abandon(id json.RawMessage) {
	c.mu.Lock()
	ex := c.streams[wire.IDKey(id)]
	c.mu.Unlock()
	if ex == nil || ex.method != http.MethodPost || !ex.abandon(id) {
		return
	}
	ex.boundHead()
}

// noticeWait bounds how long a write of a message that is no request
// waits for the status that acknowledges it.
const noticeWait = time.Second

// sameFrame reports whether a and b are the same frame, not only equal
// bytes.
func sameFrame(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// forget drops the requests of an exchange that ended from the index of
// open streams.
func (c *httpConn) forget(ex *exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ex.ids {
		if c.streams[wire.IDKey(id)] == ex {
			delete(c.streams, wire.IDKey(id))
		}
	}
}

// listen opens the GET stream of a handshake-era session, once: "The
// client MAY issue an HTTP GET to the MCP endpoint. This can be used to
// open an SSE stream, allowing the server to communicate to the client".
func (c *httpConn) listen() {
	c.mu.Lock()
	if c.listening || c.cfg.NoListen || c.closing || c.version == "" {
		c.mu.Unlock()
		return
	}
	c.listening = true
	c.mu.Unlock()
	c.get(c.cfg.ListenTag, "", maxReconnects, nil)
	c.mu.Lock()
	c.listenEx = c.last
	c.mu.Unlock()
}

// get opens a GET stream, resuming after lastID when it is set. ids are
// requests still waiting whose answers may come on it (a resumed POST
// stream's). It reports whether the stream was opened.
func (c *httpConn) get(tag, lastID string, reconnects int, ids []json.RawMessage) bool {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return false
	}
	f := newFields()
	f.set(hdrUserAgent, userAgent)
	f.set(hdrAccept, "text/event-stream")
	if c.version != "" && wire.AtLeast(c.version, wire.V20250618) {
		f.set(hdrProtocolVersion, c.version)
	}
	if c.session != "" {
		f.set(hdrSessionID, c.session)
	}
	if lastID != "" {
		f.set(hdrLastEventID, lastID)
	}
	c.userFields(f)
	c.exchanges++
	ex := &exchange{c: c, n: c.exchanges, method: http.MethodGet, url: c.url, fields: f, reconnects: reconnects, ids: ids, resumed: len(ids) > 0}
	c.last = ex
	for _, id := range ids {
		c.streams[wire.IDKey(id)] = ex
	}
	c.mu.Unlock()
	ex.init(c.ctx)
	c.push(item{events: []transcript.Event{{HTTPRequest: ex.event(-1)}}, tag: tag})
	c.running.Add(1)
	go ex.run()
	return true
}

// deleteSession ends the session the server issued: "Clients that no
// longer need a particular session ... SHOULD send an HTTP DELETE to the
// MCP endpoint with the MCP-Session-Id header". It waits at most wait.
func (c *httpConn) deleteSession(wait time.Duration) {
	c.mu.Lock()
	if c.session == "" || c.deleted {
		c.mu.Unlock()
		return
	}
	f := newFields()
	f.set(hdrUserAgent, userAgent)
	if c.version != "" && wire.AtLeast(c.version, wire.V20250618) {
		f.set(hdrProtocolVersion, c.version)
	}
	f.set(hdrSessionID, c.session)
	c.userFields(f)
	c.exchanges++
	ex := &exchange{c: c, n: c.exchanges, method: http.MethodDelete, url: c.url, fields: f}
	c.mu.Unlock()
	ex.init(context.Background())
	c.record(transcript.Event{HTTPRequest: ex.event(-1)})
	c.running.Add(1)
	go ex.run()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ex.finished:
	case <-t.C:
		ex.stop("the harness gave up waiting for the answer to DELETE")
	case <-c.hurryCh:
		ex.stop("the run was interrupted")
	}
}

// Close ends the session: a DELETE when the server issued a session id,
// then every stream still open is closed. Each wait is at most grace.
func (c *httpConn) Close(grace time.Duration) {
	c.endMu.Lock()
	if c.hurried {
		grace = hurryGrace
	}
	c.grace = grace
	if c.closeAt.IsZero() {
		c.closeAt = time.Now()
	}
	if c.stage == "" {
		c.stage = transcript.SessionEnded
	}
	c.endMu.Unlock()
	c.mu.Lock()
	c.closing = true
	lingering := c.lingering
	c.mu.Unlock()
	// A stream left open after its responses gets its whole window before
	// the session ends: ended by the session instead, it would look like
	// a stream its server ended.
	c.waitLingering(lingering, min(grace, lingerWindow+lingerWindow/2))
	select {
	case <-c.done:
	default:
		c.deleteSession(grace)
	}
	c.cancel()
	c.finish(grace)
	c.end(ExitInfo{Exited: true, Hangup: true, Stage: string(transcript.SessionEnded)}, "")
}

// waitLingering waits for the streams to end, at most wait in all, and
// not once the session was hurried.
func (c *httpConn) waitLingering(streams []chan struct{}, wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for _, done := range streams {
		select {
		case <-done:
		case <-t.C:
			return
		case <-c.hurryCh:
			return
		case <-c.done:
			return
		}
	}
}

// finish waits at most wait for every exchange to have handed over its
// last events, then lets Read end.
func (c *httpConn) finish(wait time.Duration) {
	all := make(chan struct{})
	go func() {
		c.running.Wait()
		close(all)
	}()
	t := time.NewTimer(max(wait, hurryGrace))
	defer t.Stop()
	select {
	case <-all:
	case <-t.C:
	}
	c.quitOnce.Do(func() { close(c.quit) })
	c.tr.CloseIdleConnections()
}

// Stop ends the session at once: the transcript passed its budget.
func (c *httpConn) Stop() {
	c.endMu.Lock()
	c.stage = transcript.Stopped
	if c.closeAt.IsZero() {
		c.closeAt = time.Now()
	}
	c.endMu.Unlock()
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.cancel()
	c.end(ExitInfo{Exited: true, Hangup: true, Stage: string(transcript.Stopped)}, "")
	go c.finish(hurryGrace)
}

// Hurry cuts the waits of Close.
func (c *httpConn) Hurry() {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	if !c.hurried {
		c.hurried = true
		close(c.hurryCh)
	}
}

// noteResponse learns from a message the server sent what the session
// needs: the version an initialize result negotiated, and the tool
// parameters a tools/list result asks to mirror into headers.
func (c *httpConn) noteResponse(ex *exchange, m *wire.Message) {
	if m.Kind() != wire.KindResponse || !m.Has("result") {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ex.initialize {
		if v, ok := wire.String(wire.Object(m.Result)["protocolVersion"]); ok && c.version == "" {
			c.version = v
		}
		return
	}
	if ex.modern && ex.lists(m.ID, "tools/list") {
		if c.tools == nil {
			c.tools = map[string][]paramHeader{}
		}
		for name, ph := range paramHeaders(m.Result) {
			c.tools[name] = ph
		}
	}
}

// noteSession keeps the session id the response to an initialize issued:
// "A server ... MAY assign a session ID at initialization time, by
// including it in an MCP-Session-Id header on the HTTP response
// containing the InitializeResult".
func (c *httpConn) noteSession(ex *exchange, h http.Header) {
	if !ex.initialize {
		return
	}
	v := h.Values(hdrSessionID)
	if len(v) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == "" {
		c.session = v[0]
	}
}

// plainEvent counts a server-sent event that carried no message, and
// reports whether the session's budget for them still holds.
func (c *httpConn) plainEvent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plain++
	return c.plain <= maxPlainEvents
}

// hostHeader is the Host the requests name.
func (c *httpConn) hostHeader() string { return c.url.Host }

// describe says in words why an exchange failed.
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := err.Error()
	return strings.TrimPrefix(s, "net/http: ")
}
