package execute

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// heldListenID is the id of the listen stream the 2026-07-28 probes leave
// open until the process ends (modernProbes).
const heldListenID = `"mcpconform-listen-held"`

// traceparent and tracestate are the W3C trace context the trace probe
// sends (a sampled trace; the key of tracestate is the suite's own).
const (
	traceparent = "00-6d6370636f6e666f726d2d7472616365-6d63702d73706e31-01"
	tracestate  = "mcpconform=probe"
)

// maxSubscriptions bounds how many listed resources the subscription probe
// subscribes to.
const maxSubscriptions = 20

// legacyProbes run in a handshake-era session after discovery, each when
// a selected check needs it.
func (l *live) legacyProbes(ctx context.Context) {
	caps := l.s.Caps()
	res := l.s.Resources()
	if (caps.Resources || len(res.Items) > 0) && l.x.needs(plan.ProbeEmptyParams) {
		l.call(ctx, plan.ProbeEmptyParams.Tag(), "resources/list", json.RawMessage(`{}`))
	}
	if len(res.Pages) >= 2 && l.x.needs(plan.ProbeCursorRepeat) {
		if c, ok := wire.String(res.Pages[0].Result()["nextCursor"]); ok {
			l.call(ctx, plan.ProbeCursorRepeat.Tag(), "resources/list", map[string]any{"cursor": c})
		}
	}
	var uris []string
	for _, rd := range l.s.Reads() {
		if rd.URI != "" && len(uris) < maxSubscriptions {
			uris = append(uris, rd.URI)
		}
	}
	if caps.Subscribe && len(uris) > 0 && l.x.needs(plan.ProbeSubscribe) {
		l.subscribeRoundTrip(ctx, uris)
	}
	if caps.Resources && !caps.Subscribe && len(uris) > 0 && l.x.needs(plan.ProbeSubUndeclared) {
		l.call(ctx, plan.ProbeSubUndeclared.Tag(), "resources/subscribe", map[string]any{"uri": uris[0]})
	}
	if l.s.Version == wire.V20250326 && l.x.needs(plan.ProbeBatch) {
		l.batchProbe(ctx)
	}
}

// subscribeRoundTrip subscribes to each uri and reads it (a read may be
// what changes a resource), waits briefly for updates, unsubscribes from
// each, and reads again: no update may follow an unsubscribe.
func (l *live) subscribeRoundTrip(ctx context.Context, uris []string) {
	tag := func(step string) string { return plan.ProbeSubscribe.Tag(step) }
	for _, u := range uris {
		l.call(ctx, tag("subscribe"), "resources/subscribe", map[string]any{"uri": u})
		l.call(ctx, tag("read"), "resources/read", map[string]any{"uri": u})
	}
	isUpdate := func(m *wire.Message) bool { return m.Method == "notifications/resources/updated" }
	l.settle(ctx, l.p.c.Transcript().Len(), 150*time.Millisecond, isUpdate)
	for _, u := range uris {
		l.call(ctx, tag("unsubscribe"), "resources/unsubscribe", map[string]any{"uri": u})
	}
	from := l.p.c.Transcript().Len()
	for _, u := range uris {
		l.call(ctx, tag("read-after"), "resources/read", map[string]any{"uri": u})
	}
	l.settle(ctx, from, 100*time.Millisecond, isUpdate)
}

// batchProbe sends one line holding two requests and a notification, as
// 2025-03-26 allows, then a ping, and waits for their answers.
func (l *live) batchProbe(ctx context.Context) {
	ids := []string{"mcpconform-batch-1", "mcpconform-batch-2"}
	line := `[{"jsonrpc":"2.0","id":"` + ids[0] + `","method":"ping"},` +
		`{"jsonrpc":"2.0","id":"` + ids[1] + `","method":"resources/list"},` +
		`{"jsonrpc":"2.0","method":"notifications/mcpconform-batch"}]`
	c := l.p.c
	c.Mark(transcript.Mark{Kind: transcript.Begin, Probe: string(plan.ProbeBatch)})
	from := c.Transcript().Len()
	if _, err := c.Write(plan.ProbeBatch.Tag(), []byte(line)); err == nil {
		seen := map[string]bool{}
		deadline := time.Now().Add(c.Timeout())
		// A server that reads in order has answered the batch, if it
		// answers batches at all, by the time it answers a request sent
		// after it: a server that drops batches costs that round trip, not
		// the request deadline. Answers later still are found when judging.
		if x := l.followUp(ctx, l.p, plan.ProbeSettle.Tag(), min(c.Timeout(), aliveDeadline)); x.OK() {
			deadline = minTime(deadline, time.Now().Add(replyAfterAnswer))
		}
		for len(seen) < len(ids) && time.Now().Before(deadline) {
			in := c.WaitInbound(from, time.Until(deadline), func(m *wire.Message) bool {
				id, _ := wire.String(m.ID)
				return m.Kind() == wire.KindResponse && (id == ids[0] || id == ids[1]) && !seen[id]
			})
			if in == nil {
				break
			}
			id, _ := wire.String(in.Msg.ID)
			seen[id] = true
		}
	}
	c.Mark(transcript.Mark{Kind: transcript.End, Probe: string(plan.ProbeBatch)})
}

// modernProbes run in a 2026-07-28 session after discovery, each when a
// selected check needs it: a request carrying trace context (ProbeTrace);
// listen streams (ProbeListen), one with a string id asking for updates
// of a resource, one with an integer id asking for resource list changes,
// and one for each of the tool and prompt lists whose listChanged the
// server declares, all cancelled in the end; and one more asking for tool
// and prompt list changes, which stays open until the process ends
// (ProbeListenHeld).
func (l *live) modernProbes(ctx context.Context) {
	c := l.p.c
	tag := func(step string) string { return plan.ProbeListen.Tag(step) }
	uri := ""
	if rs := l.s.Reads(); len(rs) > 0 {
		uri = rs[0].URI
	}
	var filters []map[string]any
	var ids []json.RawMessage
	if l.x.needs(plan.ProbeListen) {
		filters = []map[string]any{{"resourceSubscriptions": []string{}}, {"resourcesListChanged": true}}
		if uri != "" {
			filters[0] = map[string]any{"resourceSubscriptions": []string{uri}}
		}
		ids = []json.RawMessage{json.RawMessage(`"mcpconform-listen-1"`), c.NewID()}
		for _, kind := range []string{"tools", "prompts"} {
			if l.s.Caps().Has(kind + ".listChanged") {
				filters = append(filters, map[string]any{kind + "ListChanged": true})
				ids = append(ids, c.NewID())
			}
		}
	}
	streams := make([]*mockclient.Stream, len(filters))
	if l.x.needs(plan.ProbeTrace) {
		// A request carrying W3C trace context: a server that takes part
		// in tracing may carry it on in what it sends.
		l.call(ctx, plan.ProbeTrace.Tag(), "server/discover", map[string]any{"_meta": map[string]any{"traceparent": traceparent, "tracestate": tracestate}})
	}
	for i := range streams {
		params, err := envelope.Wrap(map[string]any{"notifications": filters[i]})
		if err != nil {
			return
		}
		st, err := c.ListenTagged(tag("stream"), ids[i], params)
		if err != nil {
			return
		}
		streams[i] = st
	}
	wait := min(c.Timeout(), 2*time.Second)
	for _, st := range streams {
		st.WaitFor("notifications/subscriptions/acknowledged", wait)
	}
	if l.x.needs(plan.ProbeListenHeld) {
		// A third stream, asking for tool and prompt list changes, stays
		// open to the end: list changes that tool calls cause later are
		// delivered on it, and how the server ends it when stdin closes
		// ("for example, during shutdown": a listen result, or
		// notifications/cancelled naming it) is seen.
		params, err := envelope.Wrap(map[string]any{"notifications": map[string]any{"toolsListChanged": true, "promptsListChanged": true}})
		if err != nil {
			return
		}
		if held, err := c.ListenTagged(tag("stream"), json.RawMessage(heldListenID), params); err == nil {
			held.WaitFor("notifications/subscriptions/acknowledged", wait)
		}
	}
	if len(streams) == 0 {
		return
	}
	if uri != "" {
		// A read may be what changes the resource on some servers.
		l.call(ctx, tag("read"), "resources/read", map[string]any{"uri": uri})
		l.settle(ctx, streams[0].Seq, 150*time.Millisecond, func(m *wire.Message) bool {
			return m.Method == "notifications/resources/updated" && streams[0].Belongs(m)
		})
	}
	_ = streams[0].CancelTagged(tag("cancel"))
	// The fence: once the server has answered a request written after the
	// cancellation, it has read the cancellation; what it wrote for the
	// stream before that answer may have been in flight (the cancellation
	// page allows for it), what it writes after it may not.
	l.followUp(ctx, l.p, tag("fence"), min(c.Timeout(), aliveDeadline))
	if uri != "" {
		l.call(ctx, tag("read-after"), "resources/read", map[string]any{"uri": uri})
	}
	// Nothing may come for the cancelled stream; give a stray message time
	// to show.
	from := c.Transcript().Len()
	l.settle(ctx, from, 150*time.Millisecond, func(m *wire.Message) bool { return streams[0].Belongs(m) })
	for _, st := range streams[1:] {
		_ = st.CancelTagged(tag("cancel"))
	}
}

// listAfter lists resources again, every page, after all other traffic
// (RES-CAP-03).
func (l *live) listAfter(ctx context.Context) {
	if l.s.Caps().Resources && l.x.needs(plan.ProbeListAfter) {
		l.list(ctx, plan.ProbeListAfter.Tag(), "resources/list")
	}
}
