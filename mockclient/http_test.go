package mockclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/internal/httpfake"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// fakeServer serves an httpfake server in the given modes on a loopback
// port and returns it with its endpoint.
func fakeServer(t *testing.T, modes string) (*httpfake.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &httpfake.Server{Modes: modes}
	srv := &http.Server{Handler: s}
	go srv.Serve(s.Listen(ln))
	t.Cleanup(func() { srv.Close() })
	return s, "http://" + ln.Addr().String() + "/mcp"
}

// dialHTTP opens a client over HTTP to url.
func dialHTTP(t *testing.T, h transport.HTTP, opts Options) *Client {
	t.Helper()
	c, err := New(context.Background(), h.Dial, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func handshake(t *testing.T, c *Client, version string) {
	t.Helper()
	init := map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}
	if x := c.Do(context.Background(), Request{Tag: "init", Method: "initialize", Params: init}); !x.OK() {
		t.Fatalf("initialize: %v", x.Err)
	}
	if err := c.NotifyTagged("initialized", "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
}

// carriers checks that every message the client wrote follows right
// after the request that carried it, and every message it received right
// after the event that carried it (a response's header, or a server-sent
// event), and returns the events of the transcript in order.
func carriers(t *testing.T, tr *transcript.Transcript) []transcript.Event {
	t.Helper()
	var out []transcript.Event
	entries := tr.Entries()
	for i, e := range entries {
		if e.Event != nil {
			out = append(out, *e.Event)
		}
		if e.Dir != transcript.Send && e.Dir != transcript.Recv {
			continue
		}
		var before *transcript.Event
		if i > 0 {
			before = entries[i-1].Event
		}
		switch {
		case before == nil:
			t.Errorf("entry %d (%s %s) follows no event", i, e.Dir, e.Data)
		case e.Dir == transcript.Send && before.HTTPRequest == nil && before.Text == "":
			t.Errorf("entry %d (sent %s) follows %s, not its request", i, e.Data, before)
		case e.Dir == transcript.Recv && before.HTTPResponse == nil && (before.SSEEvent == nil || !before.SSEEvent.Message):
			t.Errorf("entry %d (received %s) follows %s, not what carried it", i, e.Data, before)
		}
	}
	return out
}

// TestHTTPSession: a session over HTTP, answered with JSON bodies, then
// with event streams: every message is recorded right after what carried
// it; the session id and the negotiated version go with every request
// after initialize; a GET stream listens; Close sends DELETE.
func TestHTTPSession(t *testing.T) {
	for _, mode := range []string{"", "sse"} {
		t.Run("mode="+mode, func(t *testing.T) {
			s, url := fakeServer(t, mode)
			c := dialHTTP(t, transport.HTTP{URL: url}, Options{Timeout: 5 * time.Second})
			handshake(t, c, "2025-11-25")
			for _, m := range []string{"ping", "tools/list", "x/unknown"} {
				if x := c.Do(context.Background(), Request{Tag: m, Method: m}); !x.OK() {
					t.Fatalf("%s: %v", m, x.Err)
				}
			}
			if in := c.WaitInbound(0, 5*time.Second, func(m *wire.Message) bool { return m.Method == "notifications/message" }); in == nil {
				t.Error("no notification came on the GET stream")
			}
			info := c.Close()
			if info.Stage != string(transcript.SessionEnded) {
				t.Errorf("got end %+v, want the session ended by the harness", info)
			}
			events := carriers(t, c.Transcript())
			var methods []string
			var posts []transcript.HTTPRequest
			for _, ev := range events {
				if r := ev.HTTPRequest; r != nil {
					methods = append(methods, r.Method)
					if r.Method == http.MethodPost {
						posts = append(posts, *r)
					}
				}
			}
			if methods[len(methods)-1] != http.MethodDelete || !slices.Contains(methods, http.MethodGet) {
				t.Errorf("got requests %v, want a GET among them and a DELETE last", methods)
			}
			if s.Gets() != 1 {
				t.Errorf("got %d GET requests, want 1", s.Gets())
			}
			for i, r := range posts {
				sid, pv := r.Header.Values("Mcp-Session-Id"), r.Header.Values("MCP-Protocol-Version")
				if i == 0 && (sid != nil || pv != nil) {
					t.Errorf("initialize went with %v and %v, want neither", sid, pv)
				}
				if i > 0 && (len(sid) != 1 || !slices.Equal(pv, []string{"2025-11-25"})) {
					t.Errorf("request %d went with session %v and version %v", i, sid, pv)
				}
			}
			wireHeads(t, s, events)
		})
	}
}

// wireHeads checks that each request header recorded is the one that
// reached the server, field by field and in order.
func wireHeads(t *testing.T, s *httpfake.Server, events []transcript.Event) {
	t.Helper()
	var recorded []string
	for _, ev := range events {
		if r := ev.HTTPRequest; r != nil {
			lines := []string{r.Method + " /mcp " + r.Proto}
			for _, f := range r.Header {
				lines = append(lines, f.Name+": "+f.Value)
			}
			recorded = append(recorded, strings.Join(lines, "\r\n"))
		}
	}
	var got []string
	for _, h := range s.Heads() {
		got = append(got, strings.TrimSuffix(string(h), "\r\n\r\n"))
	}
	slices.Sort(recorded)
	slices.Sort(got)
	if diff := cmp.Diff(got, recorded); diff != "" {
		t.Errorf("recorded request headers differ from what reached the server (-wire +recorded):\n%s", diff)
	}
}

// TestHTTPUnanswered: a request whose exchange ends without its answer
// is settled at once, whatever its deadline; the ways it ends are
// recorded.
func TestHTTPUnanswered(t *testing.T) {
	_, url := fakeServer(t, "sse")
	c := dialHTTP(t, transport.HTTP{URL: url, NoListen: true}, Options{Timeout: time.Minute})
	handshake(t, c, "2025-06-18")
	for _, m := range []string{"refuse", "accepted", "cut", "bigheader", "loop", "away", "gzip"} {
		// Ended by its exchange, not by its deadline (a minute).
		if x := c.Do(context.Background(), Request{Tag: m, Method: m}); !errors.Is(x.Err, ErrExchangeEnded) {
			t.Errorf("%s: got %v, want the exchange ended", m, x.Err)
		}
	}
	if x := c.Do(context.Background(), Request{Method: "crlf"}); !x.OK() {
		t.Errorf("crlf: %v", x.Err)
	}
	c.Close()
	var unterminated, redirects, away, gz bool
	for _, ev := range carriers(t, c.Transcript()) {
		switch {
		case ev.SSEEvent != nil && ev.SSEEvent.Unterminated:
			unterminated = true
		case ev.HTTPResponse != nil && ev.HTTPResponse.Status == http.StatusTemporaryRedirect:
			redirects = true
		case strings.Contains(ev.Text, "away from the endpoint's host"):
			away = true
		case ev.HTTPBody != nil && ev.HTTPBody.Len > 0 && ev.HTTPBody.Len < 1<<20 && len(ev.HTTPBody.Data) > 0 && ev.HTTPBody.Data[0] == 0x1f:
			gz = true // the compressed bytes, not what they inflate to
		}
	}
	if !unterminated || !redirects || !away || !gz {
		t.Errorf("got unterminated %v, redirects %v, away %v, gzip kept compressed %v; want all", unterminated, redirects, away, gz)
	}
}

// TestHTTPHostile: a server that never answers, one that floods a stream,
// and one that sends no header at all end within the deadlines.
func TestHTTPHostile(t *testing.T) {
	_, url := fakeServer(t, "")
	c := dialHTTP(t, transport.HTTP{URL: url, NoListen: true}, Options{Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond, Limits: transcript.Limits{MaxEntries: 2000}})
	handshake(t, c, "2025-11-25")
	for _, m := range []string{"slow", "nohead"} {
		if x := c.Do(context.Background(), Request{Method: m}); !errors.Is(x.Err, ErrTimeout) {
			t.Errorf("%s: got %v, want a timeout", m, x.Err)
		}
	}
	c.Do(context.Background(), Request{Method: "flood"})
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a flood did not stop the session")
	}
	start := time.Now()
	if info := c.Close(); info.Stage != string(transcript.Stopped) {
		t.Errorf("got %+v, want stopped", info)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
}

// TestHTTPNoStatusLineClosed: a request the server takes and never
// begins to answer (no status line) times out at its deadline, and its
// connection is closed then, while the session goes on: the server sees
// the close before the session ends, the session serves the next
// request, and the transcript says the harness, not the server, ended
// the exchange.
func TestHTTPNoStatusLineClosed(t *testing.T) {
	fake := &httpfake.Server{}
	closed := make(chan struct{})
	var once sync.Once
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if bytes.Contains(body, []byte(`"method":"nostatus"`)) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			io.Copy(io.Discard, c) // until the client closes the connection
			once.Do(func() { close(closed) })
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	})}
	go srv.Serve(fake.Listen(ln))
	t.Cleanup(func() { srv.Close() })
	c := dialHTTP(t, transport.HTTP{URL: "http://" + ln.Addr().String() + "/mcp", NoListen: true}, Options{Timeout: 300 * time.Millisecond})
	handshake(t, c, "2025-11-25")
	if x := c.Do(context.Background(), Request{Tag: "nostatus", Method: "nostatus"}); !errors.Is(x.Err, ErrTimeout) {
		t.Fatalf("got %v, want a timeout", x.Err)
	}
	select {
	case <-closed:
	case <-c.Done():
		t.Fatal("the session ended before the connection was closed")
	case <-time.After(30 * time.Second):
		t.Fatal("the connection stayed open while the session went on")
	}
	if x := c.Do(context.Background(), Request{Method: "ping"}); !x.OK() {
		t.Errorf("ping after it: %v", x.Err)
	}
	c.Close()
	var reason transcript.Reason
	var end string
	for _, e := range c.Transcript().Entries() {
		switch ev := e.Event; {
		case ev == nil:
		case ev.NoResponse != nil && ev.NoResponse.Method == "nostatus":
			reason = ev.NoResponse.Reason
		case ev.HTTPBody != nil && ev.HTTPBody.End && ev.HTTPBody.Response && strings.Contains(ev.HTTPBody.Err, "status line"):
			end = ev.HTTPBody.Err
		}
	}
	if reason != transcript.ReasonTimeout {
		t.Errorf("got the request recorded unanswered for %q, want %q (the harness's window)", reason, transcript.ReasonTimeout)
	}
	if !strings.Contains(end, "the harness gave up: no status line within 300ms") {
		t.Errorf("got the exchange's end %q, want it closed by the harness for want of a status line", end)
	}
}

// TestHTTPModern: a 2026-07-28 request carries the request metadata
// headers, tool parameters a tool asks for among them; a cancellation
// closes the request's stream instead of being posted.
func TestHTTPModern(t *testing.T) {
	_, url := fakeServer(t, "")
	c := dialHTTP(t, transport.HTTP{URL: url}, Options{Timeout: 5 * time.Second})
	env := Envelope{ProtocolVersion: wire.Modern, ClientInfo: map[string]any{"name": "t"}}
	call := func(method string, params any) *Exchange {
		p, _ := env.Wrap(params)
		return c.Do(context.Background(), Request{Method: method, Params: p})
	}
	if x := call("tools/list", nil); !x.OK() {
		t.Fatal(x.Err)
	}
	x := call("headers", map[string]any{"name": "echo", "arguments": map[string]any{"region": "Zürich", "n": 3}})
	if !x.OK() {
		t.Fatal(x.Err)
	}
	var got struct{ Headers map[string][]string }
	_ = json.Unmarshal(x.Response.Result, &got)
	want := map[string]string{"Mcp-Protocol-Version": wire.Modern, "Mcp-Method": "headers"}
	for k, v := range want {
		if g := got.Headers[k]; !slices.Equal(g, []string{v}) {
			t.Errorf("%s: got %q, want %q", k, g, v)
		}
	}
	if x := call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"region": "Zürich"}}); x.OK() {
		_ = x // the fake has no tools/call; the header went out all the same (below)
	}
	pd := c.Send(context.Background(), Request{Method: "slow", Params: mustWrap(t, env, nil)})
	if err := c.Notify("notifications/cancelled", map[string]any{"requestId": pd.x.ID}); err != nil {
		t.Fatal(err)
	}
	if x := pd.Wait(); !errors.Is(x.Err, ErrExchangeEnded) {
		t.Errorf("a cancelled request: got %v, want its stream closed", x.Err)
	}
	c.Close()
	var region, notPosted bool
	for _, ev := range carriers(t, c.Transcript()) {
		if r := ev.HTTPRequest; r != nil && slices.Equal(r.Header.Values("Mcp-Name"), []string{"echo"}) && slices.Contains(r.Header.Values("Mcp-Method"), "tools/call") {
			region = slices.Equal(r.Header.Values("Mcp-Param-Region"), []string{"=?base64?WsO8cmljaA==?="})
		}
		notPosted = notPosted || strings.HasPrefix(ev.Text, "not posted")
		if r := ev.HTTPRequest; r != nil && r.Method != http.MethodPost {
			t.Errorf("a 2026-07-28 session sent %s", r.Method)
		}
	}
	if !region || !notPosted {
		t.Errorf("got Mcp-Param-Region encoded %v, cancellation not posted %v; want both", region, notPosted)
	}
}

func mustWrap(t *testing.T, e Envelope, params any) json.RawMessage {
	t.Helper()
	p, err := e.Wrap(params)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHTTPS: an https endpoint is spoken to over TLS, and what is recorded
// is the plain HTTP inside it.
func TestHTTPS(t *testing.T) {
	s := &httpfake.Server{Modes: "sse"}
	srv := httptest.NewUnstartedServer(s)
	srv.Listener = s.Listen(srv.Listener)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := dialHTTP(t, transport.HTTP{URL: srv.URL + "/mcp", TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig}, Options{Timeout: 5 * time.Second})
	handshake(t, c, "2025-11-25")
	if x := c.Call(context.Background(), "ping", nil); !x.OK() {
		t.Fatal(x.Err)
	}
	c.Close()
	var statuses []int
	for _, ev := range carriers(t, c.Transcript()) {
		if r := ev.HTTPResponse; r != nil {
			statuses = append(statuses, r.Status)
			if r.Proto != "HTTP/1.1" || len(r.Header) == 0 {
				t.Errorf("got response %+v, want its header as read", r)
			}
		}
	}
	if len(statuses) < 3 {
		t.Errorf("got statuses %v", statuses)
	}
}

// TestHTTPUnixSocket: HTTP over a Unix socket, with Host localhost.
func TestHTTPUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	s := &httpfake.Server{}
	srv := &http.Server{Handler: s}
	go srv.Serve(s.Listen(ln))
	t.Cleanup(func() { srv.Close() })
	c := dialHTTP(t, transport.HTTP{URL: "http://localhost/mcp", DialContext: transport.UnixSocket(path)}, Options{Timeout: 5 * time.Second})
	handshake(t, c, "2025-11-25")
	if x := c.Call(context.Background(), "ping", nil); !x.OK() {
		t.Fatal(x.Err)
	}
	c.Close()
	for _, h := range s.Heads() {
		if !strings.Contains(string(h), "\r\nHost: localhost\r\n") {
			t.Errorf("a request went with another Host:\n%s", h)
		}
	}
}

// TestHTTPLaunched: a launched server's exit ends the sessions with it,
// and a request pending then fails as it does when a stdio server exits.
func TestHTTPLaunched(t *testing.T) {
	port, err := transport.FreePort("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{os.Args[0], "-test.run=^$"}
	// The race detector holds an exiting process a second by default.
	env := append(os.Environ(), httpfake.AddrEnv+"=127.0.0.1:{port}", "GORACE=atexit_sleep_ms=0")
	argv, env = transport.WithPort(argv, env, port)
	rec := transcript.New(time.Now(), transcript.Limits{})
	srv, err := transport.Command{Argv: argv, Env: env}.Launch(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addr, err := srv.WaitListening(ctx, "tcp", []string{"127.0.0.1:" + strconv.Itoa(port)})
	if err != nil {
		t.Fatal(err)
	}
	c := dialHTTP(t, transport.HTTP{URL: "http://" + addr + "/mcp", Server: srv, NoListen: true}, Options{Timeout: time.Minute})
	handshake(t, c, "2025-11-25")
	pd := c.Send(context.Background(), Request{Method: "slow"})
	info := srv.Close(time.Second)
	if x := pd.Wait(); !errors.Is(x.Err, ErrExited) {
		t.Errorf("got %v, want the server's exit", x.Err)
	}
	if !info.Exited || info.Stage != string(transcript.StdinEOF) {
		t.Errorf("got %+v, want the server to exit when its stdin closed:\n%s", info, transcript.FormatText(rec.Entries()))
	}
	var out bool
	for _, e := range rec.Entries() {
		out = out || e.Dir == transcript.Stdout && strings.HasPrefix(string(e.Data), "listening on")
	}
	if !out {
		t.Errorf("the server's stdout was not recorded:\n%s", transcript.FormatText(rec.Entries()))
	}
}
