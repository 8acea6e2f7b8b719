package execute

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// version is the version the session is judged under ("" before one is
// known, in the probe process's requests before initialize).
func (l *live) version() string {
	if l.s != nil {
		return l.s.Version
	}
	return l.p.ev.Version
}

// runTest runs every item of a vector test in p, each bracketed by marks.
// A test whose gate does not open is not run: the judge skips it for the
// same reason. It reports whether an item could not run because the
// process had died (of an earlier test): a disposable test is then run
// again in a fresh process.
func (l *live) runTest(ctx context.Context, t *vectors.Test, p *proc) (died bool) {
	if p.c == nil {
		return false
	}
	v := l.version()
	if plan.VectorGate(t, v, l.s) != "" || t.File != nil && plan.TransportGate(t.File.Area, "", l.x.run.Transport) != "" {
		return false
	}
	if t.Foreach == "resource" {
		l.refreshResources(ctx)
	}
	provoking := plan.Provoking(t)
	for i, it := range plan.VectorItems(t, v, l.x.run.Nonce, l.s, l.resources) {
		if ctx.Err() != nil {
			return died
		}
		m := transcript.Mark{Kind: transcript.Begin, Probe: evidence.VectorMark(t.ID), Item: i, Label: it.Label, Bindings: it.Bindings, Provoking: provoking, Skip: it.Skip}
		p.c.Mark(m)
		end := transcript.Mark{Kind: transcript.End, Probe: evidence.VectorMark(t.ID), Item: i, Provoking: provoking}
		if it.Skip == "" {
			end.Err = l.runSteps(ctx, t, i, it.Bindings, p)
			if end.Err != "" {
				// A write that failed because the server had just died: give
				// its exit a moment to be seen.
				select {
				case <-p.c.Done():
				case <-time.After(500 * time.Millisecond):
				}
			}
			if end.Err != "" && !p.alive() {
				// The server had died; what it did is judged by the test
				// that was running then, not here.
				end.Skip, end.Err = "not run: the server process had exited ("+end.Err+")", ""
				died = true
			}
		}
		p.c.Mark(end)
	}
	return died
}

// replyAfterAnswer is how long the reply to a raw line is still awaited
// once the server answered a request sent after it.
const replyAfterAnswer = 50 * time.Millisecond

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// runSteps sends an item's steps; it returns a harness problem, if any.
func (l *live) runSteps(ctx context.Context, t *vectors.Test, item int, b map[string]string, p *proc) string {
	c := p.c
	// awaited are raw lines whose reply may still come: a server that
	// works on requests concurrently may answer the follow-up ping first.
	type awaited struct {
		seq   int
		id    json.RawMessage
		until time.Time
	}
	var replies []awaited
	// answered is when the server answered a request sent after the raw
	// lines: a server that reads its input in order has by then written
	// any reply to them, so the wait for one ends soon after, not at its
	// full silence window (a later reply is still found when judging).
	var answered time.Time
	defer func() {
		for _, a := range replies {
			until := a.until
			if !answered.IsZero() && a.id != nil {
				// Only a reply that names its line by id: one with a null
				// id arriving after this item would be ambiguous between
				// the probes still open, so it gets its whole window.
				until = minTime(until, answered.Add(replyAfterAnswer))
			}
			c.WaitInbound(a.seq, time.Until(until), func(m *wire.Message) bool {
				return m.Kind() == wire.KindResponse && (wire.IsNullID(m.ID) || a.id != nil && wire.IDKey(m.ID) == wire.IDKey(a.id))
			})
		}
	}()
	// delivered is set once a line of the item reached the server: a
	// server gone before that was not ended by this test.
	delivered := false
	for si, st := range t.Steps {
		tag := evidence.VectorTag(t.ID, item, si)
		switch {
		case st.Request != nil:
			params, err := expandParams(st.Request.Params, b)
			if err != nil {
				return err.Error()
			}
			if l.modern && (st.Request.Envelope == nil || *st.Request.Envelope) {
				if params, err = envelope.Wrap(params); err != nil {
					return err.Error()
				}
			}
			var id json.RawMessage
			if st.Request.ID != nil {
				if id, err = vectors.Expand(st.Request.ID, b); err != nil {
					return err.Error()
				}
			}
			method, err := vectors.ExpandString(st.Request.Method, b)
			if err != nil {
				return err.Error()
			}
			timeout := c.Timeout()
			if !heard(p) {
				// Nothing has come from this process yet: the request also
				// waits for it to start.
				timeout = max(timeout, l.x.cfg.StartTimeout)
			}
			if st.Request.TimeoutMs > 0 {
				timeout = min(timeout, time.Duration(st.Request.TimeoutMs)*time.Millisecond)
			}
			r := mockclient.Request{Tag: tag, ID: id, Method: method, Params: params, Timeout: timeout}
			var x *mockclient.Exchange
			if st.SilenceRecorded() && heard(p) {
				// A step whose silence is an outcome it expects (a ping with
				// an id no JavaScript server can read): a follow-up request
				// bounds the wait, as for a raw line. A server that answered
				// the follow-up has read this request, so its answer is
				// awaited replyAfterAnswer more, not the whole deadline; one
				// arriving later is still found when judging.
				sent := time.Now()
				pd := c.Send(ctx, r)
				fu := l.followUp(ctx, p, plan.ProbeSettle.Tag(), timeout)
				wait := timeout - time.Since(sent)
				if fu.OK() {
					wait = min(wait, replyAfterAnswer)
				}
				x = pd.WaitWithin(wait)
			} else {
				x = l.retryInput(ctx, p, r, c.Do(ctx, r))
			}
			if !delivered && (errors.Is(x.Err, mockclient.ErrWrite) || errors.Is(x.Err, mockclient.ErrExited) && x.SentSeq < 0) {
				// Nothing of this item reached the server: whatever it did
				// (exited, most likely) this test did not provoke.
				return "the first request could not be written: " + x.Err.Error()
			}
			delivered = true
		case st.Notify != nil:
			params, err := expandParams(st.Notify.Params, b)
			if err != nil {
				return err.Error()
			}
			method, err := vectors.ExpandString(st.Notify.Method, b)
			if err != nil {
				return err.Error()
			}
			if err := c.NotifyTagged(tag, method, params); err != nil {
				return "writing notification: " + err.Error()
			}
			delivered = true
		case st.Raw != nil:
			line, err := vectors.ExpandString(*st.Raw, b)
			if err != nil {
				return err.Error()
			}
			seq, err := c.Write(tag, []byte(line))
			if err != nil {
				return "writing raw line: " + err.Error()
			}
			delivered = true
			if st.SilenceMs > 0 {
				// A reply carries replyId when the line has a readable id,
				// else a null id.
				var id json.RawMessage
				if st.ReplyID != nil {
					id, _ = vectors.Expand(st.ReplyID, b)
				}
				replies = append(replies, awaited{seq, id, time.Now().Add(time.Duration(st.SilenceMs) * time.Millisecond)})
			}
		}
		if st.SilenceMs > 0 && !(t.CheckAlive && si == len(t.Steps)-1) {
			// A reply may still come: the follow-up request bounds the wait,
			// and a reply arriving later is still found when judging.
			if l.awaitFollowUp(ctx, p, plan.ProbeSettle.Tag()) {
				answered = time.Now()
			}
		}
	}
	if t.CheckAlive && l.awaitFollowUp(ctx, p, evidence.AliveTag(t.ID, item)) {
		answered = time.Now()
	}
	return ""
}

// suspectAfter is how long a follow-up request goes unanswered before the
// process is suspected wedged: at least minSuspect, and far more than the
// slowest follow-up the server has answered in this run.
const minSuspect = 250 * time.Millisecond

// minNudge is how long, at least, a follow-up in a chain of disposable
// tests goes unanswered before a second one is sent (awaitFollowUp).
// A fixed wait, but one that decides nothing: what the second follow-up
// provokes is judged, not its timing.
const minNudge = 50 * time.Millisecond

// awaitFollowUp sends the follow-up request after a test's steps and
// reports whether it was answered. In a chain of disposable tests, a
// follow-up unanswered after minNudge (or four times the slowest answered
// so far) gets a second one, which shows at once what a server wedged by
// a truncated line does once its stream breaks; an answer slower than
// suspectAfter makes the process suspect: the next test gets a fresh
// process, while both requests keep their whole deadline (aliveDeadline)
// in the background, so a wedged server costs the chain a fraction of a
// second, and a slow server that answers late is still seen alive when
// judging. Elsewhere the wait is the request's own.
func (l *live) awaitFollowUp(ctx context.Context, p *proc, tag string) bool {
	timeout := min(p.c.Timeout(), aliveDeadline)
	if !l.chain {
		x := l.followUp(ctx, p, tag, timeout)
		l.x.sawFollowUp(x)
		if !x.OK() && ctx.Err() == nil {
			// The process no longer answers (a decoder still waiting for
			// the rest of a truncated line, say): the next test that may
			// have a fresh process gets one.
			l.wedged = true
		}
		return x.OK()
	}
	done := make(chan *mockclient.Exchange, 1)
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		x := l.followUp(ctx, p, tag, timeout)
		l.x.sawFollowUp(x)
		done <- x
		if !x.OK() && ctx.Err() == nil {
			// The request was cancelled: a server whose decoder was
			// still inside a truncated line may take that line as the
			// rest and exit, which is evidence; its exit is awaited a
			// little before the chain may end and shut the process down.
			select {
			case <-p.c.Done():
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
		}
	}()
	sent := time.Now()
	slowest := l.x.slowestFollowUp()
	suspect := time.NewTimer(min(timeout, max(minSuspect, 20*slowest)))
	defer suspect.Stop()
	nudgeAt := time.NewTimer(min(timeout, max(minNudge, 4*slowest)))
	defer nudgeAt.Stop()
	nudged := false
	nudge := func() {
		// A second follow-up, written before the test's closing mark so
		// that it belongs to the test: a stream decoder that took the
		// first one as the rest of a truncated line now meets a second
		// value where none fits, and the server shows at once what it
		// does with a broken stream (exits, or answers an error), which
		// is the test's evidence. A server merely slow answers both.
		if nudged {
			return
		}
		nudged = true
		pd := p.c.Send(ctx, l.followUpRequest(p, plan.ProbeNudge.Tag(), max(timeout-time.Since(sent), minSuspect)))
		l.bg.Add(1)
		go func() {
			defer l.bg.Done()
			pd.Wait()
		}()
	}
	for {
		select {
		case x := <-done:
			if !x.OK() && ctx.Err() == nil {
				l.wedged = true
			}
			return x.OK()
		case <-nudgeAt.C:
			nudge()
		case <-suspect.C:
			l.wedged = true
			nudge()
			return false
		}
	}
}

// followUp sends the request every live server answers (ping, or
// server/discover in the 2026-07-28 era, where ping no longer exists),
// with its own deadline.
func (l *live) followUp(ctx context.Context, p *proc, tag string, timeout time.Duration) *mockclient.Exchange {
	return p.c.Do(ctx, l.followUpRequest(p, tag, timeout))
}

func (l *live) followUpRequest(p *proc, tag string, timeout time.Duration) mockclient.Request {
	era, _ := p.ev.EraAt(p.c.Transcript().Len())
	if l.modern || era == wire.EraModern {
		params, _ := envelope.Wrap(nil)
		return mockclient.Request{Tag: tag, Method: "server/discover", Params: params, Timeout: timeout}
	}
	return mockclient.Request{Tag: tag, Method: "ping", Timeout: timeout}
}

// refreshResources lists the resources again when the server announced a
// list change since they were last listed (2026-07-28 announces changes
// only on listen streams, so there the list is always listed again).
func (l *live) refreshResources(ctx context.Context) {
	if l.s == nil || l.p.c == nil {
		return
	}
	changed := l.modern
	for _, e := range l.p.c.Transcript().Slice(l.lastList, -1) {
		for _, m := range e.Msgs {
			if e.Dir == transcript.Recv && m.Method == "notifications/resources/list_changed" {
				changed = true
			}
		}
	}
	if changed {
		l.resources = l.list(ctx, plan.ProbeRefresh.Tag(), "resources/list")
		l.lastList = l.p.c.Transcript().Len()
	}
}

// expandParams fills the bindings of a step's params. Absent params stay
// absent (a nil any, so no params member is sent).
func expandParams(raw json.RawMessage, b map[string]string) (any, error) {
	params, err := vectors.Expand(raw, b)
	if err != nil || params == nil {
		return nil, err
	}
	return params, nil
}
