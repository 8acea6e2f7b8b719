package execute

import (
	"context"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// runModern opens and drives a 2026-07-28 session: server/discover in the
// per-request envelope stands where initialize stood; the session's
// disposable and final tests run after everything else, in its process.
func (x *executor) runModern(ctx context.Context) bool {
	p := x.start(evidence.RoleShared, wire.Modern, "the shared 2026-07-28 session: server/discover, discovery, listen streams and shared tests, then the tests that may kill or wedge the server")
	if p.c == nil {
		x.fatal("start", "the server could not be started: "+p.ev.StartError)
		return false
	}
	ok, why := p.discover(ctx, evidence.TagInit, x.cfg.StartTimeout)
	if !ok {
		p.ev.Role = evidence.RoleNegotiation
		x.unopenedProbes(ctx, p)
		stage := "initialize"
		for _, d := range p.ev.Tagged(evidence.TagInit) {
			if d.OK() {
				// It answered: it runs, and does not serve the era (the
				// checks judge what that means), rather than not starting.
				stage = "version"
			}
		}
		x.fatal(stage, "the server does not serve "+wire.Modern+": "+why)
		return false
	}
	s := &evidence.Session{Version: wire.Modern, Processes: []int{p.ev.ID}, Requested: wire.Modern, Negotiated: wire.Modern, Modern: true}
	x.run.AddSession(s)
	x.clearFatal()
	l := &live{x: x, s: s, p: p, modern: true}
	l.discover(ctx)
	l.sharedWork(ctx)
	l.disposablesApart(ctx)
	l.finalWork(ctx)
	return true
}

// runModernDeferred is runModern for a run that judges every version: a
// server without 2026-07-28 is not a fatal error there.
func (x *executor) runModernDeferred(ctx context.Context) bool {
	p := x.start(evidence.RoleNegotiation, wire.Modern, "server/discover, to learn whether the server serves "+wire.Modern)
	if p.c == nil {
		return false
	}
	if ok, _ := p.discover(ctx, evidence.TagInit, x.cfg.StartTimeout); !ok {
		return false
	}
	p.ev.Role = evidence.RoleShared
	s := &evidence.Session{Version: wire.Modern, Processes: []int{p.ev.ID}, Requested: wire.Modern, Negotiated: wire.Modern, Modern: true}
	x.run.AddSession(s)
	l := &live{x: x, s: s, p: p, modern: true}
	l.discover(ctx)
	l.sharedWork(ctx)
	l.disposablesApart(ctx)
	l.finalWork(ctx)
	return true
}

func (x *executor) clearFatal() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.run.Fatal = nil
}
