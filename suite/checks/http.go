package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// httpChecks judge the Streamable HTTP transport (HTTP-*): how POSTs are
// answered and how their streams run (this file), sessions, GET streams
// and resumption (http_session.go), the 2026-07-28 request metadata
// (http_modern.go), and what protects a server (http_security.go). Each
// judges the HTTP exchanges of the transcript (evidence.HTTPExchange);
// over stdio there are none, and each is a skip.
func httpChecks() []*Check {
	return slices.Concat([]*Check{
		{
			ID: "http-request-content-type", Requirement: "HTTP-01", Area: "http",
			Description: "a POST carrying a request is answered with Content-Type application/json or text/event-stream",
			Judge:       overHTTP(checkHTTPRequestContentType),
		},
		{
			ID: "http-notice-accepted", Requirement: "HTTP-02", Area: "http",
			Description: "a POST of notifications or responses only that the server accepts gets 202 Accepted with no body",
			Needs:       []plan.Probe{plan.ProbeHTTPNotify},
			Judge:       overHTTP(checkHTTPNoticeAccepted),
		},
		{
			ID: "http-notice-refused-status", Requirement: "HTTP-03", Area: "http",
			Description: "a POST of notifications or responses only that the server refuses gets an HTTP error status",
			Needs:       []plan.Probe{plan.ProbeHTTPNotify},
			Judge:       overHTTP(checkHTTPNoticeRefused),
		},
		{
			ID: "http-stream-carries-response", Requirement: "HTTP-04", Area: "http",
			Description: "the SSE stream a POST opened carries the response to its request before it ends",
			Judge:       overHTTP(checkHTTPStreamCarriesResponse),
		},
		{
			ID: "http-stream-ends-after-response", Requirement: "HTTP-05", Area: "http",
			Description: "the SSE stream a POST opened ends once the response to its request has been sent",
			Judge:       overHTTP(checkHTTPStreamEnds),
		},
		{
			ID: "http-priming-event", Requirement: "HTTP-15", Area: "http",
			Description: "an SSE stream a POST opened starts with an event holding an event id and empty data",
			Judge:       overHTTP(checkHTTPPriming),
		},
		{
			ID: "http-retry-before-close", Requirement: "HTTP-16", Area: "http",
			Description: "a server that closes a stream's connection before the response first sends an event with a retry field",
			Judge:       overHTTP(checkHTTPRetry),
		},
		{
			ID: "http-protocol-version-header", Requirement: "HTTP-17", Area: "http",
			Description: "a request whose MCP-Protocol-Version names no supported version gets 400 Bad Request (2026-07-28: with -32022)",
			Needs:       []plan.Probe{plan.ProbeHTTPBadVersion},
			Judge:       overHTTP(checkHTTPVersionHeader),
		},
		{
			ID: "http-accept-header", Requirement: "HTTP-28", Area: "http",
			Description: "what a server answers a POST whose Accept lacks text/event-stream (a 406, say): recorded, never judged",
			Needs:       []plan.Probe{plan.ProbeHTTPAccept},
			Judge:       overHTTP(checkHTTPAccept),
		},
		{
			ID: "http-sse-event-name", Requirement: "HTTP-29", Area: "http",
			Description: "the event names of the SSE events that carry messages: recorded when not the default, never judged",
			Judge:       overHTTP(checkHTTPEventName),
		},
		{
			ID: "http-batch-post", Requirement: "HTTP-30", Area: "http",
			Description: "a POST holding a batch is accepted at 2025-03-26; after it, what the server does is recorded",
			Needs:       []plan.Probe{plan.ProbeBatch},
			Judge:       overHTTP(checkHTTPBatch),
		},
	}, httpSessionChecks(), httpModernChecks(), httpSecurityChecks())
}

// overHTTP wraps the judge of an HTTP rule: a run over stdio holds no HTTP
// exchange, and the rule is not judged.
func overHTTP(judge func(j *J) Finding) func(j *J) Finding {
	return func(j *J) Finding {
		if !slices.ContainsFunc(j.Processes, (*evidence.Process).SpeaksHTTP) {
			return skipped("the server was reached over stdio: there is no HTTP exchange to judge")
		}
		return judge(j)
	}
}

// httpProbePrefix starts the tags of the HTTP transport's probes.
const httpProbePrefix = "p:http-"

// httpExchanges returns the HTTP exchanges of the processes judged, in
// order.
func httpExchanges(j *J) []*evidence.HTTPExchange {
	var out []*evidence.HTTPExchange
	for _, p := range j.Processes {
		out = append(out, p.HTTPExchanges()...)
	}
	return out
}

// ambientHTTP returns the exchanges of well-formed traffic: none of an HTTP
// probe, none sent inside a provocation (what the suite provoked is judged
// by the probe that provoked it).
func ambientHTTP(j *J) []*evidence.HTTPExchange {
	return slices.DeleteFunc(httpExchanges(j), func(x *evidence.HTTPExchange) bool {
		return strings.HasPrefix(x.Tag, httpProbePrefix) || x.RequestSeq >= 0 && x.Process.InProvocation(x.RequestSeq)
	})
}

// probeHTTP returns the exchanges of probe p (of its step, when given).
func probeHTTP(j *J, p plan.Probe, step ...string) []*evidence.HTTPExchange {
	tag := p.Tag(step...)
	return slices.DeleteFunc(httpExchanges(j), func(x *evidence.HTTPExchange) bool {
		return x.Tag != tag && (len(step) > 0 || !strings.HasPrefix(x.Tag, tag+"."))
	})
}

// stepOf is the step of a probe's tag ("" for none).
func stepOf(x *evidence.HTTPExchange, p plan.Probe) string {
	return strings.TrimPrefix(strings.TrimPrefix(x.Tag, p.Tag()), ".")
}

// needsToken counts an exchange answered 401 as not judged: what the rule
// asks is hidden behind the server's authorization. It reports whether it
// was.
func needsToken(t *tally, x *evidence.HTTPExchange) bool {
	if x.Status() != 401 {
		return false
	}
	t.unexercise("%s was answered 401 Unauthorized: needs a token (--header)", httpWhat(x))
	return true
}

// httpWhere locates an exchange in its transcript.
func httpWhere(x *evidence.HTTPExchange) *Where {
	from, to := x.RequestSeq, max(x.RequestSeq, x.SentSeq, x.ResponseSeq, x.EndSeq)
	for _, r := range x.Received {
		to = max(to, r.Seq)
	}
	for _, ev := range x.Events {
		to = max(to, ev.Seq)
	}
	if from < 0 {
		from = x.ResponseSeq
	}
	if to-from > 12 {
		to = from + 12
	}
	return &Where{Process: x.Process, From: from - 1, To: to + 2}
}

// httpWhat names an exchange for a message: "the POST of tools/list
// (exchange 4)".
func httpWhat(x *evidence.HTTPExchange) string {
	what := x.Method()
	if what == "" {
		what = "the request"
	}
	switch {
	case x.SentBatch:
		what += " of a batch"
	case len(x.Sent) == 1 && x.Sent[0] != nil && x.Sent[0].Method != "":
		what += " of " + x.Sent[0].Method
	case len(x.Sent) == 1 && x.Sent[0] != nil && x.Sent[0].Kind() == wire.KindResponse:
		what += " of a response"
	}
	return fmt.Sprintf("the %s (exchange %d)", what, x.N)
}

// success reports whether a status is 2xx.
func success(status int) bool { return status >= 200 && status < 300 }

// refusedByBody reports whether the response carries a JSON-RPC error.
func refusedByBody(x *evidence.HTTPExchange) bool {
	return slices.ContainsFunc(x.Messages(), func(m *wire.Message) bool { return m != nil && m.Has("error") })
}

// errorOf returns the code of the error that answered the exchange's
// request, and whether one did.
func errorOf(x *evidence.HTTPExchange) (int64, bool) {
	for _, req := range x.Requests() {
		if m, _ := x.Answer(req.ID); m != nil {
			if e := m.DecodeError(); e != nil {
				return e.IntCode()
			}
			return 0, false
		}
	}
	// A refusal before the body was read (-32020, -32022) may carry a null id.
	for _, m := range x.Messages() {
		if m != nil && m.Kind() == wire.KindResponse {
			if e := m.DecodeError(); e != nil {
				return e.IntCode()
			}
		}
	}
	return 0, false
}

// servedResult reports whether the request was answered with a result.
func servedResult(x *evidence.HTTPExchange) bool {
	if !success(x.Status()) {
		return false
	}
	for _, req := range x.Requests() {
		if m, _ := x.Answer(req.ID); m != nil && m.Has("result") && !m.Has("error") {
			return true
		}
	}
	return false
}

// statusText shows a status and what the body said: "400 with error
// -32602", "200 with a result".
func statusText(x *evidence.HTTPExchange) string {
	s := fmt.Sprint(x.Status())
	if x.Response == nil {
		return "no response"
	}
	if code, ok := errorOf(x); ok {
		return fmt.Sprintf("%s with error %d", s, code)
	}
	if servedResult(x) {
		return s + " with a result"
	}
	return s
}

// sessionEnd is how the transport says it closed a stream because its
// session ended, not because a window of its own passed.
const sessionEnd = "at the end of the session"

// harnessEnded reports whether the harness, not the server, ended the
// response body (its end says so: a budget, a window of its own).
func harnessEnded(x *evidence.HTTPExchange) bool {
	return x.Ended && strings.Contains(x.EndErr, "harness")
}

func checkHTTPRequestContentType(j *J) Finding {
	t := &tally{}
	for _, x := range ambientHTTP(j) {
		if x.Method() != "POST" || !x.HasRequest() || x.Response == nil || needsToken(t, x) || !success(x.Status()) {
			continue
		}
		if ce, ok := x.ResponseHeader("Content-Encoding"); ok && !strings.EqualFold(strings.TrimSpace(ce), "identity") && len(x.Received) == 0 {
			// RFC 9110, section 12.5.3: with no Accept-Encoding "any
			// content coding is considered acceptable"; the harness
			// decodes none (a gzip bomb stays its compressed bytes).
			t.unexercise("%s was answered with a body in the content coding %q, which the harness does not decode", httpWhat(x), ce)
			continue
		}
		t.judged()
		switch mt := x.MediaType(); {
		case mt != "application/json" && mt != "text/event-stream":
			ct, _ := x.ResponseHeader("Content-Type")
			t.violate(httpWhere(x), "%s was answered %d with Content-Type %q, not application/json or text/event-stream", httpWhat(x), x.Status(), ct)
		case mt == "application/json" && len(x.Received) == 0 && x.BodyLen > 0:
			t.violate(httpWhere(x), "%s was answered with an application/json body that is no JSON-RPC message: %s", httpWhat(x), quoteBytes(x.Body, 80))
		}
	}
	return t.finding(fmt.Sprintf("%d POST(s) of requests answered as application/json or text/event-stream", t.n),
		"no POST of a request was answered with a success status")
}

// noticePOSTs returns the POSTs of notifications or responses only: of
// well-formed traffic and of the probe that sends them.
func noticePOSTs(j *J) []*evidence.HTTPExchange {
	xs := slices.Concat(ambientHTTP(j), probeHTTP(j, plan.ProbeHTTPNotify))
	return slices.DeleteFunc(xs, func(x *evidence.HTTPExchange) bool {
		return x.Method() != "POST" || !x.OnlyNotices() || x.Response == nil
	})
}

func checkHTTPNoticeAccepted(j *J) Finding {
	t := &tally{}
	for _, x := range noticePOSTs(j) {
		if needsToken(t, x) || x.Status() >= 400 || refusedByBody(x) {
			continue // refused: http-notice-refused-status judges it
		}
		t.judged()
		switch {
		case x.Status() != 202:
			t.violate(httpWhere(x), "%s was answered %d, not 202 Accepted", httpWhat(x), x.Status())
		case len(x.Received) > 0:
			t.violate(httpWhere(x), "%s was answered 202 with a body holding a message, not with no body", httpWhat(x))
		case x.BodyLen > 0:
			t.violate(httpWhere(x), "%s was answered 202 with a body of %d bytes, not with no body", httpWhat(x), x.BodyLen)
		}
	}
	return t.finding(fmt.Sprintf("%d POST(s) of notifications or responses accepted with 202 and no body", t.n),
		"no POST of notifications or responses only was accepted")
}

func checkHTTPNoticeRefused(j *J) Finding {
	t := &tally{}
	for _, x := range noticePOSTs(j) {
		if needsToken(t, x) || x.Status() < 400 && !refusedByBody(x) {
			continue
		}
		t.judged()
		if x.Status() < 400 {
			code, _ := errorOf(x)
			t.violate(httpWhere(x), "%s was refused with the JSON-RPC error %d under status %d, not an HTTP error status", httpWhat(x), code, x.Status())
		}
	}
	return t.finding(fmt.Sprintf("%d POST(s) of notifications or responses refused with an HTTP error status", t.n),
		"the server refused no POST of notifications or responses only")
}

// postStreams returns the SSE streams of POSTs of requests.
func postStreams(xs []*evidence.HTTPExchange) []*evidence.HTTPExchange {
	return slices.DeleteFunc(xs, func(x *evidence.HTTPExchange) bool {
		return x.Method() != "POST" || !x.HasRequest() || !x.SSE() || !success(x.Status())
	})
}

// unanswered returns the requests of the exchange whose response it did
// not deliver, and those whose response came in an event a client drops.
func unanswered(x *evidence.HTTPExchange) (missing, dropped []*wire.Message) {
	for _, req := range x.Requests() {
		if m, _ := x.Answer(req.ID); m != nil {
			continue
		}
		if inUnterminated(x, req.ID) {
			dropped = append(dropped, req)
		} else {
			missing = append(missing, req)
		}
	}
	return missing, dropped
}

// inUnterminated reports whether the response to id came in an event whose
// blank line never came.
func inUnterminated(x *evidence.HTTPExchange, id json.RawMessage) bool {
	for _, ev := range x.Events {
		if !ev.Unterminated {
			continue
		}
		for _, m := range ev.Msgs {
			if m != nil && m.Kind() == wire.KindResponse && wire.IDKey(m.ID) == wire.IDKey(id) {
				return true
			}
		}
	}
	return false
}

// resumedAnswer reports whether a stream that resumed x (a GET whose
// Last-Event-ID is an event id of x) delivered the response to id.
func resumedAnswer(all []*evidence.HTTPExchange, x *evidence.HTTPExchange, id json.RawMessage) bool {
	for _, y := range all {
		last, ok := y.RequestHeader("Last-Event-ID")
		if !ok || y == x || !slices.ContainsFunc(x.Events, func(ev *evidence.SSE) bool { return ev.ID != nil && *ev.ID == last }) {
			continue
		}
		if m, _ := y.Answer(id); m != nil {
			return true
		}
	}
	return false
}

// resumable reports whether a stream gave event ids, so that a client can
// resume it.
func resumable(x *evidence.HTTPExchange) bool {
	return slices.ContainsFunc(x.Events, func(ev *evidence.SSE) bool { return ev.ID != nil && *ev.ID != "" })
}

func checkHTTPStreamCarriesResponse(j *J) Finding {
	t := &tally{}
	all := httpExchanges(j)
	for _, x := range postStreams(ambientHTTP(j)) {
		if !x.Ended {
			continue
		}
		missing, dropped := unanswered(x)
		for _, req := range dropped {
			t.unexercise("the response to %s (id %s) came in an event a client drops (http-sse-response-complete judges it)", req.Method, req.ID)
		}
		if len(missing) == 0 {
			if len(dropped) == 0 {
				t.judged()
			}
			continue
		}
		req := missing[0]
		switch {
		case harnessEnded(x):
			t.unexercise("the stream of %s was ended by the harness (%s) before its response", httpWhat(x), x.EndErr)
		case resumedAnswer(all, x, req.ID):
			t.judged()
		case j.Version == wire.V20251125 && resumable(x):
			t.unexercise("the server closed the connection of the resumable stream of %s before its response, for the client to poll, and no GET resumed it", httpWhat(x))
		default:
			t.judged()
			t.violate(httpWhere(x), "the stream of %s ended without the response to %s (id %s)", httpWhat(x), req.Method, req.ID)
		}
	}
	return t.finding(fmt.Sprintf("%d SSE stream(s) of POSTs carried their responses", t.n),
		"no POST was answered with an SSE stream that ended")
}

func checkHTTPStreamEnds(j *J) Finding {
	t := &tally{}
	for _, x := range postStreams(ambientHTTP(j)) {
		missing, dropped := unanswered(x)
		if len(missing)+len(dropped) > 0 {
			continue
		}
		last := -1 // the event of the last response
		for i, ev := range x.Events {
			if slices.ContainsFunc(ev.Msgs, func(m *wire.Message) bool { return m != nil && m.Kind() == wire.KindResponse }) {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		if !x.Ended {
			t.unexercise("the record of %s's stream stops before its end", httpWhat(x))
			continue
		}
		after := 0
		for _, ev := range x.Events[last+1:] {
			after += len(ev.Msgs)
		}
		if after == 0 && harnessEnded(x) && strings.Contains(x.EndErr, sessionEnd) {
			// The session ended before the window the harness gives a
			// stream to end after its response had passed.
			t.unexercise("the session ended while the stream of %s was still open after its response", httpWhat(x))
			continue
		}
		t.judged()
		switch {
		case after > 0:
			t.violate(httpWhere(x), "the stream of %s carried %d message(s) after the response", httpWhat(x), after)
		case harnessEnded(x):
			t.violate(httpWhere(x), "the stream of %s stayed open after the response until the harness closed it (%s)", httpWhat(x), x.EndErr)
		}
	}
	return t.finding(fmt.Sprintf("%d SSE stream(s) of POSTs ended with their response", t.n),
		"no POST was answered with an SSE stream that carried its response")
}

func checkHTTPPriming(j *J) Finding {
	t := &tally{}
	for _, x := range postStreams(ambientHTTP(j)) {
		if len(x.Events) == 0 {
			continue
		}
		t.judged()
		if ev := x.Events[0]; ev.ID == nil || ev.Message || ev.Data != "" {
			t.violate(httpWhere(x), "the stream of %s began with %s, not with an event id and empty data", httpWhat(x), eventText(ev))
		}
	}
	return t.finding(fmt.Sprintf("%d SSE stream(s) of POSTs began with a priming event", t.n),
		"no POST was answered with an SSE stream holding events")
}

// eventText describes an event for a message.
func eventText(ev *evidence.SSE) string {
	var parts []string
	if ev.ID == nil {
		parts = append(parts, "no id")
	} else {
		parts = append(parts, fmt.Sprintf("id %q", *ev.ID))
	}
	switch {
	case len(ev.Msgs) > 0 && ev.Msgs[0] != nil:
		parts = append(parts, "data "+clipJSON(ev.Msgs[0].Raw, 80))
	case ev.Data != "":
		parts = append(parts, fmt.Sprintf("data %q", clipString(ev.Data, 80)))
	default:
		parts = append(parts, "empty data")
	}
	return "an event with " + strings.Join(parts, " and ")
}

func checkHTTPRetry(j *J) Finding {
	t := &tally{}
	for _, x := range postStreams(ambientHTTP(j)) {
		missing, _ := unanswered(x)
		if !x.Ended || harnessEnded(x) || len(missing) == 0 {
			continue
		}
		t.judged()
		if !slices.ContainsFunc(x.Events, func(ev *evidence.SSE) bool { return ev.Retry != nil }) {
			t.violate(httpWhere(x), "the server closed the stream of %s before its response and sent no retry field", httpWhat(x))
		}
	}
	return t.finding(fmt.Sprintf("%d stream(s) closed before their response sent retry first", t.n),
		"the server closed no stream of a POST before its response")
}

func checkHTTPVersionHeader(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPBadVersion) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		code, coded := errorOf(x)
		switch {
		case x.Status() != 400:
			t.violate(httpWhere(x), "a request with MCP-Protocol-Version: %s was answered %s, not 400 Bad Request", plan.VersionUnknown, statusText(x))
		case j.Version == wire.Modern && (!coded || code != -32022):
			t.violate(httpWhere(x), "a request with MCP-Protocol-Version: %s was answered 400 without an UnsupportedProtocolVersionError (-32022): %s", plan.VersionUnknown, statusText(x))
		}
	}
	return t.finding("a request naming a version no spec has was refused with 400 Bad Request", "no request with an unknown MCP-Protocol-Version was sent")
}

func checkHTTPAccept(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPAccept) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		if !success(x.Status()) {
			t.record(httpWhere(x), "a POST whose Accept named application/json alone was refused with %d (the client broke its rule; the spec says nothing of the answer)", x.Status())
		}
	}
	return t.finding("a POST whose Accept named application/json alone was served", "no POST with a narrow Accept header was sent")
}

func checkHTTPEventName(j *J) Finding {
	t := &tally{}
	for _, x := range httpExchanges(j) {
		for _, ev := range x.Events {
			if len(ev.Msgs) == 0 {
				continue
			}
			t.judged()
			if ev.Event != "" && ev.Event != "message" {
				t.record(At(x.Process, ev.Seq), "an event named %q carried a message (Streamable HTTP names no event; clients that listen for \"message\" only miss it)", ev.Event)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d event(s) carried messages under the default name", t.n), "no SSE event carried a message")
}

func checkHTTPBatch(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeBatch) {
		if x.Method() != "POST" || !x.SentBatch || x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		refused := !success(x.Status())
		switch {
		case j.Version == wire.V20250326 && refused:
			t.violate(httpWhere(x), "a POST holding a batch was refused with %s", statusText(x))
		case refused:
			t.record(httpWhere(x), "a POST holding a batch was refused with %s (batches are gone after 2025-03-26)", statusText(x))
		case j.Version != wire.V20250326:
			t.record(httpWhere(x), "a POST holding a batch was answered %s (batches are gone after 2025-03-26)", statusText(x))
		}
	}
	return t.finding("a POST holding a batch was accepted", "no POST held a batch")
}
