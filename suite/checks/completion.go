package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
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
			Needs:       []plan.Probe{plan.ProbeComplete},
			Judge:       checkCompletionShape,
		},
		{
			ID: "completion-total", Requirement: "COMP-04", Area: "completion",
			Description: "total, when present, is at least the number of values returned",
			Needs:       []plan.Probe{plan.ProbeComplete},
			Judge:       checkCompletionTotal,
		},
		{
			ID: "completion-undeclared", Requirement: "COMP-02", Area: "completion",
			Description: "completion/complete to a server that declares no completions gets the error -32601",
			Needs:       []plan.Probe{plan.ProbeCompleteUndeclared},
			Judge: func(j *J) Finding {
				if j.Session == nil {
					return skipped("no session was opened under " + j.Version)
				}
				if j.Caps().Has("completions") {
					return skipped("the server declares completions")
				}
				// A result is no refusal: serving completion without the
				// capability breaks the MUST of COMP-01, which
				// completion-served-only-if-declared judges; this rule is
				// about the code of a refusal only, so the same defect is
				// not graded twice at two levels.
				var refusals []*evidence.Exchange
				served := false
				for _, x := range j.Session.Tagged(plan.ProbeCompleteUndeclared.Tag()) {
					if x.OK() && x.Response.Has("result") {
						served = true
						continue
					}
					refusals = append(refusals, x)
				}
				if served && len(refusals) == 0 {
					return skipped("completion/complete got a result, not a refusal whose code this rule judges: serving completion without the capability is judged by completion-served-only-if-declared (COMP-01)")
				}
				return errorProbe(j.Run, j.Version, refusals, wire.CodeMethodNotFound,
					named("completion/complete without the completions capability"), "completion/complete without the capability gets -32601", "completion/complete was not sent")
			},
		},
		{
			ID: "completion-context", Requirement: "COMP-07", Area: "completion",
			Description: "completion/complete of the last argument of a prompt or template of two or more, with the others resolved in context.arguments, gets a result (its shape is judged by completion-result-shape; a refusal is recorded: no sentence says what a server does with context)",
			Needs:       []plan.Probe{plan.ProbeComplete, plan.ProbeCompleteContext},
			Judge:       checkCompletionContext,
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
		if res == nil || evidence.Complete(j.Version, x) == nil {
			// Judged by jsonrpc-result-object, or a result of another kind:
			// by input-required-only-where-allowed or
			// result-type-on-every-result.
			return
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

func checkCompletionContext(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	xs := j.Session.Tagged(plan.ProbeCompleteContext.Tag())
	if len(xs) == 0 {
		if !j.Caps().Has("completions") {
			return skipped("the server declares no completions")
		}
		return skipped("no listed prompt or template has two or more arguments")
	}
	t := &tally{}
	for _, c := range evidence.RetryChains(j.Version, xs) {
		x := c[len(c)-1]
		what := "completion with context"
		if x.Request != nil {
			params := wire.Object(x.Request.Params)
			what = fmt.Sprintf("completion of %s %s given %s", clipJSON(params["ref"], 120), clipJSON(wire.Object(params["argument"])["name"], 60), clipJSON(params["context"], 120))
		}
		w, ok := answered(t, j.Run, x, what)
		if ok && x.Response.Has("error") {
			t.record(w, "%s was refused: %s (no sentence says what a server does with context)", what, clipJSON(x.Response.Error, 160))
		}
	}
	return t.finding(fmt.Sprintf("%d completion(s) with context.arguments got a result (completion-result-shape judges its shape)", t.n), "the completion with context was not sent")
}
