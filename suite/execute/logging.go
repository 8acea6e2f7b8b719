package execute

import (
	"context"
	"time"

	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// setLevelProbe sets the log level of a handshake-era session that
// declares logging to the most severe one, gives the server requests it
// may log about (ProbeSetLevel), and then asks for a level no version
// defines (ProbeSetLevelUnknown), each when a selected check needs it.
// Only messages between the first answer and the second request are
// judged against the level set.
func (l *live) setLevelProbe(ctx context.Context) {
	if !l.s.Caps().Has("logging") || !l.p.alive() || ctx.Err() != nil {
		return
	}
	if l.x.needs(plan.ProbeSetLevel) {
		l.setLevel(ctx)
	}
	if l.x.needs(plan.ProbeSetLevelUnknown) && l.p.alive() && ctx.Err() == nil {
		l.call(ctx, plan.ProbeSetLevelUnknown.Tag(), "logging/setLevel", map[string]any{"level": plan.LevelUnknown})
	}
}

// setLevel sets the level to plan.LevelSet and, once it is set, sends the
// requests the server may log about and gives their logs time to come.
func (l *live) setLevel(ctx context.Context) {
	x := l.call(ctx, plan.ProbeSetLevel.Tag(), "logging/setLevel", map[string]any{"level": plan.LevelSet})
	if x.OK() && x.Response.Has("result") {
		// What a server logs about is its own choice: the lists it
		// serves and a read are the traffic most servers log.
		caps := l.s.Caps()
		from := l.p.c.Transcript().Len()
		for _, m := range []struct {
			capability, method string
		}{{"resources", "resources/list"}, {"tools", "tools/list"}, {"prompts", "prompts/list"}} {
			if caps.Has(m.capability) {
				l.call(ctx, plan.ProbeSetLevel.Tag("traffic"), m.method, nil)
			}
		}
		if rs := l.s.Reads(); len(rs) > 0 && rs[0].URI != "" {
			l.call(ctx, plan.ProbeSetLevel.Tag("traffic"), "resources/read", map[string]any{"uri": rs[0].URI})
		}
		l.settle(ctx, from, 100*time.Millisecond, func(m *wire.Message) bool { return m.Method == "notifications/message" })
	}
}

// logLevelProbe sends, in a 2026-07-28 session that declares logging,
// requests whose _meta asks for logs at plan.LevelMeta: server/discover,
// the lists the server serves and a read, the traffic most servers log
// about. They go one at a time, after the session's other traffic, so a
// log message is for the request open when it comes.
func (l *live) logLevelProbe(ctx context.Context) {
	if !l.s.Caps().Has("logging") || !l.x.needs(plan.ProbeLogLevelMeta) {
		return
	}
	withLevel := func(params map[string]any) map[string]any {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = map[string]any{wire.MetaLogLevel: plan.LevelMeta}
		return params
	}
	tag := plan.ProbeLogLevelMeta.Tag()
	caps := l.s.Caps()
	type call struct {
		method string
		params map[string]any
	}
	calls := []call{{method: "server/discover"}}
	for _, m := range []struct{ capability, method string }{{"resources", "resources/list"}, {"tools", "tools/list"}, {"prompts", "prompts/list"}} {
		if caps.Has(m.capability) {
			calls = append(calls, call{method: m.method})
		}
	}
	if rs := l.s.Reads(); len(rs) > 0 && rs[0].URI != "" {
		calls = append(calls, call{"resources/read", map[string]any{"uri": rs[0].URI}})
	}
	for _, c := range calls {
		if !l.p.alive() || ctx.Err() != nil {
			return
		}
		l.call(ctx, tag, c.method, withLevel(c.params))
	}
}
