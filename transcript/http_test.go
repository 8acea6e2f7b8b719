package transcript

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// httpEvents are one of each event of an HTTP transport, with the values
// a careless encoding would lose: an empty id that is not a missing one,
// a retry of 0, repeated header names in their own case, body bytes that
// are not UTF-8.
func httpEvents() []Event {
	empty, id := "", "41"
	zero, retry := int64(0), int64(1500)
	return []Event{
		{HTTPRequest: &HTTPRequest{Exchange: 1, Method: "POST", URL: "http://127.0.0.1:3000/mcp", Proto: "HTTP/1.1", Header: Header{
			{"Accept", "application/json, text/event-stream"}, {"content-type", "application/json"}, {"Mcp-Protocol-Version", "2025-11-25"},
		}}},
		{HTTPResponse: &HTTPResponse{Exchange: 1, Proto: "HTTP/1.1", Status: 200, Reason: "OK", Header: Header{
			{"Content-Type", "text/event-stream"}, {"Set-Cookie", "a=1"}, {"set-cookie", "b=2"}, {"Mcp-Session-Id", "s-1"},
		}}},
		{SSEEvent: &SSEEvent{Exchange: 1, ID: &empty, Retry: &zero}},
		{SSEEvent: &SSEEvent{Exchange: 1, ID: &id, Event: "message", Message: true, Retry: &retry}},
		{SSEEvent: &SSEEvent{Exchange: 1, Data: "line one\nline two", Unterminated: true}},
		{HTTPBody: &HTTPBody{Exchange: 1, Response: true, Data: []byte("\xff\xfe tail"), Len: 7, End: true, Err: "the connection dropped"}},
		{HTTPRequest: &HTTPRequest{Exchange: 2, Method: "GET", URL: "http://127.0.0.1:3000/mcp"}},
		{HTTPResponse: &HTTPResponse{Exchange: 2, Status: 405}},
		{HTTPBody: &HTTPBody{Exchange: 2, Response: true, Len: 0, End: true}},
		{Exit: &Exit{Stage: StdinEOF, Hangup: true}},
	}
}

func eventsOf(entries []Entry) []Event {
	var out []Event
	for _, e := range entries {
		if e.Event != nil {
			out = append(out, *e.Event)
		}
	}
	return out
}

// TestHTTPEventsRoundTrip: every HTTP event comes back the same from the
// JSON of a saved run and from the text form of test cases, and its note
// reads the same.
func TestHTTPEventsRoundTrip(t *testing.T) {
	want := httpEvents()
	tr := New(time.Now(), Limits{})
	for _, ev := range want {
		tr.Event(ev)
	}
	t.Run("json", func(t *testing.T) {
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var back Transcript
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, eventsOf(back.Entries())); diff != "" {
			t.Errorf("events after JSON (-want +got):\n%s", diff)
		}
		for i, e := range back.Entries() {
			if got, want := string(e.Data), want[i].String(); got != want {
				t.Errorf("entry %d reads %q, want %q", i, got, want)
			}
		}
	})
	t.Run("text", func(t *testing.T) {
		back, err := ParseText(FormatText(tr.Entries()))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, eventsOf(back.Entries())); diff != "" {
			t.Errorf("events after the text form (-want +got):\n%s", diff)
		}
	})
}

// TestHTTPEventsRead: each event's note says what a reader needs.
func TestHTTPEventsRead(t *testing.T) {
	var got []string
	for _, ev := range httpEvents() {
		got = append(got, ev.String())
	}
	want := []string{
		"http 1: POST http://127.0.0.1:3000/mcp HTTP/1.1 (3 header fields)",
		"http 1: status 200 OK, text/event-stream (4 header fields)",
		`sse 1: event id "", retry 0 ms`,
		`sse 1: event id "41", event "message", retry 1500 ms, data: the message that follows`,
		"sse 1: event data of 17 bytes (the stream ended before its blank line)",
		"http 1: response body, 7 bytes, ended: the connection dropped",
		"http 2: GET http://127.0.0.1:3000/mcp (0 header fields)",
		"http 2: status 405 (0 header fields)",
		"http 2: response body, 0 bytes, ended",
		"server closed the connection",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestHeaderValuesIgnoreCase: header names compare without regard to
// case, and repeated fields keep their order.
func TestHeaderValuesIgnoreCase(t *testing.T) {
	h := Header{{"Set-Cookie", "a=1"}, {"Content-Type", "text/plain"}, {"set-cookie", "b=2"}}
	if got := h.Values("SET-COOKIE"); !slices.Equal(got, []string{"a=1", "b=2"}) {
		t.Errorf("got %q, want both cookies in order", got)
	}
	if got := h.Values("Mcp-Session-Id"); got != nil {
		t.Errorf("got %q for a field not sent, want nil", got)
	}
}
