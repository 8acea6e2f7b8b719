package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// loggingChecks judge log notifications (LOG-*).
func loggingChecks() []*Check {
	return []*Check{
		{
			ID: "no-log-without-capability", Requirement: "LOG-01", Area: "logging",
			Description: "the server sends notifications/message only when it declared the logging capability",
			Judge:       checkLogCapability,
		},
	}
}

func checkLogCapability(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		declaredLogging := false
		for _, x := range p.Exchanges() {
			if res := x.Result(); res != nil && (x.Method == "initialize" || x.Method == "server/discover") {
				if _, ok := wire.Object(res["capabilities"])["logging"]; ok {
					declaredLogging = true
				}
			}
		}
		eachMessage(&J{Processes: []*evidence.Process{p}}, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
			if m.Method != "notifications/message" {
				return
			}
			t.judged()
			if !declaredLogging {
				t.violate(At(p, e.Seq), "notifications/message, but the server does not declare the logging capability")
			}
		})
	}
	return t.finding(fmt.Sprintf("%d log notifications, each from a server declaring the logging capability", t.n), "the server sent no notifications/message")
}
