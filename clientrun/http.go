package clientrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Over Streamable HTTP the client is given the URL of a recording mock
// that mcpconform serves itself, on 127.0.0.1, one per scenario run: the
// reference mock's HTTP handler (mockserver.NewHTTPHandler), set up for
// the scenario, behind a recorder that writes every exchange into one
// transcript as the server-mode HTTP transport does (transcript/http.go):
// the request line and header, the body's message as a Send entry, the
// status and response header, a JSON body as a Recv entry, each
// server-sent event, and how the body ended. Each event that carries a
// message is recorded before its bytes go to the client, so that what the
// client does once it has read them comes after them in the record.

// maxHTTPBody bounds a request body the recorder reads.
const maxHTTPBody = 1 << 24

// The mock's own requests (MockConfig.Ask) go out once a session is
// initialized, as over stdio, at the first POST of requests that follows
// its notifications/initialized: on the session's GET stream when the
// client has one open, else on the SSE answer to that POST, ahead of its
// response. The client answers each with a POST of its own, which the
// mock answers 202 Accepted. A client's streams are read in no order the
// mock can see, so the order that one stdout gives over stdio comes from
// holding back: while an ask is unanswered, the responses of the session
// wait (at most askWait after the asks went out, or until the client
// gives up the request). A client that never answers is then judged on
// what the record shows it read, as over stdio; the wait decides nothing.

// askWait bounds how long responses wait for the answers to the asks.
const askWait = 5 * time.Second

// HTTPMock is the recording mock of one scenario run over HTTP.
type HTTPMock struct {
	// URL is the MCP endpoint the client is given.
	URL string

	tr      *transcript.Transcript
	handler *mockserver.HTTPHandler
	srv     *http.Server
	served  chan struct{}
	busy    sync.WaitGroup // the exchanges being answered
	mu      sync.Mutex
	n       int // exchanges so far
	// notify are the notifications sent on a session's GET stream after
	// the first response that follows its notifications/initialized;
	// ready and notified hold the sessions where that came and where
	// they went.
	notify   []string
	ready    map[string]bool
	notified map[string]bool
	// ask are the requests sent once a session is initialized; asked
	// holds the sessions asked, by the time the asks went out, pending
	// the ids (wire.IDKey) of the asks unanswered, by session, and
	// answered is closed, and replaced, whenever an answer comes.
	ask      []string
	nAsked   int
	asked    map[string]time.Time
	pending  map[string]string
	answered chan struct{}
}

// StartHTTPMock serves the recording mock set up by c on 127.0.0.1, on a
// port of the system's choosing, until Close.
func StartHTTPMock(ctx context.Context, c MockConfig) (*HTTPMock, error) {
	c, opts, err := c.setup()
	if err != nil {
		return nil, err
	}
	if why := c.stdioOnly(); why != "" {
		return nil, errors.New(why)
	}
	m := &HTTPMock{tr: transcript.New(time.Now(), transcript.Limits{}), served: make(chan struct{}),
		notify: c.Notify, ready: map[string]bool{}, notified: map[string]bool{},
		ask: c.Ask, asked: map[string]time.Time{}, pending: map[string]string{}, answered: make(chan struct{})}
	hopts := mockserver.HTTPOptions{Options: opts}
	if len(c.Ask) > 0 {
		hopts.Lead = m.lead
	}
	h, err := mockserver.NewHTTPHandler(ctx, io.Discard, hopts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		return nil, err
	}
	m.URL, m.handler = "http://"+ln.Addr().String()+"/mcp", h
	m.srv = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(m.served)
		_ = m.srv.Serve(ln)
	}()
	return m, nil
}

// stdioOnly says why a mock set up so cannot be served over HTTP, or "".
func (c MockConfig) stdioOnly() string {
	switch {
	case c.IgnoreEOF || c.IgnoreSIGTERM:
		return "stdio only: the scenario judges how the client ends a server process"
	case c.CounterOffer != "":
		return "stdio only: the recording mock counter-offers a version over stdio alone"
	}
	return ""
}

// Close stops serving, ends the mock's sessions and returns what was
// recorded: one spawn holding every exchange, nil when the client made
// none.
func (m *HTTPMock) Close() *evidence.Spawn {
	_ = m.srv.Close()
	<-m.served
	m.handler.Close()
	m.busy.Wait() // each records how its exchange ended
	m.tr.Finish()
	m.mu.Lock()
	n := m.n
	m.mu.Unlock()
	if n == 0 {
		return nil
	}
	entries := m.tr.Entries()
	return &evidence.Spawn{ID: 1, URL: m.URL, Transport: evidence.TransportHTTP,
		Version: negotiated(entries), Transcript: transcript.FromEntries(entries)}
}

// ServeHTTP records one exchange and has the mock answer it.
func (m *HTTPMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.busy.Add(1)
	defer m.busy.Done()
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	session := r.Header.Get("Mcp-Session-Id")
	req := transcript.Event{HTTPRequest: &transcript.HTTPRequest{Exchange: n, Method: r.Method, URL: r.URL.RequestURI(), Proto: r.Proto, Header: fields(r.Header)}}
	var msgs []*wire.Message
	switch {
	case r.Method == http.MethodPost && len(body) > 0:
		var batch bool
		msgs, batch = wire.DecodeLine(body)
		m.tr.AddAfter([]transcript.Event{req}, transcript.Entry{Dir: transcript.Send, Data: body, Msgs: msgs, Batch: batch})
		m.initialized(session, msgs)
	case len(body) > 0:
		m.tr.Event(req)
		m.tr.Event(transcript.Event{HTTPBody: &transcript.HTTPBody{Exchange: n, Data: body, Len: int64(len(body)), End: true}})
	default:
		m.tr.Event(req)
	}
	rw := &recordingWriter{w: w, m: m, n: n, ctx: r.Context(), session: session}
	m.handler.ServeHTTP(rw, r)
	why := ""
	if r.Context().Err() != nil {
		why = "the client closed the connection"
	}
	rw.finish(why)
	if r.Method == http.MethodPost {
		m.answers(msgs)
		m.afterPost(session, body, rw.status)
	}
}

// initialized notes a notifications/initialized, which readies its
// session for the asks, before the mock gets it.
func (m *HTTPMock) initialized(session string, msgs []*wire.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range msgs {
		if msg.Method == "notifications/initialized" && session != "" {
			m.ready[session] = true
		}
	}
}

// answers notes the answers to the asks that a POST carried, once the
// POST has been answered: a held response goes out after the client's
// answer was taken, as over stdio, where the answer is written before
// the response is read. (A client may end the POST of its answer when
// the request it was asked under is answered.)
func (m *HTTPMock) answers(msgs []*wire.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range msgs {
		if _, ok := m.pending[wire.IDKey(msg.ID)]; ok && msg.Kind() == wire.KindResponse {
			delete(m.pending, wire.IDKey(msg.ID))
			close(m.answered)
			m.answered = make(chan struct{})
		}
	}
}

// lead gives the asks for the first POST of requests of an initialized
// session (mockserver.HTTPOptions.Lead), once per session.
func (m *HTTPMock) lead(session string, body []byte) [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.ready[session] {
		return nil
	}
	if _, ok := m.asked[session]; ok {
		return nil
	}
	m.asked[session] = time.Now()
	var out [][]byte
	for _, method := range m.ask {
		m.nAsked++
		id := fmt.Sprintf("rec-%d", m.nAsked)
		m.pending[wire.IDKey(json.RawMessage(strconv.Quote(id)))] = session
		out = append(out, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":%s}`, id, method, askParams(method))))
	}
	return out
}

// hold waits, before a response of the session goes out, while an ask
// of the session is unanswered: until its answer comes, askWait after the
// asks went out, or until ctx (the client's request) ends.
func (m *HTTPMock) hold(ctx context.Context, session string) {
	for {
		m.mu.Lock()
		waiting := false
		for _, s := range m.pending {
			waiting = waiting || s == session
		}
		since, ch := m.asked[session], m.answered
		m.mu.Unlock()
		left := askWait - time.Since(since)
		if !waiting || left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			return
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// afterPost sends the scenario's notifications on a session's GET stream
// once a request posted after its notifications/initialized has been
// answered, as the stdio recording mock sends them after the first
// response that follows.
func (m *HTTPMock) afterPost(session string, body []byte, status int) {
	if len(m.notify) == 0 || session == "" {
		return
	}
	msgs, _ := wire.DecodeLine(body)
	m.mu.Lock()
	send := false
	for _, msg := range msgs {
		switch {
		case msg.Kind() == wire.KindRequest && status == http.StatusOK && m.ready[session] && !m.notified[session]:
			m.notified[session], send = true, true
		}
	}
	m.mu.Unlock()
	if send {
		for _, method := range m.notify {
			m.handler.Notify(session, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)))
		}
	}
}

// fields is a header as the transcript keeps it, its names sorted (Go's
// server gives them in canonical form, in no order).
func fields(h http.Header) transcript.Header {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out transcript.Header
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, transcript.HeaderField{Name: k, Value: v})
		}
	}
	return out
}

// recordingWriter records the response to one exchange as the mock
// writes it. A stream's events are recorded as they are written; any
// other body is held until the handler returns, then recorded with its
// status, then sent, so that its status, header and message are together
// in the record.
type recordingWriter struct {
	w http.ResponseWriter
	m *HTTPMock
	n int
	// ctx is the client's request and session its session, whose
	// responses wait while an ask is unanswered.
	ctx     context.Context
	session string
	status  int // 0 until the header is written
	sse     bool
	held    []byte
	events  sseSplitter
	total   int64
}

func (rw *recordingWriter) Header() http.Header { return rw.w.Header() }

func (rw *recordingWriter) WriteHeader(status int) {
	if rw.status != 0 {
		return
	}
	rw.status = status
	rw.sse = evidence.MediaType(fields(rw.w.Header())) == "text/event-stream"
	if rw.sse {
		rw.m.tr.Event(transcript.Event{HTTPResponse: rw.head()})
		rw.w.WriteHeader(status)
	}
}

func (rw *recordingWriter) head() *transcript.HTTPResponse {
	return &transcript.HTTPResponse{Exchange: rw.n, Proto: "HTTP/1.1", Status: rw.status, Reason: http.StatusText(rw.status), Header: fields(rw.w.Header())}
}

func (rw *recordingWriter) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	rw.total += int64(len(p))
	if !rw.sse {
		rw.held = append(rw.held, p...)
		return len(p), nil
	}
	evs := rw.events.feed(p)
	for _, ev := range evs {
		if len(rw.m.ask) > 0 && ev.dispatched && carriesResponse([]byte(ev.data)) {
			rw.m.hold(rw.ctx, rw.session)
			break
		}
	}
	for _, ev := range evs {
		rw.record(ev)
	}
	return rw.w.Write(p)
}

// Flush passes a flush of a stream on; a held body waits for the end.
func (rw *recordingWriter) Flush() {
	if fl, ok := rw.w.(http.Flusher); ok && rw.sse {
		fl.Flush()
	}
}

// record records one event of the stream.
func (rw *recordingWriter) record(ev sseParsed) {
	e := ev.SSEEvent
	e.Exchange = rw.n
	if ev.dispatched && ev.data != "" {
		msgs, batch := wire.DecodeLine([]byte(ev.data))
		if len(msgs) > 0 {
			e.Message = true
			rw.m.tr.AddAfter([]transcript.Event{{SSEEvent: &e}}, transcript.Entry{Dir: transcript.Recv, Data: []byte(ev.data), Msgs: msgs, Batch: batch})
			return
		}
	}
	e.Data = ev.data
	rw.m.tr.Event(transcript.Event{SSEEvent: &e})
}

// finish records the end of the response (why says how it was cut off,
// "" for a clean end) and sends a held body.
func (rw *recordingWriter) finish(why string) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	end := &transcript.HTTPBody{Exchange: rw.n, Response: true, Len: rw.total, End: true, Err: why}
	if rw.sse {
		if ev, ok := rw.events.rest(); ok {
			rw.record(ev)
		}
		rw.m.tr.Event(transcript.Event{HTTPBody: end})
		return
	}
	if len(rw.m.ask) > 0 && carriesResponse(rw.held) {
		rw.m.hold(rw.ctx, rw.session)
	}
	head := transcript.Event{HTTPResponse: rw.head()}
	msgs, batch := wire.DecodeLine(rw.held)
	if lv := bytes.TrimSpace(rw.held); len(msgs) > 0 && len(lv) > 0 && (lv[0] == '{' || lv[0] == '[') && evidence.MediaType(head.HTTPResponse.Header) == "application/json" {
		rw.m.tr.AddAfter([]transcript.Event{head}, transcript.Entry{Dir: transcript.Recv, Data: rw.held, Msgs: msgs, Batch: batch})
	} else {
		rw.m.tr.Event(head)
		end.Data = rw.held
	}
	rw.m.tr.Event(transcript.Event{HTTPBody: end})
	rw.w.WriteHeader(rw.status)
	if len(rw.held) > 0 {
		_, _ = rw.w.Write(rw.held)
	}
}

// carriesResponse reports whether data holds a response.
func carriesResponse(data []byte) bool {
	msgs, _ := wire.DecodeLine(data)
	for _, msg := range msgs {
		if msg.Kind() == wire.KindResponse {
			return true
		}
	}
	return false
}

// sseParsed is one event of a stream and whether a WHATWG parser
// dispatches it (its blank line came).
type sseParsed struct {
	transcript.SSEEvent
	data       string
	dispatched bool
}

// sseSplitter splits the bytes of an event stream into events, as the
// WHATWG rules read them: lines end at CRLF, LF or CR, a blank line ends
// an event, a line that starts with a colon is a comment.
type sseSplitter struct {
	pending []byte
	cur     sseParsed
	fields  bool // the current event has a field
	hasData bool
}

// feed takes the next bytes and returns the events they complete.
func (s *sseSplitter) feed(p []byte) []sseParsed {
	s.pending = append(s.pending, p...)
	var out []sseParsed
	for {
		i := bytes.IndexAny(s.pending, "\r\n")
		if i < 0 || (s.pending[i] == '\r' && i+1 == len(s.pending)) {
			return out // a CR at the end may be the start of a CRLF
		}
		line := string(s.pending[:i])
		next := i + 1
		if s.pending[i] == '\r' && s.pending[i+1] == '\n' {
			next++
		}
		s.pending = s.pending[next:]
		if ev, ok := s.line(line); ok {
			out = append(out, ev)
		}
	}
}

// line takes one line; a blank one ends the event.
func (s *sseSplitter) line(line string) (sseParsed, bool) {
	if line == "" {
		ev, ok := s.cur, s.fields
		ev.dispatched = s.hasData
		s.cur, s.fields, s.hasData = sseParsed{}, false, false
		return ev, ok
	}
	if line[0] == ':' {
		return sseParsed{}, false
	}
	name, value := line, ""
	if i := bytes.IndexByte([]byte(line), ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	s.fields = true
	switch name {
	case "id":
		v := value
		s.cur.ID = &v
	case "event":
		s.cur.Event = value
	case "data":
		if s.hasData {
			s.cur.data += "\n"
		}
		s.cur.data += value
		s.hasData = true
	case "retry":
		if ms, err := strconv.ParseInt(value, 10, 64); err == nil {
			s.cur.Retry = &ms
		}
	}
	return sseParsed{}, false
}

// rest returns the event the stream ended in the middle of, if any: a
// parser never dispatches it.
func (s *sseSplitter) rest() (sseParsed, bool) {
	if len(s.pending) > 0 {
		s.line(string(bytes.TrimRight(s.pending, "\r")))
		s.pending = nil
	}
	if !s.fields {
		return sseParsed{}, false
	}
	ev := s.cur
	ev.Unterminated = true
	s.cur, s.fields, s.hasData = sseParsed{}, false, false
	return ev, true
}
