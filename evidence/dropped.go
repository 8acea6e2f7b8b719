package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Drop is the evidence that a server dropped a request: it will never
// answer it. JSON-RPC 2.0 section 4: "When a rpc call is made, the Server
// MUST reply with a Response, except for in the case of Notifications."
type Drop struct {
	// Died is set when the evidence is that the process exited on its
	// own while the request was pending.
	Died bool
	// Why says what shows the drop, in words.
	Why string
}

// Dropped returns the evidence that the server dropped the request of x,
// or nil when there is none. Silence alone is no evidence: a request
// deadline is the harness's, and a slow server may still be working on
// it. These are:
//
//   - the process exited on its own while the request was pending;
//   - its full deadline (timeout, the run's request deadline) passed, and
//     the server then answered a request sent after it;
//   - the process exited when its input was closed, never having answered
//     it, though its deadline had passed or it had answered a request sent
//     after it (so it had read past it).
//
// Only an rpc call in JSON-RPC's terms can be dropped: a line that was one
// request object with "jsonrpc": "2.0", a string method and a string or
// number id. A line JSON-RPC does not call a request (a batch, a null or
// boolean id, no "jsonrpc") gets what the probe that sent it says. Nor
// is a request whose answer the protocol or the harness does not wait for:
// a listen stream (answered only when the server ends it), one the client
// cancelled before its deadline (the server then owes it nothing), the
// server/discover sent to learn the era (a client falls back to
// initialize when it times out), a tool call (a tool may run as long as it
// likes; only an exit proves anything there), an id beyond ±(2^53-1),
// which RFC 8259 section 6 says not every reader can hold, a request sent
// right after a line that was not JSON (a lenient reader may have taken
// both for one), and one after which the server wrote something that
// could not be read (its answer may be inside).
func (x *Exchange) Dropped(timeout time.Duration) *Drop {
	if x == nil || x.Response != nil || x.Request == nil || x.SentSeq < 0 || x.Stopped() || x.NotSent() {
		return nil
	}
	if nr := x.NoResponse; nr != nil && (nr.Reason == transcript.ReasonWriteFailed || nr.Reason == transcript.ReasonUnreadable) {
		return nil // it never reached the server, or its answer was too deep to read
	}
	p := x.Process
	entries := p.Entries()
	if x.SentSeq >= len(entries) || !rpcCall(entries[x.SentSeq]) || unawaited(x, entries) {
		return nil
	}
	exit, exitSeq := exitOf(entries)
	if (exit != nil && exitSeq > x.SentSeq && exit.Stage == transcript.BeforeShutdown) ||
		(x.NoResponse != nil && x.NoResponse.Reason == transcript.ReasonExited) {
		detail := "the server exited"
		if exit != nil {
			detail += " (" + exit.String() + ")"
		} else if x.NoResponse.Detail != "" {
			detail += " (" + x.NoResponse.Detail + ")"
		}
		return &Drop{Died: true, Why: detail + " while it was pending"}
	}
	if silenceExplained(x, entries) {
		return nil
	}
	deadline := -1
	if nr := x.NoResponse; nr != nil && nr.Reason == transcript.ReasonTimeout && (timeout <= 0 || nr.Deadline >= timeout*9/10) {
		deadline = x.EventSeq
	}
	var past *Exchange // the first request sent after x that was answered
	for _, y := range p.Exchanges() {
		if y.SentSeq <= x.SentSeq || !y.OK() {
			continue
		}
		if deadline >= 0 && y.RecvSeq > deadline {
			return &Drop{Why: fmt.Sprintf("its deadline of %s passed, and the server then answered %s (id %s), sent after it", x.NoResponse.Deadline, y.Method, y.ID)}
		}
		if past == nil {
			past = y
		}
	}
	if exit == nil || exit.Stage != transcript.StdinEOF || exitSeq < x.SentSeq {
		return nil
	}
	switch {
	case deadline >= 0:
		return &Drop{Why: fmt.Sprintf("its deadline of %s passed, and the server exited when its input was closed (%s)", x.NoResponse.Deadline, exit)}
	case past != nil:
		return &Drop{Why: fmt.Sprintf("the server answered %s (id %s), sent after it, and exited when its input was closed (%s)", past.Method, past.ID, exit)}
	}
	return nil
}

// rpcCall reports whether a line the client wrote is one request object
// as JSON-RPC 2.0 defines it (section 4): "jsonrpc" exactly "2.0", a
// string method, a string or number id, and params, when present,
// structured. An id of null is left out: JSON-RPC discourages it because
// a null id is also what a response to an unreadable request carries, so
// no answer to it could be told apart.
func rpcCall(e transcript.Entry) bool {
	if e.Dir != transcript.Send || e.Batch || len(e.Msgs) != 1 {
		return false
	}
	m := e.Msgs[0]
	v, ok := m.Member("jsonrpc")
	if !ok || !wire.Equal(v, json.RawMessage(`"2.0"`)) {
		return false
	}
	if method, ok := m.Member("method"); !ok || wire.Type(method) != "string" {
		return false
	}
	switch wire.Type(m.ID) {
	case "string", "integer", "number":
	default:
		return false
	}
	if params, ok := m.Member("params"); ok {
		if t := wire.Type(params); t != "object" && t != "array" {
			return false
		}
	}
	return true
}

// unawaited reports whether the request of x is one whose answer the
// protocol or the client does not wait for (see Dropped).
func unawaited(x *Exchange, entries []transcript.Entry) bool {
	if x.Tag == TagEraProbe || x.Method == "subscriptions/listen" {
		return true
	}
	// A cancellation the client sent before the deadline passed (the
	// harness's own, after it, gives up on a request already late).
	until := len(entries)
	if nr := x.NoResponse; nr != nil && nr.Reason == transcript.ReasonTimeout {
		until = min(x.EventSeq, until)
	}
	for _, e := range entries[x.SentSeq+1 : max(until, x.SentSeq+1)] {
		if e.Dir != transcript.Send {
			continue
		}
		for _, m := range e.Msgs {
			if m.Method == "notifications/cancelled" && wire.IDKey(wire.Object(m.Params)["requestId"]) == wire.IDKey(x.ID) {
				return true
			}
		}
	}
	return false
}

// silenceExplained reports whether something other than a drop may
// explain why the request of x went unanswered while the server lived on
// (see Dropped).
func silenceExplained(x *Exchange, entries []transcript.Entry) bool {
	if x.Tag == TagToolCall || x.Tag == TagToolCallInvalid || wire.BeyondSafeInteger(x.ID) {
		return true
	}
	for _, r := range x.Process.Replies() {
		if r.To == x.SentSeq {
			// The line was answered, by a response whose id matches no
			// request: a changed id (1.5 answered as 1), or null on an
			// error for an id the server could not accept ("If there was
			// an error in detecting the id ... it MUST be Null"). The
			// probe that sent it judges the id; it was not dropped.
			return true
		}
	}
	for i := x.SentSeq - 1; i >= 0; i-- {
		if entries[i].Dir == transcript.Send {
			if !json.Valid(bytes.TrimSpace(entries[i].Data)) {
				return true
			}
			break
		}
	}
	return unreadableAfter(x.Process, entries[x.SentSeq+1:])
}

// exitOf returns how the process ended and where the transcript says so
// (nil, -1 while it runs).
func exitOf(entries []transcript.Entry) (*transcript.Exit, int) {
	for i := len(entries) - 1; i >= 0; i-- {
		if ev := entries[i].Event; ev != nil && ev.Exit != nil {
			return ev.Exit, entries[i].Seq
		}
	}
	return nil, -1
}

// unreadableAfter reports whether the server wrote on stdout, in entries,
// something an answer may have been lost in: a line that is no message,
// one cut or never ended, or a response with an id no request of the
// process carried.
func unreadableAfter(p *Process, entries []transcript.Entry) bool {
	ids := map[string]bool{}
	for _, y := range p.Exchanges() {
		ids[wire.LooseIDKey(y.ID)] = true
	}
	for _, e := range entries {
		if e.Dir != transcript.Recv {
			continue
		}
		if e.Has(wire.IssueOversize) || e.Has(wire.IssuePartialEOF) || len(e.Msgs) == 0 && len(e.Issues) > 0 && !e.Has(wire.IssueBlank) {
			return true
		}
		for _, m := range e.Msgs {
			if m.Kind() == wire.KindResponse && !wire.IsNullID(m.ID) && !ids[wire.LooseIDKey(m.ID)] {
				return true
			}
		}
	}
	return false
}
