package execute

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// The probes of the Streamable HTTP transport (plan.ProbeHTTP*), sent only
// to a server reached over HTTP. Each request of a probe is bounded by
// probeDeadline, and a stream a probe opens by probeWindow: a server that
// says nothing costs the harness that much, and what it did not say is
// never judged as broken (the checks judge only the responses that came).

// probeWindow bounds how long a probe reads a stream it opened (a
// resumed stream, a GET of a 2026-07-28 server, the deprecated
// transport's stream) once its header came: what a server replays or
// sends first comes at once.
const probeWindow = 500 * time.Millisecond

// probeDeadline bounds a request a probe sends: a live server answers at
// once, and one that does not is not judged.
func probeDeadline(c *mockclient.Client) time.Duration { return min(c.Timeout(), aliveDeadline) }

// overHTTP reports whether the process speaks Streamable HTTP.
func overHTTP(p *proc) bool { return p != nil && p.c != nil && p.c.HTTP() != nil }

// provoke runs f between the marks of a probe that breaks a client's own
// rule on purpose: what it provokes is the probe's alone to judge.
func provoke(c *mockclient.Client, probe plan.Probe, f func()) {
	c.Mark(transcript.Mark{Kind: transcript.Begin, Probe: string(probe), Provoking: true})
	defer c.Mark(transcript.Mark{Kind: transcript.End, Probe: string(probe), Provoking: true})
	f()
}

// edited sends r in the session with the header of its POST changed as e
// says.
func (l *live) edited(ctx context.Context, p *proc, r mockclient.Request, e transport.HTTPEdit) *mockclient.Exchange {
	r.ID = p.c.NewID()
	if r.Timeout == 0 {
		r.Timeout = probeDeadline(p.c)
	}
	p.c.HTTP().Edit(r.ID, e)
	return l.do(ctx, p, r)
}

// pingMethod is the request a probe sends when any will do: ping, and in
// 2026-07-28 server/discover.
func (l *live) pingMethod() string {
	if l.modern {
		return "server/discover"
	}
	return "ping"
}

// httpProbes run in a session over HTTP after discovery, each when a
// selected check needs it.
func (l *live) httpProbes(ctx context.Context) {
	if !overHTTP(l.p) || ctx.Err() != nil {
		return
	}
	c := l.p.c
	if l.x.needs(plan.ProbeHTTPNotify) {
		l.notifyProbe(ctx)
	}
	if l.x.needs(plan.ProbeHTTPAccept) {
		provoke(c, plan.ProbeHTTPAccept, func() {
			l.edited(ctx, l.p, mockclient.Request{Tag: plan.ProbeHTTPAccept.Tag(), Method: l.pingMethod()}, transport.HTTPEdit{Set: transcript.Header{{Name: "Accept", Value: "application/json"}}})
		})
	}
	if l.x.needs(plan.ProbeHTTPBadVersion) && (l.modern || wire.AtLeast(l.s.Version, wire.V20250618)) {
		provoke(c, plan.ProbeHTTPBadVersion, func() {
			r := mockclient.Request{Tag: plan.ProbeHTTPBadVersion.Tag(), Method: l.pingMethod()}
			if l.modern {
				// The body names the same version, so that only the version
				// is wrong, not its agreement with the header.
				r.Params = map[string]any{"_meta": map[string]any{wire.MetaProtocolVersion: plan.VersionUnknown}}
			}
			l.edited(ctx, l.p, r, transport.HTTPEdit{Set: transcript.Header{{Name: "MCP-Protocol-Version", Value: plan.VersionUnknown}}})
		})
	}
	if l.modern {
		l.modernHTTPProbes(ctx)
		return
	}
	if l.x.needs(plan.ProbeHTTPNoSession) && c.HTTP().Session() != "" {
		provoke(c, plan.ProbeHTTPNoSession, func() {
			l.edited(ctx, l.p, mockclient.Request{Tag: plan.ProbeHTTPNoSession.Tag(), Method: "ping"}, transport.HTTPEdit{Drop: []string{"Mcp-Session-Id"}})
		})
	}
	if l.x.needs(plan.ProbeHTTPResume) {
		l.resumeProbe(ctx)
	}
}

// notifyProbe POSTs what the server cannot answer: an unknown
// notification, a response to an id it never sent (handshake era), and a
// notification whose params is a string (provoking).
func (l *live) notifyProbe(ctx context.Context) {
	c := l.p.c
	tag := func(step string) string { return plan.ProbeHTTPNotify.Tag(step) }
	var params any
	if l.modern {
		params, _ = envelope.Wrap(nil)
	}
	_ = c.NotifyTagged(tag("notification"), "notifications/mcpconform/probe", params)
	if !l.modern {
		_, _ = c.Write(tag("response"), []byte(`{"jsonrpc":"2.0","id":"mcpconform-never-asked","result":{}}`))
	}
	// Each write of a notice waits for its status, so what the server
	// answered is on record before the next probe.
	provoke(c, plan.ProbeHTTPNotify, func() {
		_, _ = c.Write(tag("invalid"), []byte(`{"jsonrpc":"2.0","method":"notifications/mcpconform/probe","params":"not an object"}`))
	})
}

// loopback reports whether the run's target listens on a loopback
// address (not a Unix socket, which no web page reaches).
func (x *executor) loopback() bool {
	u, err := url.Parse(x.run.URL)
	if err != nil || u.Scheme == "unix" {
		return false
	}
	if x.cfg.HTTP != nil && strings.HasPrefix(x.cfg.HTTP.URL, "unix:") {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// originProbe opens, beside the session's other work, a session of its
// own with a foreign Origin on the request that opens it; it returns
// what waits for it.
func (l *live) originProbe(ctx context.Context) (wait func()) {
	if l.x.dial == nil || !l.x.needs(plan.ProbeHTTPOrigin) || !l.x.loopback() {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.foreignOrigin(ctx)
	}()
	return func() { <-done }
}

// foreignOrigin sends the request that opens a session with a foreign
// Origin, in a session of its own.
func (l *live) foreignOrigin(ctx context.Context) {
	q := l.x.start(evidence.RoleNegotiation, l.s.Version, "a session opened with Origin: "+plan.OriginForeign+", which a server on a loopback address must refuse")
	if !overHTTP(q) {
		q.finish()
		return
	}
	defer q.finish()
	r := mockclient.Request{Tag: plan.ProbeHTTPOrigin.Tag(), Method: "initialize", Params: initializeParams(l.s.Version, nil)}
	if l.modern {
		r.Method, r.Params = "server/discover", nil
	}
	l.s.AddProbe(q.ev.ID)
	ql := &live{x: l.x, s: l.s, p: q, modern: l.modern}
	provoke(q.c, plan.ProbeHTTPOrigin, func() {
		ql.edited(ctx, q, r, transport.HTTPEdit{Set: transcript.Header{{Name: "Origin", Value: plan.OriginForeign}}})
	})
}

// resumeProbe GETs the endpoint with Last-Event-ID set to the first event
// id of a POST's stream of the session, and reads what comes.
func (l *live) resumeProbe(ctx context.Context) {
	last := ""
	for _, x := range l.p.ev.HTTPExchanges() {
		if x.Method() != http.MethodPost || !x.SSE() || x.SessionID() == "" {
			continue // the stream of the POST that opened the session is of none
		}
		for _, ev := range x.Events {
			if ev.ID != nil && *ev.ID != "" {
				last = *ev.ID
				break
			}
		}
		if last != "" {
			break
		}
	}
	if last == "" || ctx.Err() != nil {
		return
	}
	// The resumed stream is read while the session's other work goes on:
	// nothing it provokes is judged apart, and the session's end waits
	// for its record.
	_, _ = l.p.c.HTTP().Probe(transport.HTTPProbe{
		Tag: plan.ProbeHTTPResume.Tag(), Method: http.MethodGet, Window: probeWindow,
		Edit: transport.HTTPEdit{Set: transcript.Header{{Name: "Last-Event-ID", Value: last}}},
	}, 0)
}

// wait waits for done, at most d.
func wait(ctx context.Context, done <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// modernHTTPProbes are the probes of a 2026-07-28 session: headers that
// disagree with the body, header names in lower case, an encoded
// Mcp-Name, and GET and DELETE of the endpoint.
func (l *live) modernHTTPProbes(ctx context.Context) {
	c := l.p.c
	named := l.namedRequest()
	if l.x.needs(plan.ProbeHTTPHeaderMismatch) {
		tag := func(step string) string { return plan.ProbeHTTPHeaderMismatch.Tag(step) }
		provoke(c, plan.ProbeHTTPHeaderMismatch, func() {
			l.edited(ctx, l.p, mockclient.Request{Tag: tag("method"), Method: "server/discover"}, transport.HTTPEdit{Set: transcript.Header{{Name: "Mcp-Method", Value: "tools/list"}}})
			if named != nil {
				l.edited(ctx, l.p, mockclient.Request{Tag: tag("name"), Method: named.method, Params: named.params}, transport.HTTPEdit{Set: transcript.Header{{Name: "Mcp-Name", Value: "mcpconform-not-" + named.name}}})
			}
			l.edited(ctx, l.p, mockclient.Request{Tag: tag("version"), Method: "server/discover"}, transport.HTTPEdit{Set: transcript.Header{{Name: "MCP-Protocol-Version", Value: wire.V20251125}}})
			l.edited(ctx, l.p, mockclient.Request{Tag: tag("missing"), Method: "server/discover"}, transport.HTTPEdit{Drop: []string{"Mcp-Method"}})
		})
	}
	if l.x.needs(plan.ProbeHTTPHeaderCase) {
		l.edited(ctx, l.p, mockclient.Request{Tag: plan.ProbeHTTPHeaderCase.Tag(), Method: "server/discover"}, transport.HTTPEdit{LowerCase: true})
	}
	if l.x.needs(plan.ProbeHTTPEncodedName) && named != nil {
		enc := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(named.name)) + "?="
		l.edited(ctx, l.p, mockclient.Request{Tag: plan.ProbeHTTPEncodedName.Tag(), Method: named.method, Params: named.params}, transport.HTTPEdit{Set: transcript.Header{{Name: "Mcp-Name", Value: enc}}})
	}
	if l.x.needs(plan.ProbeHTTPModernGetDelete) {
		// 2026-07-28 defines no GET or DELETE: what a server that serves
		// the handshake era as well answers them is that era's business.
		provoke(c, plan.ProbeHTTPModernGetDelete, func() {
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				if ctx.Err() != nil {
					return
				}
				h, err := c.HTTP().Probe(transport.HTTPProbe{
					Tag: plan.ProbeHTTPModernGetDelete.Tag(strings.ToLower(m)), Method: m, Window: probeWindow,
					Edit: transport.HTTPEdit{Set: transcript.Header{{Name: "MCP-Protocol-Version", Value: wire.Modern}}},
				}, probeDeadline(c))
				if err == nil {
					wait(ctx, h.Done(), probeWindow+time.Second)
				}
			}
		})
	}
}

// named is a request that acts on a named item, whose name Mcp-Name
// mirrors.
type named struct {
	method, name string
	params       map[string]any
}

// namedRequest returns a resources/read of a listed resource, else a
// prompts/get of a listed prompt without required arguments, else nil.
func (l *live) namedRequest() *named {
	for _, rd := range l.s.Reads() {
		if rd.URI != "" {
			return &named{method: "resources/read", name: rd.URI, params: map[string]any{"uri": rd.URI}}
		}
	}
	for _, it := range l.s.Prompts().Items {
		m := wire.Object(it)
		name, ok := wire.String(m["name"])
		if !ok || name == "" {
			continue
		}
		args, _ := wire.Array(m["arguments"])
		required := false
		for _, a := range args {
			required = required || string(wire.Object(a)["required"]) == "true"
		}
		if !required {
			return &named{method: "prompts/get", name: name, params: map[string]any{"name": name}}
		}
	}
	return nil
}

// deleteProbe starts, beside the rest of the run, a handshake-era probe
// process of l's session's version that it ends with DELETE, then POSTs a
// ping with the ended session's id; it returns what waits for it.
func (l *live) deleteProbe(ctx context.Context) (wait func()) {
	if l.modern || l.x.dial == nil || !l.x.needs(plan.ProbeHTTPDelete) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if p := l.openProbe(ctx, "a probe process whose session is ended with DELETE, then used again"); p != nil {
			l.endSession(ctx, p)
		}
	}()
	return func() { <-done }
}

// endSession ends p's session with DELETE, then POSTs a ping with the
// ended session's id.
func (l *live) endSession(ctx context.Context, p *proc) {
	if !overHTTP(p) || !p.alive() || ctx.Err() != nil || p.c.HTTP().Session() == "" {
		return
	}
	c := p.c
	h, err := c.HTTP().Probe(transport.HTTPProbe{Tag: plan.ProbeHTTPDelete.Tag("delete"), Method: http.MethodDelete, Window: probeDeadline(c)}, probeDeadline(c))
	if err != nil {
		return
	}
	wait(ctx, h.Done(), probeDeadline(c))
	// The ended session's id used again: what a client must not do once
	// it sees the 404, so what comes back is the probe's alone to judge.
	provoke(c, plan.ProbeHTTPDelete, func() {
		c.Do(ctx, mockclient.Request{Tag: plan.ProbeHTTPDelete.Tag("after"), Method: "ping", Timeout: probeDeadline(c)})
	})
}

// unopenedProbes look, once the request that opens a session over HTTP
// was refused, for what the refusal points to: the protected-resource
// metadata of a server that answered 401, or the deprecated HTTP+SSE
// transport of one that refused the POST with 400, 404 or 405.
func (x *executor) unopenedProbes(ctx context.Context, p *proc) {
	if !overHTTP(p) || ctx.Err() != nil || !x.unopened.CompareAndSwap(false, true) {
		return
	}
	status, challenge := 0, ""
	for _, ex := range p.ev.HTTPExchanges() {
		if ex.Method() == http.MethodPost && ex.Response != nil {
			status = ex.Status()
			if v := ex.Response.Header.Values("WWW-Authenticate"); len(v) > 0 {
				challenge = strings.Join(v, ", ")
			}
			break
		}
	}
	c := p.c
	get := func(tag, path string) {
		h, err := c.HTTP().Probe(transport.HTTPProbe{Tag: tag, Method: http.MethodGet, Path: path, NoSession: true, Window: probeWindow,
			Edit: transport.HTTPEdit{Set: transcript.Header{{Name: "Accept", Value: "application/json"}}}}, probeDeadline(c))
		if err == nil {
			wait(ctx, h.Done(), probeWindow+time.Second)
		}
	}
	switch {
	case status == http.StatusUnauthorized && x.needs(plan.ProbeHTTPProtectedResource):
		if u := metadataURL(challenge); u != "" {
			get(plan.ProbeHTTPProtectedResource.Tag("named"), u)
			return
		}
		endpoint, err := url.Parse(x.run.URL)
		if err != nil {
			return
		}
		path := strings.TrimSuffix(endpoint.Path, "/")
		get(plan.ProbeHTTPProtectedResource.Tag("path"), "/.well-known/oauth-protected-resource"+path)
		get(plan.ProbeHTTPProtectedResource.Tag("root"), "/.well-known/oauth-protected-resource")
	case (status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed) && x.needs(plan.ProbeHTTPLegacySSE):
		h, err := c.HTTP().Probe(transport.HTTPProbe{Tag: plan.ProbeHTTPLegacySSE.Tag(), Method: http.MethodGet, NoSession: true, Window: probeWindow, Events: 1}, probeDeadline(c))
		if err == nil {
			wait(ctx, h.Done(), probeWindow+time.Second)
		}
	}
}

// metadataURL returns the resource_metadata a WWW-Authenticate challenge
// names ("" for none).
func metadataURL(challenge string) string {
	i := strings.Index(strings.ToLower(challenge), "resource_metadata=")
	if i < 0 {
		return ""
	}
	rest := challenge[i+len("resource_metadata="):]
	if strings.HasPrefix(rest, `"`) {
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return rest[1:]
		}
		return rest[1 : end+1]
	}
	if end := strings.IndexAny(rest, ", "); end >= 0 {
		return rest[:end]
	}
	return rest
}
