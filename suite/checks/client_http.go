package checks

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// httpConnectsCheckID is the check that judges, over Streamable HTTP, a
// scenario whose client never reached the mock: every other check skips
// it.
const httpConnectsCheckID = "client-http-connects"

// clientHTTPChecks judge what a client sends over Streamable HTTP: its
// requests, their headers and what it does with its session (HTTP-33 to
// HTTP-42), from the exchanges the recording mock served.
func clientHTTPChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: httpConnectsCheckID, Requirement: "HTTP-34", Area: "http", Transport: evidence.TransportHTTP,
			Description: "the client reaches the server at the URL it was given (its last argument)",
			Judge:       checkClientConnects,
		},
		{
			ID: "client-http-post", Requirement: "HTTP-33", Area: "http", Transport: evidence.TransportHTTP,
			Description: "every message the client sends is a POST of its own to the MCP endpoint: one message per body, nothing but messages",
			Judge:       checkClientPosts,
		},
		{
			ID: "client-http-post-accept", Requirement: "HTTP-35", Area: "http", Transport: evidence.TransportHTTP,
			Description: "every POST's Accept header lists both application/json and text/event-stream",
			Judge:       checkClientPostAccept,
		},
		{
			ID: "client-http-get-accept", Requirement: "HTTP-36", Area: "http", Transport: evidence.TransportHTTP,
			Description: "a GET the client opens (a MAY) has an Accept header listing text/event-stream",
			Judge:       checkClientGetAccept,
		},
		{
			ID: "client-http-session-id", Requirement: "HTTP-37", Area: "http", Transport: evidence.TransportHTTP,
			Description: "once the server gave a session id in answer to initialize, every later request of the client carries it in Mcp-Session-Id",
			Judge:       checkClientSessionID,
		},
		{
			ID: "client-http-session-expired", Requirement: "HTTP-38", Area: "http", Transport: evidence.TransportHTTP,
			Description: "a client answered 404 for its session starts a new one: a new initialize without a session id, and the dead session is not used again",
			Judge:       checkClientSessionExpired,
		},
		{
			ID: "client-http-protocol-version", Requirement: "HTTP-39", Area: "http", Transport: evidence.TransportHTTP,
			Description: "every request after initialization (2026-07-28: every POST) carries MCP-Protocol-Version",
			Judge:       checkClientVersionHeader,
		},
		{
			ID: "client-http-protocol-version-value", Requirement: "HTTP-40", Area: "http", Transport: evidence.TransportHTTP,
			Description: "the MCP-Protocol-Version the client sends is the version negotiated (2026-07-28: the version in the body's _meta)",
			Judge:       checkClientVersionHeaderValue,
		},
		{
			ID: "client-http-method-headers", Requirement: "HTTP-41", Area: "http", Transport: evidence.TransportHTTP,
			Description: "in 2026-07-28 every request's POST carries Mcp-Method with its method and, for tools/call, resources/read and prompts/get, Mcp-Name with its name or URI (Base64-sentinel encoded where it must be)",
			Judge:       checkClientMethodHeaders,
		},
		{
			ID: "client-http-no-responses", Requirement: "HTTP-43", Area: "http", Transport: evidence.TransportHTTP,
			Description: "in 2026-07-28 the client posts requests and notifications, never a response",
			Judge:       checkClientHTTPNoResponses,
		},
		{
			ID: "client-http-deletes-session", Requirement: "HTTP-42", Area: "http", Transport: evidence.TransportHTTP,
			Description: "a client that ends with a session open ends it with a DELETE carrying its id",
			Flags:       []string{"heuristic"},
			Judge:       checkClientDeletesSession,
		},
	}
}

// checkClientConnects fails a scenario whose client never sent a request
// to the URL it was given, as client-spawned-server does over stdio.
func checkClientConnects(j *ClientJ) Finding {
	if sc := j.Scenario; len(sc.Spawns) > 0 {
		n := 0
		for _, sp := range sc.Spawns {
			n += len(j.view(sp).exchanges())
		}
		return passed(fmt.Sprintf("the client reached the mock (%d HTTP requests)", n))
	}
	return neverStarted(j, "sent a request to the URL it was given", "sending a request to the URL it was given")
}

// exchanges returns a spawn's HTTP exchanges, indexed once.
func (v *spawnView) exchanges() []*evidence.HTTPExchange {
	if v.xs == nil {
		v.xs = v.p.HTTPExchanges()
	}
	return v.xs
}

// streamClosed reports whether the client closed the connection of the
// HTTP exchange that carried the request entry seq before its answer.
func (v *spawnView) streamClosed(seq int) bool {
	for _, x := range v.exchanges() {
		if x.SentSeq == seq {
			return x.Ended && x.EndErr == "the client closed the connection"
		}
	}
	return false
}

// refusedOverHTTP reports whether the HTTP exchange that carried the
// request entry seq was refused with an error status: the transport's
// answer, which leaves the client nothing to wait for or cancel.
func (v *spawnView) refusedOverHTTP(seq int) bool {
	for _, x := range v.exchanges() {
		if x.SentSeq == seq {
			return x.Status() >= 400
		}
	}
	return false
}

// endpoint is the path of the MCP endpoint the client was given.
func (v *spawnView) endpoint() string {
	if u, err := url.Parse(v.sp.URL); err == nil && u.Path != "" {
		return u.Path
	}
	return "/mcp"
}

// requestPath is the path of an exchange's request.
func requestPath(x *evidence.HTTPExchange) string {
	if u, err := url.Parse(x.Request.URL); err == nil {
		return u.Path
	}
	return x.Request.URL
}

// eachRequest calls f with every exchange of the spawns judged that has
// its request on record.
func (j *ClientJ) eachRequest(f func(v *spawnView, x *evidence.HTTPExchange)) {
	j.each(func(v *spawnView) {
		for _, x := range v.exchanges() {
			if x.Request != nil {
				f(v, x)
			}
		}
	})
}

// what names an exchange in a message: its method, and the message it
// carried.
func what(x *evidence.HTTPExchange) string {
	s := x.Method()
	if len(x.Sent) == 1 && x.Sent[0].Method != "" {
		s += " of " + x.Sent[0].Method
		if x.Sent[0].ID != nil {
			s += " (id " + clipJSON(x.Sent[0].ID, 40) + ")"
		}
	} else if len(x.Sent) == 1 {
		s += " of a response (id " + clipJSON(x.Sent[0].ID, 40) + ")"
	}
	return s
}

func checkClientPosts(j *ClientJ) Finding {
	t := &tally{}
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		carries := x.SentSeq >= 0
		if !carries && x.Method() != "POST" {
			return
		}
		t.judged()
		at := v.at(x.RequestSeq)
		switch {
		case x.Method() != "POST":
			t.violate(at, "a %s carried a message: %s", x.Method(), quoteBytes(entryData(v, x.SentSeq), 80))
		case requestPath(x) != v.endpoint():
			t.violate(at, "a POST went to %s, not to the MCP endpoint %s", x.Request.URL, v.endpoint())
		case !carries && x.RequestBody == nil:
			t.violate(at, "a POST with no body: no message")
		case len(x.Sent) == 0:
			t.violate(at, "a POST whose body is not a JSON-RPC message: %s", quoteBytes(entryData(v, x.SentSeq), 80))
		}
	})
	return t.finding(fmt.Sprintf("every message came in a POST of its own to the MCP endpoint (%d)", t.n), "the client sent no message")
}

// entryData is the data of an entry of the spawn ("" for none).
func entryData(v *spawnView, seq int) []byte {
	for _, e := range v.entries {
		if e.Seq == seq {
			return e.Data
		}
	}
	return nil
}

// accepts reports whether an Accept header (its fields' values) accepts
// the media type: a range naming it, its type with "/*", or "*/*", whose
// q is not 0 (RFC 9110, 12.5.1). Type names compare without regard to
// case.
func accepts(values []string, mediaType string) bool {
	want := strings.ToLower(mediaType)
	major, _, _ := strings.Cut(want, "/")
	best, found := -1, false
	for _, v := range values {
		for _, r := range strings.Split(v, ",") {
			r = strings.TrimSpace(r)
			if r == "" {
				continue
			}
			mt, ps, err := mime.ParseMediaType(r)
			if err != nil {
				mt, _, _ = strings.Cut(r, ";")
				mt, ps = strings.ToLower(strings.TrimSpace(mt)), nil
			}
			rank := -1
			switch mt {
			case want:
				rank = 2
			case major + "/*":
				rank = 1
			case "*/*":
				rank = 0
			}
			if rank < best || rank < 0 {
				continue
			}
			q := 1.0
			if s, ok := ps["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					q = f
				}
			}
			// The most specific range decides (RFC 9110: "the most
			// specific reference has precedence").
			best, found = rank, q > 0
		}
	}
	return found
}

func checkClientPostAccept(j *ClientJ) Finding {
	t := &tally{}
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		if x.Method() != "POST" {
			return
		}
		t.judged()
		acc := x.Request.Header.Values("Accept")
		var missing []string
		for _, mt := range []string{"application/json", "text/event-stream"} {
			if !accepts(acc, mt) {
				missing = append(missing, mt)
			}
		}
		switch {
		case len(acc) == 0:
			t.violate(v.at(x.RequestSeq), "%s without an Accept header", what(x))
		case len(missing) > 0:
			t.violate(v.at(x.RequestSeq), "%s with Accept %q, which does not list %s", what(x), strings.Join(acc, ", "), strings.Join(missing, " nor "))
		}
	})
	return t.finding(fmt.Sprintf("every POST accepted application/json and text/event-stream (%d)", t.n), "the client sent no POST")
}

func checkClientGetAccept(j *ClientJ) Finding {
	t := &tally{}
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		if x.Method() != "GET" || requestPath(x) != v.endpoint() {
			return
		}
		t.judged()
		acc := x.Request.Header.Values("Accept")
		switch {
		case len(acc) == 0:
			t.violate(v.at(x.RequestSeq), "a GET of the MCP endpoint without an Accept header")
		case !accepts(acc, "text/event-stream"):
			t.violate(v.at(x.RequestSeq), "a GET of the MCP endpoint with Accept %q, which does not list text/event-stream", strings.Join(acc, ", "))
		}
	})
	return t.finding(fmt.Sprintf("every GET accepted text/event-stream (%d)", t.n), "the client opened no GET stream (it MAY)")
}

// isInitialize reports whether an exchange posted an initialize request.
func isInitialize(x *evidence.HTTPExchange) bool {
	return x.Method() == "POST" && len(x.Sent) == 1 && x.Sent[0].Method == "initialize"
}

// opensHandshake reports whether an exchange posted a message of the
// handshake era's opening (initialize, notifications/initialized): a
// client falling back from 2026-07-28 sends them under the earlier
// revisions' rules, not under the per-request headers of 2026-07-28.
func opensHandshake(x *evidence.HTTPExchange) bool {
	return len(x.Sent) == 1 && (x.Sent[0].Method == "initialize" || x.Sent[0].Method == "notifications/initialized")
}

// issued returns the session id the response to an initialize gave, or
// "".
func issued(x *evidence.HTTPExchange) string {
	if !isInitialize(x) || x.Status() < 200 || x.Status() > 299 {
		return ""
	}
	id, _ := x.ResponseHeader("Mcp-Session-Id")
	return id
}

// sessionEvents walks a spawn's requests in the order they were recorded,
// with the session ids the server had issued before each (by the time
// its request was recorded, the response that issued them was on record)
// and whether one was.
func sessionEvents(v *spawnView, f func(x *evidence.HTTPExchange, known map[string]bool)) {
	known := map[string]bool{}
	xs := v.exchanges()
	for _, x := range xs {
		if x.Request == nil {
			continue
		}
		now := map[string]bool{}
		for _, y := range xs {
			if id := issued(y); id != "" && y.ResponseSeq >= 0 && y.ResponseSeq < x.RequestSeq {
				now[id] = true
			}
		}
		for id := range now {
			known[id] = true
		}
		f(x, known)
	}
}

func checkClientSessionID(j *ClientJ) Finding {
	t := &tally{}
	gave := false
	j.each(func(v *spawnView) {
		sessionEvents(v, func(x *evidence.HTTPExchange, known map[string]bool) {
			if len(known) == 0 || requestPath(x) != v.endpoint() {
				return // a request elsewhere (a metadata document) is no request of the session
			}
			gave = true
			id := x.SessionID()
			switch {
			case isInitialize(x) && id == "":
				return // a new session
			case id == "":
				t.judged()
				t.violate(v.at(x.RequestSeq), "%s without Mcp-Session-Id, after the server gave the session id %q", what(x), firstKey(known))
			case !known[id]:
				t.judged()
				t.violate(v.at(x.RequestSeq), "%s with Mcp-Session-Id %q, which the server never gave (it gave %q)", what(x), id, firstKey(known))
			default:
				t.judged()
			}
		})
	})
	nothing := "the server gave no session id"
	if gave {
		nothing = "the client sent no request after the server gave its session id"
	}
	return t.finding(fmt.Sprintf("every request after initialization carried the session id (%d)", t.n), nothing)
}

// firstKey returns a key of a set, the least for a stable message.
func firstKey(m map[string]bool) string {
	out := ""
	for k := range m {
		if out == "" || k < out {
			out = k
		}
	}
	return out
}

func checkClientSessionExpired(j *ClientJ) Finding {
	t := &tally{}
	exited := j.Scenario.Client.Exit != nil
	j.each(func(v *spawnView) {
		xs := v.exchanges()
		for i, x := range xs {
			dead := x.SessionID()
			// A 404 to a GET is not judged: a server without the GET
			// stream that answers 404 instead of 405 says nothing of the
			// session.
			if x.Request == nil || dead == "" || x.Status() != 404 || x.Method() != "POST" || requestPath(x) != v.endpoint() {
				continue
			}
			t.judged()
			var reused, fresh *evidence.HTTPExchange
			for _, y := range xs[i+1:] {
				if y.Request == nil || y.RequestSeq < x.ResponseSeq {
					continue
				}
				switch {
				case isInitialize(y) && y.SessionID() == "" && fresh == nil:
					fresh = y
				// Only a message posted with the ended session is going
				// on with it: a GET stream (and a DELETE) is opened beside
				// the requests, and one that reaches the server after the
				// 404 may have been sent before the client read it.
				case y.SessionID() == dead && y.Method() == "POST" && reused == nil && fresh == nil:
					reused = y
				}
			}
			switch {
			case reused != nil:
				t.violate(v.at(reused.RequestSeq), "after 404 Not Found for %s, the client went on with the ended session %q (%s) instead of a new initialize", what(x), dead, what(reused))
			case fresh != nil:
			case !exited:
				t.unexercise("the client was still running when the harness stopped it after 404 Not Found for %s", what(x))
			default:
				t.violate(v.at(x.ResponseSeq), "after 404 Not Found for %s, with session %q, the client ended without starting a new session (no initialize followed)", what(x), dead)
			}
		}
	})
	return t.finding(fmt.Sprintf("after each 404 for its session the client started a new one with initialize (%d)", t.n), "the server never answered 404 for a session (the session-expiry scenario ends one)")
}

func checkClientVersionHeader(j *ClientJ) Finding {
	t := &tally{}
	modern := j.Version == wire.Modern
	j.each(func(v *spawnView) {
		done := -1 // the seq of the first initialize response
		for _, x := range v.exchanges() {
			if isInitialize(x) && x.ResponseSeq >= 0 && (done < 0 || x.ResponseSeq < done) && x.Status() == 200 {
				done = x.ResponseSeq
			}
		}
		for _, x := range v.exchanges() {
			switch {
			case x.Request == nil || requestPath(x) != v.endpoint():
				continue
			case modern && (x.Method() != "POST" || opensHandshake(x)):
				continue
			case !modern && (done < 0 || x.RequestSeq < done || isInitialize(x)):
				continue
			}
			t.judged()
			if _, ok := x.RequestHeader("MCP-Protocol-Version"); !ok {
				t.violate(v.at(x.RequestSeq), "%s without MCP-Protocol-Version", what(x))
			}
		}
	})
	nothing := "the client sent no request after initialization"
	if modern {
		nothing = "the client sent no POST"
	}
	return t.finding(fmt.Sprintf("every request carried MCP-Protocol-Version (%d)", t.n), nothing)
}

func checkClientVersionHeaderValue(j *ClientJ) Finding {
	t := &tally{}
	modern := j.Version == wire.Modern
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		got, ok := x.RequestHeader("MCP-Protocol-Version")
		if !ok || isInitialize(x) || requestPath(x) != v.endpoint() {
			return
		}
		want := v.negotiated()
		if modern {
			want = ""
			if len(x.Sent) == 1 && x.Sent[0].Kind() == wire.KindRequest {
				json.Unmarshal(meta(x.Sent[0])[wire.MetaProtocolVersion], &want)
			}
		}
		if want == "" {
			return
		}
		t.judged()
		if got != want {
			if modern {
				t.violate(v.at(x.RequestSeq), "%s with MCP-Protocol-Version %q, its _meta naming %q", what(x), got, want)
			} else {
				t.violate(v.at(x.RequestSeq), "%s with MCP-Protocol-Version %q, the session having negotiated %q", what(x), got, want)
			}
		}
	})
	return t.finding(fmt.Sprintf("every MCP-Protocol-Version named the version in use (%d)", t.n), "no request carried MCP-Protocol-Version with a version to compare it with")
}

// decodeSentinel decodes a header value in the Base64 sentinel form
// (=?base64?...?=); any other value is returned as it is. It reports
// whether the value was well formed.
func decodeSentinel(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
	if err != nil {
		return v, false
	}
	return string(b), true
}

// nameSources are the methods whose Mcp-Name mirrors a field of params.
var nameSources = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

func checkClientMethodHeaders(j *ClientJ) Finding {
	t := &tally{}
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		if x.Method() != "POST" || len(x.Sent) != 1 || x.Sent[0].Kind() != wire.KindRequest || opensHandshake(x) {
			return
		}
		m := x.Sent[0]
		t.judged()
		at := v.at(x.RequestSeq)
		got, ok := x.RequestHeader("Mcp-Method")
		switch {
		case !ok:
			t.violate(at, "%s without Mcp-Method", what(x))
			return
		case got != m.Method:
			t.violate(at, "%s with Mcp-Method %q", what(x), got)
			return
		}
		field, ok := nameSources[m.Method]
		if !ok {
			return
		}
		var want string
		if json.Unmarshal(params(m)[field], &want) != nil {
			return // the params are the schema check's to judge
		}
		name, ok := x.RequestHeader("Mcp-Name")
		if !ok {
			t.violate(at, "%s without Mcp-Name (params.%s is %q)", what(x), field, want)
			return
		}
		decoded, valid := decodeSentinel(name)
		switch {
		case !valid:
			t.violate(at, "%s with Mcp-Name %q, whose Base64 does not decode", what(x), name)
		case decoded != want:
			t.violate(at, "%s with Mcp-Name %q, params.%s being %q", what(x), name, field, want)
		case decoded == name && !headerSafe(want):
			t.violate(at, "%s with Mcp-Name %q as is: a value that is not plain ASCII goes in the =?base64?...?= form", what(x), name)
		}
	})
	return t.finding(fmt.Sprintf("every request's Mcp-Method and Mcp-Name matched its body (%d)", t.n), "the client posted no request")
}

// headerSafe reports whether a value can go in a header as it is: visible
// ASCII and inner spaces, no leading or trailing whitespace, and not of
// the sentinel's shape.
func headerSafe(s string) bool {
	if s != strings.TrimSpace(s) || strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func checkClientDeletesSession(j *ClientJ) Finding {
	c := j.Scenario.Client
	if c.Exit == nil {
		return Finding{Outcome: Skip, Message: "the harness stopped the client: whether it would have ended its session is unknown"}
	}
	t := &tally{}
	j.each(func(v *spawnView) {
		open := map[string]int{} // session id -> seq of the response that gave it
		ended := map[string]bool{}
		for _, x := range v.exchanges() {
			if id := issued(x); id != "" {
				open[id] = x.ResponseSeq
			}
			if id := x.SessionID(); id != "" && (x.Method() == "DELETE" || x.Status() == 404) {
				ended[id] = true
			}
		}
		for id, seq := range open {
			t.judged()
			if !ended[id] {
				t.violate(v.at(seq), "the client exited with session %q open, never sending DELETE for it", id)
			}
		}
	})
	return t.finding(fmt.Sprintf("the client ended every session it left with a DELETE (%d)", t.n), "the server gave no session id")
}

func checkClientHTTPNoResponses(j *ClientJ) Finding {
	t := &tally{}
	j.eachRequest(func(v *spawnView, x *evidence.HTTPExchange) {
		if x.Method() != "POST" || len(x.Sent) == 0 {
			return
		}
		t.judged()
		for _, m := range x.Sent {
			if m.Kind() == wire.KindResponse {
				t.violate(v.at(x.SentSeq), "a POST carrying a response (id %s): %s", clipJSON(m.ID, 40), quoteBytes(entryData(v, x.SentSeq), 80))
				return
			}
		}
	})
	return t.finding(fmt.Sprintf("every POST carried a request or a notification (%d)", t.n), "the client posted no message")
}
