package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// jsonrpcChecks judge the JSON-RPC envelope of every message the server
// wrote in well-formed traffic (JSONRPC-*).
func jsonrpcChecks() []*Check {
	return []*Check{
		{
			ID: "jsonrpc-version", Requirement: "JSONRPC-01", Area: "jsonrpc",
			Description: `every message is a JSON-RPC 2.0 object with "jsonrpc": "2.0" and the shape of a request, notification or response`,
			Judge:       func(j *J) Finding { return messageFinding(j, "every message is JSON-RPC 2.0", envelopeRule) },
		},
		{
			ID: "jsonrpc-server-request-ids", Requirement: "JSONRPC-02", Area: "jsonrpc",
			Description: "requests the server sends have string or integer ids",
			Judge: func(j *J) Finding {
				return messageFinding(j, "every server request id is a string or an integer", serverRequestIDRule)
			},
		},
		{
			ID: "jsonrpc-server-request-id-not-null", Requirement: "JSONRPC-03", Area: "jsonrpc",
			Description: "requests the server sends never have a null id",
			Judge: func(j *J) Finding {
				return messageFinding(j, "no server request has a null id", func(m *wire.Message) string {
					if m.Has("method") && m.Has("id") && wire.Type(m.ID) == "null" && !strings.HasPrefix(m.Method, "notifications/") {
						return `a request with "id": null`
					}
					return ""
				})
			},
		},
		{
			ID: "jsonrpc-server-request-ids-unique", Requirement: "JSONRPC-04", Area: "jsonrpc",
			Description: "the server never reuses the id of one of its own requests within a session",
			Judge:       checkServerIDsUnique,
		},
		{
			ID: "jsonrpc-response-id-echo", Requirement: "JSONRPC-05", Area: "jsonrpc",
			Description: "a response carries exactly the id of its request, the same JSON type and value",
			Judge:       checkIDEcho,
		},
		{
			ID: "jsonrpc-result-xor-error", Requirement: "JSONRPC-06", Area: "jsonrpc",
			Description: "a response has exactly one of result and error",
			Judge: func(j *J) Finding {
				return messageFinding(j, "every response has exactly one of result and error", func(m *wire.Message) string {
					if m.Kind() == wire.KindResponse && m.Has("result") && m.Has("error") {
						return "a response with both result and error"
					}
					return ""
				})
			},
		},
		{
			ID: "jsonrpc-result-object", Requirement: "JSONRPC-07", Area: "jsonrpc",
			Description: "a result is a JSON object",
			Judge: func(j *J) Finding {
				return messageFinding(j, "every result is an object", func(m *wire.Message) string {
					if m.Kind() == wire.KindResponse && m.Has("result") && wire.Type(m.Result) != "object" {
						return "result is " + describeType(m.Result) + ", want an object"
					}
					return ""
				})
			},
		},
		{
			ID: "jsonrpc-error-object", Requirement: "JSONRPC-08", Area: "jsonrpc",
			Description: "an error has an integer code and a string message",
			Judge: func(j *J) Finding {
				return messageFinding(j, "every error has an integer code and a string message", errorShapeRule)
			},
		},
		{
			ID: "jsonrpc-notification-no-id", Requirement: "JSONRPC-09", Area: "jsonrpc",
			Description: "server notifications carry no id member",
			Judge: func(j *J) Finding {
				return messageFinding(j, "no notification has an id member", func(m *wire.Message) string {
					// A notification method with an id member: null makes it an
					// invalid request, anything else a request of a method that
					// names a notification; either way not a notification.
					if m.Has("method") && m.Has("id") && (wire.Type(m.ID) == "null" || strings.HasPrefix(m.Method, "notifications/")) {
						return "a notification with an id member " + clipJSON(m.ID, 20)
					}
					return ""
				})
			},
		},
		{
			ID: "jsonrpc-no-unsolicited-responses", Requirement: "JSONRPC-10", Area: "jsonrpc",
			Description: "nothing answers a notification: every response answers a request the client sent",
			Judge:       checkUnsolicited,
		},
		{
			ID: "batch-accepted", Requirement: "JSONRPC-11", Area: "jsonrpc",
			Description: "in a 2025-03-26 session, a batch line of two requests and a notification gets one array with the two responses",
			Flags:       []string{"sdk-divergence"},
			Judge:       checkBatch,
		},
		{
			ID: "jsonrpc-no-batches-sent", Requirement: "JSONRPC-12", Area: "jsonrpc",
			Description: "from 2025-06-18 on the server never writes a JSON array of its own accord (batches were removed)",
			Judge:       checkNoBatches,
		},
		{
			ID: "no-server-requests", Requirement: "JSONRPC-14", Area: "jsonrpc",
			Description: "the server sends no JSON-RPC requests in the 2026-07-28 era",
			Judge:       func(j *J) Finding { return scanModernRequests(j) },
		},
		{
			ID: "result-type-on-every-result", Requirement: "JSONRPC-15", Area: "jsonrpc",
			Description: `every result of a 2026-07-28 request has resultType "complete" or "input_required"`,
			Judge:       checkResultType,
		},
		{
			ID: "jsonrpc-params-object", Requirement: "JSONRPC-17", Area: "jsonrpc",
			Description: "params in messages the server sends are objects",
			Judge: func(j *J) Finding {
				return messageFinding(j, "every params is an object", func(m *wire.Message) string {
					if m.Has("method") && m.Has("params") && wire.Type(m.Params) != "object" {
						return "params is " + describeType(m.Params) + ", want an object"
					}
					return ""
				})
			},
		},
		{
			ID: "every-request-answered", Requirement: "JSONRPC-18", Area: "jsonrpc",
			Description: "every well-formed request gets a response within the request deadline",
			Judge:       checkAllAnswered,
		},
	}
}

// messageFinding judges every message of well-formed traffic with rule.
func messageFinding(j *J, okMsg string, rule func(m *wire.Message) string) Finding {
	t := &tally{}
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		t.judged()
		if v := rule(m); v != "" {
			t.violate(At(p, e.Seq), "%s: %s", v, clipString(string(m.Raw), 160))
		}
	})
	return t.finding(fmt.Sprintf("%s (%d messages)", okMsg, t.n), "the server sent no message in well-formed traffic")
}

func envelopeRule(m *wire.Message) string {
	v, ok := m.Members["jsonrpc"]
	switch {
	case !ok:
		return `no "jsonrpc" member`
	case !wire.Equal(v, json.RawMessage(`"2.0"`)):
		return `"jsonrpc" is ` + clipJSON(v, 20) + `, want "2.0"`
	case m.Kind() == wire.KindInvalid:
		return "neither a request, a notification nor a response"
	case m.Has("method") && wire.Type(m.Members["method"]) != "string":
		return "method is not a string"
	}
	return ""
}

func serverRequestIDRule(m *wire.Message) string {
	if m.Kind() != wire.KindRequest || wire.Type(m.ID) == "null" {
		return ""
	}
	if t := wire.Type(m.ID); t != "string" && t != "integer" {
		return "a server request with " + article(t) + " id"
	}
	return ""
}

func errorShapeRule(m *wire.Message) string {
	if m.Kind() != wire.KindResponse || !m.Has("error") {
		return ""
	}
	e := wire.Object(m.Error)
	switch {
	case e == nil:
		return "error is " + describeType(m.Error) + ", want an object"
	case wire.Type(e["code"]) != "integer":
		return "error.code is " + describeType(e["code"]) + ", want an integer"
	case wire.Type(e["message"]) != "string":
		return "error.message is " + describeType(e["message"]) + ", want a string"
	}
	return ""
}

func checkServerIDsUnique(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		seen := map[string]bool{}
		for _, e := range p.Entries() {
			if e.Dir != transcript.Recv || p.Provoked(e.Seq) {
				continue
			}
			for _, m := range e.Msgs {
				if m.Kind() != wire.KindRequest || wire.IsNullID(m.ID) {
					continue
				}
				t.judged()
				k := wire.IDKey(m.ID)
				if seen[k] {
					t.violate(At(p, e.Seq), "the server reused its request id %s", clipJSON(m.ID, 40))
				}
				seen[k] = true
			}
		}
	}
	return t.finding(fmt.Sprintf("%d server request ids, none reused", t.n), "the server sent no requests")
}

// beyondSafeInteger reports whether id is an integer outside ±(2^53-1),
// where JavaScript servers lose precision: such echoes are judged by the
// id-echo-beyond-safe-integer test alone.
func beyondSafeInteger(id json.RawMessage) bool {
	s := strings.TrimPrefix(strings.TrimSpace(string(id)), "-")
	return wire.Type(id) == "integer" && !strings.ContainsAny(s, ".eE") && (len(s) > 16 || (len(s) == 16 && s > "9007199254740991"))
}

func checkIDEcho(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		answered := map[string]bool{}
		sentBeyond := false
		for _, x := range p.Exchanges() {
			sentBeyond = sentBeyond || beyondSafeInteger(x.ID)
			if !x.OK() || p.Provoked(x.RecvSeq) {
				continue
			}
			t.judged()
			answered[wire.IDKey(x.ID)] = true
			if x.LooseID && !beyondSafeInteger(x.ID) {
				t.violate(At(p, x.RecvSeq), "the request had id %s, the response says %s", clipJSON(x.ID, 40), clipJSON(x.Response.ID, 40))
			}
		}
		for _, r := range p.Replies() {
			if p.Provoked(r.Seq) || wire.IsNullID(r.Msg.ID) || r.To >= 0 {
				continue
			}
			t.judged()
			switch {
			case answered[wire.IDKey(r.Msg.ID)]:
				t.violate(At(p, r.Seq), "a second response for id %s", clipJSON(r.Msg.ID, 40))
			case sentBeyond && beyondSafeInteger(r.Msg.ID):
				// An echo that lost precision: the E-08 test records it.
			default:
				t.violate(At(p, r.Seq), "a response with id %s, which no request carried", clipJSON(r.Msg.ID, 40))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d responses, each with exactly its request's id", t.n), "no response to judge")
}

func checkUnsolicited(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		entries := p.Entries()
		for _, e := range entries {
			if e.Dir == transcript.Recv && !p.Provoked(e.Seq) {
				for _, m := range e.Msgs {
					if m.Kind() == wire.KindResponse {
						t.judged()
					}
				}
			}
		}
		for _, r := range p.Replies() {
			if p.Provoked(r.Seq) {
				continue
			}
			switch {
			case r.To >= 0:
				what := "a line"
				if ms := entries[r.To].Msgs; len(ms) == 1 && ms[0].Method != "" {
					what = "the notification " + ms[0].Method
				}
				t.violate(At(p, r.Seq), "a response to %s: %s", what, clipString(string(r.Msg.Raw), 120))
			case wire.IsNullID(r.Msg.ID):
				t.violate(At(p, r.Seq), "a response with no usable id, though every message sent was well formed: %s", clipString(string(r.Msg.Raw), 120))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d responses, each answering a request", t.n), "no response to judge")
}

func checkNoBatches(j *J) Finding {
	t := &tally{}
	eachLine(j, func(p *evidence.Process, e transcript.Entry) {
		if p.Provoked(e.Seq) {
			return
		}
		t.judged()
		if e.Batch {
			_, v := p.EraAt(e.Seq)
			t.violate(At(p, e.Seq), "a JSON array on stdout in a %s session, though the client sent no batch", v)
		}
	})
	return t.finding(fmt.Sprintf("no batch arrays (%d lines)", t.n), "the server wrote nothing on stdout")
}

// checkBatch judges the 2025-03-26 batch probe: 2025-03-26 says servers
// must accept batches, though no SDK does it on stdio.
func checkBatch(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened")
	}
	var xs []*evidence.Exchange
	for _, p := range j.Session.All() {
		xs = append(xs, p.Tagged(evidence.ProbeTag("batch"))...)
	}
	if len(xs) == 0 {
		return skipped("the batch probe did not run")
	}
	p := xs[0].Process
	f := Finding{Expected: "one JSON array holding the responses to both requests", Where: &Where{Process: p, From: xs[0].SentSeq - 1, To: xs[0].SentSeq + 6}}
	answered, arrays := 0, map[int]bool{}
	for _, x := range xs {
		if x.Stopped() {
			return harness("not judged: " + x.NoResponse.String())
		}
		if x.OK() {
			answered++
			for _, e := range p.Transcript.Slice(x.RecvSeq, x.RecvSeq+1) {
				arrays[x.RecvSeq] = e.Batch
			}
		}
	}
	batched := len(arrays) == 1
	for _, b := range arrays {
		batched = batched && b
	}
	switch {
	case answered == 0:
		f.Outcome, f.Message = Violation, "no answer to a batch line"
	case answered < len(xs):
		f.Outcome, f.Message = Violation, fmt.Sprintf("%d of the %d requests of the batch were answered", answered, len(xs))
	case !batched:
		f.Outcome, f.Message = Violation, "the batch was answered with separate messages, not one array"
	default:
		return passed("one array with both responses")
	}
	return f
}

// checkResultType judges the results of requests sent in the 2026-07-28
// envelope (a dual-era server may answer the others as legacy traffic).
func checkResultType(j *J) Finding {
	t := &tally{}
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		res := x.Result()
		if res == nil || x.Request == nil || p.Provoked(x.RecvSeq) {
			return
		}
		if v, _ := wire.EnvelopeVersion(x.Request); v != wire.Modern {
			return
		}
		t.judged()
		rt, ok := wire.String(res["resultType"])
		switch {
		case !ok:
			t.violate(At(p, x.RecvSeq), "a %s result without a string resultType", x.Method)
		case rt != "complete" && rt != "input_required":
			t.violate(At(p, x.RecvSeq), "a %s result with resultType %q, which no advertised extension defines", x.Method, clipString(rt, 30))
		}
	})
	return t.finding(fmt.Sprintf("%d results carry resultType", t.n), "no result of a 2026-07-28 request to judge")
}

// checkAllAnswered fails a request of well-formed traffic that got no
// response within the request deadline. A shortened deadline (a probe
// where silence is only recorded) or a stopped run judges nothing.
func checkAllAnswered(j *J) Finding {
	t := &tally{}
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		if x.Tag == evidence.TagEraProbe {
			return // before initialize, a handshake-era server may stay silent
		}
		if x.Stopped() || x.NotSent() {
			return // a stopped run judges nothing; an unsent request repeats an earlier fact
		}
		t.judged()
		if x.Late {
			t.record(exchangeWhere(x), "%s (id %s) was answered only after its deadline of %s", x.Method, clipJSON(x.ID, 40), x.NoResponse.Deadline)
			return
		}
		if x.OK() || x.NoResponse == nil {
			return
		}
		nr := x.NoResponse
		switch nr.Reason {
		case transcript.ReasonTimeout:
			if j.Run.Timeout > 0 && nr.Deadline < j.Run.Timeout*9/10 {
				return
			}
			t.violate(exchangeWhere(x), "%s (id %s) got no response within %s", x.Method, clipJSON(x.ID, 40), nr.Deadline)
		case transcript.ReasonExited:
			t.violate(exchangeWhere(x), "%s (id %s) got no response: the server exited (%s)", x.Method, clipJSON(x.ID, 40), nr.Detail)
		}
	})
	return t.finding(fmt.Sprintf("%d requests, each answered in time", t.n), "no request was sent")
}

func exchangeWhere(x *evidence.Exchange) *Where {
	from := x.SentSeq
	if from < 0 {
		from = x.Process.Transcript.Len() - 4
	}
	return &Where{Process: x.Process, From: from - 1, To: from + 4}
}
