package execute

import (
	"context"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/wire"
)

// setLevelProbe sets the log level of a handshake-era session that
// declares logging to the most severe one, gives the server requests it
// may log about, and then asks for a level no version defines. Only
// messages between the first answer and the second request are judged
// against the level set.
func (l *live) setLevelProbe(ctx context.Context) {
	if !l.s.Caps().Has("logging") || !l.p.alive() || ctx.Err() != nil ||
		!l.x.wanted("log-set-level", "log-level-respected", "log-unknown-level") {
		return
	}
	x := l.call(ctx, evidence.ProbeTag(checks.ProbeSetLevel), "logging/setLevel", map[string]any{"level": checks.LevelSet})
	if x.OK() && x.Response.Has("result") {
		// What a server logs about is its own choice: the lists it
		// serves and a read are the traffic most servers log.
		caps := l.s.Caps()
		from := l.p.c.Transcript().Len()
		for _, m := range []struct {
			capability, method string
		}{{"resources", "resources/list"}, {"tools", "tools/list"}, {"prompts", "prompts/list"}} {
			if caps.Has(m.capability) {
				l.call(ctx, evidence.ProbeTag(checks.ProbeSetLevel, "traffic"), m.method, nil)
			}
		}
		if rs := l.s.Reads(); len(rs) > 0 && rs[0].URI != "" {
			l.call(ctx, evidence.ProbeTag(checks.ProbeSetLevel, "traffic"), "resources/read", map[string]any{"uri": rs[0].URI})
		}
		l.settle(ctx, from, 100*time.Millisecond, func(m *wire.Message) bool { return m.Method == "notifications/message" })
	}
	if l.p.alive() && ctx.Err() == nil {
		l.call(ctx, evidence.ProbeTag(checks.ProbeSetLevelUnknown), "logging/setLevel", map[string]any{"level": checks.LevelUnknown})
	}
}
