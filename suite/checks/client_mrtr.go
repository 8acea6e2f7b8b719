package checks

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mcpconform/mcpconform/wire"
)

// clientMRTRChecks judge how a 2026-07-28 client retries a request
// answered with an InputRequiredResult (MRTR-*).
func clientMRTRChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-request-state-echoed", Requirement: "MRTR-04", Area: "mrtr",
			Description: "a retry echoes the requestState it was handed exactly (none when none was handed out), and no other request carries it",
			Judge:       checkClientRequestState,
		},
		{
			ID: "client-retry-new-id", Requirement: "MRTR-05", Area: "mrtr",
			Description: "a retry has a JSON-RPC id other than the request it retries",
			Judge:       checkClientRetryID,
		},
		{
			ID: "client-input-responses", Requirement: "MRTR-06", Area: "mrtr",
			Description: "a retry answers every inputRequests entry in inputResponses, under the same keys, and nothing else",
			Judge:       checkClientInputResponses,
		},
	}
}

// eachRetry calls f with every input_required round the client retried.
func eachRetry(j *ClientJ, t *tally, f func(v *spawnView, r *inputRound)) {
	j.each(func(v *spawnView) {
		for _, r := range v.inputRounds() {
			if r.retry == nil {
				t.unexercise("the client did not retry %s (id %s) after input_required", r.orig.msg.Method, clipJSON(r.orig.msg.ID, 40))
				continue
			}
			t.judged()
			f(v, r)
		}
	})
}

func checkClientRequestState(j *ClientJ) Finding {
	t := &tally{}
	eachRetry(j, t, func(v *spawnView, r *inputRound) {
		handed, had := r.result["requestState"]
		got, has := params(r.retry.msg)["requestState"]
		switch {
		case had && !has:
			t.violate(v.at(r.retry.seq), "the retry of %s carries no requestState; it was handed %s", r.orig.msg.Method, clipJSON(handed, 60))
		case had && !exactString(handed, got):
			t.violate(v.at(r.retry.seq), "the retry of %s carries the requestState %s; it was handed %s", r.orig.msg.Method, clipJSON(got, 60), clipJSON(handed, 60))
		case !had && has:
			t.violate(v.at(r.retry.seq), "the retry of %s carries the requestState %s, though none was handed out", r.orig.msg.Method, clipJSON(got, 60))
		}
		if !had {
			return
		}
		for _, o := range v.requests {
			if o == r.retry || o.seq <= r.orig.respSeq {
				continue
			}
			if s, ok := params(o.msg)["requestState"]; ok && exactString(handed, s) && !(o.msg.Method == r.orig.msg.Method && sameCall(o.msg.Params, r.orig.msg.Params)) {
				t.violate(v.at(o.seq), "%s (id %s) carries the requestState handed out for %s", o.msg.Method, clipJSON(o.msg.ID, 40), r.orig.msg.Method)
			}
		}
	})
	return t.finding(fmt.Sprintf("every retry echoed its requestState exactly (%d)", t.n), "no request was answered input_required")
}

// exactString reports whether two JSON values are the same string (by
// value: escapes may differ).
func exactString(a, b []byte) bool {
	x, ok1 := wire.String(a)
	y, ok2 := wire.String(b)
	return ok1 && ok2 && x == y
}

func checkClientRetryID(j *ClientJ) Finding {
	t := &tally{}
	eachRetry(j, t, func(v *spawnView, r *inputRound) {
		if wire.IDKey(r.retry.msg.ID) == wire.IDKey(r.orig.msg.ID) {
			t.violate(v.at(r.retry.seq), "the retry of %s has the id %s of the request it retries", r.orig.msg.Method, clipJSON(r.orig.msg.ID, 40))
		}
	})
	return t.finding(fmt.Sprintf("every retry had an id of its own (%d)", t.n), "no request was answered input_required")
}

func checkClientInputResponses(j *ClientJ) Finding {
	t := &tally{}
	eachRetry(j, t, func(v *spawnView, r *inputRound) {
		asked := keys(wire.Object(r.result["inputRequests"]))
		given := keys(wire.Object(params(r.retry.msg)["inputResponses"]))
		var missing, extra []string
		for _, k := range asked {
			if !slices.Contains(given, k) {
				missing = append(missing, k)
			}
		}
		for _, k := range given {
			if !slices.Contains(asked, k) {
				extra = append(extra, k)
			}
		}
		if len(missing) > 0 {
			t.violate(v.at(r.retry.seq), "the retry of %s answers no input for %s", r.orig.msg.Method, quoteList(missing))
		}
		if len(extra) > 0 {
			t.violate(v.at(r.retry.seq), "the retry of %s answers %s, which the server did not ask for", r.orig.msg.Method, quoteList(extra))
		}
	})
	return t.finding(fmt.Sprintf("every retry answered exactly the inputs asked for (%d)", t.n), "no request was answered input_required")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
