package execute

import (
	"context"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// aliveDeadline bounds the liveness request after a test that may wedge
// the server: a live server answers at once, and a wedged one should not
// cost a whole request deadline to recognise. Results say when this
// window is what decided.
const aliveDeadline = 3 * time.Second

// probeProcess drives the probe process: the requests before initialize,
// the counter-offer, then the disposable tests of the shared session's
// version.
func (x *executor) probeProcess(ctx context.Context, shared *future[*ready]) {
	p := x.start(evidence.RoleProbe, wire.Newest, "the probe process: requests before initialize, an initialize offering an unknown version, then the tests that may kill or wedge the server")
	if p.c == nil {
		return
	}
	probe := &live{x: x, p: p}
	for _, t := range x.testsOf(checks.KindUninitialized) {
		probe.runTest(ctx, t, p)
		x.progress(t.ID)
	}
	// The counter-offer, declaring the client capabilities a server may
	// want to use (roots, sampling, elicitation).
	h := p.initialize(ctx, evidence.ProbeTag(ProbeCounterOffer), unknownVersion, declaredClientCapabilities, x.cfg.StartTimeout)
	rd := shared.get()
	if rd == nil || rd.s == nil {
		p.ev.Role = evidence.RoleNegotiation
		return
	}
	v := rd.s.s.Version
	p.ev.Version = v
	rd.s.s.Probes = append(rd.s.s.Probes, p.ev.ID)
	if h.err != "" || h.negotiated != v || !p.alive() {
		// The disposable tests need a process that speaks v: a new one,
		// whose initialize offering v also shows whether v is echoed.
		q := x.start(evidence.RoleProbe, v, "a probe process that speaks "+v+" for the tests that may kill or wedge the server")
		if q.c == nil {
			return
		}
		if h := q.initialize(ctx, evidence.ProbeTag("reinit"), v, nil, x.cfg.StartTimeout); h.err != "" {
			return
		}
		rd.s.s.Probes = append(rd.s.s.Probes, q.ev.ID)
		p = q
	}
	probe = &live{x: x, s: rd.s.s, p: p, resources: rd.s.resources}
	probe.disposableWork(ctx, p)
}

// disposableWork runs the disposable tests one after another in p,
// replacing it with a new probe process when it dies or wedges.
func (l *live) disposableWork(ctx context.Context, p *proc) {
	l.p = p
	for _, t := range l.x.testsOf(checks.KindDisposable) {
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

// replaceProbe starts a new probe process for the session's version.
func (l *live) replaceProbe(ctx context.Context) bool {
	if l.restarts == maxRestarts {
		return false
	}
	l.restarts++
	why := "replaces probe process " + itoa(l.p.ev.ID) + ", which exited or stopped answering"
	n := l.x.start(evidence.RoleProbe, l.s.Version, why)
	if n.c == nil {
		return false
	}
	if l.modern {
		if ok, _ := n.discover(ctx, evidence.ProbeTag("reinit"), l.x.cfg.StartTimeout); !ok {
			return false
		}
	} else if h := n.initialize(ctx, evidence.ProbeTag("reinit"), l.s.Version, nil, l.x.cfg.StartTimeout); h.err != "" {
		return false
	}
	l.s.Probes = append(l.s.Probes, n.ev.ID)
	l.p, l.wedged = n, false
	return true
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
