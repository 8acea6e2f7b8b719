package transport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// The tests here point the HTTP transport at servers that attack the
// harness (slow headers, endless streams, huge headers, a gzip bomb,
// redirect loops) and check that each exchange ends for a reason the
// transcript states, with what it keeps bounded. Each waits for events
// (the exchange's end, a server's signal); the context deadlines are
// safety nets only.

// hostileWait is the safety net of every wait: far beyond what any of
// these exchanges takes, so that a hang fails instead of blocking.
const hostileWait = 30 * time.Second

var ping = []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)

// hostileSession is an HTTP session with a hostile server, with the
// transcript it records.
type hostileSession struct {
	t     *testing.T
	c     Conn
	tr    *transcript.Transcript
	reads chan readResult
}

type readResult struct {
	f   Frame
	err error
}

// dialHostile opens a session with url, its frames bounded by maxFrame
// (the default when 0), and reads it in the background.
func dialHostile(t *testing.T, url string, maxFrame int) *hostileSession {
	t.Helper()
	return dialHostileWithin(t, url, maxFrame, hostileWait)
}

// dialHostileWithin is dialHostile with timeout as the request deadline.
func dialHostileWithin(t *testing.T, url string, maxFrame int, timeout time.Duration) *hostileSession {
	t.Helper()
	tr := transcript.New(time.Now(), transcript.Limits{})
	c, err := HTTP{URL: url, NoListen: true}.Dial(context.Background(), DialOptions{Transcript: tr, MaxFrame: maxFrame, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	s := &hostileSession{t: t, c: c, tr: tr, reads: make(chan readResult, queueLen)}
	go func() {
		defer close(s.reads)
		for {
			f, err := c.Read()
			s.reads <- readResult{f, err}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.Hurry()
		c.Close(0)
	})
	return s
}

// post writes frame as the next request.
func (s *hostileSession) post(frame []byte) {
	s.t.Helper()
	for _, ev := range s.c.(Announcer).Announce(frame) {
		s.tr.Event(ev)
	}
	if err := s.c.Write(frame, hostileWait); err != nil {
		s.t.Fatalf("writing %s: %v", frame, err)
	}
}

// unanswered waits for the exchange to hand back its request unanswered,
// and returns why; a frame instead fails the test.
func (s *hostileSession) unanswered() string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileWait)
	defer cancel()
	for {
		select {
		case r, ok := <-s.reads:
			switch {
			case !ok || r.err != nil:
				s.t.Fatalf("the session ended (%v) before the request was settled", r.err)
			case r.f.Unanswered != nil:
				return r.f.Unanswered.Why
			case r.f.Line != nil:
				s.t.Fatalf("got a frame %q, want none", r.f.Raw)
			}
		case <-ctx.Done():
			s.t.Fatal("the exchange did not end")
		}
	}
}

// close ends the session and waits for Read to end, so that the
// transcript holds everything.
func (s *hostileSession) close() []transcript.Event {
	s.t.Helper()
	go s.c.Close(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), hostileWait)
	defer cancel()
	for {
		select {
		case r, ok := <-s.reads:
			if !ok {
				return s.events()
			}
			if r.f.Unanswered != nil {
				s.tr.Event(transcript.Event{Text: "unanswered: " + r.f.Unanswered.Why})
			}
		case <-ctx.Done():
			s.t.Fatal("the session did not end")
		}
	}
}

func (s *hostileSession) events() []transcript.Event {
	var out []transcript.Event
	for _, e := range s.tr.Entries() {
		if e.Event != nil {
			out = append(out, *e.Event)
		}
	}
	return out
}

// responseEnd returns the end of the first exchange's response body.
func responseEnd(t *testing.T, evs []transcript.Event) *transcript.HTTPBody {
	t.Helper()
	for _, ev := range evs {
		if b := ev.HTTPBody; b != nil && b.Response && b.End && b.Exchange == 1 {
			return b
		}
	}
	t.Fatalf("no end of the response body recorded in %v", evs)
	return nil
}

// rawServer accepts connections on a loopback port and gives each to
// serve, after reading its first request's header; it returns the
// endpoint.
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if l == "\r\n" {
						break
					}
				}
				serve(c)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/mcp"
}

// untilClosed blocks until the client closes c.
func untilClosed(c net.Conn) { io.Copy(io.Discard, c) }

// TestHostileSlowHeaders: a server that takes the request and never
// completes a status line holds the exchange open until the harness ends
// it; the request is then settled as ended by the harness, not by the
// server.
func TestHostileSlowHeaders(t *testing.T) {
	for name, start := range map[string]string{"silent": "", "trickle": "HTTP/1.1 2"} {
		t.Run(name, func(t *testing.T) {
			arrived := make(chan struct{})
			url := rawServer(t, func(c net.Conn) {
				io.WriteString(c, start)
				close(arrived)
				untilClosed(c)
			})
			s := dialHostile(t, url, 0)
			s.post(ping)
			select {
			case <-arrived:
			case <-time.After(hostileWait):
				t.Fatal("the request never reached the server")
			}
			evs := s.close()
			var why string
			for _, ev := range evs {
				if w, ok := strings.CutPrefix(ev.Text, "unanswered: "); ok {
					why = w
				}
			}
			if !strings.Contains(why, "the harness closed it") {
				t.Errorf("got the request settled with %q, want ended by the harness", why)
			}
			if end := responseEnd(t, evs); !strings.Contains(end.Err, "no response: the harness closed it") {
				t.Errorf("got the response end %+v, want no response, closed by the harness", end)
			}
			for _, ev := range evs {
				if ev.HTTPResponse != nil {
					t.Errorf("got a response recorded (%s), want none", ev.HTTPResponse)
				}
			}
		})
	}
}

// TestHostileNoStatusLineBounded: once the client gave up on a request
// (Abandon, at its deadline), a server that never completes a status line
// has its connection closed at the request deadline, while the session
// goes on; the request is settled as the harness's doing.
func TestHostileNoStatusLineBounded(t *testing.T) {
	for name, start := range map[string]string{"silent": "", "trickle": "HTTP/1.1 2"} {
		t.Run(name, func(t *testing.T) {
			arrived, closed := make(chan struct{}), make(chan struct{})
			url := rawServer(t, func(c net.Conn) {
				io.WriteString(c, start)
				close(arrived)
				untilClosed(c)
				close(closed)
			})
			s := dialHostileWithin(t, url, 0, 200*time.Millisecond)
			s.post(ping)
			wait(t, arrived, "the request never reached the server")
			s.c.(Abandoner).Abandon(json.RawMessage(`1`))
			wait(t, closed, "the connection was not closed while the session went on")
			select {
			case <-s.c.Done():
				t.Fatal("the session ended with the exchange")
			default:
			}
			evs := s.close()
			end := responseEnd(t, evs)
			if !strings.Contains(end.Err, "no response: the harness gave up: no status line within 200ms") {
				t.Errorf("got the response end %+v, want no status line within the request deadline", end)
			}
		})
	}
}

// TestHostileProbeNoStatusLineBounded: a probe's request (a GET here)
// that a server never answers with a status line is closed at the
// request deadline too, while the session goes on.
func TestHostileProbeNoStatusLineBounded(t *testing.T) {
	arrived, closed := make(chan struct{}), make(chan struct{})
	url := rawServer(t, func(c net.Conn) {
		close(arrived)
		untilClosed(c)
		close(closed)
	})
	s := dialHostileWithin(t, url, 0, 200*time.Millisecond)
	if _, err := s.c.(*httpConn).Probe(HTTPProbe{Tag: "probe", Method: http.MethodGet, NoSession: true}, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	wait(t, arrived, "the probe never reached the server")
	wait(t, closed, "the probe's connection was not closed while the session went on")
	select {
	case <-s.c.Done():
		t.Fatal("the session ended with the probe")
	default:
	}
	if end := responseEnd(t, s.close()); !strings.Contains(end.Err, "no status line within 200ms") {
		t.Errorf("got the response end %+v, want no status line within the request deadline", end)
	}
}

// TestHostileAbandonKeepsAnswer: a request the client gave up on whose
// response header comes within the request deadline is not cut: its
// answer is still read.
func TestHostileAbandonKeepsAnswer(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	url := rawServer(t, func(c net.Conn) {
		close(arrived)
		<-release
		body := `{"jsonrpc":"2.0","id":1,"result":{}}`
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		untilClosed(c)
	})
	s := dialHostileWithin(t, url, 0, hostileWait)
	s.post(ping)
	wait(t, arrived, "the request never reached the server")
	s.c.(Abandoner).Abandon(json.RawMessage(`1`))
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), hostileWait)
	defer cancel()
	for {
		select {
		case r := <-s.reads:
			switch {
			case r.err != nil:
				t.Fatalf("the session ended (%v) before the answer", r.err)
			case r.f.Unanswered != nil:
				t.Fatalf("the request was settled unanswered: %s", r.f.Unanswered.Why)
			case r.f.Line != nil:
				s.close()
				return
			}
		case <-ctx.Done():
			t.Fatal("no answer came")
		}
	}
}

// wait waits for ch to close, failing with msg at the safety net.
func wait(t *testing.T, ch <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hostileWait):
		t.Fatal(msg)
	}
}

// eventStream serves every POST with a 200 event stream on which write
// is called until it fails (the client went away).
func eventStream(t *testing.T, write func(w io.Writer, i int) error) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for i := 0; r.Context().Err() == nil; i++ {
			if write(w, i) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestHostileEndlessEvents: a stream of events that carry no message,
// sent forever, is closed at the session's budget of them, which the
// transcript names; no more events than the budget are kept.
func TestHostileEndlessEvents(t *testing.T) {
	url := eventStream(t, func(w io.Writer, i int) error {
		_, err := io.WriteString(w, "id: "+strconv.Itoa(i)+"\nevent: tick\n\n")
		return err
	})
	s := dialHostile(t, url, 0)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "more server-sent events without a message") {
		t.Errorf("got the request settled with %q, want the stream closed at the budget", why)
	}
	evs := s.close()
	var events int
	var budget bool
	for _, ev := range evs {
		switch {
		case ev.SSEEvent != nil:
			events++
		case ev.Budget != nil && ev.Budget.What == "server-sent events":
			budget = true
		}
	}
	if events != maxPlainEvents+1 || !budget {
		t.Errorf("got %d events recorded, budget named %v; want %d and the budget", events, budget, maxPlainEvents+1)
	}
	if end := responseEnd(t, evs); end.Err == "" || len(end.Data) > 0 {
		t.Errorf("got the response end %+v, want it broken off at the budget, no bytes kept", end)
	}
}

// TestHostileEndlessDataLine: a data line that never ends is cut at the
// maximum message size; the unterminated event keeps only what the
// transcript keeps of a line.
func TestHostileEndlessDataLine(t *testing.T) {
	const maxFrame = 64 << 10
	chunk := strings.Repeat("x", 4096)
	url := eventStream(t, func(w io.Writer, i int) error {
		if i == 0 {
			if _, err := io.WriteString(w, "data: "); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, chunk)
		return err
	})
	s := dialHostile(t, url, maxFrame)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "longer than the maximum message size") {
		t.Errorf("got the request settled with %q, want the event cut at the maximum message size", why)
	}
	evs := s.close()
	end := responseEnd(t, evs)
	if !strings.Contains(end.Err, "longer than the maximum message size") {
		t.Errorf("got the response end %+v, want it cut at the maximum message size", end)
	}
	// What was read: the frame size, its margin, and a read buffer.
	if limit := int64(maxFrame + 64<<10 + 64<<10); end.Len > limit {
		t.Errorf("read %d bytes of the stream, want at most %d", end.Len, limit)
	}
	var cut *transcript.SSEEvent
	for _, ev := range evs {
		if ev.SSEEvent != nil && ev.SSEEvent.Unterminated {
			cut = ev.SSEEvent
		}
	}
	switch {
	case cut == nil:
		t.Error("the cut event was not recorded")
	case len(cut.Data) == 0 || len(cut.Data) > s.tr.ClipTo():
		t.Errorf("the cut event keeps %d bytes of data, want some and at most %d", len(cut.Data), s.tr.ClipTo())
	}
}

// TestHostileHugeHeader: a response header of 10 MiB is refused at the
// transport's bound, long before it is all read; the request is settled
// with that reason.
func TestHostileHugeHeader(t *testing.T) {
	const huge = 10 << 20
	url := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for n := 0; n < huge; n += len(line) {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
		io.WriteString(c, "\r\n")
		untilClosed(c)
	})
	s := dialHostile(t, url, 0)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "exceeded") {
		t.Errorf("got the request settled with %q, want the header refused at its bound", why)
	}
	if _, read := s.c.Arriving(); read > 2*maxResponseHeader {
		t.Errorf("read %d bytes of a %d-byte header, want at most %d", read, huge, 2*maxResponseHeader)
	}
	evs := s.close()
	if end := responseEnd(t, evs); !strings.HasPrefix(end.Err, "no response: ") {
		t.Errorf("got the response end %+v, want no response", end)
	}
}

// TestHostileGzipBomb: a gzip body that inflates to a GiB is kept as the
// compressed bytes, never inflated, and none is asked for.
func TestHostileGzipBomb(t *testing.T) {
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	// Concatenated members inflate one after another: 64 of them make a
	// GiB.
	bomb := bytes.Repeat(member.Bytes(), 64)
	var asked atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(bomb)))
		w.Write(bomb)
	}))
	t.Cleanup(srv.Close)
	s := dialHostile(t, srv.URL+"/mcp", 0)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "no JSON-RPC message") {
		t.Errorf("got the request settled with %q, want a body that is no message", why)
	}
	evs := s.close()
	if got := asked.Load(); got != "" {
		t.Errorf("the request asked for Accept-Encoding %q, want none", got)
	}
	end := responseEnd(t, evs)
	if end.Len != int64(len(bomb)) {
		t.Errorf("got a body of %d bytes, want the %d compressed bytes", end.Len, len(bomb))
	}
	if len(end.Data) < 2 || end.Data[0] != 0x1f || end.Data[1] != 0x8b || len(end.Data) > s.tr.ClipTo() {
		t.Errorf("kept %d bytes starting %x, want at most %d of the gzip stream itself", len(end.Data), end.Data[:min(2, len(end.Data))], s.tr.ClipTo())
	}
}

// countingServer answers every request with answer, counting them.
func countingServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestHostileRedirectLoop: a 307 to itself is followed maxRedirects
// times, then recorded as not followed.
func TestHostileRedirectLoop(t *testing.T) {
	srv, requests := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
	})
	s := dialHostile(t, srv.URL+"/mcp", 0)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "status 307") {
		t.Errorf("got the request settled with %q, want the last redirect's status", why)
	}
	evs := s.close()
	if got, want := requests.Load(), int64(maxRedirects+1); got != want {
		t.Errorf("the server got %d requests, want %d", got, want)
	}
	var stopped bool
	for _, ev := range evs {
		stopped = stopped || strings.Contains(ev.Text, "redirect not followed: more than "+strconv.Itoa(maxRedirects)+" redirects")
	}
	if !stopped {
		t.Error("the transcript does not say the redirects stopped")
	}
}

// TestHostileRedirectAway: a redirect to another server (another port)
// is recorded, not followed: that server gets no request.
func TestHostileRedirectAway(t *testing.T) {
	other, contacted := countingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	s := dialHostile(t, srv.URL+"/mcp", 0)
	s.post(ping)
	if why := s.unanswered(); !strings.Contains(why, "status 307") {
		t.Errorf("got the request settled with %q, want the redirect's status", why)
	}
	evs := s.close()
	if n := contacted.Load(); n != 0 {
		t.Errorf("the other server got %d requests, want none", n)
	}
	var noted bool
	for _, ev := range evs {
		noted = noted || strings.Contains(ev.Text, "away from the endpoint's host")
	}
	if !noted {
		t.Error("the transcript does not say the redirect leads away")
	}
}
