package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Verifiers of how a request was answered, shared by the families whose
// checks judge an answer: whether it came (answered, dropped, timedOut),
// whether it refused (refused, errorProbe), and whether it was a finished
// result (notComplete).

// answered counts a probe as judged and reports whether it was answered.
// A probe never written or stopped by the harness is not judged, nor one
// the server dropped (every-request-answered judges that); silence within
// the harness's deadline with no evidence of a drop is recorded as not
// judged.
func answered(t *tally, r *evidence.Run, x *evidence.Exchange, what string) (*Where, bool) {
	if x.Stopped() || x.NotSent() {
		return nil, false
	}
	w := At(x.Process, max(x.RecvSeq, x.SentSeq))
	if x.Response == nil {
		if why, _ := dropped(r, x); why != "" {
			t.unexercise("%s was dropped: %s (every-request-answered judges it)", what, why)
			return w, false
		}
		if x.NoResponse != nil && x.NoResponse.Reason != transcript.ReasonTimeout {
			// The request could not even be written: this probe's own
			// rule was not exercised.
			t.unexercise("%s: %s (every-request-answered judges requests left unanswered)", what, gotOf(x))
			return w, false
		}
	}
	t.judged()
	if x.Response != nil {
		return w, true
	}
	if why, ok := timedOut(x); ok {
		t.undecide(w, "%s: %s", what, why)
	} else if x.NoResponse == nil {
		// Neither an answer nor its absence is in the transcript: the
		// process went past the budget of what is kept.
		t.undecide(w, "%s: no answer in the part of the transcript kept", what)
	}
	return w, false
}

// dropped returns the evidence that the server dropped the request of x
// when every-request-answered is the check to judge it ("" otherwise), and
// whether the evidence is that the server died: a server that died under
// a provocation is judged by the probe that provoked it. Every other check
// that finds x unanswered leaves it to every-request-answered then, so
// that one dropped request is one finding.
func dropped(r *evidence.Run, x *evidence.Exchange) (string, bool) {
	d := x.Dropped(r.Timeout)
	if d == nil || d.Died && x.Process.InProvocation(x.SentSeq) {
		return "", false
	}
	return d.Why, d.Died
}

// timedOut says that x went unanswered within the harness's deadline: a
// window of the harness, which proves no rule broken.
func timedOut(x *evidence.Exchange) (string, bool) {
	if nr := x.NoResponse; nr != nil && nr.Reason == transcript.ReasonTimeout && !x.Late {
		return fmt.Sprintf("not judged: the server did not answer %s within %s, a deadline of the harness", x.Method, nr.Deadline), true
	}
	return "", false
}

// refused reports whether the answer to a tools/call refuses it: a
// JSON-RPC error, or a CallToolResult with isError true.
func refused(x *evidence.Exchange) bool {
	return x.Response.Has("error") || string(wire.Object(x.Response.Result)["isError"]) == "true"
}

// errorProbe judges probes that must get the error code want: a result or
// another code breaks the rule. what names the probe in messages. A probe
// retried with the requestState of its input_required answer is judged by
// what it came to; one still asking for input is not judged.
func errorProbe(r *evidence.Run, v string, xs []*evidence.Exchange, want int64, what func(x *evidence.Exchange) string, okMsg, nothing string) Finding {
	t := &tally{}
	for _, c := range evidence.RetryChains(v, xs) {
		x := c[len(c)-1]
		if x.Result() != nil && evidence.Complete(v, x) == nil {
			t.unexercise("%s", notComplete(v, x, len(c)-1))
			continue
		}
		w, ok := answered(t, r, x, what(x))
		switch {
		case !ok:
		case x.Response.Has("result"):
			t.violate(w, "%s got the result %s; it should be the error %d", what(x), clipJSON(x.Response.Result, 160), want)
		default:
			if code, ok := x.ErrorCode(); !ok || code != want {
				t.violate(w, "%s got the error %s; the code for it is %d", what(x), clipJSON(x.Response.Error, 120), want)
			}
		}
	}
	return t.finding(okMsg, nothing)
}

// named is a fixed name for errorProbe.
func named(what string) func(*evidence.Exchange) string {
	return func(*evidence.Exchange) string { return what }
}

// notComplete says why a check of a method's result does not judge x's:
// the result is of another kind the version defines (an
// InputRequiredResult still asking after the suite's retries, a
// CreateTaskResult) or of a type it does not define.
func notComplete(v string, x *evidence.Exchange, retries int) string {
	kind, allowed := evidence.KindOf(v, x)
	retryable := false
	if x.Request != nil {
		_, retryable = evidence.RetryState(v, x.Method, x.Request.Params, x.Response)
	}
	switch {
	case kind == evidence.ResultInputRequired && !allowed:
		return fmt.Sprintf("%s was answered input_required, which input-required-only-where-allowed judges", requestLabel(x))
	case kind == evidence.ResultInputRequired && !retryable:
		return fmt.Sprintf("%s asked for input the suite cannot give (the input_required checks judge the result)", requestLabel(x))
	case kind == evidence.ResultInputRequired && retries >= evidence.MaxInputRetries:
		return fmt.Sprintf("%s still asked for input after %d retries (input-required-retried records it)", requestLabel(x), retries)
	case kind == evidence.ResultInputRequired:
		return fmt.Sprintf("%s asked for input, and the session ended before the retry with its requestState", requestLabel(x))
	case kind == evidence.ResultTask:
		return fmt.Sprintf("%s was answered with a task (CreateTaskResult), whose result comes later", requestLabel(x))
	}
	rt, _ := wire.String(x.Result()["resultType"])
	return fmt.Sprintf("%s was answered with resultType %q (result-type-on-every-result judges it)", requestLabel(x), clipString(rt, 30))
}
