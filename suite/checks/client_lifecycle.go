package checks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// clientLifecycleChecks judge a client's handshake and what it asks for
// afterwards (LIFE-*), in the handshake era.
func clientLifecycleChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-initialize-shape", Requirement: "LIFE-02", Area: "lifecycle",
			Description: "initialize carries protocolVersion (a string), capabilities (an object) and clientInfo with a string name and version",
			Judge:       checkClientInitializeShape,
		},
		{
			ID: "client-initialized-sent", Requirement: "LIFE-07", Area: "lifecycle",
			Description: "after a successful initialize response the client sends notifications/initialized, and not before the response",
			Judge:       checkClientInitialized,
		},
		{
			ID: "client-waits-for-initialize", Requirement: "LIFE-08", Area: "lifecycle",
			Description: "the client sends no request but ping before the initialize response (a server/discover probe before initialize excepted)",
			Judge:       checkClientWaitsForInitialize,
		},
		{
			ID: "client-initialize-not-batched", Requirement: "LIFE-11", Area: "lifecycle",
			Description: "in 2025-03-26 the client never puts initialize in a batch",
			Judge:       checkClientInitializeNotBatched,
		},
		{
			ID: "client-initialize-not-cancelled", Requirement: "LIFE-12", Area: "lifecycle",
			Description: "the client never sends notifications/cancelled for its initialize request",
			Judge:       checkClientInitializeNotCancelled,
		},
		{
			ID: "client-counter-offer", Requirement: "LIFE-06", Area: "lifecycle",
			Description: "after a counter-offer the client goes on only with a version that exists, or disconnects",
			Judge:       checkClientCounterOffer,
		},
		{
			ID: "client-uses-negotiated-capabilities", Requirement: "LIFE-10", Area: "lifecycle",
			Description: "after initialize the client asks only for what the server declared (no resources/subscribe without subscribe, no tools/* without tools, ...) and only for methods the negotiated version has",
			Judge:       checkClientNegotiated,
		},
	}
}

// initialized returns the spawns' initialize requests, or why none is
// judged.
func eachInitialize(j *ClientJ, t *tally, f func(v *spawnView, in *sentMsg)) {
	j.each(func(v *spawnView) {
		in := v.initialize()
		if in == nil {
			t.unexercise("spawn %d: the client sent no initialize", v.sp.ID)
			return
		}
		f(v, in)
	})
}

func checkClientInitializeShape(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		t.judged()
		p := params(in.msg)
		if p == nil {
			t.violate(v.at(in.seq), "initialize params are %s, want an object", describeType(in.msg.Params))
			return
		}
		var bad []string
		if _, ok := wire.String(p["protocolVersion"]); !ok {
			bad = append(bad, "protocolVersion is "+describeType(p["protocolVersion"])+", want a string")
		}
		if wire.Type(p["capabilities"]) != "object" {
			bad = append(bad, "capabilities is "+describeType(p["capabilities"])+", want an object")
		}
		if info := wire.Object(p["clientInfo"]); info == nil {
			bad = append(bad, "clientInfo is "+describeType(p["clientInfo"])+", want an object with name and version")
		} else {
			for _, k := range []string{"name", "version"} {
				if _, ok := wire.String(info[k]); !ok {
					bad = append(bad, "clientInfo."+k+" is "+describeType(info[k])+", want a string")
				}
			}
		}
		if len(bad) > 0 {
			t.violate(v.at(in.seq), "spawn %d: %s", v.sp.ID, strings.Join(bad, "; "))
		}
	})
	return t.finding("initialize carries protocolVersion, capabilities and clientInfo", "the client sent no initialize")
}

// after reports whether the client wrote anything after seq: a message
// other than ping, or (with stdin) the end of its input.
func (v *spawnView) wroteAfter(seq int) bool {
	for _, s := range v.sent {
		if s.seq > seq && s.msg.Method != "ping" && s.msg.Kind() != wire.KindResponse {
			return true
		}
	}
	return false
}

func checkClientInitialized(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		if !in.succeeded() {
			t.unexercise("spawn %d: initialize got no successful response", v.sp.ID)
			return
		}
		var note *sentMsg
		for _, n := range v.sent {
			// One with an id is still the notification, broken
			// (JSONRPC-09's).
			if n.msg.Method == "notifications/initialized" {
				note = n
				break
			}
		}
		switch {
		case note != nil && note.seq < in.respSeq:
			t.judged()
			t.violate(v.at(note.seq), "spawn %d: notifications/initialized came before the initialize response", v.sp.ID)
		case note != nil:
			t.judged()
		case !v.wroteAfter(in.respSeq) && v.negotiated() != v.offered():
			// A client that cannot use the counter-offer disconnects
			// (LIFE-06): initialization did not succeed for it.
			t.unexercise("spawn %d: the client disconnected after the counter-offer %s", v.sp.ID, v.negotiated())
		default:
			t.judged()
			t.violate(v.at(in.respSeq), "spawn %d: initialize succeeded but the client never sent notifications/initialized", v.sp.ID)
		}
	})
	return t.finding("notifications/initialized follows the initialize response", "the client sent no initialize")
}

func checkClientWaitsForInitialize(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		t.judged()
		end := in.respSeq
		for i, r := range v.requests {
			if end >= 0 && r.seq >= end {
				break
			}
			if r == in || r.msg.Method == "ping" {
				continue
			}
			if i == 0 && r.msg.Method == "server/discover" && r.seq < in.seq {
				// The probe of a dual-era client (2026-07-28 stdio,
				// Backward Compatibility) comes before initialize.
				continue
			}
			when := "before the initialize response"
			if r.seq < in.seq {
				when = "before initialize"
			} else if end < 0 {
				when = "while initialize was unanswered"
			}
			t.violate(v.at(r.seq), "spawn %d: %s (id %s) %s", v.sp.ID, r.msg.Method, clipJSON(r.msg.ID, 40), when)
		}
	})
	return t.finding("nothing but pings before the initialize response", "the client sent no initialize")
}

func checkClientInitializeNotBatched(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		t.judged()
		if in.batch {
			t.violate(v.at(in.seq), "spawn %d: initialize came inside a batch array", v.sp.ID)
		}
	})
	return t.finding("initialize was a line of its own", "the client sent no initialize")
}

func checkClientInitializeNotCancelled(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		t.judged()
		if c := in.cancelled; c != nil {
			t.violate(v.at(c.seq), "spawn %d: notifications/cancelled names the initialize request (id %s)", v.sp.ID, clipJSON(in.msg.ID, 40))
		}
	})
	return t.finding("initialize was never cancelled", "the client sent no initialize")
}

func checkClientCounterOffer(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		if !in.succeeded() {
			t.unexercise("spawn %d: initialize got no successful response", v.sp.ID)
			return
		}
		got, offered := v.negotiated(), v.offered()
		if got == offered {
			t.unexercise("spawn %d: the server accepted the version offered, %s", v.sp.ID, offered)
			return
		}
		t.judged()
		if v.wroteAfter(in.respSeq) && !wire.KnownVersion(got) {
			t.violate(v.at(in.respSeq), "spawn %d: the server counter-offered %q, which no revision of the spec defines, and the client went on with it (it offered %s)", v.sp.ID, clipString(got, 40), offered)
		}
	})
	return t.finding("every counter-offer was a version that exists, or the client disconnected", "the server never counter-offered")
}

// capabilityOf names the server capability a client request needs in the
// handshake era, or "".
func capabilityOf(method string) string {
	switch {
	case method == "resources/subscribe" || method == "resources/unsubscribe":
		return "resources.subscribe"
	case strings.HasPrefix(method, "resources/"):
		return "resources"
	case strings.HasPrefix(method, "prompts/"):
		return "prompts"
	case strings.HasPrefix(method, "tools/"):
		return "tools"
	case method == "logging/setLevel":
		return "logging"
	case method == "completion/complete":
		return "completions"
	}
	return ""
}

// sinceVersion is the first version whose schema has a client request
// method, for methods not in every version; "" for methods of every
// handshake version, and "none" for methods no handshake version has.
func sinceVersion(method string) string {
	switch {
	case strings.HasPrefix(method, "tasks/"):
		return wire.V20251125
	case method == "server/discover" || method == "subscriptions/listen":
		return "none"
	}
	return ""
}

func checkClientNegotiated(j *ClientJ) Finding {
	t := &tally{}
	eachInitialize(j, t, func(v *spawnView, in *sentMsg) {
		caps, ok := v.serverCaps()
		if !in.succeeded() || !ok {
			t.unexercise("spawn %d: initialize got no successful response", v.sp.ID)
			return
		}
		for _, r := range v.requests {
			if r.seq <= in.respSeq {
				continue // before the response: LIFE-08's
			}
			t.judged()
			if since := sinceVersion(r.msg.Method); since == "none" || since != "" && !wire.AtLeast(j.Version, since) {
				t.violate(v.at(r.seq), "spawn %d: %s, a method %s does not have", v.sp.ID, r.msg.Method, j.Version)
				continue
			}
			if c := capabilityOf(r.msg.Method); c != "" && !caps.Has(c) {
				t.violate(v.at(r.seq), "spawn %d: %s although the server did not declare %s", v.sp.ID, r.msg.Method, c)
			}
		}
	})
	return t.finding(fmt.Sprintf("every request after initialize used what was negotiated (%d requests)", t.n), "the client sent no request after initialize")
}
