package clientrun

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// httpConfig runs the fake HTTP client with behaviour against the mock
// served over Streamable HTTP.
func httpConfig(behaviour string, scenarios ...string) Config {
	return Config{
		Command:   []string{os.Args[0], "fake-http-client", behaviour},
		Transport: evidence.TransportHTTP,
		Scenarios: scenarios,
		Parallel:  2,
		Tool:      "test",
	}
}

// resultOf returns the result id in rep.
func resultOf(t *testing.T, rep *reports.Report, id string) reports.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result %s", id)
	return reports.Result{}
}

func TestRunOverHTTPJudgesACorrectClient(t *testing.T) {
	run, rep, st := judged(t, httpConfig("server-command", "initialize"))
	sc := run.Scenarios[0]
	if sc.Client.Exit == nil || sc.Client.Exit.Code != 0 {
		t.Fatalf("client exit %v (stopped %q), want status 0; stderr %q", sc.Client.Exit, sc.Client.Stopped, sc.Client.StderrTail)
	}
	if run.Transport != evidence.TransportHTTP || len(sc.Spawns) != 1 || sc.Spawns[0].Transport != evidence.TransportHTTP || sc.Spawns[0].Version != "2025-11-25" {
		t.Fatalf("transport %q, %d spawns, want one HTTP connection that negotiated 2025-11-25", run.Transport, len(sc.Spawns))
	}
	p := &evidence.Process{Transcript: sc.Spawns[0].Transcript, Transport: evidence.TransportHTTP}
	var methods []string
	for _, x := range p.HTTPExchanges() {
		methods = append(methods, x.Method()+" "+x.Request.URL)
	}
	// initialize, initialized, three pages of tools, the DELETE.
	want := []string{"POST /mcp", "POST /mcp", "POST /mcp", "POST /mcp", "POST /mcp", "DELETE /mcp"}
	if diff := cmp.Diff(want, methods); diff != "" {
		t.Errorf("exchanges (-want +got):\n%s", diff)
	}
	for _, r := range rep.Results {
		if r.Verdict == reports.Fail || r.Verdict == reports.Warn || r.Verdict == reports.Error {
			t.Errorf("%s %s: %s", r.Verdict, r.ID, r.Message)
		}
	}
	if st != Conformant {
		t.Errorf("status %d, want conformant", st)
	}
	for _, id := range []string{"client-http-connects", "client-http-post", "client-http-post-accept", "client-http-session-id", "client-http-protocol-version", "client-http-deletes-session", "client-initialize-shape"} {
		if r := resultOf(t, rep, id); r.Verdict != reports.Pass {
			t.Errorf("%s: %s %s, want pass", id, r.Verdict, r.Message)
		}
	}
	for _, id := range []string{"client-spawned-server", "client-stdin-framing", "client-shutdown-order"} {
		if r := resultOf(t, rep, id); r.Verdict != reports.Skip || !strings.HasPrefix(r.Message, "stdio only") {
			t.Errorf("%s: %s %q, want a skip saying stdio only", id, r.Verdict, r.Message)
		}
	}
	// The evidence, saved and read back, is judged the same.
	path := filepath.Join(t.TempDir(), "run.json")
	if err := run.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	again, err := evidence.LoadClientRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep2, _ := Report(again, checks.JudgeScenario, ReportOptions{Tool: "test"})
	verdicts := func(r *reports.Report) []string {
		var out []string
		for _, res := range r.Results {
			out = append(out, res.ID+" "+string(res.Verdict)+" "+res.Message)
		}
		return out
	}
	if diff := cmp.Diff(verdicts(rep), verdicts(rep2)); diff != "" {
		t.Errorf("judged again from the saved evidence (-first +again):\n%s", diff)
	}
}

func TestRunOverHTTPFailsADroppedSessionID(t *testing.T) {
	_, rep, st := judged(t, httpConfig("no-session", "initialize"))
	r := resultOf(t, rep, "client-http-session-id")
	if r.Verdict != reports.Fail || !strings.Contains(r.Message, "without Mcp-Session-Id") {
		t.Errorf("client-http-session-id: %s %q, want a fail for the dropped session id", r.Verdict, r.Message)
	}
	if st != Nonconformant {
		t.Errorf("status %d, want nonconformant", st)
	}
}

func TestRunOverHTTPSessionExpiry(t *testing.T) {
	for _, tc := range []struct {
		behaviour string
		want      reports.Verdict
	}{{"good", reports.Pass}, {"no-renew", reports.Fail}} {
		t.Run(tc.behaviour, func(t *testing.T) {
			_, rep, _ := judged(t, httpConfig(tc.behaviour, "session-expiry"))
			if r := resultOf(t, rep, "client-http-session-expired"); r.Verdict != tc.want {
				t.Errorf("client-http-session-expired: %s %q, want %s", r.Verdict, r.Message, tc.want)
			}
		})
	}
}

// TestRunOverHTTPSendsListChanged: in list-changed the mock sends
// notifications/tools/list_changed on the session's GET stream after the
// first answer that follows initialized, and records it there.
func TestRunOverHTTPSendsListChanged(t *testing.T) {
	mock, err := StartHTTPMock(context.Background(), MockConfig{Scenario: "list-changed"})
	if err != nil {
		t.Fatal(err)
	}
	c := &testHTTPClient{t: t, url: mock.URL}
	c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	stream := c.get()
	c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := stream.next(); !strings.Contains(got, "notifications/tools/list_changed") {
		t.Errorf("the GET stream carried %q, want notifications/tools/list_changed", got)
	}
	stream.close()
	sp := mock.Close()
	if sp == nil {
		t.Fatal("nothing recorded")
	}
	found := false
	for _, e := range sp.Transcript.Entries() {
		for _, m := range e.Msgs {
			found = found || e.Dir == transcript.Recv && m.Method == "notifications/tools/list_changed"
		}
	}
	if !found {
		t.Error("the notification is not on record")
	}
}

// TestRunOverHTTPAsksTheClient: in server-requests the mock asks its
// four requests at the first request after initialized, on the GET
// stream when the client has one open, else on the SSE answer to that
// request, ahead of its response, which waits for the answers; a client
// that answers each passes the checks of answers.
func TestRunOverHTTPAsksTheClient(t *testing.T) {
	for _, onGet := range []bool{true, false} {
		name := "response stream"
		if onGet {
			name = "GET stream"
		}
		t.Run(name, func(t *testing.T) {
			mock, err := StartHTTPMock(context.Background(), MockConfig{Scenario: "server-requests"})
			if err != nil {
				t.Fatal(err)
			}
			c := &testHTTPClient{t: t, url: mock.URL}
			c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			var get *testStream
			if onGet {
				get = c.get()
			}
			list := c.open(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			asks := list
			if onGet {
				asks = get
			}
			results := map[string]string{"ping": `{}`, "roots/list": `{"roots":[{"uri":"file:///tmp/project"}]}`,
				"sampling/createMessage": `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`,
				"elicitation/create":     `{"action":"accept","content":{"name":"Ada"}}`}
			for range results {
				ask := asks.message(t)
				if ask.ID == nil || results[ask.Method] == "" {
					t.Fatalf("got %s %s, want one of the four asks", ask.Method, ask.ID)
				}
				if status := c.post(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + results[ask.Method] + `}`); status != http.StatusAccepted {
					t.Errorf("the answer to %s: status %d, want 202", ask.Method, status)
				}
			}
			if resp := list.message(t); resp.Kind() != wire.KindResponse || string(resp.ID) != "2" {
				t.Errorf("the tools/list stream then carried %s %s, want its response", resp.Method, resp.ID)
			}
			list.close()
			if get != nil {
				get.close()
			}
			sp := mock.Close()
			if sp == nil {
				t.Fatal("nothing recorded")
			}
			wantMethod := http.MethodPost
			if onGet {
				wantMethod = http.MethodGet
			}
			p := &evidence.Process{Transcript: sp.Transcript, Transport: evidence.TransportHTTP}
			for _, x := range p.HTTPExchanges() {
				for _, rc := range x.Received {
					if len(rc.Msgs) == 1 && rc.Msgs[0].Kind() == wire.KindRequest && x.Method() != wantMethod {
						t.Errorf("%s went out on a %s stream, want %s", rc.Msgs[0].Method, x.Method(), wantMethod)
					}
				}
			}
			results2 := judgeHTTPSpawn(sp)
			for _, id := range []string{"client-answers-server-requests", "client-answers-ping", "client-response-ids", "client-roots-declared", "client-roots-result", "client-sampling-declared", "client-elicitation-declared"} {
				if r := results2[id]; r.Verdict != reports.Pass {
					t.Errorf("%s: %s %q, want pass", id, r.Verdict, r.Message)
				}
			}
		})
	}
}

// TestRunOverHTTPJudgesUnansweredAsks: a client that skips roots/list
// but answers the asks after it on the same stream read past it, and one
// that answers sampling/createMessage without declaring sampling breaks
// SAMP-01; over HTTP as over stdio.
func TestRunOverHTTPJudgesUnansweredAsks(t *testing.T) {
	mock, err := StartHTTPMock(context.Background(), MockConfig{Scenario: "server-requests"})
	if err != nil {
		t.Fatal(err)
	}
	c := &testHTTPClient{t: t, url: mock.URL}
	c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := c.open(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	for range 4 {
		ask := list.message(t)
		result := ""
		switch ask.Method {
		case "ping":
			result = `{}`
		case "sampling/createMessage":
			result = `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`
		case "elicitation/create":
			result = `{"action":"decline"}`
		}
		if result != "" {
			c.post(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + result + `}`)
		}
	}
	list.close() // roots/list unanswered: the client gives up its request
	sp := mock.Close()
	if sp == nil {
		t.Fatal("nothing recorded")
	}
	results := judgeHTTPSpawn(sp)
	for id, want := range map[string]reports.Verdict{"client-answers-server-requests": reports.Fail, "client-sampling-declared": reports.Fail, "client-answers-ping": reports.Pass} {
		if r := results[id]; r.Verdict != want {
			t.Errorf("%s: %s %q, want %s", id, r.Verdict, r.Message, want)
		}
	}
	if r := results["client-answers-server-requests"]; !strings.Contains(r.Message, "roots/list") {
		t.Errorf("client-answers-server-requests: %q, want roots/list named", r.Message)
	}
}

// judgeHTTPSpawn judges one recorded server-requests session by the client
// checks, by id.
func judgeHTTPSpawn(sp *evidence.Spawn) map[string]reports.Result {
	sc := &evidence.ScenarioRun{Name: "server-requests", Version: "2025-11-25", Context: []byte(`{"name":"server-requests"}`), Class: evidence.ClassConformance, Spawns: []*evidence.Spawn{sp}}
	out := map[string]reports.Result{}
	for _, r := range checks.JudgeClientRun(&evidence.ClientRun{Format: 1, Transport: evidence.TransportHTTP, Scenarios: []*evidence.ScenarioRun{sc}}) {
		out[r.ID] = r
	}
	return out
}

func TestRunOverHTTPNeverConnecting(t *testing.T) {
	cfg := httpConfig("x", "initialize")
	cfg.Command = []string{os.Args[0], "fake-client", "never-spawn"}
	_, rep, st := judged(t, cfg)
	if r := resultOf(t, rep, "client-http-connects"); r.Verdict != reports.Fail {
		t.Errorf("client-http-connects: %s %q, want fail", r.Verdict, r.Message)
	}
	if st != Nonconformant {
		t.Errorf("status %d, want nonconformant", st)
	}
}

func TestPlanOverHTTP(t *testing.T) {
	plan, err := Plan(Config{Transport: evidence.TransportHTTP})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range plan {
		names = append(names, sc.Name)
	}
	if slices.Contains(names, "shutdown") {
		t.Errorf("the HTTP plan has shutdown, a stdio-only scenario")
	}
	for _, http := range []string{"session-expiry", "list-changed", "server-requests"} {
		if !slices.Contains(names, http) {
			t.Errorf("the HTTP plan lacks %s: %v", http, names)
		}
	}
	stdio, _ := Plan(Config{})
	for _, sc := range stdio {
		if sc.Name == "session-expiry" {
			t.Error("the stdio plan has session-expiry, an HTTP-only scenario")
		}
	}
	if _, err := Plan(Config{Transport: evidence.TransportHTTP, Scenarios: []string{"shutdown"}}); !errors.Is(err, ErrNoScenario) || !strings.Contains(err.Error(), "stdio only") {
		t.Errorf("planning shutdown over HTTP: %v, want it refused as stdio only", err)
	}
}

func TestSSESplitter(t *testing.T) {
	str := func(s string) *string { return &s }
	ms := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name   string
		writes []string
		want   []sseParsed
	}{
		{"one event with a message", []string{"id: 1\ndata: {\"a\":1}\n\n"},
			[]sseParsed{{SSEEvent: transcript.SSEEvent{ID: str("1")}, data: `{"a":1}`, dispatched: true}}},
		{"a priming event, then CRLF lines split across writes", []string{"id: p\r\nretry: 1000\r\ndata:\r\n\r", "\nevent: message\r\nda", "ta: x\r\ndata: y\r\n\r\n"},
			[]sseParsed{{SSEEvent: transcript.SSEEvent{ID: str("p"), Retry: ms(1000)}, dispatched: true}, {SSEEvent: transcript.SSEEvent{Event: "message"}, data: "x\ny", dispatched: true}}},
		{"comments alone are no event", []string{": keep-alive\n\n"}, nil},
		{"the stream ends in the middle of an event", []string{"data: {\"b\":2}\n"},
			[]sseParsed{{SSEEvent: transcript.SSEEvent{Unterminated: true}, data: `{"b":2}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s sseSplitter
			var got []sseParsed
			for _, w := range tc.writes {
				got = append(got, s.feed([]byte(w))...)
			}
			if ev, ok := s.rest(); ok {
				got = append(got, ev)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(sseParsed{})); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInteropAndResilienceOverHTTP(t *testing.T) {
	for _, v := range LegalVariantsOn(evidence.TransportHTTP) {
		if v.Name == "http-protected" || v.Name == "http-session-expires" || !strings.HasPrefix(v.Name, "http-") {
			t.Errorf("interoperability over HTTP meets %s", v.Name)
		}
	}
	faults := MockFaultsOn(evidence.TransportHTTP)
	if len(faults) == 0 {
		t.Fatal("no fault over HTTP")
	}
	for _, f := range faults {
		if !strings.HasPrefix(f.Name, "http-") {
			t.Errorf("resilience over HTTP meets %s, a fault of the stdio mock", f.Name)
		}
	}
	if !garbles("http-request-text-plain") || garbles("http-no-priming") {
		t.Error("garbles: JSON under text/plain is not on record as a message; a missing priming event loses nothing")
	}
}

// testHTTPClient speaks to an HTTPMock from the test.
type testHTTPClient struct {
	t       *testing.T
	url     string
	session string
}

func (c *testHTTPClient) request(method, body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return resp
}

// post posts a message, reads its whole answer and returns its status.
func (c *testHTTPClient) post(body string) int {
	c.t.Helper()
	resp := c.request(http.MethodPost, body)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// open posts a request answered with a stream, left open to read.
func (c *testHTTPClient) open(body string) *testStream {
	c.t.Helper()
	resp := c.request(http.MethodPost, body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		c.t.Fatalf("POST: status %d, %s, want a stream", resp.StatusCode, ct)
	}
	return &testStream{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// testStream is an open GET stream.
type testStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func (c *testHTTPClient) get() *testStream {
	c.t.Helper()
	resp := c.request(http.MethodGet, "")
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET: status %d", resp.StatusCode)
	}
	return &testStream{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// next returns the data of the next event that has some.
func (s *testStream) next() string {
	for s.sc.Scan() {
		if data, ok := strings.CutPrefix(s.sc.Text(), "data: "); ok && data != "" {
			return data
		}
	}
	return ""
}

// message returns the message of the next event that has data.
func (s *testStream) message(t *testing.T) *wire.Message {
	t.Helper()
	data := s.next()
	m, err := wire.DecodeMessage([]byte(data))
	if err != nil {
		t.Fatalf("the stream carried %q: %v", data, err)
	}
	return m
}

func (s *testStream) close() { s.resp.Body.Close() }
