package execute

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// future is a value set once and awaited by others.
type future[T any] struct {
	once sync.Once
	ch   chan struct{}
	v    T
}

func newFuture[T any]() *future[T] { return &future[T]{ch: make(chan struct{})} }

func (f *future[T]) set(v T) {
	f.once.Do(func() {
		f.v = v
		close(f.ch)
	})
}

func (f *future[T]) get() T {
	<-f.ch
	return f.v
}

// ready is a shared session after discovery, for the probe process to run
// its tests with the same bindings; nil when none was established.
type ready struct {
	s *live
}

func (x *executor) execute(ctx context.Context) {
	defer x.closeAll(ctx)
	switch v := x.cfg.SpecVersion; {
	case v == "":
		x.defaultRun(ctx)
	case v == "all":
		x.allVersions(ctx)
	case v == wire.Modern:
		x.run.Versions = []string{wire.Modern}
		x.runModern(ctx)
	default:
		x.oneVersion(ctx, v)
	}
}

// defaultRun judges the newest handshake version the server agrees to: a
// shared process offering the newest version, and a probe process. A
// server that refuses every initialize but serves 2026-07-28 is judged
// there instead.
func (x *executor) defaultRun(ctx context.Context) {
	shared := newFuture[*ready]()
	var wg sync.WaitGroup
	wg.Add(1)
	pctx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	go func() {
		defer wg.Done()
		x.probeProcess(pctx, shared)
	}()
	l := x.openLegacy(ctx, wire.Newest, evidence.RoleShared, true)
	if l == nil {
		// No session to judge: the probe process's tests before
		// initialize would judge nothing either.
		stopProbe()
		shared.set(nil)
		wg.Wait()
		// A server that said nothing at all to initialize is not one
		// that speaks 2026-07-28 instead: JSON-RPC answers every request.
		if x.run.Fatal != nil && x.run.Fatal.Stage == "initialize" && ctx.Err() == nil && !x.mute {
			legacy := x.run.Fatal
			if x.runModern(ctx) {
				x.run.Versions = []string{wire.Modern}
			} else {
				x.run.Fatal = legacy
			}
		}
		return
	}
	x.run.Versions = []string{l.s.Version}
	l.discover(ctx)
	shared.set(&ready{s: l})
	l.sharedWork(ctx)
	l.finalWork(ctx)
	wg.Wait()
}

// oneVersion judges one handshake version the user named.
func (x *executor) oneVersion(ctx context.Context, v string) {
	shared := newFuture[*ready]()
	var wg sync.WaitGroup
	wg.Add(1)
	pctx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	go func() {
		defer wg.Done()
		x.probeProcess(pctx, shared)
	}()
	l := x.openLegacy(ctx, v, evidence.RoleShared, true)
	if l != nil && l.s.Negotiated != v {
		x.dropSession(l.s)
		x.fatal("version", fmt.Sprintf("the server does not support protocol version %s (offered it, the server answered %q)", v, l.s.Negotiated))
		l = nil
	}
	if l == nil {
		stopProbe()
		shared.set(nil)
		wg.Wait()
		return
	}
	x.run.Versions = []string{v}
	l.discover(ctx)
	shared.set(&ready{s: l})
	l.sharedWork(ctx)
	l.finalWork(ctx)
	wg.Wait()
}

// allVersions judges every version the server serves, each in a process
// of its own; the newest handshake version also gets the probe process.
func (x *executor) allVersions(ctx context.Context) {
	shared := newFuture[*ready]()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		x.probeProcess(ctx, shared)
	}()
	modern := make(chan bool, 1)
	go func() { modern <- x.runModernDeferred(ctx) }()
	newest := x.openLegacy(ctx, wire.Newest, evidence.RoleShared, true)
	var sessions []*live
	if newest != nil {
		sessions = append(sessions, newest)
	}
	// The other handshake versions, offered one per process.
	var mu sync.Mutex
	var vwg sync.WaitGroup
	for _, v := range wire.LegacyVersions {
		if newest != nil && v == newest.s.Version {
			continue
		}
		vwg.Add(1)
		go func() {
			defer vwg.Done()
			l := x.openLegacy(ctx, v, evidence.RoleShared, false)
			if l == nil {
				return
			}
			if l.s.Negotiated != v {
				// It counter-offered another version: what it answered is
				// kept, but no session is judged there.
				l.p.ev.Role = evidence.RoleNegotiation
				x.dropSession(l.s)
				return
			}
			mu.Lock()
			sessions = append(sessions, l)
			mu.Unlock()
		}()
	}
	vwg.Wait()
	for _, v := range wire.LegacyVersions {
		for _, l := range sessions {
			if l.s.Version == v {
				x.run.Versions = append(x.run.Versions, v)
			}
		}
	}
	if len(sessions) > 0 {
		x.clearFatal()
	}
	var swg sync.WaitGroup
	sem := make(chan struct{}, x.cfg.Parallel)
	for _, l := range sessions {
		swg.Add(1)
		go func() {
			defer swg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			l.discover(ctx)
			if l == newest {
				shared.set(&ready{s: l})
			}
			var beside func()
			if l != newest && x.cfg.Parallel > 1 {
				// No probe process for this version: its disposable tests
				// run in one of their own, beside the shared work.
				beside = l.disposablesBeside(ctx)
			}
			l.sharedWork(ctx)
			switch {
			case beside != nil:
				beside()
			case l != newest:
				// One process at a time: after everything else.
				l.disposablesApart(ctx)
			}
			l.finalWork(ctx)
		}()
	}
	if newest == nil {
		shared.set(nil)
	}
	swg.Wait()
	if <-modern {
		x.run.Versions = append(x.run.Versions, wire.Modern)
		x.clearFatal()
	}
	if len(x.run.Versions) == 0 && x.run.Fatal == nil {
		x.fatal("initialize", "the server echoed none of the offered protocol versions")
	}
	wg.Wait()
}

func (x *executor) fatal(stage, msg string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.run.Fatal == nil {
		x.run.Fatal = &evidence.Fatal{Stage: stage, Message: msg}
	}
}

func (x *executor) dropSession(s *evidence.Session) {
	x.run.RemoveSession(s)
}
