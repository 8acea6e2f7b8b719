package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// httpSessionChecks judge what the handshake-era Streamable HTTP adds to
// POSTs: the GET stream, sessions, several streams at once, and resuming
// a stream (HTTP-06 to HTTP-14).
func httpSessionChecks() []*Check {
	return []*Check{
		{
			ID: "http-get-stream", Requirement: "HTTP-06", Area: "http",
			Description: "a GET to the MCP endpoint is answered with text/event-stream or 405 Method Not Allowed",
			Needs:       []plan.Probe{plan.ProbeHTTPGet},
			Judge:       overHTTP(checkHTTPGet),
		},
		{
			ID: "http-get-no-response", Requirement: "HTTP-07", Area: "http",
			Description: "the stream a GET opened carries no JSON-RPC response, unless it resumes a stream",
			Needs:       []plan.Probe{plan.ProbeHTTPGet},
			Judge:       overHTTP(checkHTTPGetNoResponse),
		},
		{
			ID: "http-session-id-visible-ascii", Requirement: "HTTP-08", Area: "http",
			Description: "a session id (Mcp-Session-Id) holds visible ASCII characters only",
			Judge:       overHTTP(checkHTTPSessionID),
		},
		{
			ID: "http-session-required", Requirement: "HTTP-09", Area: "http",
			Description: "a server that requires its session id answers a request without one with 400 Bad Request",
			Needs:       []plan.Probe{plan.ProbeHTTPNoSession},
			Judge:       overHTTP(checkHTTPSessionRequired),
		},
		{
			ID: "http-session-ended-404", Requirement: "HTTP-10", Area: "http",
			Description: "once a DELETE ended a session, a request with its id gets 404 Not Found",
			Needs:       []plan.Probe{plan.ProbeHTTPDelete},
			Judge:       overHTTP(checkHTTPSessionEnded),
		},
		{
			ID: "http-delete-session", Requirement: "HTTP-11", Area: "http",
			Description: "how the server answers a DELETE of its session (405, which it MAY, is recorded)",
			Needs:       []plan.Probe{plan.ProbeHTTPDelete},
			Judge:       overHTTP(checkHTTPDelete),
		},
		{
			ID: "http-no-broadcast", Requirement: "HTTP-12", Area: "http",
			Description: "no request or response of the server's comes on two streams",
			Needs:       []plan.Probe{plan.ProbeHTTPGet},
			Judge:       overHTTP(checkHTTPNoBroadcast),
		},
		{
			ID: "http-event-ids-unique", Requirement: "HTTP-13", Area: "http",
			Description: "the SSE event ids of a session are unique across all its streams (a resumed stream may repeat what it replays)",
			Needs:       []plan.Probe{plan.ProbeHTTPGet, plan.ProbeHTTPResume},
			Judge:       overHTTP(checkHTTPEventIDs),
		},
		{
			ID: "http-resume-same-stream", Requirement: "HTTP-14", Area: "http",
			Description: "a stream resumed with Last-Event-ID replays nothing that came on another stream",
			Needs:       []plan.Probe{plan.ProbeHTTPResume, plan.ProbeHTTPGet},
			Judge:       overHTTP(checkHTTPResume),
		},
	}
}

// listenGETs returns the GETs of the MCP endpoint that resume nothing:
// the probe's, and those a transport opens to listen on its own. The GETs
// of other probes (a well-known URI, the deprecated transport, a
// 2026-07-28 server) are theirs to judge.
func listenGETs(j *J) []*evidence.HTTPExchange {
	return slices.DeleteFunc(httpExchanges(j), func(x *evidence.HTTPExchange) bool {
		_, resuming := x.RequestHeader("Last-Event-ID")
		return x.Method() != "GET" || resuming || strings.HasPrefix(x.Tag, httpProbePrefix) && x.Tag != plan.ProbeHTTPGet.Tag()
	})
}

func checkHTTPGet(j *J) Finding {
	t := &tally{}
	for _, x := range listenGETs(j) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		if x.Status() != 405 && !(success(x.Status()) && x.SSE()) {
			t.violate(httpWhere(x), "a GET of the MCP endpoint was answered %s, neither text/event-stream nor 405 Method Not Allowed", statusAndType(x))
		}
	}
	return t.finding("a GET of the MCP endpoint was answered with text/event-stream or 405", "no GET of the MCP endpoint was sent")
}

// statusAndType shows a status with the Content-Type that came with it.
func statusAndType(x *evidence.HTTPExchange) string {
	if ct, ok := x.ResponseHeader("Content-Type"); ok {
		return fmt.Sprintf("%d with Content-Type %q", x.Status(), ct)
	}
	return fmt.Sprint(x.Status())
}

// getStreams returns the streams GETs opened that resume nothing.
func getStreams(j *J) []*evidence.HTTPExchange {
	return slices.DeleteFunc(listenGETs(j), func(x *evidence.HTTPExchange) bool {
		return !x.SSE() || !success(x.Status())
	})
}

func checkHTTPGetNoResponse(j *J) Finding {
	t := &tally{}
	for _, x := range getStreams(j) {
		t.judged()
		for _, m := range x.Messages() {
			if m != nil && m.Kind() == wire.KindResponse {
				t.violate(httpWhere(x), "the stream of a GET (exchange %d) carried a response (id %s)", x.N, m.ID)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d GET stream(s) carried no response", t.n), "no GET opened a stream")
}

func checkHTTPSessionID(j *J) Finding {
	t := &tally{}
	seen := map[string]bool{}
	for _, x := range httpExchanges(j) {
		if x.Response == nil {
			continue
		}
		for _, id := range x.Response.Header.Values("Mcp-Session-Id") {
			if seen[id] {
				continue
			}
			seen[id] = true
			t.judged()
			if i := slices.IndexFunc([]byte(id), func(c byte) bool { return c < 0x21 || c > 0x7e }); i >= 0 {
				t.violate(httpWhere(x), "the session id %q holds the byte 0x%02x, not visible ASCII (0x21 to 0x7E)", id, id[i])
			} else if id == "" {
				t.record(httpWhere(x), "an empty Mcp-Session-Id header")
			}
		}
	}
	return t.finding(fmt.Sprintf("%d session id(s) of visible ASCII", t.n), "the server gave no session id")
}

func checkHTTPSessionRequired(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPNoSession) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		switch s := x.Status(); {
		case s == 400:
		case success(s):
			t.record(httpWhere(x), "a request without the session id was served (%s): the server does not require it, which is legal", statusText(x))
		default:
			t.violate(httpWhere(x), "a request without the session id the server gave was answered %s, not 400 Bad Request", statusText(x))
		}
	}
	return t.finding("a request without the session id was refused with 400 Bad Request", "no request left out a session id the server gave")
}

// deletion returns the DELETE of the probe (else the first a transport
// sent to end its session) and the request the probe sent after it with
// the ended session's id.
func deletion(j *J) (del, after *evidence.HTTPExchange) {
	for _, x := range probeHTTP(j, plan.ProbeHTTPDelete, "delete") {
		if x.Method() == "DELETE" && x.Response != nil {
			del = x
		}
	}
	if del == nil {
		for _, x := range httpExchanges(j) {
			if x.Method() == "DELETE" && x.Response != nil && !strings.HasPrefix(x.Tag, httpProbePrefix) {
				return x, nil
			}
		}
	}
	for _, x := range probeHTTP(j, plan.ProbeHTTPDelete, "after") {
		if del != nil && x.Process == del.Process && x.RequestSeq > del.RequestSeq && x.Response != nil {
			return del, x
		}
	}
	return del, nil
}

func checkHTTPSessionEnded(j *J) Finding {
	t := &tally{}
	del, after := deletion(j)
	switch {
	case del == nil:
		return skipped("no DELETE of a session was sent")
	case needsToken(t, del):
		return t.finding("", "")
	case del.Status() == 405:
		return skipped("the server answered DELETE with 405: it does not let clients end sessions (which it MAY), so no session was ended")
	case !success(del.Status()):
		return skipped(fmt.Sprintf("DELETE was answered %d: no session was ended", del.Status()))
	case after == nil:
		return skipped("no request followed the DELETE that ended the session")
	}
	t.judged()
	if after.Status() != 404 {
		t.violate(httpWhere(after), "after a DELETE ended the session %q (answered %d), a request with its id was answered %s, not 404 Not Found", del.SessionID(), del.Status(), statusText(after))
	}
	return t.finding("once a DELETE ended the session, a request with its id was answered 404", "")
}

func checkHTTPDelete(j *J) Finding {
	t := &tally{}
	del, _ := deletion(j)
	if del == nil {
		return skipped("no DELETE of a session was sent")
	}
	if needsToken(t, del) {
		return t.finding("", "")
	}
	t.judged()
	switch s := del.Status(); {
	case s == 405:
		t.record(httpWhere(del), "the server answered DELETE with 405 Method Not Allowed: it does not let clients end sessions, as it MAY")
	case !success(s):
		t.record(httpWhere(del), "the server answered the DELETE of its session with %d", s)
	}
	return t.finding("the server ended its session on DELETE", "")
}

// sessionsOf groups the exchanges of each process by the session id they
// carried ("" for none).
func sessionsOf(j *J) [][]*evidence.HTTPExchange {
	var out [][]*evidence.HTTPExchange
	for _, p := range j.Processes {
		by := map[string][]*evidence.HTTPExchange{}
		var order []string
		for _, x := range p.HTTPExchanges() {
			id := x.SessionID()
			if _, ok := by[id]; !ok {
				order = append(order, id)
			}
			by[id] = append(by[id], x)
		}
		for _, id := range order {
			out = append(out, by[id])
		}
	}
	return out
}

// canonical is a message's value as a key: equal JSON values, whatever
// their spelling, give the same key.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func checkHTTPNoBroadcast(j *J) Finding {
	t := &tally{}
	streams := 0
	for _, xs := range sessionsOf(j) {
		first := map[string]*evidence.HTTPExchange{}
		for _, x := range xs {
			if _, resuming := x.RequestHeader("Last-Event-ID"); resuming || len(x.Received) == 0 {
				continue // a resumed stream replays what its stream carried
			}
			streams++
			for _, m := range x.Messages() {
				if m == nil || m.ID == nil || m.Kind() == wire.KindNotification || wire.IsNullID(m.ID) {
					// Two equal notifications may well be two messages (a
					// log line repeated): only messages with an id are
					// one message when equal. A null id is none: the same
					// error to two lines whose id the server could not
					// read is two answers.
					continue
				}
				t.judged()
				key := canonical(m.Raw)
				if y, ok := first[key]; ok && y != x {
					t.violate(httpWhere(x), "the same %s (id %s) came on the streams of exchanges %d and %d", m.Kind(), m.ID, y.N, x.N)
					continue
				}
				first[key] = x
			}
		}
	}
	if streams < 2 {
		return skipped("fewer than two streams of a session carried messages")
	}
	return t.finding(fmt.Sprintf("%d request(s) and response(s) of the server, each on one stream", t.n), "the server sent no request or response on its streams")
}

// resumes returns the exchange whose stream gave the event id a resuming
// request names, or nil.
func resumes(xs []*evidence.HTTPExchange, y *evidence.HTTPExchange) *evidence.HTTPExchange {
	last, ok := y.RequestHeader("Last-Event-ID")
	if !ok {
		return nil
	}
	for _, x := range xs {
		if x != y && slices.ContainsFunc(x.Events, func(ev *evidence.SSE) bool { return ev.ID != nil && *ev.ID == last }) {
			return x
		}
	}
	return nil
}

// eventData is what an event carried, to compare a replay with the
// original.
func eventData(ev *evidence.SSE) string {
	if len(ev.Msgs) > 0 && ev.Msgs[0] != nil {
		var b bytes.Buffer
		for _, m := range ev.Msgs {
			if m != nil {
				b.WriteString(canonical(m.Raw))
			}
		}
		return b.String()
	}
	return ev.Data
}

func checkHTTPEventIDs(j *J) Finding {
	t := &tally{}
	for _, xs := range sessionsOf(j) {
		type origin struct {
			x    *evidence.HTTPExchange
			data string
		}
		seen := map[string]origin{}
		for _, x := range xs {
			from := resumes(xs, x)
			for _, ev := range x.Events {
				if ev.ID == nil || *ev.ID == "" {
					continue
				}
				t.judged()
				o, dup := seen[*ev.ID]
				switch {
				case !dup:
					seen[*ev.ID] = origin{x, eventData(ev)}
				case from != nil && (o.x == from || resumes(xs, o.x) == from) && o.data == eventData(ev):
					// The resumed stream replays an event of its stream.
				case o.x == x:
					t.violate(At(x.Process, ev.Seq), "the event id %q came twice on the stream of exchange %d", *ev.ID, x.N)
				default:
					t.violate(At(x.Process, ev.Seq), "the event id %q came on the streams of exchanges %d and %d", *ev.ID, o.x.N, x.N)
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d event id(s), each unique in its session", t.n), "the server gave no SSE event ids")
}

func checkHTTPResume(j *J) Finding {
	t := &tally{}
	for _, xs := range sessionsOf(j) {
		for _, y := range xs {
			if _, resuming := y.RequestHeader("Last-Event-ID"); !resuming || y.Method() != "GET" || y.Response == nil || needsToken(t, y) {
				continue
			}
			if !success(y.Status()) || !y.SSE() {
				t.unexercise("the server did not resume a stream (GET with Last-Event-ID answered %d)", y.Status())
				continue
			}
			from := resumes(xs, y)
			if from == nil {
				t.unexercise("the Last-Event-ID of exchange %d names no event the transcript holds", y.N)
				continue
			}
			t.judged()
			for _, m := range y.Messages() {
				if m == nil || m.ID == nil || m.Kind() == wire.KindNotification {
					continue // only a message with an id is surely the one seen before
				}
				key := canonical(m.Raw)
				for _, x := range xs {
					if x == y || x == from || x.RequestSeq > y.RequestSeq {
						continue
					}
					if slices.ContainsFunc(x.Messages(), func(o *wire.Message) bool { return o != nil && canonical(o.Raw) == key }) {
						t.violate(httpWhere(y), "resuming the stream of exchange %d replayed a %s (id %s) that came on the stream of exchange %d", from.N, m.Kind(), m.ID, x.N)
					}
				}
			}
		}
	}
	return t.finding("a resumed stream replayed only what belonged to it", "no stream was resumed with Last-Event-ID")
}
