package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// exchange is one HTTP request of a session and everything that answered
// it, recorded under its number: the request's line and header, the
// status line and header of each response (a redirect followed shows as
// its 3xx response and a further request of the same number), the body
// as frames or bytes, and always, last, the response body's end (an
// HTTPBody with End set, with Err when it did not end cleanly or no
// response came at all).
type exchange struct {
	c      *httpConn
	n      int
	method string // the HTTP method
	url    *url.URL
	fields *fields
	body   []byte // the frame a POST carries
	rpc    string // the JSON-RPC method of a frame that is one message
	// ids are the requests the exchange carries, answered or not;
	// resumed says they came with a resumed stream (GET with
	// Last-Event-ID) from the one that carried them.
	ids     []json.RawMessage
	resumed bool
	// modern: the frame names 2026-07-28 in its _meta; initialize: it is
	// an initialize request.
	modern, initialize bool
	// reconnects is how many resumptions are left for the stream.
	reconnects int
	// events, when positive, is how many server-sent events a probe
	// reads before it closes the stream; seen counts them. recorded, set
	// for a probe's exchange, is closed once the transcript holds all of
	// it.
	events, seen int
	recorded     chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	// wrote gets the outcome of sending the request; head is closed once
	// its final response's header arrived or the exchange failed;
	// finished once the exchange handed over its last events.
	wrote    chan error
	head     chan struct{}
	headOnce sync.Once
	finished chan struct{}

	mu       sync.Mutex
	stopWhy  string          // why the harness ended the exchange
	answered map[string]bool // the ids a response came for
	lingers  bool            // a linger timer runs
	// sentAt is when the request last went out (a redirect sends it
	// again); abandoned are the ids the client gave up waiting for, and
	// bounded says the wait for the header is bounded already.
	sentAt    time.Time
	abandoned map[string]bool
	bounded   bool
}

func (ex *exchange) init(ctx context.Context) {
	ex.ctx, ex.cancel = context.WithCancel(ctx)
	ex.wrote = make(chan error, 1)
	ex.head = make(chan struct{})
	ex.finished = make(chan struct{})
	ex.answered = map[string]bool{}
}

// event is the request's line and header as they go on the wire; body
// is the length of a body, or -1 for none.
func (ex *exchange) event(body int) *transcript.HTTPRequest {
	return &transcript.HTTPRequest{Exchange: ex.n, Method: ex.method, URL: ex.url.String(), Proto: "HTTP/1.1", Header: ex.fields.onWire(ex.c.hostHeader(), body)}
}

// stop ends the exchange for the harness's reason.
func (ex *exchange) stop(why string) {
	ex.mu.Lock()
	if ex.stopWhy == "" {
		ex.stopWhy = why
	}
	ex.mu.Unlock()
	if ex.cancel != nil {
		ex.cancel()
	}
}

func (ex *exchange) stopped() string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.stopWhy != "" {
		return ex.stopWhy
	}
	if ex.c.ctx.Err() != nil {
		return "the harness closed it at the end of the session"
	}
	return ""
}

func (ex *exchange) headArrived() { ex.headOnce.Do(func() { close(ex.head) }) }

func (ex *exchange) sent(err error) {
	select {
	case ex.wrote <- err:
	default:
	}
}

// abandon notes that the client gave up waiting for the request id, and
// reports whether it waits for none of the exchange's requests any more
// (those answered aside).
func (ex *exchange) abandon(id json.RawMessage) bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.abandoned == nil {
		ex.abandoned = map[string]bool{}
	}
	ex.abandoned[wire.IDKey(id)] = true
	for _, id := range ex.ids {
		if k := wire.IDKey(id); !ex.answered[k] && !ex.abandoned[k] {
			return false
		}
	}
	return true
}

// boundHead closes the exchange when no response's header came within
// the connection's request deadline of the request going out: the budget
// of a request covers its status line too, and a server that never
// writes one would otherwise hold the connection until the session ends.
// What then lacks an answer is settled as the harness's doing, never the
// server's.
func (ex *exchange) boundHead() {
	ex.mu.Lock()
	if ex.bounded {
		ex.mu.Unlock()
		return
	}
	ex.bounded = true
	sentAt := ex.sentAt
	ex.mu.Unlock()
	if sentAt.IsZero() {
		sentAt = time.Now()
	}
	window := ex.c.timeout
	t := time.NewTimer(max(time.Until(sentAt.Add(window)), 0))
	go func() {
		defer t.Stop()
		select {
		case <-t.C:
			select {
			case <-ex.head:
			default:
				ex.stop(fmt.Sprintf("the harness gave up: no status line within %s of the request (the request deadline, --timeout), and it closed the connection", window))
			}
		case <-ex.head:
		case <-ex.finished:
		}
	}()
}

// lists reports whether the exchange carried one request of method with
// id.
func (ex *exchange) lists(id json.RawMessage, method string) bool {
	return len(ex.ids) == 1 && wire.IDKey(ex.ids[0]) == wire.IDKey(id) && ex.rpc == method
}

// run sends the request, follows redirects on the same host, and reads
// the response.
func (ex *exchange) run() {
	if ex.recorded != nil {
		defer ex.c.push(item{after: func() { close(ex.recorded) }})
	}
	defer ex.c.running.Done()
	defer close(ex.finished)
	defer ex.c.forget(ex)
	defer ex.cancel()
	u := ex.url
	for hop := 0; ; hop++ {
		resp, raw, err := ex.roundTrip(u)
		if err != nil {
			ex.failed(err)
			return
		}
		head := responseEvent(ex.n, resp, raw)
		ex.c.noteSession(ex, resp.Header)
		next, why := ex.redirect(u, resp, hop)
		if next == nil {
			if why != "" {
				ex.c.record(transcript.Event{Text: fmt.Sprintf("http %d: redirect not followed: %s", ex.n, why)})
			}
			ex.headArrived()
			ex.response(resp, head)
			return
		}
		// The 3xx and its body are recorded; the same request goes on to
		// the new location.
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		u = next
		req := *ex.event(len(ex.body))
		if ex.method != http.MethodPost {
			req = *ex.event(-1)
		}
		req.URL = u.String()
		ex.c.record(transcript.Event{HTTPResponse: head}, transcript.Event{HTTPBody: &transcript.HTTPBody{Exchange: ex.n, Response: true, Len: n, End: true}}, transcript.Event{HTTPRequest: &req})
	}
}

// redirect returns where a redirect response sends the request, when it
// is to be followed: 307 or 308 (which keep the method and the body), to
// the endpoint's own host, within maxRedirects. why says why a redirect
// is not followed.
func (ex *exchange) redirect(from *url.URL, resp *http.Response, hop int) (*url.URL, string) {
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return nil, ""
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, ""
	}
	to, err := from.Parse(loc)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("Location %q is not a URL", loc)
	case resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect:
		return nil, fmt.Sprintf("status %d would turn the request into a GET without its body", resp.StatusCode)
	case to.Scheme != ex.c.url.Scheme || to.Host != ex.c.url.Host:
		return nil, fmt.Sprintf("it leads to %s, away from the endpoint's host %s, which alone is contacted", to.Redacted(), ex.c.url.Host)
	case hop >= maxRedirects:
		return nil, fmt.Sprintf("more than %d redirects", maxRedirects)
	}
	return to, ""
}

// roundTrip sends the request to u and returns the response, with its
// header as the server wrote it.
func (ex *exchange) roundTrip(u *url.URL) (*http.Response, []byte, error) {
	var body io.Reader
	if ex.method == http.MethodPost {
		body = bytes.NewReader(ex.body)
	}
	req, err := http.NewRequestWithContext(ex.ctx, ex.method, u.String(), body)
	if err != nil {
		return nil, nil, err
	}
	req.Header = ex.fields.header()
	req.Host = ex.c.hostHeader()
	var cc *captureConn
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { cc, _ = info.Conn.(*captureConn) },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				ex.mu.Lock()
				ex.sentAt = time.Now()
				ex.mu.Unlock()
				ex.sent(nil)
			}
		},
	}
	req = req.WithContext(httptrace.WithClientTrace(ex.ctx, trace))
	resp, err := ex.c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	if cc != nil {
		raw = cc.take()
	}
	return resp, raw, nil
}

// failed records an exchange that got no response at all.
func (ex *exchange) failed(err error) {
	ex.sent(err)
	ex.headArrived()
	why := ex.stopped()
	if why == "" {
		why = describe(err)
		if gone(err) && ex.c.cfg.Server == nil {
			ex.c.end(ExitInfo{}, "nothing answers at "+ex.c.url.Redacted()+" any more ("+why+")")
		}
	}
	ex.c.record(transcript.Event{HTTPBody: &transcript.HTTPBody{Exchange: ex.n, Response: true, End: true, Err: "no response: " + why}})
	if ex.serverDied() {
		return // its requests fail as a stdio server's do when it exits
	}
	ex.settle("no response came: " + why)
}

// serverDied reports whether a launched server's exit is what broke the
// exchange: its connections close as it dies, a moment before its exit
// is known, so a broken exchange waits that moment for it.
func (ex *exchange) serverDied() bool {
	srv := ex.c.cfg.Server
	if srv == nil || ex.stopped() != "" {
		return false
	}
	t := time.NewTimer(exitNoticeWait)
	defer t.Stop()
	select {
	case <-srv.Done():
		return true
	case <-t.C:
		return false
	}
}

// exitNoticeWait bounds how long a broken exchange waits for a launched
// server's exit to be known.
const exitNoticeWait = 500 * time.Millisecond

// settle hands over the requests the exchange ended without answering.
func (ex *exchange) settle(why string) {
	var left []json.RawMessage
	ex.mu.Lock()
	for _, id := range ex.ids {
		if !ex.answered[wire.IDKey(id)] {
			left = append(left, id)
		}
	}
	ex.mu.Unlock()
	if len(left) > 0 {
		ex.c.push(item{unanswered: &Unanswered{IDs: left, Why: fmt.Sprintf("http %d: %s", ex.n, why)}})
	}
}

// remaining returns the requests the exchange carried that no response
// came for yet.
func (ex *exchange) remaining() []json.RawMessage {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var left []json.RawMessage
	for _, id := range ex.ids {
		if !ex.answered[wire.IDKey(id)] {
			left = append(left, id)
		}
	}
	return left
}

// mediaType returns a Content-Type's media type, lower case ("" when
// absent or unreadable).
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	return mt
}

// response reads what answered the request: an event stream, or a body.
func (ex *exchange) response(resp *http.Response, head *transcript.HTTPResponse) {
	defer resp.Body.Close()
	if mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		ex.c.record(transcript.Event{HTTPResponse: head})
		ex.readStream(resp)
		return
	}
	ex.readBody(resp, head)
}

// readBody reads a body that is not an event stream. A JSON object or
// array is a frame, recorded right after the response's header; anything
// else is kept as bytes (at most what the transcript keeps of a line).
func (ex *exchange) readBody(resp *http.Response, head *transcript.HTTPResponse) {
	max := ex.c.max
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	n := int64(len(data))
	end := &transcript.HTTPBody{Exchange: ex.n, Response: true, Len: n, End: true}
	why := fmt.Sprintf("status %d", head.Status)
	switch {
	case err != nil:
		end.Data, end.Err = clip(data, ex.c.rec.ClipTo()), stopWhy(ex, describe(err))
		ex.c.record(transcript.Event{HTTPResponse: head}, transcript.Event{HTTPBody: end})
		if ex.serverDied() {
			return
		}
		why += ", and its body broke off: " + end.Err
	case len(data) > max:
		end.Data, end.Err = clip(data, ex.c.rec.ClipTo()), fmt.Sprintf("longer than the maximum message size (%d bytes, --max-message-size): the harness stopped reading", max)
		ex.c.record(transcript.Event{HTTPResponse: head}, transcript.Event{HTTPBody: end})
		why += ", and its body was longer than the maximum message size"
	case len(data) > 0 && wire.LineValue(data) != nil:
		ex.deliver(wire.FrameOf(data, len(data), max), transcript.Event{HTTPResponse: head})
		ex.c.record(transcript.Event{HTTPBody: end})
		why += ", and its body answered no request of it"
	default:
		end.Data = clip(data, ex.c.rec.ClipTo())
		ex.c.record(transcript.Event{HTTPResponse: head}, transcript.Event{HTTPBody: end})
		if len(data) == 0 {
			why += " with no body"
		} else {
			why += " with a body that is no JSON-RPC message"
		}
	}
	ex.settle(why)
}

func stopWhy(ex *exchange, err string) string {
	if why := ex.stopped(); why != "" {
		return why
	}
	return err
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

// deliver hands a frame to Read with the events that carried it, after
// learning from it what the session needs and which requests it answers.
func (ex *exchange) deliver(l *wire.Line, evs ...transcript.Event) {
	if l.Value != nil {
		for _, m := range wire.DecodeValidLine(l.Value) {
			if m == nil {
				continue
			}
			if m.Kind() == wire.KindResponse && m.ID != nil {
				ex.mu.Lock()
				ex.answered[wire.IDKey(m.ID)] = true
				ex.mu.Unlock()
			}
			ex.c.noteResponse(ex, m)
		}
	}
	ex.c.push(item{events: evs, line: l})
}

// linger closes a stream that stays open after carrying every response
// it owed: "After the JSON-RPC response has been sent, the server SHOULD
// terminate the SSE stream". The window is lingerWindow (the request
// deadline when shorter); what the stream does until then is recorded.
// lingerWindow is how long a stream may stay open after its last
// response before the harness closes it: a server that ends its streams
// does so at once, and one that does not shows it within a run.
const lingerWindow = time.Second

func (ex *exchange) linger() {
	if len(ex.ids) == 0 || len(ex.remaining()) > 0 {
		return
	}
	ex.mu.Lock()
	if ex.lingers {
		ex.mu.Unlock()
		return
	}
	ex.lingers = true
	ex.mu.Unlock()
	ex.c.mu.Lock()
	ex.c.lingering = append(ex.c.lingering, ex.finished)
	ex.c.mu.Unlock()
	window := min(ex.c.timeout, lingerWindow)
	go func() {
		t := time.NewTimer(window)
		defer t.Stop()
		select {
		case <-t.C:
			ex.stop(fmt.Sprintf("closed by the harness: the stream stayed open %s after carrying every response it owed", window))
		case <-ex.finished:
		}
	}()
}
