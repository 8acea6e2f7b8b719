package checks

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Ambient checks judge every line or message of every process judged
// under a version, not one exchange. These helpers walk them.

// eachLine yields every stdout line of the processes, whatever provoked it:
// the framing rules hold for every line a server writes.
func eachLine(j *J, yield func(p *evidence.Process, e transcript.Entry)) {
	for _, p := range j.Processes {
		for _, e := range p.Entries() {
			if e.Dir == transcript.Recv {
				yield(p, e)
			}
		}
	}
}

// eachMessage yields every message the processes wrote on stdout that no
// provocation of the suite answered: what a robustness probe provoked is
// judged by that probe alone.
func eachMessage(j *J, yield func(p *evidence.Process, e transcript.Entry, m *wire.Message)) {
	for _, p := range j.Processes {
		for _, e := range p.Entries() {
			if e.Dir != transcript.Recv || p.Provoked(e.Seq) {
				continue
			}
			for _, m := range e.Msgs {
				yield(p, e, m)
			}
		}
	}
}

// eachModernMessage is eachMessage restricted to the stretches where a
// process spoke the 2026-07-28 era.
func eachModernMessage(j *J, yield func(p *evidence.Process, e transcript.Entry, m *wire.Message)) {
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		if era, _ := p.EraAt(e.Seq); era == wire.EraModern {
			yield(p, e, m)
		}
	})
}

// eachExchange yields every exchange of the processes whose request was
// well-formed traffic (not sent inside a provocation).
func eachExchange(j *J, yield func(p *evidence.Process, x *evidence.Exchange)) {
	for _, p := range j.Processes {
		for _, x := range p.Exchanges() {
			at := x.SentSeq
			if at < 0 {
				at = x.EventSeq
			}
			if p.InProvocation(at) {
				continue
			}
			yield(p, x)
		}
	}
}

// eachErrorCode yields the integer error code of every error response to
// well-formed traffic, with the method it answered.
func eachErrorCode(j *J, yield func(p *evidence.Process, x *evidence.Exchange, code int64)) {
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		if code, ok := x.ErrorCode(); ok && !p.Provoked(x.RecvSeq) {
			yield(p, x, code)
		}
	})
}

// garbled says what the server wrote on stdout, between sending x and
// giving up on it, that could have been x's response but could not be
// read as one: a line that is no message, or a response whose id no
// request carried. Silence explained so is judged by the checks of those
// lines (framing, id echo), not as silence. "" when nothing was.
func garbled(p *evidence.Process, x *evidence.Exchange) string {
	if x.SentSeq < 0 || x.EventSeq <= x.SentSeq {
		return ""
	}
	ids := map[string]bool{}
	for _, y := range p.Exchanges() {
		ids[wire.LooseIDKey(y.ID)] = true
	}
	for _, e := range p.Transcript.Slice(x.SentSeq+1, x.EventSeq) {
		if e.Dir != transcript.Recv {
			continue
		}
		if len(e.Msgs) == 0 && len(e.Issues) > 0 && !e.Has(wire.IssueBlank) {
			return "a line that is no message (" + string(e.Issues[0]) + ")"
		}
		for _, m := range e.Msgs {
			if m.Kind() == wire.KindResponse && !wire.IsNullID(m.ID) && !ids[wire.LooseIDKey(m.ID)] {
				return "a response with id " + clipJSON(m.ID, 40) + ", which no request carried"
			}
		}
	}
	return ""
}

// modernResults yields the results of requests sent in the 2026-07-28
// envelope, in well-formed traffic.
func modernResults(j *J, yield func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage)) {
	eachExchange(j, func(p *evidence.Process, x *evidence.Exchange) {
		res := x.Result()
		if res == nil || x.Request == nil || p.Provoked(x.RecvSeq) {
			return
		}
		if v, _ := wire.EnvelopeVersion(x.Request); v != wire.Modern {
			return
		}
		yield(p, x, res)
	})
}
