package checks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// clientListChangedChecks record what a client does after a list_changed
// notification (RES-LC-*): no sentence says, so it is recorded only.
func clientListChangedChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-relists-after-list-changed", Requirement: "RES-LC-04", Area: "resources",
			Description: "after notifications/{resources,tools,prompts}/list_changed the client lists that kind again (recorded: no sentence requires it)",
			Judge:       checkClientRelists,
		},
	}
}

func checkClientRelists(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, e := range v.entries {
			if e.Dir != transcript.Recv {
				continue
			}
			for _, m := range e.Msgs {
				kind, ok := strings.CutSuffix(strings.TrimPrefix(m.Method, "notifications/"), "/list_changed")
				if m.Kind() != wire.KindNotification || !ok || kind == "roots" {
					continue
				}
				t.judged()
				list := kind + "/list"
				again := false
				for _, r := range v.requests {
					if r.seq > e.Seq && r.msg.Method == list {
						again = true
						break
					}
				}
				if !again {
					t.record(v.at(e.Seq), "after %s the client did not send %s again", m.Method, list)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("the client listed again after every list_changed (%d)", t.n), "the server sent no list_changed")
}
