package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// maxRestarts bounds how often one session's process is replaced: a server
// that dies on every request would otherwise be restarted once per test.
const maxRestarts = 10

// live is a session being driven: its evidence and its current process.
type live struct {
	x        *executor
	s        *evidence.Session
	p        *proc
	modern   bool
	restarts int
	// probeRestarts, when set, bounds the replacements of probe processes
	// across the chains that share it.
	probeRestarts *atomic.Int32
	stopped       string // why no more replacements are started
	// resources is the resource list foreach tests use: discovery's, or a
	// later one after the server announced a change.
	resources []json.RawMessage
	lastList  int // transcript length when resources was last listed
	// wedged is set when the process stopped answering its liveness
	// requests: a disposable test then gets a new process.
	wedged bool
	// chain is set while the disposable tests run: a follow-up request
	// that is slow to be answered leaves the chain for a fresh process,
	// and goes on waiting in the background (bg).
	chain bool
	bg    sync.WaitGroup
	// tools are the calls of read-only tools running alongside the shared
	// tests; laterTools, the calls of other tools, made after them.
	tools      sync.WaitGroup
	laterTools []func()
}

// openLegacy starts a process and initializes it offering version offer.
// unknownCaps declares client capabilities the server cannot know
// (LIFE-13); if that initialize is refused, a second process tries without
// them, so the refusal can be told apart.
func (x *executor) openLegacy(ctx context.Context, offer string, role evidence.Role, unknownCaps bool) *live {
	caps := map[string]any{}
	why := "the shared " + offer + " session: initialize, discovery, probes and shared tests"
	if unknownCaps {
		caps = unknownClientCapabilities
		why += " (its initialize declares client capabilities the server cannot know)"
	}
	p := x.start(role, offer, why)
	if p.c == nil {
		x.fatal("start", "the server could not be started: "+p.ev.StartError)
		return nil
	}
	h := p.initialize(ctx, evidence.TagInit, offer, caps, x.cfg.StartTimeout)
	if h.err != "" && unknownCaps && ctx.Err() == nil && h.x != nil && h.x.Response != nil {
		// Refused (not silent): was it the unknown capabilities?
		p.ev.Role = evidence.RoleNegotiation
		q := x.start(role, offer, "initialize again without unknown client capabilities, since the first initialize was refused")
		if q.c != nil {
			if h2 := q.initialize(ctx, evidence.TagInit, offer, nil, x.cfg.StartTimeout); h2.err == "" {
				p, h = q, h2
			}
		}
	}
	if h.err != "" {
		p.ev.Role = evidence.RoleNegotiation
		x.unopenedProbes(ctx, p)
		echoes := p.ev.Echoes()
		if !wroteStdout(p.ev) || echoes {
			x.mu.Lock()
			x.mute = true
			x.mu.Unlock()
			// Nothing more is started, and a server that never spoke has
			// no orderly shutdown to show: the processes still open (the
			// negotiation and probe processes, waiting on the same
			// silence) are ended at once, together, not each after its
			// graces: --start-timeout bounds the run.
			x.hurryAll()
		}
		if echoes {
			// Not a server: nothing more is started to be judged.
			x.fatal("initialize", "the server echoed our own request back on stdout instead of answering it (is it cat?)")
		}
		if ctx.Err() == nil {
			x.fatal("initialize", "the server never completed initialize: "+h.err)
		} else {
			x.fatal("initialize", "the run was stopped before initialize completed")
		}
		return nil
	}
	if !wire.IsLegacy(h.negotiated) {
		x.fatal("initialize", fmt.Sprintf("the server answered initialize with protocol version %q, which mcpconform cannot judge", h.negotiated))
		return nil
	}
	p.ev.Version = h.negotiated
	s := &evidence.Session{Version: h.negotiated, Processes: []int{p.ev.ID}, Requested: offer, Negotiated: h.negotiated}
	x.run.AddSession(s)
	return &live{x: x, s: s, p: p}
}

// wroteStdout reports whether a process wrote anything on stdout.
func wroteStdout(p *evidence.Process) bool {
	for _, e := range p.Entries() {
		if e.Dir == transcript.Recv {
			return true
		}
	}
	return false
}

// call sends a request of the session in its current process (see do).
func (l *live) call(ctx context.Context, tag, method string, params any) *mockclient.Exchange {
	return l.do(ctx, l.p, mockclient.Request{Tag: tag, Method: method, Params: params})
}

// do sends a request of the session in p: in a 2026-07-28 session params
// get the per-request envelope, and a request answered input_required is
// retried with its requestState (retryInput). It returns what the request
// came to.
func (l *live) do(ctx context.Context, p *proc, r mockclient.Request) *mockclient.Exchange {
	if p.c == nil {
		return &mockclient.Exchange{Tag: r.Tag, Method: r.Method, Err: mockclient.ErrExited}
	}
	if l.modern {
		wrapped, err := envelope.Wrap(r.Params)
		if err != nil {
			return &mockclient.Exchange{Tag: r.Tag, Method: r.Method, Err: err}
		}
		r.Params = wrapped
	}
	return l.retryInput(ctx, p, r, p.c.Do(ctx, r))
}

// retryInput sends r again, with a new id and the requestState its answer
// x handed out, while that answer is an InputRequiredResult asking for no
// input: "If the InputRequiredResult does not contain the inputRequests
// field, the client MAY retry the original request immediately", echoing
// "the exact value" of requestState, and with a different id. The suite
// declares no client capability, so a result asking for input gets no
// retry. After evidence.MaxInputRetries retries it stops: a server may ask
// again on every attempt, and the bound is the harness's. The retries keep
// r's tag, so the evidence finds them with the request (RetryChains). It
// returns the last exchange.
func (l *live) retryInput(ctx context.Context, p *proc, r mockclient.Request, x *mockclient.Exchange) *mockclient.Exchange {
	if !l.modern || r.Line != nil {
		return x
	}
	params, err := rawParams(r.Params)
	if err != nil {
		return x
	}
	for n := 0; ; n++ {
		state, ok := evidence.RetryState(wire.Modern, r.Method, params, x.Response)
		if !ok || ctx.Err() != nil || !p.alive() {
			return x
		}
		if n == evidence.MaxInputRetries {
			p.c.Budget(transcript.Budget{What: "retries of " + r.Method, Limit: fmt.Sprintf("%d retries with the requestState handed out, each answered input_required again", n)})
			return x
		}
		retry, err := withMember(params, "requestState", state)
		if err != nil {
			return x
		}
		r.ID, r.Params = nil, retry
		x = p.c.Do(ctx, r)
	}
}

// rawParams encodes request params as JSON (nil stays nil).
func rawParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	return json.Marshal(params)
}

// withMember returns the params object with member key set to v.
func withMember(params json.RawMessage, key string, v any) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m[key] = b
	return json.Marshal(m)
}

// list follows a paginated list to its end, a repeated cursor, an error,
// or the harness's page limit (recorded as such).
func (l *live) list(ctx context.Context, tag, method string) []json.RawMessage {
	member := evidence.ListMember(method)
	seen := map[string]bool{}
	var items []json.RawMessage
	var cursor *string
	for page := 0; ; page++ {
		if page == evidence.MaxPages {
			l.p.c.Budget(transcript.Budget{What: "pages of " + method, Limit: fmt.Sprintf("%d pages followed; the list went on", evidence.MaxPages)})
			return items
		}
		var params any
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		x := l.call(ctx, tag, method, params)
		failure := ""
		if x.Err != nil {
			failure = x.Err.Error()
		}
		if x.OK() && !x.Response.Has("error") {
			if got, ok := wire.Array(wire.Object(x.Response.Result)[member]); ok {
				items = append(items, got...)
			}
		}
		c, more, _, _ := evidence.NextPage(x.Response, failure, member, seen)
		if !more {
			return items
		}
		seen[c] = true
		cursor = &c
	}
}

// discover lists resources and templates and reads every listed resource
// and every template expanded with sample values. What it found is held
// in the session's view for the rest of the run (evidence.Session.Hold).
func (l *live) discover(ctx context.Context) {
	defer l.x.hold(l.s)
	l.resources = l.list(ctx, evidence.ListTag("resources/list"), "resources/list")
	l.list(ctx, evidence.ListTag("resources/templates/list"), "resources/templates/list")
	caps := l.s.Caps()
	var tools []json.RawMessage
	if caps.Has("tools") {
		tools = l.list(ctx, evidence.ListTag("tools/list"), "tools/list")
	}
	if l.x.unlisted(l.s, caps.Has("tools"), tools) {
		return
	}
	var prompts []json.RawMessage
	if caps.Has("prompts") {
		prompts = l.list(ctx, evidence.ListTag("prompts/list"), "prompts/list")
	}
	l.lastList = l.p.c.Transcript().Len()
	l.getPrompts(ctx, prompts)
	for i, r := range l.resources {
		if i == evidence.MaxReads {
			l.p.c.Budget(transcript.Budget{What: "reads of listed resources", Limit: fmt.Sprintf("the first %d were read", evidence.MaxReads)})
			break
		}
		u, ok := wire.String(wire.Member(r, "uri"))
		if !ok || u == "" {
			continue
		}
		x := l.call(ctx, evidence.TagRead, "resources/read", map[string]any{"uri": u})
		if !l.p.alive() || ctx.Err() != nil || x.Err != nil && !isTimeout(x.Err) {
			break // the server is gone
		}
	}
	for i, t := range l.s.Templates().Items {
		if i == evidence.MaxReads || !l.p.alive() || ctx.Err() != nil {
			break
		}
		tpl, ok := wire.String(wire.Member(t, "uriTemplate"))
		if !ok {
			continue
		}
		u, _, err := evidence.ExpandSample(tpl)
		if err != nil {
			continue
		}
		l.call(ctx, evidence.TagTemplateRead, "resources/read", map[string]any{"uri": u})
	}
	if l.p.alive() && ctx.Err() == nil {
		l.completeArguments(ctx, prompts)
	}
}

// getPrompts gets every listed prompt (up to MaxReads), its required
// arguments filled with a placeholder: prompts/get only renders messages,
// so it is safe to call.
func (l *live) getPrompts(ctx context.Context, prompts []json.RawMessage) {
	probed := false
	for i, it := range prompts {
		if i == evidence.MaxReads {
			l.p.c.Budget(transcript.Budget{What: "gets of listed prompts", Limit: fmt.Sprintf("the first %d were got", evidence.MaxReads)})
			return
		}
		if !l.p.alive() || ctx.Err() != nil {
			return
		}
		m := wire.Object(it)
		name, ok := wire.String(m["name"])
		if !ok {
			continue
		}
		params := map[string]any{"name": name}
		args := map[string]string{}
		list, _ := wire.Array(m["arguments"])
		for _, a := range list {
			am := wire.Object(a)
			an, ok := wire.String(am["name"])
			if ok && string(am["required"]) == "true" {
				args[an] = "example"
			}
		}
		if len(args) > 0 {
			params["arguments"] = args
			if !probed && l.x.needs(plan.ProbePromptMissingArgument) {
				// The first prompt with a required argument, got without it.
				probed = true
				l.call(ctx, plan.ProbePromptMissingArgument.Tag(), "prompts/get", map[string]any{"name": name})
			}
		}
		l.call(ctx, evidence.TagPromptGet, "prompts/get", params)
	}
}

func isTimeout(err error) bool {
	return errors.Is(err, mockclient.ErrTimeout) || errors.Is(err, mockclient.ErrHung)
}

// sharedWork runs the session probes and the shared vector tests.
func (l *live) sharedWork(ctx context.Context) {
	defer l.originProbe(ctx)()
	l.startToolCalls(ctx)
	if l.modern {
		l.modernProbes(ctx)
	} else {
		l.legacyProbes(ctx)
	}
	l.httpProbes(ctx)
	for _, t := range l.x.testsOf(plan.KindShared) {
		if ctx.Err() != nil {
			break
		}
		l.ensure(ctx)
		l.runTest(ctx, t, l.p)
		l.x.progress(t.ID)
	}
	if l.modern {
		l.listAfter(ctx)
	} else {
		// Last: the level it sets stays for the rest of the process.
		l.setLevelProbe(ctx)
	}
	l.waitToolCalls(ctx)
	if l.modern {
		// After every other request of the process, so that a log message
		// can only be for the probe's request.
		l.logLevelProbe(ctx)
	}
	l.settleReplies(l.p, 50*time.Millisecond)
}

// toolCallDeadline bounds each call of a listed tool: a tool may run as
// long as it likes (the spec sets no limit), so one that has not answered
// by then is not judged, and the run does not wait on it. It is shorter
// than the request deadline, so every-request-answered only records the
// silence.
const toolCallDeadline = 2 * time.Second

// startToolCalls calls the listed tools the user's policy allows (by
// default those annotated readOnlyHint: true), each with arguments built
// from its inputSchema and then with those arguments broken. The calls
// run alongside the shared tests: a read-only tool does not change what
// the server holds. Tools the policy allows that are not read-only are
// called after the shared tests, one after another (waitToolCalls). A
// tool whose schema the suite cannot fill in safely is not called.
func (l *live) startToolCalls(ctx context.Context) {
	if !l.s.Caps().Has("tools") || !l.x.needs(plan.ProbeToolCall) {
		return
	}
	calls := 0
	items := l.s.Tools().Items
	for i, it := range items {
		name, args, why := plan.ToolCallAmong(items, i, l.x.cfg.CallTools)
		if why != "" {
			continue
		}
		if calls == evidence.MaxReads {
			l.p.c.Budget(transcript.Budget{What: "calls of listed tools", Limit: fmt.Sprintf("the first %d were called", evidence.MaxReads)})
			return
		}
		calls++
		if !plan.ReadOnly(it) {
			l.laterTools = append(l.laterTools, func() { l.callTool(ctx, l.p, it, name, args) })
			continue
		}
		p := l.p // a replacement of the process later is not this call's
		l.tools.Add(1)
		go func() {
			defer l.tools.Done()
			l.callTool(ctx, p, it, name, args)
		}()
	}
}

// waitToolCalls waits for the calls startToolCalls began, then makes the
// calls of tools that are not read-only.
func (l *live) waitToolCalls(ctx context.Context) {
	l.tools.Wait()
	for _, call := range l.laterTools {
		if ctx.Err() != nil || !l.p.alive() {
			return
		}
		call()
	}
	l.laterTools = nil
}

// callTool calls a tool with args, then, when its inputSchema has a rule
// to break, with args broken. The first call carries a progress token of
// its own (params._meta.progressToken), so that the progress
// notifications a server may send for it are judged; the broken call
// carries none.
func (l *live) callTool(ctx context.Context, p *proc, tool json.RawMessage, name string, args map[string]any) {
	do := func(tag string, args map[string]any, token string) {
		params := map[string]any{"name": name, "arguments": args}
		if token != "" {
			params["_meta"] = map[string]any{"progressToken": token}
		}
		l.do(ctx, p, mockclient.Request{Tag: tag, Method: "tools/call", Params: params, Timeout: min(toolCallDeadline, p.c.Timeout()*8/10)})
	}
	do(evidence.TagToolCall, args, l.x.progressToken())
	if broken, _, ok := plan.BrokenArguments(wire.Object(tool)["inputSchema"], args); ok && p.alive() && ctx.Err() == nil {
		do(evidence.TagToolCallInvalid, broken, "")
	}
}

// finalWork runs the tests that must come last in the version's process.
func (l *live) finalWork(ctx context.Context) {
	for _, t := range l.x.testsOf(plan.KindFinal) {
		if ctx.Err() != nil {
			break
		}
		l.ensure(ctx)
		l.runTest(ctx, t, l.p)
		l.x.progress(t.ID)
	}
}

// ensure replaces the session's process when it exited on its own: the
// test that was running got its verdict, and the next tests run in a
// replacement process, started and initialized like the original and
// judged with the original's discovery.
func (l *live) ensure(ctx context.Context) {
	if l.p.alive() || ctx.Err() != nil || l.stopped != "" || l.p.c == nil {
		return
	}
	c := l.p.c
	if l.restarts == maxRestarts {
		l.stopped = fmt.Sprintf("the server exited %d times; no more restarts", maxRestarts+1)
		c.Note(l.stopped)
		return
	}
	l.restarts++
	n := l.x.start(evidence.RoleReplacement, l.s.Version, fmt.Sprintf("replaces the %s session's process %d, which exited (restart %d of at most %d)", l.s.Version, l.p.ev.ID, l.restarts, maxRestarts))
	if n.c == nil {
		l.stopped = "restarting the server: " + n.ev.StartError
		return
	}
	if l.modern {
		if ok, why := n.discover(ctx, plan.ProbeReinit.Tag(), l.x.cfg.StartTimeout); !ok {
			l.stopped = "the replacement process did not answer server/discover: " + why
			n.c.Note(l.stopped)
			return
		}
	} else if h := n.initialize(ctx, plan.ProbeReinit.Tag(), l.s.Version, nil, l.x.cfg.StartTimeout); h.err != "" {
		l.stopped = "the replacement process never completed initialize: " + h.err
		n.c.Note(l.stopped)
		return
	}
	l.s.AddProcess(n.ev.ID)
	l.p = n
}

// settleReplies gives late replies to the lines a process got that were
// no valid requests (a notification, a malformed line) the chance to
// arrive before the process is shut down: it waits until every such line
// sent inside a probe has a reply, or until window has passed since the
// latest line still without one was written. A line whose own window
// passed while the tests went on costs nothing more.
func (l *live) settleReplies(p *proc, window time.Duration) {
	if p == nil || p.c == nil || !p.alive() {
		return
	}
	for {
		at, waiting := waitingReplies(p.ev)
		left := at + window - p.c.Transcript().Elapsed()
		if !waiting || left <= 0 {
			return
		}
		from := p.c.Transcript().Len()
		if p.c.WaitInbound(from, left, func(m *wire.Message) bool { return m.Kind() == wire.KindResponse }) == nil {
			return
		}
	}
}

// waitingReplies reports whether a provoking line of the process has no
// reply yet, and when the latest such line was written.
func waitingReplies(p *evidence.Process) (time.Duration, bool) {
	var at time.Duration
	waiting := false
	for _, e := range p.Entries() {
		if e.Dir != transcript.Send || e.Tag == "" || len(p.SentAt(e.Seq)) > 0 {
			continue
		}
		if p.InProvocation(e.Seq) && p.ReplyTo(e.Seq) == nil {
			at, waiting = e.At, true
		}
	}
	return at, waiting
}

// settle waits, after a probe, for a message matching pred that arrived
// after transcript position from. A server that answers a follow-up
// request has handled what came before it, so the wait ends shortly after
// that answer instead of lasting the whole window.
func (l *live) settle(ctx context.Context, from int, window time.Duration, pred func(*wire.Message) bool) {
	deadline := time.Now().Add(window)
	method := "ping"
	if l.modern {
		method = "server/discover"
	}
	if x := l.call(ctx, plan.ProbeSettle.Tag(), method, nil); x.OK() {
		l.p.c.WaitInbound(from, max(min(25*time.Millisecond, time.Until(deadline)), 0), pred)
		return
	}
	l.p.c.WaitInbound(from, max(time.Until(deadline), 0), pred)
}
