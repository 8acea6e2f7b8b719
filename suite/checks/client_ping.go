package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// clientPingChecks judge a client's answers to the server's pings
// (PING-*).
func clientPingChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-answers-ping", Requirement: "PING-01", Area: "ping",
			Description: "the client answers every ping of the server with an empty result",
			Judge:       checkClientPing,
		},
	}
}

func checkClientPing(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, r := range v.serverRequests {
			if r.msg.Method != "ping" {
				continue
			}
			t.judged()
			a := r.answer
			switch {
			case a == nil:
				unansweredFinding(t, v, r)
			case a.msg.Has("error"):
				t.violate(v.at(a.seq), "ping (id %s) answered with an error: %s", clipJSON(r.msg.ID, 40), clipJSON(a.msg.Error, 120))
			case !emptyResult(a.msg.Result):
				t.violate(v.at(a.seq), "ping (id %s) answered with %s, want an empty result", clipJSON(r.msg.ID, 40), clipJSON(a.msg.Result, 120))
			}
		}
	})
	return t.finding(fmt.Sprintf("every ping got an empty result (%d)", t.n), "the server sent no ping")
}

// emptyResult reports whether a result is an object with nothing but
// _meta.
func emptyResult(raw []byte) bool {
	m := wire.Object(raw)
	if m == nil {
		return false
	}
	for k := range m {
		if k != "_meta" {
			return false
		}
	}
	return true
}
