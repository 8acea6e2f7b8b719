package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// mrtrChecks judge the multi round-trip pattern of 2026-07-28 (MRTR-*):
// the InputRequiredResult a server may answer prompts/get, resources/read
// and tools/call with, and what came of the retries the suite sent with
// its requestState. Reads are judged by input-required-shape (RES-READ-16)
// with the same rules.
func mrtrChecks() []*Check {
	return []*Check{
		{
			ID: "input-required-result-shape", Requirement: "MRTR-01", Area: "mrtr",
			Description: "every input_required result of a request other than resources/read has inputRequests or requestState (at least one), requestState a string and inputRequests an object of elicitation, sampling or roots requests",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge: func(j *J) Finding {
				return inputRequiredShapes(j, func(method string) bool { return method != "resources/read" }, "no result other than a read's asked for input")
			},
		},
		{
			ID: "input-required-only-where-allowed", Requirement: "MRTR-02", Area: "mrtr",
			Description: "only prompts/get, resources/read and tools/call are answered input_required",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkInputRequiredAllowed,
		},
		{
			ID: "input-required-retried", Requirement: "MRTR-03", Area: "mrtr",
			Description: "a request answered input_required with a requestState only, retried with that requestState, completes (asking again is allowed: a request still asking at the harness's bound of retries is recorded)",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkInputRetried,
		},
	}
}

// inputRequiredSchema and inputRequestSchema are the schema texts the
// members of an InputRequiredResult break.
const (
	inputRequiredSchema = "inputRequests?: InputRequests; requestState?: string;"
	inputRequestSchema  = "export type InputRequest = CreateMessageRequest | ListRootsRequest | ElicitRequest;"
)

// inputRequestMethods are the methods of the requests an InputRequests
// map may hold.
var inputRequestMethods = []string{"elicitation/create", "roots/list", "sampling/createMessage"}

// inputRequiredShapes judges the input_required results of the methods
// picked: at least one of inputRequests and requestState, and the types
// the schema gives them. What they ask of the client is judged by
// no-undeclared-client-capabilities (LIFE-25).
func inputRequiredShapes(j *J, pick func(method string) bool, nothing string) Finding {
	t := &tally{}
	modernResults(j, func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage) {
		if kind, _ := evidence.KindOf(j.Version, x); kind != evidence.ResultInputRequired || !pick(x.Method) {
			return
		}
		t.judged()
		judgeInputRequired(t, At(p, x.RecvSeq), requestLabel(x), res)
	})
	return t.finding(fmt.Sprintf("%d input_required result(s) are well formed", t.n), nothing)
}

// judgeInputRequired judges one InputRequiredResult: "Servers MUST
// include at least one of inputRequests or requestState in every
// InputRequiredResult response", requestState a string, and every
// value of inputRequests an InputRequest.
func judgeInputRequired(t *tally, w *Where, what string, res map[string]json.RawMessage) {
	reqsRaw, hasReqs := res["inputRequests"]
	state, hasState := res["requestState"]
	if !hasReqs && !hasState {
		t.violate(w, "%s: input_required without inputRequests or requestState", what)
	}
	if hasState && wire.Type(state) != "string" {
		t.violateSchema(w, inputRequiredSchema, "%s: requestState is %s, want a string", what, describeType(state))
	}
	if !hasReqs {
		return
	}
	reqs := wire.Object(reqsRaw)
	if reqs == nil {
		t.violateSchema(w, inputRequiredSchema, "%s: inputRequests is %s, want an object", what, describeType(reqsRaw))
		return
	}
	for _, key := range sortedKeys(reqs) {
		method, _ := wire.String(wire.Object(reqs[key])["method"])
		if !slices.Contains(inputRequestMethods, method) {
			t.violateSchema(w, inputRequestSchema, "%s: inputRequests[%q] is %s, want an elicitation/create, sampling/createMessage or roots/list request", what, clipString(key, 60), clipJSON(reqs[key], 80))
		}
	}
}

// requestLabel names a request in messages: its method and the name or
// URI it is about.
func requestLabel(x *evidence.Exchange) string {
	if x.Request == nil {
		return x.Method
	}
	params := wire.Object(x.Request.Params)
	for _, k := range []string{"name", "uri"} {
		if s, ok := wire.String(params[k]); ok {
			return fmt.Sprintf("%s of %q", x.Method, clipString(s, 60))
		}
	}
	return x.Method
}

func checkInputRequiredAllowed(j *J) Finding {
	t := &tally{}
	asked := 0
	modernResults(j, func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage) {
		t.judged()
		kind, allowed := evidence.KindOf(j.Version, x)
		switch {
		case kind != evidence.ResultInputRequired:
		case allowed:
			asked++
		default:
			t.violate(At(p, x.RecvSeq), "%s was answered input_required; only prompts/get, resources/read and tools/call may ask for input", requestLabel(x))
		}
	})
	return t.finding(fmt.Sprintf("%d result(s); %d input_required, each answering prompts/get, resources/read or tools/call", t.n, asked), "no result of a 2026-07-28 request")
}

// checkInputRetried judges what came of the retries the suite sent: a
// request answered input_required with a requestState alone was sent
// again with it, up to evidence.MaxInputRetries times.
func checkInputRetried(j *J) Finding {
	t := &tally{}
	completed := 0
	for _, p := range j.Processes {
		var xs []*evidence.Exchange
		eachExchange(&J{Processes: []*evidence.Process{p}}, func(_ *evidence.Process, x *evidence.Exchange) {
			if x.Request != nil && !p.Provoked(x.RecvSeq) {
				xs = append(xs, x)
			}
		})
		for _, c := range evidence.RetryChains(j.Version, xs) {
			first, last := c[0], c[len(c)-1]
			if _, ok := evidence.RetryState(j.Version, first.Method, first.Request.Params, first.Response); !ok {
				continue // nothing to retry: not asked for input, or asked for input the suite cannot give
			}
			what := requestLabel(first)
			retries := len(c) - 1
			switch kind, _ := evidence.KindOf(j.Version, last); {
			case !last.OK():
				t.unexercise("%s: retry %d got no answer (every-request-answered judges it)", what, retries)
			case last.Response.Has("error") || kind != evidence.ResultInputRequired:
				t.judged()
				completed++
			case retries == 0:
				t.unexercise("%s: the retry was not sent (the session ended first)", what)
			default:
				t.judged()
				if _, ok := evidence.RetryState(j.Version, last.Method, last.Request.Params, last.Response); !ok {
					t.record(At(p, last.RecvSeq), "%s: retry %d was answered input_required asking for input the suite cannot give", what, retries)
				} else if retries < evidence.MaxInputRetries {
					t.unexercise("%s: retry %d still asked for input, and the session ended before the next", what, retries)
				} else {
					t.record(At(p, last.RecvSeq), "%s: still input_required after %d retries with its requestState, where the harness stops retrying (a server may ask again on every attempt)", what, retries)
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) answered input_required were retried with their requestState and completed", completed), "no request was answered input_required with a requestState to retry with")
}
