package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// catalogIn returns the reason a requirement is not a rule of v.
func catalogIn(id, v string) (string, bool) {
	why := catalog.NotIn(id, v)
	return why, why == ""
}

// severity orders verdicts from best to worst for aggregation.
var severity = map[reports.Verdict]int{
	reports.Skip: 0, reports.Pass: 1, reports.Info: 2, reports.Warn: 3, reports.Error: 4, reports.Fail: 5,
}

// JudgeVector judges a vector test under version v of a run.
func JudgeVector(t *vectors.Test, r *evidence.Run, v string, s *evidence.Session) reports.Result {
	area := ""
	if t.File != nil {
		area = t.File.Area
	}
	res := BaseResult(t.ID, t.Requirement, area, v, t.Flags)
	res.Expect = t.Description
	res.Expected = outcomesJSON(t, v)
	why := plan.VersionGate(t, v)
	if why == "" {
		why = plan.TransportGate(area, "", r.Transport)
	}
	if why == "" {
		why = NotServed(r, v, s)
	}
	if why == "" {
		why = plan.VectorGate(t, v, s)
	}
	if why != "" {
		res.Verdict, res.Message = reports.Skip, why
		return res
	}
	var items []*evidence.ItemObs
	for _, it := range r.VectorItems(t.ID) {
		if it.Version == v || (it.Version != "" && !slices.Contains(r.Versions, it.Version) && v == firstVersion(r)) {
			items = append(items, it)
		}
	}
	items = dropSuperseded(items)
	var spent time.Duration
	for _, it := range items {
		spent += it.Duration()
	}
	res.DurationMs = spent.Milliseconds()
	if len(items) == 0 {
		switch {
		case r.Interrupted != "":
			res.Verdict, res.Message = reports.Error, "not run: "+r.Interrupted
		case len(r.Incomplete()) > 0 && plan.SessionKind(t) != plan.KindShared:
			res.Verdict, res.Message = reports.Error, "not run: "+r.Incomplete()[0]
		case t.Foreach != "":
			res.Verdict, res.Message = reports.Skip, "the server lists no "+t.Foreach+"s"
		case plan.SessionKind(t) == plan.KindUninitialized && v != firstVersion(r):
			res.Verdict, res.Message = reports.Skip, "requests before initialize are probed once, under "+firstVersion(r)
		default:
			res.Verdict, res.Message = reports.Skip, "not run under "+v
		}
		return res
	}
	var worst *itemVerdict
	var msgs []string
	verdict := reports.Skip
	for _, it := range items {
		iv := judgeItem(t, r, v, it)
		if why := servedByTemplate(t, s, it); why != "" {
			iv = itemVerdict{verdict: reports.Skip, message: why}
		}
		if worst == nil || severity[iv.verdict] > severity[worst.verdict] {
			worst = &iv
		}
		if severity[iv.verdict] > severity[verdict] {
			verdict = iv.verdict
		}
		if iv.verdict != reports.Pass && len(items) > 1 {
			label := it.Mark.Label
			if label == "" {
				label = fmt.Sprintf("#%d", it.Item+1)
			}
			msgs = append(msgs, fmt.Sprintf("%s: %s: %s", label, iv.verdict, iv.message))
		}
	}
	res.Verdict = verdict
	if worst.requirement != "" && worst.requirement != t.Requirement {
		// The verdict rests on another requirement's sentence (a wrong
		// code that only a SHOULD names, an id that came back changed).
		res = Rebase(res, worst.requirement)
	}
	res.Actual, res.Sent, res.Got = worst.actual, worst.sent, worst.got
	if worst.where != nil {
		res.Transcript = Excerpt(worst.where.Process, worst.where.From, worst.where.To)
	}
	switch {
	case len(items) == 1:
		res.Message = worst.message
	case len(msgs) == 0:
		res.Message = fmt.Sprintf("all %d items: %s", len(items), worst.message)
	default:
		bad := len(msgs)
		if len(msgs) > 5 {
			msgs = append(msgs[:5], fmt.Sprintf("(and %d more)", bad-5))
		}
		res.Message = fmt.Sprintf("%d of %d items: %s", bad, len(items), strings.Join(msgs, "; "))
	}
	if res.Verdict == reports.Error && r.Interrupted == "" && r.Fatal != nil {
		// The run stopped its own work once no session could be opened:
		// nothing was cut short that could have been judged.
		res.Verdict = reports.Skip
		res.Message += " (" + r.Fatal.Message + ")"
	}
	return res
}

// servedByTemplate says why an item of a test flagged unknown-uri judges
// nothing: the URI it read, meant to be unknown, matches a template the
// server lists, which may serve it (a catch-all such as file:///{+path}).
func servedByTemplate(t *vectors.Test, s *evidence.Session, it *evidence.ItemObs) string {
	if !slices.Contains(t.Flags, "unknown-uri") {
		return ""
	}
	for _, st := range it.Steps {
		if st.Exchange == nil || st.Exchange.Request == nil {
			continue
		}
		uri, ok := wire.String(wire.Object(st.Exchange.Request.Params)["uri"])
		if !ok {
			continue
		}
		if tpl := templateMatching(s, uri); tpl != "" {
			return fmt.Sprintf("not judged: %s matches the listed template %s, so the server may serve it", clipString(uri, 100), clipString(tpl, 100))
		}
	}
	return ""
}

// dropSuperseded drops an item that could not run because its process had
// died when the same item ran again, in a fresh process.
func dropSuperseded(items []*evidence.ItemObs) []*evidence.ItemObs {
	ran := map[int]bool{}
	for _, it := range items {
		if it.Mark.Skip == "" {
			ran[it.Item] = true
		}
	}
	out := items[:0:0]
	for _, it := range items {
		if it.Mark.Skip != "" && ran[it.Item] {
			continue
		}
		out = append(out, it)
	}
	return out
}

func firstVersion(r *evidence.Run) string {
	if len(r.Versions) == 0 {
		return ""
	}
	return r.Versions[0]
}

type itemVerdict struct {
	verdict reports.Verdict
	// requirement is the requirement the verdict rests on, when it is not
	// the test's own.
	requirement string
	message     string
	actual      any
	sent, got   string
	where       *Where
}

// judgeItem judges one item against the test's outcomes.
func judgeItem(t *vectors.Test, r *evidence.Run, v string, it *evidence.ItemObs) itemVerdict {
	where := &Where{Process: it.Process, From: it.Begin, To: it.End + 1}
	switch {
	case it.Mark.Err != "":
		return itemVerdict{verdict: reports.Error, message: it.Mark.Err, where: where}
	case it.Mark.Skip != "":
		return itemVerdict{verdict: reports.Skip, message: it.Mark.Skip}
	}
	if f := it.Process.FloodSeq(); f >= 0 && (!it.Closed || it.End > f) {
		return itemVerdict{verdict: reports.Error, message: fmt.Sprintf("not judged: the server flooded process %d's transcript during the test, and the harness kept only part of it", it.Process.ID), where: where}
	}
	if len(it.Steps) == 0 {
		return itemVerdict{verdict: reports.Error, message: "the test sent nothing", where: where}
	}
	last := it.Steps[len(it.Steps)-1]
	for _, st := range it.Steps {
		if st.Index > last.Index {
			last = st
		}
	}
	var resp *wire.Message
	var x *evidence.Exchange
	sent, got := "", ""
	if last.Exchange != nil {
		x = last.Exchange
		resp = x.Response
		if x.Late && !(last.Index >= 0 && last.Index < len(t.Steps) && t.Steps[last.Index].SilenceRecorded()) {
			// Answered only after the deadline: within it, there was silence.
			resp = nil
		}
		sent, got = sentOf(x), gotOf(x)
		if x.Stopped() {
			return itemVerdict{verdict: reports.Error, message: "not judged: " + x.NoResponse.String(), where: where, sent: sent}
		}
	}
	if resp == nil && last.Reply != nil {
		// A line with a request inside (a batch) may be answered as a
		// whole, without the request's id.
		resp = last.Reply.Msg
		got = clipJSON(resp.Raw, 2000)
	}
	if sent == "" && last.SentSeq >= 0 && it.Process != nil {
		if es := it.Process.Transcript.Slice(last.SentSeq, last.SentSeq+1); len(es) == 1 {
			sent = clipString(string(es[0].Data), 1000)
		}
	}
	if got == "" {
		got = "no response"
	}
	var alive *bool
	if it.Alive != nil {
		if it.Alive.Stopped() {
			return itemVerdict{verdict: reports.Error, message: "not judged: the liveness check was stopped: " + it.Alive.NoResponse.String(), where: where, sent: sent, got: got}
		}
		a, why := survived(it)
		if why != "" {
			// Only an exit proves the server did not survive; a liveness
			// request unanswered within the harness's window proves nothing.
			return itemVerdict{verdict: reports.Error, message: "not judged: " + why, where: where, sent: sent, got: got}
		}
		alive = &a
	}
	actual := any(map[string]string{"noResponse": got})
	if resp != nil {
		actual = toAny(resp.Raw)
	}
	if resp == nil && x != nil && (alive == nil || *alive) {
		if why, _ := dropped(r, x); why != "" {
			// One dropped request, one finding: every-request-answered's.
			return itemVerdict{verdict: reports.Skip, message: fmt.Sprintf("not judged: %s (id %s) was dropped: %s (every-request-answered judges it)", x.Method, clipJSON(x.ID, 40), why), actual: actual, sent: sent, got: got, where: where}
		}
	}
	if req, why := changedID(t, v, it, last, x, resp); why != "" {
		return itemVerdict{verdict: outcomeVerdict("fail", req, v), requirement: req, message: why + "; got " + shortReply(resp, x), actual: actual, sent: sent, got: got, where: where}
	}
	silence := resp == nil
	for _, oc := range t.Expect {
		if len(oc.Versions) > 0 && !slices.Contains(oc.Versions, v) {
			continue
		}
		if oc.Alive != nil && (alive == nil || *alive != *oc.Alive) {
			continue
		}
		ok, why := matchOutcome(oc, resp, silence, it.Mark.Bindings)
		if why != "" {
			return itemVerdict{verdict: reports.Error, message: why, actual: actual, sent: sent, got: got, where: where}
		}
		if !ok {
			continue
		}
		msg := oc.Note
		if msg == "" {
			msg = "as expected: " + outcomeSummary(oc, it.Mark.Bindings)
		}
		if oc.Verdict != "pass" && oc.Verdict != "info" || oc.Note == "" {
			msg += "; got " + shortReply(resp, x)
		}
		if alive != nil && !*alive && !(x != nil && x.NoResponse != nil && x.NoResponse.Reason == transcript.ReasonExited) {
			msg += " (" + deadAfter(it.Process, it.Alive, x) + ")"
		}
		req := t.Requirement
		if oc.Requirement != "" {
			if _, ok := catalogIn(oc.Requirement, v); ok {
				req = oc.Requirement
			}
		}
		return itemVerdict{verdict: outcomeVerdict(oc.Verdict, req, v), requirement: req, message: msg, actual: actual, sent: sent, got: got, where: where}
	}
	if resp == nil && (x == nil || x.NoResponse != nil || x.NotSent()) {
		// Nothing came back, and no outcome of the test is about silence:
		// the test's own rule was not exercised. A request left unanswered
		// is judged once, by every-request-answered; a server that died, by
		// the test that killed it.
		why := "nothing came back"
		if x != nil && x.NoResponse != nil {
			why = x.NoResponse.String()
		}
		return itemVerdict{verdict: reports.Skip, message: "not judged: " + why + " (every-request-answered judges requests left unanswered)", actual: actual, sent: sent, got: got, where: where}
	}
	if x != nil && resp == x.Response && x.Result() != nil && evidence.Complete(v, x) == nil {
		// A result of another kind than the method's own (an
		// InputRequiredResult still asking after the suite's retries, a
		// task, a resultType the version does not define): the checks of
		// that kind judge it, not the test's outcomes.
		return itemVerdict{verdict: reports.Skip, message: "not judged: " + notComplete(v, x, retriesBefore(it, x)), actual: actual, sent: sent, got: got, where: where}
	}
	other := t.Otherwise
	if other == "" {
		other = "fail"
	}
	return itemVerdict{verdict: outcomeVerdict(other, t.Requirement, v), message: "no expected outcome matched; got " + shortReply(resp, x), actual: actual, sent: sent, got: got, where: where}
}

// changedID judges the id of a response to a line the suite wrote on
// purpose (a robustness probe), which the ambient id checks leave alone:
// JSON-RPC 2.0 § 5 says the id "MUST be the same as the value of the id
// member in the Request Object", or null when it could not be detected.
// It returns the id-echo requirement of the response's kind in v and what
// came back changed, or "" when the id is the request's (by value), null
// on an error, or not judged here (a response matched to its request by
// id, which the id-echo tests and jsonrpc-response-id-echo judge).
func changedID(t *vectors.Test, v string, it *evidence.ItemObs, last *evidence.StepObs, x *evidence.Exchange, resp *wire.Message) (string, string) {
	if resp == nil || !plan.Provoking(t) || last.SentSeq < 0 || it.Process == nil {
		return "", ""
	}
	if x != nil && resp == x.Response && !x.LooseID {
		return "", "" // matched by its id
	}
	es := it.Process.Transcript.Slice(last.SentSeq, last.SentSeq+1)
	if len(es) != 1 || len(es[0].Msgs) != 1 || es[0].Batch {
		return "", "" // not one object: no id to echo (or a batch, answered as a whole)
	}
	sent := es[0].Msgs[0].ID
	if sent == nil {
		return "", "" // no id: a notification, which gets no reply at all
	}
	got := resp.ID
	switch {
	case wire.IDKey(got) == wire.IDKey(sent):
		return "", ""
	case wire.IsNullID(got) && resp.Has("error"):
		// JSON-RPC: null when the id could not be detected (a parse error,
		// an invalid request); MCP lets such an error leave it out.
		return "", ""
	}
	req := "JSONRPC-05"
	if resp.Has("error") && !resp.Has("result") {
		if _, ok := catalogIn("JSONRPC-16", v); ok {
			req = "JSONRPC-16"
		}
	}
	gotText := "no id"
	if len(got) > 0 {
		gotText = clipJSON(got, 60)
	}
	return req, fmt.Sprintf("the id came back changed: sent %s, got %s (a response carries its request's id, or null on an error when that id could not be read or was invalid)", clipJSON(sent, 60), gotText)
}

// survived says whether the server lived through an item's steps: it
// answered the liveness request (true), or it exited on its own (false,
// evidence). Anything else (the request unanswered within its window,
// the harness stopping the process) decides nothing and is said in why.
func survived(it *evidence.ItemObs) (alive bool, why string) {
	a := it.Alive
	if a.OK() || a.Late {
		return true, ""
	}
	p := it.Process
	if p != nil {
		if e := p.Exit(); e != nil {
			switch e.Stage {
			case transcript.BeforeShutdown:
				return false, ""
			case transcript.Stopped:
				return false, "the harness stopped the process (past a budget of its own) before the liveness request was answered"
			}
		}
	}
	if a.NoResponse != nil && a.NoResponse.Reason == transcript.ReasonExited {
		return false, ""
	}
	if a.NoResponse != nil {
		return false, "the liveness request got no answer (" + a.NoResponse.String() + "), and the process did not exit: a window of the harness proves no rule broken"
	}
	return false, "the liveness request got no answer"
}

// deadAfter says how a server showed it did not survive a request: it
// exited, or it left the liveness request unanswered for its window.
func deadAfter(p *evidence.Process, alive, x *evidence.Exchange) string {
	if p != nil {
		if e := p.Exit(); e != nil && e.Stage == transcript.BeforeShutdown {
			return "the server then exited: " + e.String()
		}
	}
	for _, y := range []*evidence.Exchange{x, alive} {
		if y != nil && y.NoResponse != nil && y.NoResponse.Reason == transcript.ReasonExited {
			return "the server then exited: " + y.NoResponse.Detail
		}
	}
	if alive != nil && alive.NoResponse != nil && alive.NoResponse.Deadline > 0 {
		return "the server then answered no liveness request within " + alive.NoResponse.Deadline.String()
	}
	return "the server then answered no liveness request"
}

// outcomeVerdict prices an outcome's verdict: "fail" means the rule is
// broken and costs what the catalogue says the rule costs in v; "warn" is
// a warning at most.
func outcomeVerdict(verdict, requirement, v string) reports.Verdict {
	res := reports.Result{Requirement: requirement, ProtocolVersion: v}
	switch verdict {
	case "fail":
		return Price(res, Finding{Outcome: Violation}).Verdict
	case "warn":
		return Price(res, Finding{Outcome: Disputed}).Verdict
	case "info":
		return reports.Info
	case "pass":
		return reports.Pass
	}
	return reports.Verdict(verdict)
}

func shortReply(resp *wire.Message, x *evidence.Exchange) string {
	if resp == nil {
		if x != nil && x.NoResponse != nil {
			return x.NoResponse.String()
		}
		return "no response"
	}
	if resp.Has("error") {
		return "error " + clipJSON(resp.Error, 200)
	}
	if resp.Has("result") {
		return "result " + clipJSON(resp.Result, 200)
	}
	return clipJSON(resp.Raw, 200)
}

// matchOutcome reports whether an outcome fits. A non-empty string is a
// harness problem (a pattern that cannot be expanded).
func matchOutcome(oc vectors.Outcome, resp *wire.Message, silence bool, b map[string]string) (bool, string) {
	if oc.Silence {
		return silence, ""
	}
	try := func(raw json.RawMessage, val json.RawMessage, present bool) (bool, string) {
		exp, err := vectors.Expand(raw, b)
		if err != nil {
			return false, err.Error()
		}
		p, err := vectors.CompilePattern(exp)
		if err != nil {
			return false, err.Error()
		}
		if !present {
			return false, ""
		}
		return p.Match(val) == nil, ""
	}
	switch {
	case oc.Result != nil:
		v, ok := respMember(resp, "result")
		return try(oc.Result, v, ok)
	case oc.Error != nil:
		v, ok := respMember(resp, "error")
		return try(oc.Error, v, ok)
	case oc.Response != nil:
		if resp == nil {
			return false, ""
		}
		return try(oc.Response, resp.Raw, true)
	}
	// Only "alive" was given, and it matched.
	return true, ""
}

func respMember(resp *wire.Message, name string) (json.RawMessage, bool) {
	if resp == nil {
		return nil, false
	}
	v, ok := resp.Member(name)
	// A response with both result and error is judged by the envelope
	// checks; here it matches neither, so it cannot pass as a clean outcome.
	if ok && resp.Has("result") && resp.Has("error") {
		return nil, false
	}
	return v, ok
}

func outcomeSummary(oc vectors.Outcome, b map[string]string) string {
	show := func(raw json.RawMessage) string {
		if exp, err := vectors.Expand(raw, b); err == nil {
			raw = exp
		}
		return clipJSON(raw, 160)
	}
	switch {
	case oc.Silence:
		return "no response"
	case oc.Result != nil:
		return "result " + show(oc.Result)
	case oc.Error != nil:
		return "error " + show(oc.Error)
	case oc.Response != nil:
		return "response " + show(oc.Response)
	}
	return "server still answering"
}

func outcomesJSON(t *vectors.Test, version string) any {
	var out []any
	for _, oc := range t.Expect {
		if len(oc.Versions) > 0 && !slices.Contains(oc.Versions, version) {
			continue
		}
		m := map[string]any{"verdict": oc.Verdict}
		for k, raw := range map[string]json.RawMessage{"result": oc.Result, "error": oc.Error, "response": oc.Response} {
			if raw != nil {
				var v any
				_ = json.Unmarshal(raw, &v)
				m[k] = v
			}
		}
		if oc.Silence {
			m["silence"] = true
		}
		if oc.Alive != nil {
			m["alive"] = *oc.Alive
		}
		out = append(out, m)
	}
	other := t.Otherwise
	if other == "" {
		other = "fail"
	}
	return map[string]any{"firstMatchWins": out, "otherwise": other}
}

// retriesBefore counts the steps of an item that sent x's request before
// x, retried with a requestState.
func retriesBefore(it *evidence.ItemObs, x *evidence.Exchange) int {
	n := 0
	for _, st := range it.Steps {
		if st.Exchange != nil && st.Exchange != x && st.Exchange.Tag == x.Tag {
			n++
		}
	}
	return n
}
