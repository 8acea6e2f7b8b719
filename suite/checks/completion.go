package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// Probes of completion/complete: one per prompt argument and template
// variable when the server offers completion, and one when it declares no
// completions.
const (
	ProbeComplete           = "complete"
	ProbeCompleteUndeclared = "complete-undeclared"
)

// maxCompletionValues is the most values one CompleteResult may hold.
const maxCompletionValues = 100

// completionChecks judge completion/complete (COMP-*): the results of
// discovery's completions and of the vector tests that ask for them.
func completionChecks() []*Check {
	return []*Check{
		{
			ID: "completion-result-shape", Requirement: "COMP-03", Area: "completion",
			Description: "every completion/complete result has completion.values, an array of at most 100 strings; total, when present, is a number and hasMore a boolean",
			Judge:       checkCompletionShape,
		},
		{
			ID: "completion-total", Requirement: "COMP-04", Area: "completion",
			Description: "total, when present, is at least the number of values returned",
			Judge:       checkCompletionTotal,
		},
		{
			ID: "completion-undeclared", Requirement: "COMP-02", Area: "completion",
			Description: "completion/complete to a server that declares no completions gets the error -32601",
			Judge: func(j *J) Finding {
				if j.Session == nil {
					return skipped("no session was opened under " + j.Version)
				}
				if j.Caps().Has("completions") {
					return skipped("the server declares completions")
				}
				return errorProbe(j.Run, j.Session.Tagged(evidence.ProbeTag(ProbeCompleteUndeclared)), wire.CodeMethodNotFound,
					named("completion/complete without the completions capability"), "completion/complete without the capability gets -32601", "completion/complete was not sent")
			},
		},
	}
}

// completeResultSchema is the schema text a CompleteResult breaks.
const completeResultSchema = "completion: { values: string[]; total?: number; hasMore?: boolean; }"

// eachCompletion calls f with every completion/complete of the processes
// that got a result (an object), with what it completed.
func eachCompletion(j *J, f func(what string, c map[string]json.RawMessage, raw json.RawMessage, w *Where)) {
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		if x.Method != "completion/complete" || x.Response == nil || !x.Response.Has("result") {
			return
		}
		res := wire.Object(x.Response.Result)
		if res == nil {
			return // judged by jsonrpc-result-object
		}
		what := "completion/complete"
		if x.Request != nil {
			params := wire.Object(x.Request.Params)
			what = fmt.Sprintf("completion of %s %s", clipJSON(params["ref"], 120), clipJSON(wire.Object(params["argument"])["name"], 60))
		}
		f(what, wire.Object(res["completion"]), res["completion"], At(p, max(x.RecvSeq, x.SentSeq)))
	})
}

func checkCompletionShape(j *J) Finding {
	t := &tally{}
	eachCompletion(j, func(what string, c map[string]json.RawMessage, raw json.RawMessage, w *Where) {
		t.judged()
		if c == nil {
			t.violate(w, "%s: completion is %s, want an object", what, describeType(raw))
			return
		}
		values, ok := wire.Array(c["values"])
		switch {
		case !ok:
			t.violate(w, "%s: completion.values is %s, want an array of strings", what, describeType(c["values"]))
		case len(values) > maxCompletionValues:
			t.violate(w, "%s: completion.values holds %d items, over %d", what, len(values), maxCompletionValues)
		}
		for i, v := range values {
			if wire.Type(v) != "string" {
				t.violate(w, "%s: completion.values[%d] is %s, want a string", what, i, describeType(v))
				break
			}
		}
		if v, ok := c["total"]; ok && !isNumber(v) {
			t.violateSchema(w, completeResultSchema, "%s: completion.total is %s, want a number", what, describeType(v))
		}
		if v, ok := c["hasMore"]; ok && wire.Type(v) != "boolean" {
			t.violateSchema(w, completeResultSchema, "%s: completion.hasMore is %s, want a boolean", what, describeType(v))
		}
	})
	return t.finding(fmt.Sprintf("%d completion result(s), each with at most %d string values", t.n, maxCompletionValues), "no completion/complete got a result")
}

func isNumber(raw json.RawMessage) bool {
	typ := wire.Type(raw)
	return typ == "number" || typ == "integer"
}

func checkCompletionTotal(j *J) Finding {
	t := &tally{}
	eachCompletion(j, func(what string, c map[string]json.RawMessage, _ json.RawMessage, w *Where) {
		values, ok := wire.Array(c["values"])
		var total float64
		if !ok || !isNumber(c["total"]) || json.Unmarshal(c["total"], &total) != nil {
			return // completion-result-shape judges the types
		}
		t.judged()
		if total < float64(len(values)) {
			t.violate(w, "%s: total is %s, fewer than the %d values returned", what, clipJSON(c["total"], 30), len(values))
		}
	})
	return t.finding(fmt.Sprintf("%d total(s), each at least the number of values", t.n), "no completion result carried a total")
}
