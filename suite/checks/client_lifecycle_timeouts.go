package checks

import (
	"fmt"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// clientTimeoutChecks judge what a client does with a request the server
// does not answer (LIFE-15).
func clientTimeoutChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-cancels-abandoned-requests", Requirement: "LIFE-15", Area: "lifecycle",
			Description: "a request the client gives up on (its deadline passed, or it shuts down) is cancelled with notifications/cancelled naming its id",
			Versions:    versionsFrom("2025-03-26"),
			Judge:       checkClientCancelsAbandoned,
		},
	}
}

// unawaited lists the requests whose answer nothing waits for, or that
// the spec forbids to cancel: initialize (LIFE-12), a listen stream (open
// until the client is done), and the server/discover probe (a dual-era
// client falls back to initialize when it times out).
var unawaited = map[string]bool{"initialize": true, "subscriptions/listen": true, "server/discover": true}

// checkClientCancelsAbandoned judges every request left unanswered when
// the client ended the spawn (closed its stdin, or exited), an answer
// that came only after that included: one not cancelled was abandoned
// without a word. A request still pending when
// the harness stopped the client shows no deadline of the client's within
// the scenario's window, and one pending when the server exited first was
// not the client's to abandon: neither is judged.
func checkClientCancelsAbandoned(j *ClientJ) Finding {
	t := &tally{}
	client := j.Scenario.Client
	j.each(func(v *spawnView) {
		s := v.shutdown()
		end := s.eof
		if end < 0 && s.exit != nil && s.exit.Stage != transcript.BeforeShutdown {
			end = s.exitSeq
		}
		for _, r := range v.requests {
			answered := r.resp != nil && (end < 0 || r.respSeq < end)
			if answered || unawaited[r.msg.Method] || !v.isCall(r, j.Version) || v.refusedOverHTTP(r.seq) {
				continue
			}
			switch {
			case r.cancelled != nil:
				t.judged()
			case j.Version == wire.Modern && v.streamClosed(r.seq):
				// "on Streamable HTTP, closing the SSE response stream is
				// itself the cancellation signal" (2026-07-28)
				t.judged()
			case s.exit != nil && s.exit.Stage == transcript.BeforeShutdown && (s.eof < 0 || s.exitSeq < s.eof):
				t.unexercise("spawn %d exited with %s (id %s) pending", v.sp.ID, r.msg.Method, clipJSON(r.msg.ID, 40))
			case client.Stopped != "" || s.harness || end < 0 && client.Exit == nil:
				t.unexercise("%s (id %s) was still pending when the harness stopped the client: no deadline of the client's passed within the scenario's window", r.msg.Method, clipJSON(r.msg.ID, 40))
			default:
				t.judged()
				at := end
				if at < 0 {
					at = r.seq
				}
				t.violate(v.at(at), "spawn %d: the client gave up on %s (id %s) without notifications/cancelled", v.sp.ID, r.msg.Method, clipJSON(r.msg.ID, 40))
			}
		}
	})
	return t.finding(fmt.Sprintf("every request the client gave up on was cancelled (%d)", t.n), "every request of the client was answered")
}
