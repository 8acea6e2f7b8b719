package checks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// spawnView indexes what crossed one spawn's stdio, as the client checks
// need it. The transcript keeps server mode's direction words: Send is
// what the client wrote, Recv what the mock (the server) wrote.
type spawnView struct {
	sp *evidence.Spawn
	// p stands for the spawn where a finding locates its evidence.
	p       *evidence.Process
	entries []transcript.Entry

	// sent is every message the client wrote, in order; requests,
	// notifications and responses are the same messages by kind.
	sent          []*sentMsg
	requests      []*sentMsg
	notifications []*sentMsg
	responses     []*sentMsg
	// serverRequests are the requests the server wrote, in order, each
	// with the client's answer when it came.
	serverRequests []*serverRequest
	// replies are the server's responses, in order, each with the client
	// request it answered (nil when none).
	replies []*serverReply
	// xs are the HTTP exchanges of a spawn over Streamable HTTP, indexed
	// on first use, and streams the exchange of each entry of a server
	// message.
	xs      []*evidence.HTTPExchange
	streams map[int]int
}

// sentMsg is a message the client wrote.
type sentMsg struct {
	msg   *wire.Message
	seq   int
	at    time.Duration
	batch bool // its line was a JSON array
	// For a request: the server's response (nil when none came) and the
	// first notifications/cancelled naming it, if any.
	resp      *wire.Message
	respSeq   int
	respAt    time.Duration
	cancelled *sentMsg
	// For a response: the server request it answers (nil when none was
	// pending with its id).
	answers *serverRequest
}

// serverRequest is a request the server wrote, with the client's answer.
type serverRequest struct {
	msg    *wire.Message
	seq    int
	at     time.Duration
	answer *sentMsg
}

// serverReply is a response the server wrote.
type serverReply struct {
	msg *wire.Message
	seq int
	at  time.Duration
	to  *sentMsg
}

func newSpawnView(sp *evidence.Spawn) *spawnView {
	v := &spawnView{sp: sp, p: &evidence.Process{ID: sp.ID, Transcript: sp.Transcript, Version: sp.Version, Transport: sp.Transport}}
	if sp.Transcript == nil {
		return v
	}
	v.entries = sp.Transcript.Entries()
	pending := map[string][]*sentMsg{}     // client requests awaiting a response, by id
	asked := map[string][]*serverRequest{} // server requests awaiting an answer, by id
	for _, e := range v.entries {
		switch e.Dir {
		case transcript.Send:
			batch := e.Batch
			if lv := wire.LineValue(e.Data); len(lv) > 0 && lv[0] == '[' {
				batch = true
			}
			for _, m := range sendMsgs(e) {
				s := &sentMsg{msg: m, seq: e.Seq, at: e.At, batch: batch, respSeq: -1}
				v.sent = append(v.sent, s)
				switch m.Kind() {
				case wire.KindRequest:
					v.requests = append(v.requests, s)
					k := wire.IDKey(m.ID)
					pending[k] = append(pending[k], s)
				case wire.KindNotification:
					v.notifications = append(v.notifications, s)
					if m.Method == "notifications/cancelled" {
						id, ok := wire.Object(m.Params)["requestId"]
						if !ok {
							break
						}
						for _, r := range v.requests {
							if r.cancelled == nil && wire.IDKey(r.msg.ID) == wire.IDKey(id) {
								r.cancelled = s
							}
						}
					}
				case wire.KindResponse:
					v.responses = append(v.responses, s)
					k := wire.IDKey(m.ID)
					if q := asked[k]; len(q) > 0 {
						s.answers, asked[k] = q[0], q[1:]
						q[0].answer = s
					}
				}
			}
		case transcript.Recv:
			for _, m := range e.Msgs {
				switch m.Kind() {
				case wire.KindRequest:
					r := &serverRequest{msg: m, seq: e.Seq, at: e.At}
					v.serverRequests = append(v.serverRequests, r)
					k := wire.IDKey(m.ID)
					asked[k] = append(asked[k], r)
				case wire.KindResponse:
					rep := &serverReply{msg: m, seq: e.Seq, at: e.At}
					k := wire.IDKey(m.ID)
					if q := pending[k]; len(q) > 0 {
						rep.to, pending[k] = q[0], q[1:]
						q[0].resp, q[0].respSeq, q[0].respAt = m, e.Seq, e.At
					}
					v.replies = append(v.replies, rep)
				}
			}
		}
	}
	return v
}

// at locates an entry of the spawn for a finding.
func (v *spawnView) at(seq int) *Where { return At(v.p, seq) }

// initialize returns the client's first initialize request, or nil.
func (v *spawnView) initialize() *sentMsg {
	for _, r := range v.requests {
		if r.msg.Method == "initialize" {
			return r
		}
	}
	return nil
}

// succeeded reports whether a request got a success result.
func (s *sentMsg) succeeded() bool {
	return s != nil && s.resp != nil && s.resp.Has("result") && !s.resp.Has("error")
}

// params returns the members of a message's params.
func params(m *wire.Message) map[string]json.RawMessage { return wire.Object(m.Params) }

// meta returns the members of a request's params._meta.
func meta(m *wire.Message) map[string]json.RawMessage { return wire.Object(params(m)["_meta"]) }

// negotiated returns the version the spawn's traffic settled on: the
// initialize result's protocolVersion, else the version of the first
// modern request the server served; "" when nothing was negotiated.
func (v *spawnView) negotiated() string {
	if in := v.initialize(); in.succeeded() {
		if pv, ok := wire.String(wire.Object(in.resp.Result)["protocolVersion"]); ok {
			return pv
		}
	}
	for _, r := range v.requests {
		if ev, ok := wire.EnvelopeVersion(r.msg); ok && r.resp != nil && !isVersionError(r.resp) {
			return ev
		}
	}
	return ""
}

// offered returns the version the client asked for first: its initialize
// request's, or its first modern request's.
func (v *spawnView) offered() string {
	for _, r := range v.requests {
		if r.msg.Method == "initialize" {
			pv, _ := wire.String(params(r.msg)["protocolVersion"])
			return pv
		}
		if ev, ok := wire.EnvelopeVersion(r.msg); ok {
			return ev
		}
	}
	return ""
}

// legacy reports whether the spawn's traffic is of the handshake era: the
// client sent initialize.
func (v *spawnView) legacy() bool { return v.initialize() != nil }

// serverCaps returns the capabilities the server declared in its
// initialize result (legacy) or its server/discover result (2026-07-28).
func (v *spawnView) serverCaps() (evidence.Capabilities, bool) {
	if in := v.initialize(); in.succeeded() {
		return evidence.ParseCapabilities(wire.Object(in.resp.Result)["capabilities"]), true
	}
	for _, r := range v.requests {
		if r.msg.Method == "server/discover" && r.succeeded() {
			return evidence.ParseCapabilities(wire.Object(r.resp.Result)["capabilities"]), true
		}
	}
	return evidence.Capabilities{}, false
}

// clientCaps returns the capabilities the client declared in initialize
// (legacy).
func (v *spawnView) clientCaps() evidence.Capabilities {
	if in := v.initialize(); in != nil {
		return evidence.ParseCapabilities(params(in.msg)["capabilities"])
	}
	return evidence.Capabilities{}
}

// isVersionError reports whether a response is an
// UnsupportedProtocolVersionError (-32022).
func isVersionError(m *wire.Message) bool {
	if m == nil || !m.Has("error") {
		return false
	}
	e := m.DecodeError()
	if e == nil {
		return false
	}
	code, ok := e.IntCode()
	return ok && code == -32022
}

// isCall reports whether a request the client wrote is a well-formed
// call whose answer the client may be held to wait for: "jsonrpc": "2.0",
// a string method, a string or integer id, on a line of its own where
// batches do not exist. A malformed one is its own defect, judged by the
// check of what it broke (JSONRPC-01, -02, -03, -12), whatever came of it.
func (v *spawnView) isCall(s *sentMsg, version string) bool {
	m := s.msg
	t := wire.Type(m.ID)
	jsonrpc, _ := m.Member("jsonrpc")
	batchless := version != wire.V20250326
	return m.Kind() == wire.KindRequest && m.Method != "" && (t == "string" || t == "integer") &&
		wire.Equal(jsonrpc, json.RawMessage(`"2.0"`)) && !(s.batch && batchless)
}

// inputRound is a request of the client answered with an
// InputRequiredResult (2026-07-28), and the client's retry of it.
type inputRound struct {
	orig   *sentMsg
	result map[string]json.RawMessage
	// retry is the first later request of the same method and params
	// (requestState, inputResponses and _meta aside), nil when none came.
	retry *sentMsg
}

// inputRounds returns every input_required answer of the spawn, with the
// retry that followed it.
func (v *spawnView) inputRounds() []*inputRound {
	var out []*inputRound
	for _, r := range v.requests {
		if r.resp == nil || r.resp.Has("error") {
			continue
		}
		res := wire.Object(r.resp.Result)
		if kind, _ := wire.String(res["resultType"]); kind != "input_required" {
			continue
		}
		round := &inputRound{orig: r, result: res}
		for _, n := range v.requests {
			if n.seq > r.respSeq && n != r && n.msg.Method == r.msg.Method && sameCall(r.msg.Params, n.msg.Params) {
				round.retry = n
				break
			}
		}
		out = append(out, round)
	}
	return out
}

// sameCall reports whether two requests' params are the same but for what
// a retry adds or changes (requestState, inputResponses) and the envelope.
func sameCall(a, b json.RawMessage) bool {
	strip := func(raw json.RawMessage) json.RawMessage {
		out := map[string]json.RawMessage{}
		for k, v := range wire.Object(raw) {
			if k != "requestState" && k != "inputResponses" && k != "_meta" {
				out[k] = v
			}
		}
		b, _ := json.Marshal(out)
		return b
	}
	return wire.Equal(strip(a), strip(b))
}

// clientAnswer is a result the client gave to a server request: the
// response to a legacy server request, or an entry of a 2026-07-28
// retry's inputResponses.
type clientAnswer struct {
	method string
	// result is the result (nil for an error response); errCode its
	// code when it is an error.
	result  json.RawMessage
	isError bool
	errCode int64
	// caps are the capabilities the client had declared: in initialize,
	// or in the retry's _meta.
	caps evidence.Capabilities
	seq  int
	what string // names it in messages
}

// answers returns every answer the client gave to a server request of
// method, in both eras.
func (v *spawnView) answers(method string) []clientAnswer {
	var out []clientAnswer
	caps := v.clientCaps()
	for _, r := range v.serverRequests {
		if r.msg.Method != method || r.answer == nil {
			continue
		}
		a := clientAnswer{method: method, caps: caps, seq: r.answer.seq, what: fmt.Sprintf("the answer to %s (id %s)", method, clipJSON(r.msg.ID, 40))}
		if r.answer.msg.Has("error") {
			a.isError = true
			if e := r.answer.msg.DecodeError(); e != nil {
				a.errCode, _ = e.IntCode()
			}
		} else {
			a.result = r.answer.msg.Result
		}
		out = append(out, a)
	}
	for _, round := range v.inputRounds() {
		if round.retry == nil {
			continue
		}
		asked := wire.Object(round.result["inputRequests"])
		rcaps := evidence.ParseCapabilities(meta(round.retry.msg)[wire.MetaClientCapabilities])
		for k, raw := range wire.Object(params(round.retry.msg)["inputResponses"]) {
			m, _ := wire.String(wire.Object(asked[k])["method"])
			if m != method {
				continue
			}
			out = append(out, clientAnswer{method: method, result: raw, caps: rcaps, seq: round.retry.seq,
				what: fmt.Sprintf("inputResponses[%q] of the retried %s", clipString(k, 40), round.retry.msg.Method)})
		}
	}
	return out
}

// declaredFinding judges that every result the client gave to a server
// request of method comes with capability declared: answering is
// supporting, and a client that supports it declares it.
func declaredFinding(j *ClientJ, method, capability string) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, a := range v.answers(method) {
			if a.isError {
				continue // a refusal: the error-code checks judge it
			}
			t.judged()
			if !a.caps.Has(capability) {
				t.violate(v.at(a.seq), "%s is a result, but the client did not declare the %s capability", a.what, capability)
			}
		}
	})
	return t.finding(fmt.Sprintf("every %s result came with %s declared (%d)", method, capability, t.n), "the client answered no "+method+" with a result")
}

// resultFinding judges the shape of every result the client gave to a
// server request of method with rule, which returns what is wrong.
func resultFinding(j *ClientJ, method string, rule func(res map[string]json.RawMessage, raw json.RawMessage) []string) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, a := range v.answers(method) {
			if a.isError {
				continue
			}
			t.judged()
			res := wire.Object(a.result)
			var bad []string
			if res == nil {
				bad = []string{"the result is " + describeType(a.result) + ", want an object"}
			} else {
				bad = rule(res, a.result)
			}
			if len(bad) > 0 {
				t.violate(v.at(a.seq), "%s: %s", a.what, strings.Join(bad, "; "))
			}
		}
	})
	return t.finding(fmt.Sprintf("every %s result has the schema's shape (%d)", method, t.n), "the client answered no "+method+" with a result")
}
