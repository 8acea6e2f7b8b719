package evidence

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/wire"
)

// ResultKind is the type of a success result, as the version's schema
// defines the results of the method answered. Every check that judges
// the shape of a result asks for its kind first: only a complete result
// has the method's own shape.
type ResultKind string

// Result kinds.
const (
	// ResultComplete is the method's own result (CallToolResult,
	// GetPromptResult, ...): in 2026-07-28 resultType "complete", or no
	// resultType, which a client treats as "complete".
	ResultComplete ResultKind = "complete"
	// ResultInputRequired is a 2026-07-28 InputRequiredResult: the request
	// needs input (or a retry carrying requestState) before it completes.
	ResultInputRequired ResultKind = "input_required"
	// ResultTask is a 2025-11-25 CreateTaskResult answering a
	// task-augmented request (one whose params carry task).
	ResultTask ResultKind = "task"
	// ResultOther is a 2026-07-28 resultType the version does not define:
	// only an extension can give it a meaning.
	ResultOther ResultKind = "other"
)

// inputRequiredMethods are the requests a 2026-07-28 server may answer
// with an InputRequiredResult ("Supported Requests" of the multi
// round-trip pattern; schema.ts gives their results as the method's own
// result or InputRequiredResult).
var inputRequiredMethods = []string{"prompts/get", "resources/read", "tools/call"}

// MaxInputRetries bounds how often the suite sends a request again with
// the requestState of its input_required answer. A request still asking
// for input after that many retries is the harness's bound, never the
// server's fault: a server may ask again on every attempt.
const MaxInputRetries = 3

// ResultKinds returns every kind of result the schema of version allows
// for a request of method with params (as sent).
func ResultKinds(version, method string, params json.RawMessage) []ResultKind {
	kinds := []ResultKind{ResultComplete}
	switch {
	case version == wire.V20260728 && slices.Contains(inputRequiredMethods, method):
		kinds = append(kinds, ResultInputRequired)
	case version == wire.V20251125 && method == "tools/call" && taskAugmented(params):
		// "CallToolRequestParams extends TaskAugmentedRequestParams": the
		// request then "will return a CreateTaskResult immediately".
		kinds = append(kinds, ResultTask)
	}
	return kinds
}

// taskAugmented reports whether request params carry a task member.
func taskAugmented(params json.RawMessage) bool {
	return wire.Object(wire.Object(params)["task"]) != nil
}

// KindOf returns the kind of the success result of x, read under version,
// and whether the version allows that kind for x's request. It returns ""
// when x got no success result.
func KindOf(version string, x *Exchange) (ResultKind, bool) {
	res := x.Result()
	if res == nil {
		return "", false
	}
	var params json.RawMessage
	if x.Request != nil {
		params = x.Request.Params
	}
	kind := kindOf(version, x.Method, params, res)
	return kind, slices.Contains(ResultKinds(version, x.Method, params), kind)
}

func kindOf(version, method string, params json.RawMessage, res map[string]json.RawMessage) ResultKind {
	switch version {
	case wire.V20260728:
		rt, ok := res["resultType"]
		if !ok {
			// "when a client receives a result ... (which does not
			// include resultType), the client MUST treat the absent field
			// as complete" (result-type-on-every-result judges absence).
			return ResultComplete
		}
		switch s, _ := wire.String(rt); s {
		case "complete":
			return ResultComplete
		case "input_required":
			return ResultInputRequired
		}
		return ResultOther
	case wire.V20251125:
		if method == "tools/call" && taskAugmented(params) && wire.Object(res["task"]) != nil {
			return ResultTask
		}
	}
	// Before 2026-07-28 a resultType member means nothing: a result is the
	// method's own.
	return ResultComplete
}

// Complete returns the members of x's success result when it is the
// method's own result (complete) under version, else nil: an
// InputRequiredResult, a CreateTaskResult or an unknown type has another
// shape, judged by the checks of that kind.
func Complete(version string, x *Exchange) map[string]json.RawMessage {
	if k, _ := KindOf(version, x); k != ResultComplete {
		return nil
	}
	return x.Result()
}

// RetryState returns the requestState a client retries x's request with:
// x's result is an InputRequiredResult that version allows for the
// method, handing out a requestState and asking for no input (the suite
// declares no client capability, so it has none to give). ok is false
// when there is nothing to retry.
func RetryState(version, method string, params json.RawMessage, resp *wire.Message) (state string, ok bool) {
	if resp == nil || resp.Has("error") {
		return "", false
	}
	res := wire.Object(resp.Result)
	if res == nil || kindOf(version, method, params, res) != ResultInputRequired ||
		!slices.Contains(ResultKinds(version, method, params), ResultInputRequired) {
		return "", false
	}
	if len(wire.Object(res["inputRequests"])) > 0 {
		return "", false
	}
	return wire.String(res["requestState"])
}

// RetryChains groups exchanges, in the order sent, into the requests they
// made: an exchange that retries an earlier one — the same method, tag
// and params, with the requestState the earlier one's input_required
// result handed out — joins the earlier one's chain. Each chain is in the
// order sent; its last exchange is what the request came to.
func RetryChains(version string, xs []*Exchange) [][]*Exchange {
	var chains [][]*Exchange
	for _, x := range xs {
		state, retry := "", false
		if x.Request != nil {
			state, retry = wire.String(wire.Object(x.Request.Params)["requestState"])
		}
		joined := false
		if retry {
			for i, c := range chains {
				last := c[len(c)-1]
				if last.Process != x.Process || last.Tag != x.Tag || last.Method != x.Method || last.Request == nil {
					continue
				}
				if s, ok := RetryState(version, last.Method, last.Request.Params, last.Response); ok && s == state && sameRequest(last.Request.Params, x.Request.Params) {
					chains[i] = append(c, x)
					joined = true
					break
				}
			}
		}
		if !joined {
			chains = append(chains, []*Exchange{x})
		}
	}
	return chains
}

// sameRequest reports whether two requests' params are the same but for
// what a retry adds (requestState, inputResponses) and the envelope.
func sameRequest(a, b json.RawMessage) bool {
	strip := func(raw json.RawMessage) json.RawMessage {
		m := wire.Object(raw)
		out := map[string]json.RawMessage{}
		for k, v := range m {
			if k != "requestState" && k != "inputResponses" && k != "_meta" {
				out[k] = v
			}
		}
		b, _ := json.Marshal(out)
		return b
	}
	return wire.Equal(strip(a), strip(b))
}
