package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// clientCancelChecks judge the client's cancellation notifications
// (CANCEL-*).
func clientCancelChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-cancel-references-request", Requirement: "CANCEL-01", Area: "cancellation",
			Description: "every notifications/cancelled the client sends names a request it sent earlier",
			Judge:       checkClientCancelTargets,
		},
	}
}

// checkClientCancelTargets fails a cancellation naming an id the client
// never used for a request before it. One that crosses its request's
// response is a race the spec allows (Timing Considerations); one without
// requestId (legal in 2025-11-25 for tasks) names nothing to judge.
func checkClientCancelTargets(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, n := range v.notifications {
			if n.msg.Method != "notifications/cancelled" {
				continue
			}
			id, ok := params(n.msg)["requestId"]
			if !ok {
				continue
			}
			t.judged()
			known := false
			for _, r := range v.requests {
				if r.seq <= n.seq && r != n && wire.IDKey(r.msg.ID) == wire.IDKey(id) {
					known = true
					break
				}
			}
			if !known {
				t.violate(v.at(n.seq), "notifications/cancelled names the id %s, which no earlier request of the client had", clipJSON(id, 40))
			}
		}
	})
	return t.finding(fmt.Sprintf("every cancellation named a request of the client (%d)", t.n), "the client sent no notifications/cancelled naming a request")
}
