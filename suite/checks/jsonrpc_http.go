package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// httpJSONRPCChecks judge JSON-RPC's own rules where only HTTP can break
// them.
func httpJSONRPCChecks() []*Check {
	return []*Check{
		{
			ID: "http-sse-response-complete", Requirement: "JSONRPC-18", Area: "http",
			Description: "over HTTP, the SSE event that carries a response ends with its blank line: a client parsing the stream as the SSE standard says drops an event cut short, and the request goes unanswered",
			Judge:       func(j *J) Finding { return overHTTP(checkHTTPEventsComplete)(j) },
		},
	}
}

func checkHTTPEventsComplete(j *J) Finding {
	t := &tally{}
	for _, x := range httpExchanges(j) {
		if !x.SSE() || len(x.Events) == 0 {
			continue
		}
		t.judged()
		for _, ev := range x.Events {
			if !ev.Unterminated {
				continue
			}
			for _, m := range ev.Msgs {
				switch {
				case m == nil:
				case m.Kind() == wire.KindResponse:
					t.violate(At(x.Process, ev.Seq), "the stream of %s ended inside the event carrying the response (id %s), before its blank line: a client parsing the stream as the SSE standard says drops the event, so the request is never answered", httpWhat(x), m.ID)
				default:
					t.record(At(x.Process, ev.Seq), "the stream of %s ended inside an event carrying %s %s, before its blank line: a client drops it", httpWhat(x), m.Kind(), m.Method)
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d SSE stream(s), every event carrying a message complete", t.n), "no SSE stream carried events")
}
