package checks

import (
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
