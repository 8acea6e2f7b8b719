package execute

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// aliveDeadline bounds the liveness request after a test that may wedge
// the server: a live server answers at once, and a wedged one should not
// cost a whole request deadline to recognise. Results say when this
// window is what decided.
const aliveDeadline = 3 * time.Second

// ServerRequestWindow is how long, at least, the probe process stays open
// after an initialize that declared client capabilities, for the requests
// a server makes of them, when the run does not say
// (--server-request-window). The process's own work (the disposable
// tests) goes on meanwhile, so the run waits at most this long beyond its
// work, and only as long as its work is shorter; a request that arrives
// later is not seen, and the checks that needed one skip saying so.
// settleTimeout bounds the ping sent after notifications/initialized, and
// requestSettle is how long the tests wait after its answer.
const (
	ServerRequestWindow = 100 * time.Millisecond
	settleTimeout       = 500 * time.Millisecond
	requestSettle       = 50 * time.Millisecond
)

// probeProcess drives the probe process: the requests before initialize,
// the counter-offer, then the disposable tests of the shared session's
// version.
func (x *executor) probeProcess(ctx context.Context, shared *future[*ready]) {
	// The checks selected (--only, --skip) may need none of this process's
	// work: then it is not started.
	if len(x.testsOf(plan.KindUninitialized)) == 0 && len(x.testsOf(plan.KindDisposable)) == 0 &&
		!x.needs(plan.ProbeCounterOffer, plan.ProbeServerRequests) {
		return
	}
	p := x.start(evidence.RoleProbe, wire.Newest, "the probe process: requests before initialize, an initialize offering an unknown version, then the tests that may kill or wedge the server")
	if p.c == nil {
		return
	}
	// A second counter-offer, of a version not shaped like a date. The
	// process is kept open when its handshake completed: once the
	// counter-offered version proves to be the session's, it takes part
	// of the disposable tests (nullIDQueue).
	other := make(chan *proc, 1)
	var negotiated string // what q's handshake agreed, once other has q
	if x.needs(plan.ProbeCounterOffer) {
		go func() {
			q := x.start(evidence.RoleNegotiation, wire.Newest, "an initialize offering "+otherVersion+", a version not shaped like a date, to see the counter-offer")
			if q.c != nil {
				if h := q.initialize(ctx, plan.ProbeCounterOffer.Tag(), otherVersion, nil, x.cfg.StartTimeout); h.err == "" && q.alive() {
					negotiated = h.negotiated
					other <- q
					return
				}
				q.finish()
			}
			other <- nil
		}()
	} else {
		other <- nil
	}
	// The negotiation process is shut down at once unless it takes a
	// chain (then it is closed with the rest, at the end of the run).
	var second *proc
	received, taken := false, false
	receive := func() *proc {
		if !received {
			second, received = <-other, true
		}
		return second
	}
	defer func() {
		if q := receive(); !taken {
			q.finish()
		}
	}()
	probe := &live{x: x, p: p}
	for _, t := range x.testsOf(plan.KindUninitialized) {
		probe.runTest(ctx, t, p)
		x.progress(t.ID)
	}
	// The counter-offer, declaring the client capabilities a server may
	// want to use (roots, sampling, elicitation).
	h := p.initialize(ctx, plan.ProbeCounterOffer.Tag(), unknownVersion, declaredClientCapabilities, x.cfg.StartTimeout)
	if h.err == "" && x.needs(plan.ProbeServerRequests) {
		// A server told of roots or sampling may ask for them once
		// initialized, at once or a little later (server-everything asks
		// 350 ms after initialize). A ping sent after
		// notifications/initialized is answered once the server has taken
		// that notification in, so a request it makes at once is seen
		// before the tests go on; for later ones the process stays open
		// at least the request window after initialize, while the tests
		// run, and waits out the rest only if they were quicker.
		from, since := p.c.Transcript().Len(), time.Now()
		isRequest := func(m *wire.Message) bool { return m.Kind() == wire.KindRequest }
		window := x.cfg.RequestWindow
		p.c.Do(ctx, mockclient.Request{Tag: plan.ProbeSettle.Tag(), Method: "ping", Timeout: settleTimeout})
		p.c.WaitInbound(from, min(requestSettle, max(window-time.Since(since), 0)), isRequest)
		first := p
		defer func() {
			if first.alive() && ctx.Err() == nil {
				first.c.WaitInbound(from, max(window-time.Since(since), 0), isRequest)
			}
		}()
	}
	rd := shared.get()
	if rd == nil || rd.s == nil {
		p.ev.Role = evidence.RoleNegotiation
		return
	}
	v := rd.s.s.Version
	p.ev.Version = v
	rd.s.s.AddProbe(p.ev.ID)
	defer rd.s.sibling().deleteProbe(ctx)()
	probe = rd.s.sibling()
	probe.p = p
	if h.err != "" || h.negotiated != v || !p.alive() {
		// The disposable tests need a process that speaks v: a new one,
		// whose initialize offering v also shows whether v is echoed.
		if p = probe.openProbe(ctx, "a probe process that speaks "+v+" for the tests that may kill or wedge the server"); p == nil {
			return
		}
	}
	all := x.testsOf(plan.KindDisposable)
	if q := receive(); q != nil && negotiated == v && probe.serving(ctx, q) {
		if queue := newNullIDQueue(all); len(queue.ts) > 0 {
			q.ev.Why += "; then, as the server counter-offered " + v + ", the session's version, part of the tests that may kill or wedge the server, beside the probe process"
			q.ev.Version = v
			rd.s.s.AddProbe(q.ev.ID)
			taken = true
			budget := new(atomic.Int32)
			other := rd.s.sibling()
			other.probeRestarts, probe.probeRestarts = budget, budget
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				other.disposableWork(ctx, q, slices.Clone(queue.ts), queue)
			}()
			probe.disposableWork(ctx, p, all, queue)
			wg.Wait()
			return
		}
	}
	probe.disposableWork(ctx, p, all, nil)
}

// serving reports whether q answers a request after its handshake, as a
// process must before a test runs in it.
func (l *live) serving(ctx context.Context, q *proc) bool {
	if x := l.followUp(ctx, q, plan.ProbeSettle.Tag(), min(q.c.Timeout(), aliveDeadline)); !x.OK() {
		q.c.Note("the process answered its handshake but not the request after it: no test is run in it")
		return false
	}
	return true
}

// sibling returns a driver of a chain of disposable tests of l's session,
// beside l: the same session and resources, its own process (set by the
// chain) and its own count of replacements.
func (l *live) sibling() *live {
	return &live{x: l.x, s: l.s, modern: l.modern, resources: l.resources}
}

// nullIDQueue shares the disposable tests that await a reply with a null
// id between two chains side by side. Such a test waits out its whole
// silence window when the server sends no such reply (a reply arriving
// later could not be told from the next test's), so those windows are
// what a chain's length is made of. Each goes, in order, to whichever
// chain is free first: a server that answers some of them and not
// others has its windows overlap, whichever they are.
type nullIDQueue struct {
	mu   sync.Mutex
	ts   []*vectors.Test // in the order a chain runs them (wedgingFirst)
	next int
}

func newNullIDQueue(ts []*vectors.Test) *nullIDQueue {
	q := &nullIDQueue{}
	for _, t := range wedgingFirst(ts) {
		if awaitsNullID(t) {
			q.ts = append(q.ts, t)
		}
	}
	return q
}

// take returns the next test no chain took yet, or nil.
func (q *nullIDQueue) take() *vectors.Test {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next == len(q.ts) {
		return nil
	}
	q.next++
	return q.ts[q.next-1]
}

// chainOrder yields the tests of one chain: ts in wedgingFirst order, with
// each test that awaits a null-id reply replaced by the next one the
// queue holds, and left out once the queue is empty. With no queue, or
// with no other chain taking from it, that is ts in wedgingFirst order.
func chainOrder(ts []*vectors.Test, queue *nullIDQueue) iter.Seq[*vectors.Test] {
	return func(yield func(*vectors.Test) bool) {
		for _, t := range wedgingFirst(ts) {
			if queue != nil && awaitsNullID(t) {
				if t = queue.take(); t == nil {
					continue
				}
			}
			if !yield(t) {
				return
			}
		}
	}
}

// awaitsNullID reports whether a test writes a line whose reply would
// carry a null id, and awaits it.
func awaitsNullID(t *vectors.Test) bool {
	for _, st := range t.Steps {
		if st.Raw != nil && st.SilenceMs > 0 && st.ReplyID == nil {
			return true
		}
	}
	return false
}

// disposableWork runs the disposable tests ts one after another in p (in
// chainOrder: those awaiting a null-id reply taken from queue, when there
// is one), replacing p with a new probe process when it dies or wedges.
func (l *live) disposableWork(ctx context.Context, p *proc, ts []*vectors.Test, queue *nullIDQueue) {
	l.p = p
	l.chain = true
	defer func() {
		// Follow-ups still waiting keep their deadlines: the processes
		// they wait on are closed only after.
		l.bg.Wait()
		l.chain = false
	}()
	for t := range chainOrder(ts, queue) {
		if ctx.Err() != nil {
			break
		}
		if !l.usable() {
			if !l.replaceProbe(ctx) {
				break
			}
		}
		if l.runTest(ctx, t, l.p) && ctx.Err() == nil && l.replaceProbe(ctx) {
			// An earlier test killed the process just before this one
			// wrote: its items run again where they can be answered.
			l.runTest(ctx, t, l.p)
		}
		l.x.progress(t.ID)
	}
	l.settleReplies(l.p, 300*time.Millisecond)
}

// usable reports whether the probe process can take another test: alive,
// and answering (its last liveness request, if any, was answered).
func (l *live) usable() bool {
	return l.p.alive() && !l.wedged
}

// disposablesApart runs the session's disposable tests after its shared
// work, in processes of their own: the shared process is shut down first,
// so how the server ends on stdin EOF is seen on a process no test killed.
func (l *live) disposablesApart(ctx context.Context) {
	l.settleReplies(l.p, 300*time.Millisecond)
	l.p.finish()
	if ctx.Err() == nil && l.startProbe(ctx, "runs the tests that may kill or wedge the server, after the shared process "+itoa(l.p.ev.ID)+" was shut down") {
		l.disposableWork(ctx, l.p, l.x.testsOf(plan.KindDisposable), nil)
	}
}

// disposablesBeside starts the session's disposable tests at once, in a
// probe process of their own beside the shared process, and returns what
// waits for them to end and shuts the shared process down: the chain's
// windows then overlap the shared work (a tool call's budget, say)
// instead of following it. Each test is judged in its own marks, as in
// disposablesApart; afterwards the session goes on in the chain's last
// process, as there.
func (l *live) disposablesBeside(ctx context.Context) (wait func()) {
	pl := l.sibling()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if ctx.Err() == nil && pl.startProbe(ctx, "runs the tests that may kill or wedge the server, beside the shared process "+itoa(l.p.ev.ID)) {
			pl.disposableWork(ctx, pl.p, l.x.testsOf(plan.KindDisposable), nil)
		}
	}()
	return func() {
		l.settleReplies(l.p, 300*time.Millisecond)
		l.p.finish()
		<-done
		if pl.p != nil {
			l.p = pl.p
		}
	}
}

// replaceProbe starts a new probe process for the session's version.
func (l *live) replaceProbe(ctx context.Context) bool {
	return l.startProbe(ctx, "replaces probe process "+itoa(l.p.ev.ID)+", which exited or stopped answering")
}

// startProbe starts a probe process for the session's version, saying why.
func (l *live) startProbe(ctx context.Context, why string) bool {
	if len(l.x.run.Incomplete()) > 0 {
		// A server that flooded a process will flood the next one: the
		// tests left are reported as not run.
		return false
	}
	if l.probeRestarts != nil {
		// Two chains side by side share one bound.
		if l.probeRestarts.Add(1) > maxRestarts {
			return false
		}
	} else if l.restarts == maxRestarts {
		return false
	} else {
		l.restarts++
	}
	n := l.openProbe(ctx, why)
	if n == nil {
		return false
	}
	l.p, l.wedged = n, false
	return true
}

// openProbe starts a probe process for the session's version, saying
// why, and adds it to the session once it serves: handshake done, and a
// request after it answered (a server that ends on its own right after
// initialize would otherwise seem killed by the first test run in it).
// nil when it does not serve.
func (l *live) openProbe(ctx context.Context, why string) *proc {
	n := l.x.start(evidence.RoleProbe, l.s.Version, why)
	if n.c == nil {
		return nil
	}
	if l.modern {
		if ok, _ := n.discover(ctx, plan.ProbeReinit.Tag(), l.x.cfg.StartTimeout); !ok {
			return nil
		}
	} else if h := n.initialize(ctx, plan.ProbeReinit.Tag(), l.s.Version, nil, l.x.cfg.StartTimeout); h.err != "" {
		return nil
	}
	if !l.serving(ctx, n) {
		return nil
	}
	l.s.AddProbe(n.ev.ID)
	return n
}

func itoa(i int) string {
	b := []byte{}
	if i == 0 {
		return "0"
	}
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// heard reports whether the process wrote anything on stdout.
func heard(p *proc) bool {
	for _, e := range p.c.Transcript().Entries() {
		if e.Dir == transcript.Recv {
			return true
		}
	}
	return false
}

// wedgingFirst orders disposable tests so that those sending a line that
// is not whole JSON come first: a server whose decoder waits for the rest
// of such a line stops answering, and the follow-up requests that wait for
// it in the background then overlap with the rest of the chain.
func wedgingFirst(ts []*vectors.Test) []*vectors.Test {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b *vectors.Test) int {
		switch ta, tb := truncates(a), truncates(b); {
		case ta && !tb:
			return -1
		case tb && !ta:
			return 1
		}
		return 0
	})
	return out
}

// truncates reports whether a test writes a raw line that is not valid
// JSON (its bindings aside: they fill strings).
func truncates(t *vectors.Test) bool {
	for _, st := range t.Steps {
		if st.Raw != nil && !json.Valid([]byte(*st.Raw)) {
			return true
		}
	}
	return false
}
