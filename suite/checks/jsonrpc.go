package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// serverMessages are the probes that give a server occasion to send
// notifications and requests of its own: requests for the client
// capabilities the probe process declares, progress and list changes of
// tool calls, resource updates, stream notifications and log messages.
// A check of every message a server sends needs them, or it judges
// nothing on a server that sends none during discovery.
var serverMessages = []plan.Probe{
	plan.ProbeServerRequests, plan.ProbeToolCall, plan.ProbeSubscribe, plan.ProbeListen,
	plan.ProbeListenHeld, plan.ProbeSetLevel, plan.ProbeLogLevelMeta,
}

// jsonrpcChecks judge the JSON-RPC envelope of every message the server
// wrote in well-formed traffic (JSONRPC-*).
func jsonrpcChecks() []*Check {
	return []*Check{
		{
			ID: "jsonrpc-version", Requirement: "JSONRPC-01", Area: "jsonrpc",
			Description: `every message is a JSON-RPC 2.0 object with "jsonrpc": "2.0" and the shape of a request, notification or response`,
			Judge: func(j *J) Finding {
				return messageFinding(j, "every message is JSON-RPC 2.0", "the server sent no message in well-formed traffic", anyMessage, envelopeRule)
			},
		},
		{
			ID: "jsonrpc-server-request-ids", Requirement: "JSONRPC-02", Area: "jsonrpc",
			Description: "requests the server sends have string or integer ids",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
			Judge: func(j *J) Finding {
				return messageFinding(j, "every server request id is a string or an integer", noServerRequest(j), isServerRequest, serverRequestIDRule)
			},
		},
		{
			ID: "jsonrpc-server-request-id-not-null", Requirement: "JSONRPC-03", Area: "jsonrpc",
			Description: "requests the server sends never have a null id",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
			Judge: func(j *J) Finding {
				return messageFinding(j, "no server request has a null id", noServerRequest(j), isServerRequest, func(m *wire.Message) string {
					// A notification method with a null id is judged as a
					// notification with an id (JSONRPC-09).
					if wire.Type(m.ID) == "null" && !strings.HasPrefix(m.Method, "notifications/") {
						return `a request with "id": null`
					}
					return ""
				})
			},
		},
		{
			ID: "jsonrpc-server-request-ids-unique", Requirement: "JSONRPC-04", Area: "jsonrpc",
			Description: "the server never reuses the id of one of its own requests within a session",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
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
				return messageFinding(j, "every response has exactly one of result and error", "no response to judge", isResponse, func(m *wire.Message) string {
					if m.Has("result") && m.Has("error") {
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
				return messageFinding(j, "every result is an object", "no result to judge", isResult, func(m *wire.Message) string {
					if wire.Type(m.Result) != "object" {
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
				return messageFinding(j, "every error has an integer code and a string message", "no error response to judge", isErrorResponse, errorShapeRule)
			},
		},
		{
			ID: "jsonrpc-notification-no-id", Requirement: "JSONRPC-09", Area: "jsonrpc",
			Description: "server notifications carry no id member",
			Needs:       serverMessages,
			Judge: func(j *J) Finding {
				return messageFinding(j, "no notification has an id member", "the server sent no notifications", isNotification, func(m *wire.Message) string {
					if m.Has("id") {
						return "a notification with the id " + clipJSON(m.ID, 40)
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
			Needs:       []plan.Probe{plan.ProbeBatch},
			Flags:       []string{"sdk-divergence"},
			Judge:       checkBatch,
		},
		{
			ID: "jsonrpc-no-batches-sent", Requirement: "JSONRPC-12", Area: "jsonrpc",
			Description: "from 2025-06-18 on the server never writes a JSON array, not even to answer one (batches were removed)",
			Judge:       checkNoBatches,
		},
		{
			ID: "no-server-requests", Requirement: "JSONRPC-14", Area: "jsonrpc",
			Description: "the server sends no JSON-RPC requests in the 2026-07-28 era",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
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
			Needs:       serverMessages,
			Judge: func(j *J) Finding {
				return messageFinding(j, "every params is an object", "the server sent no requests or notifications", hasMethod, func(m *wire.Message) string {
					if m.Has("params") && wire.Type(m.Params) != "object" {
						return "params is " + describeType(m.Params) + ", want an object"
					}
					return ""
				})
			},
		},
		{
			ID: "every-request-answered", Requirement: "JSONRPC-18", Area: "jsonrpc",
			Description: "every request is answered: a request the server dropped (it exited with the request pending, or answered later requests after its deadline) fails; silence alone is not judged",
			Judge:       checkAllAnswered,
		},
	}
}

// messageFinding judges with rule every message of well-formed traffic
// that applies to; when none does, the check judged nothing and says so.
func messageFinding(j *J, okMsg, nothing string, applies func(m *wire.Message) bool, rule func(m *wire.Message) string) Finding {
	t := &tally{}
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		if !applies(m) {
			return
		}
		t.judged()
		if v := rule(m); v != "" {
			t.violate(At(p, e.Seq), "%s: %s", v, clipString(string(m.Raw), 160))
		}
	})
	return t.finding(fmt.Sprintf("%s (%d messages)", okMsg, t.n), nothing)
}

func anyMessage(*wire.Message) bool { return true }

func hasMethod(m *wire.Message) bool { return m.Has("method") }

func isServerRequest(m *wire.Message) bool { return m.Has("method") && m.Has("id") }

func isResponse(m *wire.Message) bool { return m.Kind() == wire.KindResponse }

func isResult(m *wire.Message) bool { return isResponse(m) && m.Has("result") }

func isErrorResponse(m *wire.Message) bool { return isResponse(m) && m.Has("error") }

// isNotification tells the notifications among the messages with a
// method: those without a usable id, and those whose method names a
// notification ("notifications/...") whatever id they carry (JSONRPC-09).
func isNotification(m *wire.Message) bool {
	return m.Has("method") && (wire.IsNullID(m.ID) || strings.HasPrefix(m.Method, "notifications/"))
}

func envelopeRule(m *wire.Message) string {
	v, ok := m.Member("jsonrpc")
	switch {
	case !ok:
		return `no "jsonrpc" member`
	case !wire.Equal(v, json.RawMessage(`"2.0"`)):
		return `"jsonrpc" is ` + clipJSON(v, 20) + `, want "2.0"`
	case m.Kind() == wire.KindInvalid:
		return "neither a request, a notification nor a response"
	case m.Has("method") && wire.Type(memberOf(m, "method")) != "string":
		return "method is not a string"
	}
	return ""
}

func serverRequestIDRule(m *wire.Message) string {
	switch t := wire.Type(m.ID); t {
	case "string", "integer", "null": // a null id is JSONRPC-03's
		return ""
	default:
		return "a server request with " + article(t) + " id"
	}
}

func errorShapeRule(m *wire.Message) string {
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

// checkServerIDsUnique judges the ids of the server's own requests: never
// reused within a session, and in 2026-07-28 (where the rule narrows) never
// reused while the request that had it still awaits the client's response.
func checkServerIDsUnique(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		waiting := map[string]bool{} // every id used so far: true while unanswered
		for _, e := range p.Entries() {
			switch {
			case e.Dir == transcript.Send:
				for _, m := range e.Msgs {
					if k := wire.IDKey(m.ID); m.Kind() == wire.KindResponse && waiting[k] {
						waiting[k] = false
					}
				}
			case e.Dir == transcript.Recv && !p.Provoked(e.Seq):
				for _, m := range e.Msgs {
					if m.Kind() != wire.KindRequest || wire.IsNullID(m.ID) {
						continue
					}
					t.judged()
					k := wire.IDKey(m.ID)
					unanswered, used := waiting[k]
					switch era, _ := p.EraAt(e.Seq); {
					case unanswered:
						t.violate(At(p, e.Seq), "the server reused the id %s of its request still awaiting a response", clipJSON(m.ID, 40))
					case used && era != wire.EraModern:
						t.violate(At(p, e.Seq), "the server reused its request id %s", clipJSON(m.ID, 40))
					}
					waiting[k] = true
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d server request ids, none reused", t.n), noServerRequest(j))
}

// noServerRequest is what a check of the requests a server makes of the
// client says when none arrived. The run waited for them only so long
// (evidence recorded before the window was recorded does not say).
func noServerRequest(j *J) string {
	w := j.Run.RequestWindow
	if w <= 0 {
		return "the server sent no requests"
	}
	return fmt.Sprintf("no server request arrived during the run's work or within the %s window after the probe process's initialize (--server-request-window); a later one is not seen", w)
}

func checkIDEcho(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		answered := map[string]bool{}
		late := unansweredIDs(p)
		replayed := p.Replayed()
		sentBeyond := false
		for _, x := range p.Exchanges() {
			sentBeyond = sentBeyond || wire.BeyondSafeInteger(x.ID)
			if !x.OK() || p.Provoked(x.RecvSeq) {
				continue
			}
			t.judged()
			answered[wire.IDKey(x.ID)] = true
			if x.LooseID && !wire.BeyondSafeInteger(x.ID) {
				t.violate(At(p, x.RecvSeq), "the request had id %s, the response says %s", clipJSON(x.ID, 40), clipJSON(x.Response.ID, 40))
			}
		}
		for _, r := range p.Replies() {
			if p.Provoked(r.Seq) || wire.IsNullID(r.Msg.ID) || r.To >= 0 || replayed[r.Seq] {
				continue
			}
			t.judged()
			k := wire.IDKey(r.Msg.ID)
			switch {
			case answered[k]:
				t.violate(At(p, r.Seq), "a second response for id %s", clipJSON(r.Msg.ID, 40))
			case late[k]:
				// The id is right; the delay is every-request-answered's.
				late[k], answered[k] = false, true
			case sentBeyond && wire.BeyondSafeInteger(r.Msg.ID):
				// An echo that lost precision: id-echo-beyond-safe-integer
				// records it.
			default:
				t.violate(At(p, r.Seq), "a response with id %s, which no request carried", clipJSON(r.Msg.ID, 40))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d responses, each with exactly its request's id", t.n), "no response to judge")
}

// unansweredIDs returns the ids of the requests a process wrote that no
// response answered in time: an answer that still carries one of them is
// late (every-request-answered judges that), not unsolicited.
func unansweredIDs(p *evidence.Process) map[string]bool {
	ids := map[string]bool{}
	for _, x := range p.Exchanges() {
		if x.Request != nil && !x.OK() {
			ids[wire.IDKey(x.ID)] = true
		}
	}
	return ids
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
			case r.To >= 0 && holdsRequest(entries[r.To]):
				// It answers a line with a request in it (a batch answered
				// as a whole, say): solicited, and judged by what sent it.
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

// memberOf is the value of a member of m, nil when absent.
func memberOf(m *wire.Message, name string) json.RawMessage {
	v, _ := m.Member(name)
	return v
}

// holdsRequest reports whether a client line carries a request.
func holdsRequest(e transcript.Entry) bool {
	for _, m := range e.Msgs {
		if m.Kind() == wire.KindRequest {
			return true
		}
	}
	return false
}

// checkNoBatches fails every JSON array the server writes from 2025-06-18
// on of its own accord (JSONRPC-12). An array answering an array the suite
// sent on purpose is the reply JSON-RPC 2.0 gives a batch: the array broke
// the client's rules first, and the probe that sent it judges the reply.
func checkNoBatches(j *J) Finding {
	t := &tally{}
	eachLine(j, func(p *evidence.Process, e transcript.Entry) {
		if p.Provoked(e.Seq) {
			return
		}
		t.judged()
		if e.Batch {
			_, v := p.EraAt(e.Seq)
			t.violate(At(p, e.Seq), "a JSON array on stdout in a %s session; batches are gone from 2025-06-18 on", v)
		}
	})
	return t.finding(fmt.Sprintf("no batch arrays (%d lines)", t.n), "the server wrote nothing on stdout")
}

// checkBatch judges the 2025-03-26 batch probe: 2025-03-26 says servers
// must accept batches, though no SDK does it on stdio. A batch ignored, or
// answered in part, is not accepted; answered in separate messages, it is,
// with the form JSON-RPC only recommends missing.
func checkBatch(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened")
	}
	var xs []*evidence.Exchange
	for _, p := range j.Session.All() {
		xs = append(xs, p.Tagged(plan.ProbeBatch.Tag())...)
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
	seq := xs[0].SentSeq
	switch {
	case answered == 0 && p.ReplyTo(seq) != nil:
		f.Outcome, f.Message = Violation, "the batch line was answered with "+clipJSON(p.ReplyTo(seq).Msg.Raw, 200)+", not with the responses to its requests"
	case answered == 0 && exitedOnItsOwn(p) && !answeredAfter(p, seq):
		f.Outcome, f.Message = Violation, "the server exited after the batch line without answering it or anything after it ("+p.Exit().String()+")"
	case answered == 0 && answeredAfter(p, seq):
		// Silence within the probe's window proves nothing by itself;
		// later requests answered first make a dropped batch likely.
		f.Outcome, f.Message = Disputed, "no response to either request of the batch, though the server answered a request sent after it: it seems to drop batches (silence proves nothing, so this is a warning)"
	case answered == 0:
		return harness("not judged: no response to the batch within the harness's deadline, and none to later requests either")
	case answered < len(xs):
		f.Outcome, f.Message = Violation, fmt.Sprintf("%d of the %d requests of the batch were answered", answered, len(xs))
	case !batched:
		// Every request was received and answered, which is what the
		// 2025-03-26 MUST asks; one array is JSON-RPC 2.0's lower-case
		// "should respond with an Array" (section 6).
		f.Outcome, f.Message = Disputed, "both requests were answered, but with separate messages: JSON-RPC 2.0 says the server should answer a batch with one array"
	default:
		return passed("one array with both responses")
	}
	return f
}

// exitedOnItsOwn reports whether the process exited before the harness
// shut it down.
func exitedOnItsOwn(p *evidence.Process) bool {
	e := p.Exit()
	return e != nil && e.Stage == transcript.BeforeShutdown
}

// answeredAfter reports whether a request sent after the line at seq was
// answered.
func answeredAfter(p *evidence.Process, seq int) bool {
	for _, x := range p.Exchanges() {
		if x.SentSeq > seq && x.OK() {
			return true
		}
	}
	return false
}

// checkResultType judges the results of requests sent in the 2026-07-28
// envelope (a dual-era server may answer the others as legacy traffic).
// Extensions may add resultType values, so an unknown value is only
// recorded when the server advertises extensions: the suite cannot know
// what they define.
func checkResultType(j *J) Finding {
	t := &tally{}
	var extensions []string
	for name := range wire.Object(wire.Object(j.Caps().Raw)["extensions"]) {
		extensions = append(extensions, name)
	}
	slices.Sort(extensions)
	modernResults(j, func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage) {
		t.judged()
		rt, ok := wire.String(res["resultType"])
		switch {
		case !ok:
			t.violate(At(p, x.RecvSeq), "a %s result without a string resultType", x.Method)
		case rt == "complete" || rt == "input_required":
		case len(extensions) > 0:
			t.record(At(p, x.RecvSeq), "a %s result with resultType %q, which only an advertised extension (%s) can define", x.Method, clipString(rt, 30), clipString(strings.Join(extensions, ", "), 120))
		default:
			t.violate(At(p, x.RecvSeq), "a %s result with resultType %q, though the server advertises no extension that could define it", x.Method, clipString(rt, 30))
		}
	})
	return t.finding(fmt.Sprintf("%d results carry resultType", t.n), "no result of a 2026-07-28 request to judge")
}

// checkAllAnswered fails a request the server dropped: one the evidence
// shows it will never answer (evidence.Exchange.Dropped), whoever sent it
// (discovery, a probe, a vector test). Silence with no such evidence is
// not judged: the request deadline is the harness's, and a slow server may
// still be working on the request. What a provocation got in answer, and
// a server that died under one, are the probe's to judge.
func checkAllAnswered(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		for _, x := range p.Exchanges() {
			if x.Stopped() || x.NotSent() {
				continue // a stopped run judges nothing; an unsent request repeats an earlier fact
			}
			if why, died := dropped(j.Run, x); why != "" {
				t.judged()
				end := ""
				if died {
					end = stderrEnd(p)
				}
				t.violate(exchangeWhere(x), "%s (id %s) was never answered: %s%s", x.Method, clipJSON(x.ID, 40), why, end)
				continue
			}
			at := x.SentSeq
			if at < 0 {
				at = x.EventSeq
			}
			if p.InProvocation(at) || x.Tag == evidence.TagEraProbe {
				// The probe judges what it provoked; before initialize, a
				// handshake-era server may leave server/discover alone.
				continue
			}
			nr := x.NoResponse
			switch {
			case x.Late:
				t.judged()
				t.record(exchangeWhere(x), "%s (id %s) was answered only after its deadline of %s", x.Method, clipJSON(x.ID, 40), nr.Deadline)
			case x.OK():
				t.judged()
			case nr == nil:
				// Nothing recorded why (a probe that waits on its own): the
				// probe judges it.
			case nr.Reason == transcript.ReasonTimeout:
				if j.Run.Timeout > 0 && nr.Deadline < j.Run.Timeout*9/10 {
					continue // a deadline shortened on purpose: silence there is only recorded
				}
				if x.Tag == evidence.TagToolCall || x.Tag == evidence.TagToolCallInvalid {
					continue // a tool may run as long as it likes; the report says which went unanswered
				}
				t.judged()
				if g := garbled(p, x); g != "" {
					t.record(exchangeWhere(x), "%s (id %s) got no response it could read: the server wrote %s in its stead (judged by the framing and id checks)", x.Method, clipJSON(x.ID, 40), g)
					continue
				}
				t.undecide(exchangeWhere(x), "%s; nothing shows the request was dropped (no later request was answered after that deadline, and the server did not exit on its own or at the end of its input)%s", silenceSentence(j, x), cancelNote(x))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d requests, each answered", t.n), "no request was sent")
}

// silenceSentence says plainly that the server did not answer x within
// its deadline, and which flag sets that deadline.
func silenceSentence(j *J, x *evidence.Exchange) string {
	d := x.NoResponse.Deadline
	flag := "--timeout"
	switch {
	case j.Run.Timeout <= 0 || d == j.Run.Timeout:
	case x.Method == "initialize" || x.Tag == evidence.TagInit:
		flag = "--start-timeout"
	case d > j.Run.Timeout:
		flag = "--timeout, waited longer while the server had written nothing yet or a line was still arriving"
	case d < j.Run.Timeout*9/10:
		flag = "a window of the probe that sent it"
	}
	return fmt.Sprintf("the server did not answer %s (id %s) within %s (%s)", x.Method, clipJSON(x.ID, 40), d, flag)
}

// cancelNote says that the client cancelled a request it gave up on
// (never initialize, which clients must not cancel).
func cancelNote(x *evidence.Exchange) string {
	if x.Method == "initialize" {
		return ""
	}
	return "; mcpconform then cancelled it"
}

// stderrEnd quotes the last line a process wrote on stderr, which often
// says why it ended.
func stderrEnd(p *evidence.Process) string {
	for i := len(p.StderrTail) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(p.StderrTail[i]); l != "" {
			return "; its stderr ended with " + strconv.Quote(clipString(l, 120))
		}
	}
	return ""
}

func exchangeWhere(x *evidence.Exchange) *Where {
	from := x.SentSeq
	if from < 0 {
		from = x.Process.Transcript.Len() - 4
	}
	return &Where{Process: x.Process, From: from - 1, To: from + 4}
}
