package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// progressChecks judge the notifications/progress a server sends for the
// progress tokens the suite put in its requests (_meta.progressToken: the
// first call of each tool the --call-tools policy allows, and the
// progress-token-accepted vector). A server may send none ("Choose not to
// send any progress notifications"): the checks then skip.
func progressChecks() []*Check {
	return []*Check{
		{
			ID: "progress-token-active", Requirement: "META-05", Area: "meta",
			Description: "every notifications/progress names the progressToken of a request the client sent and has not had answered yet: none for a token never sent, none after the response",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkProgressTokens,
		},
		{
			ID: "progress-increases", Requirement: "META-08", Area: "meta",
			Description: "the progress of the notifications/progress for one request increases with each notification",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkProgressIncreases,
		},
		{
			ID: "progress-params", Requirement: "META-09", Area: "meta",
			Description: "every notifications/progress has a progressToken (a string or a number), a number progress, and, when present, a number total and (from 2025-03-26) a string message",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkProgressParams,
		},
	}
}

// noProgress is why a progress check judged nothing: a server may send
// no progress at all.
const noProgress = "the server sent no notifications/progress (it MAY send none)"

// tokenRequest is a request the client sent with a progress token: where
// it was sent and where its response came (-1: none came).
type tokenRequest struct {
	sent, answered int
}

// progressTokens indexes the requests of a process that carried
// _meta.progressToken, by the token's value (wire.IDKey: a token is a
// string or an integer, compared by value), in the order sent.
func progressTokens(p *evidence.Process) map[string][]tokenRequest {
	out := map[string][]tokenRequest{}
	for _, x := range p.Exchanges() {
		if x.Request == nil || x.SentSeq < 0 {
			continue
		}
		tok, ok := wire.Object(wire.Object(x.Request.Params)["_meta"])["progressToken"]
		if !ok {
			continue
		}
		r := tokenRequest{sent: x.SentSeq, answered: -1}
		if x.Response != nil {
			r.answered = x.RecvSeq
		}
		out[wire.IDKey(tok)] = append(out[wire.IDKey(tok)], r)
	}
	return out
}

// progressNote is one notifications/progress a server sent, with the
// request whose token it names when that request was still in progress.
type progressNote struct {
	p      *evidence.Process
	seq    int
	params map[string]json.RawMessage
	token  json.RawMessage
	// active is the request it reports on (nil when none was in
	// progress); why says why not.
	active *tokenRequest
	why    string
}

// eachProgress calls f with every notifications/progress the judged
// processes sent in well-formed traffic, with params that are an object,
// matched to the request whose token it names.
// It returns why a check that judged nothing judged nothing.
func eachProgress(j *J, f func(n progressNote)) (nothing string) {
	tokens := map[*evidence.Process]map[string][]tokenRequest{}
	streams := map[*evidence.Process]map[int]int{}
	replayed := map[*evidence.Process]map[int]bool{}
	left := 0
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		if m.Kind() != wire.KindNotification || m.Method != "notifications/progress" {
			return
		}
		if tokens[p] == nil {
			tokens[p], streams[p], replayed[p] = progressTokens(p), p.Streams(), p.Replayed()
		}
		if replayed[p][e.Seq] {
			return // a resumed stream repeats what was sent before
		}
		params := wire.Object(m.Params)
		if params == nil {
			left++ // params that are no object: jsonrpc-params-object judges them
			return
		}
		n := progressNote{p: p, seq: e.Seq, params: params, token: params["progressToken"]}
		var sent []tokenRequest
		if _, ok := params["progressToken"]; ok {
			sent = tokens[p][wire.IDKey(n.token)]
		}
		n.why = fmt.Sprintf("it names the token %s, which no request carried", clipJSON(n.token, 60))
		// The latest request with the token sent before the notification
		// is the one it can report on.
		for i := len(sent) - 1; i >= 0; i-- {
			r := sent[i]
			if r.sent > e.Seq {
				continue
			}
			if on, ok := streams[p][e.Seq]; r.answered >= 0 && r.answered < e.Seq && !(ok && on != streams[p][r.answered]) {
				// Over HTTP only what came on one stream is in the order
				// it was sent: a notification on another stream than the
				// response (the GET stream, say) may have been sent first.
				n.why = fmt.Sprintf("it names the token %s of a request answered before it: the operation was no longer in progress", clipJSON(n.token, 60))
				break
			}
			n.active, n.why = &sent[i], ""
			break
		}
		f(n)
	})
	if left > 0 {
		return fmt.Sprintf("%d notifications/progress with params that are no object, which jsonrpc-params-object judges", left)
	}
	return noProgress
}

func checkProgressTokens(j *J) Finding {
	t := &tally{}
	nothing := eachProgress(j, func(n progressNote) {
		t.judged()
		if n.active == nil {
			t.violate(At(n.p, n.seq), "a notifications/progress came for no request in progress: %s", n.why)
		}
	})
	return t.finding(fmt.Sprintf("%d notifications/progress, each for a request still in progress", t.n), nothing)
}

func checkProgressIncreases(j *J) Finding {
	t := &tally{}
	last := map[*tokenRequest]float64{}
	seen := map[*tokenRequest]bool{}
	nothing := eachProgress(j, func(n progressNote) {
		v, ok := wire.Number(n.params["progress"])
		if n.active == nil || !ok {
			return // judged by progress-token-active and progress-params
		}
		if seen[n.active] {
			t.judged()
			if v <= last[n.active] {
				t.violate(At(n.p, n.seq), "the progress for the token %s went from %v to %v, which is no increase", clipJSON(n.token, 60), last[n.active], v)
			}
		}
		seen[n.active], last[n.active] = true, v
	})
	if len(seen) > 0 {
		nothing = "no request got more than one notifications/progress: nothing to compare"
	}
	return t.finding(fmt.Sprintf("%d successive notifications/progress, each with a higher progress than the last", t.n), nothing)
}

func checkProgressParams(j *J) Finding {
	t := &tally{}
	message := wire.AtLeast(j.Version, wire.V20250326)
	nothing := eachProgress(j, func(n progressNote) {
		t.judged()
		w := At(n.p, n.seq)
		switch typ := wire.Type(n.token); {
		case typ == "":
			t.violate(w, "a notifications/progress has no progressToken")
		case typ != "string" && typ != "integer" && typ != "number":
			t.violate(w, "a notifications/progress has a progressToken that is %s, want a string or a number", describeType(n.token))
		}
		if v, ok := n.params["progress"]; !ok {
			t.violate(w, "a notifications/progress has no progress")
		} else if _, ok := wire.Number(v); !ok {
			t.violate(w, "a notifications/progress has a progress that is %s, want a number", describeType(v))
		}
		if v, ok := n.params["total"]; ok {
			if _, ok := wire.Number(v); !ok {
				t.violate(w, "a notifications/progress has a total that is %s, want a number", describeType(v))
			}
		}
		if v, ok := n.params["message"]; ok {
			switch {
			case !message:
				t.record(w, "a notifications/progress has a message, a member 2025-03-26 added to it")
			case wire.Type(v) != "string":
				t.violate(w, "a notifications/progress has a message that is %s, want a string", describeType(v))
			}
		}
	})
	return t.finding(fmt.Sprintf("%d notifications/progress of the version's shape", t.n), nothing)
}
