package checks

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// clientJSONRPCChecks judge the JSON-RPC of every message a client writes
// and its answers to the server's requests (JSONRPC-*).
func clientJSONRPCChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-jsonrpc-version", Requirement: "JSONRPC-01", Area: "jsonrpc",
			Description: `every message the client writes is a JSON-RPC 2.0 object with "jsonrpc": "2.0" and the shape of a request, notification or response`,
			Judge:       checkClientEnvelope,
		},
		{
			ID: "client-request-ids", Requirement: "JSONRPC-02", Area: "jsonrpc",
			Description: "the client's requests have string or integer ids",
			Judge:       checkClientIDTypes,
		},
		{
			ID: "client-request-id-not-null", Requirement: "JSONRPC-03", Area: "jsonrpc",
			Description: "the client's requests never have a null id",
			Judge:       checkClientNullIDs,
		},
		{
			ID: "client-request-ids-unique", Requirement: "JSONRPC-04", Area: "jsonrpc",
			Description: "the client never reuses a request id within a session (2026-07-28: never while the request with that id awaits its response)",
			Judge:       checkClientIDsUnique,
		},
		{
			ID: "client-notifications-no-id", Requirement: "JSONRPC-09", Area: "jsonrpc",
			Description: "the client's notifications carry no id member",
			Judge:       checkClientNotificationIDs,
		},
		{
			ID: "client-no-batches", Requirement: "JSONRPC-12", Area: "jsonrpc",
			Description: "from 2025-06-18 on the client never writes a JSON array (batches were removed)",
			Judge:       checkClientNoBatches,
		},
		{
			ID: "client-response-ids", Requirement: "JSONRPC-05", Area: "jsonrpc",
			Description: "every response the client writes carries the id of a request the server sent and the client had not yet answered",
			Judge:       checkClientResponseIDs,
		},
		{
			ID: "client-answers-server-requests", Requirement: "JSONRPC-18", Area: "jsonrpc",
			Description: "every request the server sends (roots/list, sampling/createMessage, elicitation/create; ping is judged apart) gets a response",
			Judge:       checkClientAnswers,
		},
	}
}

// eachSent calls f with every message the client wrote in the spawns
// judged, counting each.
func eachSent(j *ClientJ, t *tally, keep func(s *sentMsg) bool, f func(v *spawnView, s *sentMsg)) {
	j.each(func(v *spawnView) {
		for _, s := range v.sent {
			if keep != nil && !keep(s) {
				continue
			}
			t.judged()
			f(v, s)
		}
	})
}

// isClientRequest keeps the requests a client wrote, leaving out a
// notification method with an id (JSONRPC-09's).
func isClientRequest(s *sentMsg) bool {
	return s.msg.Kind() == wire.KindRequest && !strings.HasPrefix(s.msg.Method, "notifications/")
}

func checkClientEnvelope(j *ClientJ) Finding {
	t := &tally{}
	eachSent(j, t, nil, func(v *spawnView, s *sentMsg) {
		if bad := envelopeRule(s.msg); bad != "" {
			t.violate(v.at(s.seq), "%s: %s", bad, clipJSON(s.msg.Raw, 120))
		}
	})
	return t.finding(fmt.Sprintf("every message is JSON-RPC 2.0 (%d)", t.n), "the client wrote no message")
}

func checkClientIDTypes(j *ClientJ) Finding {
	t := &tally{}
	eachSent(j, t, isClientRequest, func(v *spawnView, s *sentMsg) {
		switch typ := wire.Type(s.msg.ID); typ {
		case "string", "integer", "null": // a null id is JSONRPC-03's
		default:
			t.violate(v.at(s.seq), "%s with %s id %s", s.msg.Method, article(typ), clipJSON(s.msg.ID, 40))
		}
	})
	return t.finding(fmt.Sprintf("every request id is a string or an integer (%d requests)", t.n), "the client sent no request")
}

func checkClientNullIDs(j *ClientJ) Finding {
	t := &tally{}
	eachSent(j, t, isClientRequest, func(v *spawnView, s *sentMsg) {
		if wire.Type(s.msg.ID) == "null" {
			t.violate(v.at(s.seq), `%s with "id": null`, s.msg.Method)
		}
	})
	return t.finding(fmt.Sprintf("no request has a null id (%d requests)", t.n), "the client sent no request")
}

// checkClientIDsUnique judges the ids of a client's requests per spawn
// (a session; a client that reconnects starts another): never reused in
// the handshake era, from its initialize on (a server/discover probe
// before it belongs to no session); in 2026-07-28 never while the earlier
// request with that id awaits its response.
func checkClientIDsUnique(j *ClientJ) Finding {
	t := &tally{}
	modernEra := !wire.IsLegacy(j.Version)
	j.each(func(v *spawnView) {
		var earlier []*sentMsg
		started := modernEra
		for _, r := range v.requests {
			if !isClientRequest(r) {
				continue
			}
			if r.msg.Method == "initialize" {
				started = true
			}
			if !started || wire.Type(r.msg.ID) == "null" {
				continue
			}
			t.judged()
			k := wire.IDKey(r.msg.ID)
			for _, e := range earlier {
				if wire.IDKey(e.msg.ID) != k {
					continue
				}
				if !modernEra {
					t.violate(v.at(r.seq), "%s reuses the id %s of an earlier %s", r.msg.Method, clipJSON(r.msg.ID, 40), e.msg.Method)
					break
				}
				if e.resp == nil || e.respSeq > r.seq {
					t.violate(v.at(r.seq), "%s reuses the id %s of %s, which had not been answered yet", r.msg.Method, clipJSON(r.msg.ID, 40), e.msg.Method)
					break
				}
			}
			earlier = append(earlier, r)
		}
	})
	return t.finding(fmt.Sprintf("no request id was reused (%d requests)", t.n), "the client sent no request")
}

func checkClientNotificationIDs(j *ClientJ) Finding {
	t := &tally{}
	isNote := func(s *sentMsg) bool { return strings.HasPrefix(s.msg.Method, "notifications/") }
	eachSent(j, t, isNote, func(v *spawnView, s *sentMsg) {
		if s.msg.Has("id") {
			t.violate(v.at(s.seq), "%s carries an id (%s)", s.msg.Method, clipJSON(s.msg.ID, 40))
		}
	})
	return t.finding(fmt.Sprintf("no notification carries an id (%d)", t.n), "the client sent no notification")
}

func checkClientNoBatches(j *ClientJ) Finding {
	t := &tally{}
	j.eachLine(func(v *spawnView, e transcript.Entry) {
		t.judged()
		if lv := wire.LineValue(e.Data); len(lv) > 0 && lv[0] == '[' {
			t.violate(v.at(e.Seq), "a JSON array on the server's stdin in a %s session; batches are gone from 2025-06-18 on", j.Version)
		}
	})
	return t.finding(fmt.Sprintf("no batch arrays (%d lines)", t.n), "the client wrote nothing")
}

// checkClientResponseIDs judges every response the client wrote in the
// handshake era: it answers a request the server sent and the client had
// not answered yet, by its id. 2026-07-28 has no server requests: a
// response there is STDIO-15's.
func checkClientResponseIDs(j *ClientJ) Finding {
	t := &tally{}
	if !wire.IsLegacy(j.Version) {
		return skipped("2026-07-28 has no server requests: a client's response is judged by client-no-responses")
	}
	isResponse := func(s *sentMsg) bool { return s.msg.Kind() == wire.KindResponse }
	eachSent(j, t, isResponse, func(v *spawnView, s *sentMsg) {
		if s.answers == nil {
			t.violate(v.at(s.seq), "a response with the id %s, which names no request of the server awaiting an answer", clipJSON(s.msg.ID, 40))
		}
	})
	return t.finding(fmt.Sprintf("every response answers a server request by its id (%d)", t.n), "the client wrote no response")
}

// dropped reports whether the client shows it read past a server request
// it never answered: it answered a request the server sent later, or it
// acted (wrote, or closed its stdin) after a response the server wrote
// after the request. Stdout is one ordered stream: a client that read
// the later response read the request before it. Over Streamable HTTP
// each response body is a stream of its own, read in an order the record
// does not show, so only what came later on the request's own stream
// counts.
func (v *spawnView) dropped(r *serverRequest) (bool, int) {
	for _, later := range v.serverRequests {
		if later.seq > r.seq && later.answer != nil && v.sameStream(later.seq, r.seq) {
			return true, later.answer.seq
		}
	}
	var after *serverReply
	for _, rep := range v.replies {
		if rep.seq > r.seq && rep.to != nil && v.sameStream(rep.seq, r.seq) {
			after = rep
			break
		}
	}
	if after == nil {
		return false, -1
	}
	for _, s := range v.sent {
		if s.seq > after.seq {
			return true, s.seq
		}
	}
	if eof := v.shutdown().eof; eof > after.seq {
		return true, eof
	}
	return false, -1
}

// sameStream reports whether the server's messages at the entries a and
// b went out on one stream: stdout, or over HTTP the body of one
// exchange.
func (v *spawnView) sameStream(a, b int) bool {
	if !v.p.SpeaksHTTP() {
		return true
	}
	if v.streams == nil {
		v.streams = map[int]int{}
		for _, x := range v.exchanges() {
			for _, rc := range x.Received {
				v.streams[rc.Seq] = x.N
			}
		}
	}
	return v.streams[a] == v.streams[b]
}

// unansweredFinding judges a server request the client never answered:
// dropped on the evidence of what the client did after it, or not judged.
func unansweredFinding(t *tally, v *spawnView, r *serverRequest) {
	if ok, _ := v.dropped(r); ok {
		t.violate(v.at(r.seq), "the client never answered %s (id %s), though it read past it", r.msg.Method, clipJSON(r.msg.ID, 40))
		return
	}
	t.undecide(v.at(r.seq), "the client had not answered %s (id %s) when the connection ended, and nothing shows it had read it", r.msg.Method, clipJSON(r.msg.ID, 40))
}

func checkClientAnswers(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, r := range v.serverRequests {
			if r.msg.Method == "ping" {
				continue // PING-01's
			}
			t.judged()
			if r.answer == nil {
				unansweredFinding(t, v, r)
			}
		}
	})
	return t.finding(fmt.Sprintf("every server request got a response (%d)", t.n), "the server sent no request but ping")
}
