package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesSubscriptionsChecks judge subscriptions: resources/subscribe
// and notifications/resources/updated up to 2025-11-25, listen streams in
// 2026-07-28 (RES-SUB-*).
func resourcesSubscriptionsChecks() []*Check {
	return []*Check{
		{
			ID: "resources-subscribe-result", Requirement: "RES-SUB-01", Area: "subscriptions",
			Description: "resources/subscribe to a listed resource succeeds with a result object",
			Needs:       []plan.Probe{plan.ProbeSubscribe},
			Requires:    []string{"resources.subscribe"},
			Judge:       func(j *J) Finding { return checkSubResults(j, "subscribe") },
		},
		{
			ID: "resources-unsubscribe-result", Requirement: "RES-SUB-02", Area: "subscriptions",
			Description: "resources/unsubscribe after a subscribe succeeds with a result object",
			Needs:       []plan.Probe{plan.ProbeSubscribe},
			Requires:    []string{"resources.subscribe"},
			Judge:       func(j *J) Finding { return checkSubResults(j, "unsubscribe") },
		},
		{
			ID: "resources-updated-only-while-subscribed", Requirement: "RES-SUB-03", Area: "subscriptions",
			Description: "notifications/resources/updated carry a uri, and none comes for a resource once its unsubscribe was answered",
			Needs:       []plan.Probe{plan.ProbeSubscribe},
			Judge:       checkUpdatesAfterUnsubscribe,
		},
		{
			ID: "resources-updated-needs-subscription", Requirement: "RES-SUB-04", Area: "subscriptions",
			Description: "no notifications/resources/updated without the subscribe capability and a subscription to that URI (or a resource below it)",
			Needs:       []plan.Probe{plan.ProbeSubscribe},
			Judge:       checkUpdatesNeedSubscription,
		},
		{
			ID: "subscribe-without-capability", Requirement: "RES-SUB-05", Area: "subscriptions",
			Description: "what resources/subscribe gets from a server that does not declare subscribe (-32601 is recommended)",
			Needs:       []plan.Probe{plan.ProbeSubUndeclared},
			Requires:    []string{"resources"},
			Judge:       checkSubscribeUndeclared,
		},
		{
			ID: "listen-acknowledged-first", Requirement: "RES-SUB-07", Area: "subscriptions",
			Description: "each listen stream starts with notifications/subscriptions/acknowledged carrying the agreed subset of the filter",
			Needs:       []plan.Probe{plan.ProbeListen},
			Judge:       checkListenAck,
		},
		{
			ID: "listen-only-requested-types", Requirement: "RES-SUB-08", Area: "subscriptions",
			Description: "a stream carries only the notification types it asked for",
			Needs:       []plan.Probe{plan.ProbeListen},
			Judge:       checkListenTypes,
		},
		{
			ID: "listen-subscription-id-echo", Requirement: "RES-SUB-09", Area: "subscriptions",
			Description: "stream notifications carry _meta subscriptionId equal in type and value to the listen request's id",
			Needs:       []plan.Probe{plan.ProbeListen},
			Judge:       checkListenIDs,
		},
		{
			ID: "no-stream-messages-before-listen", Requirement: "RES-SUB-11", Area: "subscriptions",
			Description: "a process sends no stream notifications before a listen request opens a stream",
			Needs:       []plan.Probe{plan.ProbeListen},
			Judge:       checkNoStreamBeforeListen,
		},
		{
			ID: "cancelled-only-for-listen", Requirement: "RES-SUB-12", Area: "subscriptions",
			Description: "the server sends notifications/cancelled only to end a listen stream it has open",
			Needs:       []plan.Probe{plan.ProbeListen, plan.ProbeListenHeld},
			Trigger:     "a server that ends a listen stream itself with notifications/cancelled naming it: the suite leaves one stream open until it closes stdin, a shutdown at which a server ends its streams (the reference server does so under --variant streams-end-cancelled; by default it answers the listen request instead)",
			Judge:       checkServerCancelled,
		},
	}
}

func checkSubResults(j *J, step string) Finding {
	xs := j.Session.Tagged(plan.ProbeSubscribe.Tag(step))
	if len(xs) == 0 {
		return skipped("the server lists no resource to subscribe to")
	}
	t := &tally{}
	var bad *evidence.Exchange
	for _, x := range xs {
		if !x.OK() || x.Request == nil {
			continue // not answered: every-request-answered judges that
		}
		t.judged()
		u, _ := wire.String(wire.Object(x.Request.Params)["uri"])
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		switch {
		case !x.Response.Has("result"):
			t.violate(w, "resources/%s %q failed although subscribe is declared: %s", step, clipString(u, 60), clipJSON(x.Response.Error, 160))
		case wire.Type(x.Response.Result) != "object":
			t.violate(w, "the resources/%s result is %s, want an object", step, describeType(x.Response.Result))
		default:
			continue
		}
		if bad == nil {
			bad = x
		}
	}
	f := t.finding(fmt.Sprintf("%d resources/%s request(s) got a result (an empty result may carry more members: objects are open)", t.n, step), "no request was answered")
	if bad != nil {
		f = exchangeFinding(f, bad)
	}
	return f
}

// updates returns the notifications/resources/updated of a process, with
// their sequence numbers.
func updates(p *evidence.Process) []seqMsg {
	var out []seqMsg
	for _, e := range p.Entries() {
		if e.Dir != transcript.Recv || p.Provoked(e.Seq) {
			continue
		}
		for _, m := range e.Msgs {
			if m.Method == "notifications/resources/updated" {
				out = append(out, seqMsg{e.Seq, m})
			}
		}
	}
	return out
}

type seqMsg struct {
	Seq int
	Msg *wire.Message
}

func updatedURI(m *wire.Message) (string, bool) {
	return wire.String(wire.Object(m.Params)["uri"])
}

// underURI reports whether u is uri itself or a sub-resource of it: a path
// below it, or a fragment of it.
func underURI(u, uri string) bool {
	if u == uri {
		return true
	}
	base, _, _ := strings.Cut(u, "#")
	if base == uri {
		return true
	}
	return strings.HasPrefix(u, strings.TrimSuffix(uri, "/")+"/")
}

// subscriptions returns, per URI, the sequence numbers of the subscribe
// and unsubscribe responses of a process.
type subState struct {
	from, until int // answered subscribe, answered unsubscribe (-1: still subscribed)
}

func subscriptionsOf(p *evidence.Process) map[string][]subState {
	out := map[string][]subState{}
	for _, x := range p.Exchanges() {
		if x.Request == nil || !x.OK() || x.Result() == nil {
			continue
		}
		u, _ := wire.String(wire.Object(x.Request.Params)["uri"])
		switch x.Method {
		case "resources/subscribe":
			out[u] = append(out[u], subState{from: x.SentSeq, until: -1})
		case "resources/unsubscribe":
			if subs := out[u]; len(subs) > 0 && subs[len(subs)-1].until < 0 {
				subs[len(subs)-1].until = x.RecvSeq
			}
		}
	}
	return out
}

func checkUpdatesAfterUnsubscribe(j *J) Finding {
	if j.Session.SafeModern() {
		return skipped("resources/subscribe does not exist in 2026-07-28")
	}
	t := &tally{}
	for _, p := range j.Processes {
		subs := subscriptionsOf(p)
		for _, up := range updates(p) {
			t.judged()
			u, ok := updatedURI(up.Msg)
			w := At(p, up.Seq)
			if !ok {
				t.violateSchema(w, "ResourceUpdatedNotification: params: { uri: string }", "notifications/resources/updated without a string params.uri: %s", clipJSON(up.Msg.Raw, 120))
				continue
			}
			// The update may be for a sub-resource of any subscribed URI: it
			// is late only when no subscription covering it is still on and
			// one covering it was ended before it arrived.
			covered, ended := false, false
			for uri, states := range subs {
				if !underURI(u, uri) {
					continue
				}
				covered = covered || stillSubscribed(states, up.Seq)
				for _, st := range states {
					ended = ended || st.until >= 0 && up.Seq > st.until
				}
			}
			if ended && !covered {
				t.violate(w, "an update for %q arrived after its unsubscribe was answered", clipString(u, 60))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d update(s), each with a uri and none after unsubscribe", t.n), "the server sent no notifications/resources/updated (no change was triggered)")
}

func stillSubscribed(states []subState, seq int) bool {
	for _, st := range states {
		if seq > st.from && (st.until < 0 || seq <= st.until) {
			return true
		}
	}
	return false
}

func checkUpdatesNeedSubscription(j *J) Finding {
	if j.Session != nil && j.Session.Modern {
		return skipped("2026-07-28 has listen streams instead (listen-only-requested-types judges them)")
	}
	t := &tally{}
	for _, p := range j.Processes {
		subscribe := false
		for _, x := range p.Exchanges() {
			if res := x.Result(); res != nil && x.Method == "initialize" {
				subscribe = string(wire.Object(wire.Object(res["capabilities"])["resources"])["subscribe"]) == "true"
			}
		}
		subs := subscriptionsOf(p)
		for _, up := range updates(p) {
			u, ok := updatedURI(up.Msg)
			if !ok {
				continue // no uri to judge (resources-updated-only-while-subscribed judges it)
			}
			t.judged()
			w := At(p, up.Seq)
			if !subscribe {
				t.violate(w, "an update for %q, but the server does not declare resources.subscribe", clipString(u, 60))
				continue
			}
			subscribed := false
			for uri, states := range subs {
				if underURI(u, uri) {
					for _, st := range states {
						subscribed = subscribed || up.Seq > st.from
					}
				}
			}
			if !subscribed {
				t.violate(w, "an update for %q, which the client never subscribed to", clipString(u, 60))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d update(s), all for subscribed URIs", t.n), "the server sent no notifications/resources/updated")
}

func checkSubscribeUndeclared(j *J) Finding {
	if j.Session.Modern {
		return skipped("resources/subscribe does not exist in 2026-07-28")
	}
	xs := j.Session.Tagged(plan.ProbeSubUndeclared.Tag())
	if len(xs) == 0 {
		if j.Caps().Subscribe {
			return skipped("the server declares subscribe")
		}
		return skipped("the server lists no resource to subscribe to")
	}
	x := xs[0]
	f := exchangeFinding(Finding{}, x)
	code, isErr := x.ErrorCode()
	switch {
	case x.Stopped():
		return harness("not judged: " + x.NoResponse.String())
	case !x.OK():
		return skipped("resources/subscribe got no response (every-request-answered judges it)")
	case !isErr:
		f.Outcome, f.Message = Recorded, "resources/subscribe succeeded although subscribe is not declared"
	case code == wire.CodeMethodNotFound:
		return passed("resources/subscribe gets -32601 without the capability")
	default:
		f.Outcome, f.Message = Recorded, fmt.Sprintf("refused with %d (no code is specified; -32601 is recommended)", code)
	}
	return f
}

// stream is a listen request of the listen probe and what came for it.
type stream struct {
	x      *evidence.Exchange
	filter map[string]json.RawMessage
	notes  []seqMsg // notifications tagged with its id, in order
}

// listenStreams reconstructs the listen probe's streams from the session.
func listenStreams(j *J) ([]*stream, string) {
	if j.Session == nil || !j.Session.Modern {
		return nil, "listen streams exist in 2026-07-28 only"
	}
	xs := j.Session.Tagged(plan.ProbeListen.Tag("stream"))
	if len(xs) == 0 {
		return nil, "no listen stream was opened"
	}
	var out []*stream
	for _, x := range xs {
		if x.Request == nil {
			continue // never written: there is no stream
		}
		st := &stream{x: x, filter: wire.Object(wire.Object(x.Request.Params)["notifications"])}
		for _, e := range x.Process.Entries() {
			if e.Dir != transcript.Recv || e.Seq < x.SentSeq {
				continue
			}
			for _, m := range e.Msgs {
				if m.Kind() == wire.KindNotification {
					if id := wire.SubscriptionID(m); id != nil && wire.IDKey(id) == wire.IDKey(x.ID) {
						st.notes = append(st.notes, seqMsg{e.Seq, m})
					}
				}
			}
		}
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, "no listen request was written"
	}
	// A server that offers neither subscriptions nor list changes may
	// refuse listen: there is nothing to stream.
	caps := j.Caps()
	if !caps.Subscribe && !caps.ListChanged && !caps.Has("tools.listChanged") && !caps.Has("prompts.listChanged") {
		refused := true
		for _, st := range out {
			refused = refused && st.x.OK() && st.x.Response.Has("error")
		}
		if refused {
			return nil, "the server declares no subscribe and no listChanged (of resources, tools or prompts) and refuses subscriptions/listen"
		}
	}
	return out, ""
}

func checkListenAck(j *J) Finding {
	streams, why := listenStreams(j)
	if streams == nil {
		return skipped(why)
	}
	t := &tally{}
	nothing := "no listen stream was opened"
	for _, st := range streams {
		if len(st.notes) == 0 && !st.x.OK() && j.Run != nil && j.Run.Interrupted != "" {
			// The run was cut short: the acknowledgement may not have had
			// its chance.
			nothing = "the run was cut short (" + j.Run.Interrupted + ") before the listen streams were acknowledged"
			continue
		}
		t.judged()
		id := clipJSON(st.x.ID, 40)
		w := At(st.x.Process, st.x.SentSeq+1)
		if len(st.notes) == 0 {
			switch {
			case st.x.OK() && st.x.Response.Has("error"):
				t.violate(w, "listen %s was refused: %s", id, clipJSON(st.x.Response.Error, 120))
			case st.x.OK():
				// The response is a message carrying the subscription's
				// id: it came first, so the acknowledgement did not.
				t.violate(At(st.x.Process, st.x.RecvSeq), "listen %s: the stream ended (its response came) with no notifications/subscriptions/acknowledged before it", id)
			default:
				if named := looseAck(st); named != nil {
					// Judged by listen-subscription-id-echo (RES-SUB-09).
					t.record(w, "listen %s: no message carries its id exactly; an acknowledgement names it as %s (see listen-subscription-id-echo)", id, clipJSON(named, 40))
					break
				}
				// Silence while the stream was open: an acknowledgement
				// may still have been coming when the harness stopped
				// waiting, so nothing is proven.
				t.undecide(w, "listen %s: no notifications/subscriptions/acknowledged came while the stream was open (the harness stopped waiting for it first)", id)
			}
			continue
		}
		first := st.notes[0].Msg
		if first.Method != "notifications/subscriptions/acknowledged" {
			t.violate(At(st.x.Process, st.notes[0].Seq), "listen %s: the first stream message is %s, not the acknowledgement", id, clipString(first.Method, 60))
			continue
		}
		ack := wire.Object(wire.Object(first.Params)["notifications"])
		if ack == nil {
			t.violate(At(st.x.Process, st.notes[0].Seq), "listen %s: the acknowledgement has no notifications filter", id)
			continue
		}
		for k, v := range ack {
			if grants(v) && !grants(st.filter[k]) {
				t.violate(At(st.x.Process, st.notes[0].Seq), "listen %s: the acknowledgement grants %q, which was not asked for", id, k)
			}
		}
		if grants(ack["resourceSubscriptions"]) && !j.Caps().Subscribe {
			t.violate(At(st.x.Process, st.notes[0].Seq), "listen %s: resourceSubscriptions acknowledged, but the server does not declare resources.subscribe", id)
		}
		for _, kind := range []string{"resources", "tools", "prompts"} {
			if grants(ack[kind+"ListChanged"]) && !j.Caps().Has(kind+".listChanged") {
				t.violate(At(st.x.Process, st.notes[0].Seq), "listen %s: %sListChanged acknowledged, but the server does not declare %s.listChanged", id, kind, kind)
			}
		}
	}
	return t.finding("every stream was acknowledged first, with a subset of its filter", nothing)
}

// looseAck returns the subscriptionId of an acknowledgement that names
// st's listen id by its text but not its JSON type ("24" for 24), or nil.
func looseAck(st *stream) json.RawMessage {
	for _, e := range st.x.Process.Entries() {
		if e.Dir != transcript.Recv || e.Seq < st.x.SentSeq {
			continue
		}
		for _, m := range e.Msgs {
			if m.Method != "notifications/subscriptions/acknowledged" {
				continue
			}
			if id := wire.SubscriptionID(m); id != nil && wire.IDKey(id) != wire.IDKey(st.x.ID) && wire.LooseIDKey(id) == wire.LooseIDKey(st.x.ID) {
				return id
			}
		}
	}
	return nil
}

// grants reports whether a member of a notification filter (asked or
// acknowledged) subscribes to anything: false, null and an empty list of
// URIs are the same as leaving the member out.
func grants(v json.RawMessage) bool {
	switch wire.Type(v) {
	case "", "null":
		return false
	case "boolean":
		return string(v) == "true"
	case "array":
		items, _ := wire.Array(v)
		return len(items) > 0
	}
	return true
}

// allowedOn returns the notification methods a stream's filter admits.
func allowedOn(filter map[string]json.RawMessage) map[string]bool {
	ok := map[string]bool{"notifications/subscriptions/acknowledged": true}
	if _, f := filter["resourceSubscriptions"]; f {
		ok["notifications/resources/updated"] = true
	}
	if string(filter["resourcesListChanged"]) == "true" {
		ok["notifications/resources/list_changed"] = true
	}
	if string(filter["toolsListChanged"]) == "true" {
		ok["notifications/tools/list_changed"] = true
	}
	if string(filter["promptsListChanged"]) == "true" {
		ok["notifications/prompts/list_changed"] = true
	}
	return ok
}

func checkListenTypes(j *J) Finding {
	streams, why := listenStreams(j)
	if streams == nil {
		return skipped(why)
	}
	t := &tally{}
	for _, st := range streams {
		allowed := allowedOn(st.filter)
		for _, n := range st.notes {
			t.judged()
			if n.Msg.Method == "notifications/cancelled" && wire.IDKey(wire.Object(n.Msg.Params)["requestId"]) == wire.IDKey(st.x.ID) {
				continue // the server ending this very stream (RES-SUB-12 allows it)
			}
			if !allowed[n.Msg.Method] {
				t.violate(At(st.x.Process, n.Seq), "stream %s (filter %s) carried %s", clipJSON(st.x.ID, 40), clipJSON(wire.Object(st.x.Request.Params)["notifications"], 80), clipString(n.Msg.Method, 60))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d stream message(s), each of a type its stream asked for", t.n), "no stream message arrived")
}

// streamOnly are the notifications that 2026-07-28 delivers on listen
// streams alone: each must say which stream it belongs to.
var streamOnly = map[string]bool{
	"notifications/subscriptions/acknowledged": true,
	"notifications/resources/updated":          true,
	"notifications/resources/list_changed":     true,
	"notifications/tools/list_changed":         true,
	"notifications/prompts/list_changed":       true,
}

func checkListenIDs(j *J) Finding {
	streams, why := listenStreams(j)
	if streams == nil {
		return skipped(why)
	}
	t := &tally{}
	p := streams[0].x.Process
	// Any listen the client wrote opens a stream, the probe's or another
	// test's: an id matches when a listen request carried it before.
	listens := map[string]bool{}
	for _, e := range p.Entries() {
		for _, m := range e.Msgs {
			if e.Dir == transcript.Send && m.Method == "subscriptions/listen" && m.ID != nil {
				listens[wire.IDKey(m.ID)] = true
			}
		}
		if e.Dir != transcript.Recv || e.Seq < streams[0].x.SentSeq || p.Provoked(e.Seq) {
			continue
		}
		if era, _ := p.EraAt(e.Seq); era != wire.EraModern {
			continue
		}
		for _, m := range e.Msgs {
			if m.Kind() != wire.KindNotification {
				continue
			}
			id := wire.SubscriptionID(m)
			switch {
			case id == nil && streamOnly[m.Method]:
				t.judged()
				t.violate(At(p, e.Seq), "%s carries no _meta subscriptionId, so it belongs to no stream", clipString(m.Method, 50))
			case id == nil:
			case !listens[wire.IDKey(id)]:
				t.judged()
				t.violate(At(p, e.Seq), "%s carries subscriptionId %s, which matches no listen request id in type and value", clipString(m.Method, 50), clipJSON(id, 40))
			default:
				t.judged()
			}
		}
	}
	return t.finding(fmt.Sprintf("%d stream notification(s) echo their listen id exactly", t.n), "no stream notification arrived")
}

func checkNoStreamBeforeListen(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		listened := false
		for _, e := range p.Entries() {
			for _, m := range e.Msgs {
				if e.Dir == transcript.Send && m.Method == "subscriptions/listen" {
					listened = true
				}
				if e.Dir == transcript.Recv && m.Kind() == wire.KindNotification && !p.Provoked(e.Seq) {
					if era, _ := p.EraAt(e.Seq); era != wire.EraModern && !listened {
						continue
					}
					t.judged()
					if !listened && wire.SubscriptionID(m) != nil {
						t.violate(At(p, e.Seq), "a stream notification (%s) before any listen request in this process", clipString(m.Method, 40))
					}
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d notification(s), none on a stream before a listen", t.n), "no notification of the 2026-07-28 era")
}

func checkServerCancelled(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		open := map[string]bool{}
		for _, e := range p.Entries() {
			for _, m := range e.Msgs {
				if e.Dir == transcript.Send && m.Method == "subscriptions/listen" && m.ID != nil {
					open[wire.IDKey(m.ID)] = true
				}
				if e.Dir == transcript.Recv && m.Method == "notifications/cancelled" && !p.Provoked(e.Seq) {
					if era, _ := p.EraAt(e.Seq); era != wire.EraModern {
						continue
					}
					t.judged()
					id := wire.Object(m.Params)["requestId"]
					if id == nil || !open[wire.IDKey(id)] {
						t.violate(At(p, e.Seq), "notifications/cancelled names %s, which is not an open listen stream", clipJSON(id, 40))
					}
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d notifications/cancelled, each ending a listen stream", t.n), "the server sent no notifications/cancelled")
}
