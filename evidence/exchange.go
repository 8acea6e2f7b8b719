package evidence

import (
	"bytes"
	"encoding/json"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Exchange is a request the client sent and what answered it, found by
// walking a process's transcript.
type Exchange struct {
	Process *Process
	Tag     string
	Method  string
	ID      json.RawMessage
	// Request is the message as sent (nil when it was never written: the
	// process was gone, or the method had hung before).
	Request *wire.Message
	SentSeq int
	// Response is what answered it, or nil.
	Response *wire.Message
	RecvSeq  int
	// LooseID is set when the response carried the id with another JSON
	// type ("7" for 7).
	LooseID bool
	// Late is set when the response came after the request's deadline had
	// passed (NoResponse then says which deadline).
	Late bool
	// Clipped is set when the transcript kept the response only in part
	// (its line was over the transcript's budget): its contents cannot be
	// judged.
	Clipped bool
	// NoResponse is why nothing answered, when the harness recorded it.
	NoResponse *transcript.NoResponse
	// EventSeq is where the harness recorded NoResponse (for a request
	// never written, the only place it has).
	EventSeq int

	// result remembers the members of Response's result: checks ask for
	// them again and again, and splitting an 8 MB list each time made
	// judging a big server slow.
	result struct {
		sync.Mutex
		of      *wire.Message
		members map[string]json.RawMessage
	}
}

// OK reports whether a response arrived.
func (x *Exchange) OK() bool { return x != nil && x.Response != nil }

// Result returns the members of a success result (nil otherwise).
func (x *Exchange) Result() map[string]json.RawMessage {
	if !x.OK() || x.Response.Has("error") {
		return nil
	}
	x.result.Lock()
	defer x.result.Unlock()
	if x.result.of != x.Response {
		x.result.of, x.result.members = x.Response, wire.Object(x.Response.Result)
	}
	// A copy: a caller may add to the map it gets.
	return maps.Clone(x.result.members)
}

// ErrorCode returns the integer code of an error response.
func (x *Exchange) ErrorCode() (int64, bool) {
	if !x.OK() {
		return 0, false
	}
	e := x.Response.DecodeError()
	if e == nil {
		return 0, false
	}
	return e.IntCode()
}

// Unanswered reports whether the exchange got no response for a reason
// that says something about the server (not an interrupted run).
func (x *Exchange) Unanswered() bool {
	return x != nil && x.Response == nil && (x.NoResponse == nil || !x.NoResponse.Harnessed())
}

// NotSent reports whether the request was never written (the process had
// exited, or the method was hung): a consequence of what went before.
func (x *Exchange) NotSent() bool {
	return x != nil && x.NoResponse != nil && x.NoResponse.NotSent
}

// Stopped reports whether the run was stopped before the exchange could
// complete: it judges nothing.
func (x *Exchange) Stopped() bool {
	return x != nil && x.Response == nil && x.NoResponse != nil && x.NoResponse.Harnessed()
}

// Reply is a response that answers no request of the client: a reply to a
// notification or to a line that was not a valid request.
type Reply struct {
	Msg *wire.Message
	Seq int
	// To is the sequence number of the client line it is taken to answer
	// (-1: none came before it).
	To int
}

// span is a stretch of a transcript [From, To] bracketed by marks.
type span struct {
	From, To int
	Mark     transcript.Mark
}

// eraChange is the start of an era at a sequence number, with the version
// it speaks.
type eraChange struct {
	Seq     int
	Era     wire.Era
	Version string
}

type exchanges struct {
	all      []*Exchange
	byTag    map[string][]*Exchange
	bySent   map[int][]*Exchange // by the seq of the line that sent them
	replies  []*Reply
	replyTo  map[int]*Reply // by the seq of the line answered
	spans    []span
	provoked map[int]bool // seqs of stdout lines a provocation answered
	eras     []eraChange
}

// Exchanges returns every request the client sent in this process, in the
// order sent.
func (p *Process) Exchanges() []*Exchange { return p.index().all }

// Tagged returns the exchanges whose tag is tag, in the order sent.
func (p *Process) Tagged(tag string) []*Exchange { return p.index().byTag[tag] }

// TaggedPrefix returns the exchanges whose tag starts with prefix.
func (p *Process) TaggedPrefix(prefix string) []*Exchange {
	var out []*Exchange
	for _, x := range p.index().all {
		if strings.HasPrefix(x.Tag, prefix) {
			out = append(out, x)
		}
	}
	return out
}

// SentAt returns the exchanges of the requests in the line sent at seq.
func (p *Process) SentAt(seq int) []*Exchange { return p.index().bySent[seq] }

// Replies returns the responses that answer no request of the client.
func (p *Process) Replies() []*Reply { return p.index().replies }

// ReplyTo returns the response taken to answer the client line at seq
// (a notification or a line that was no valid request), or nil.
func (p *Process) ReplyTo(seq int) *Reply { return p.index().replyTo[seq] }

// Provoked reports whether the stdout line at seq answers traffic the
// suite sent outside the spec on purpose: only the probe that sent it
// judges it.
func (p *Process) Provoked(seq int) bool { return p.index().provoked[seq] }

// InProvocation reports whether seq lies inside a provoking probe's marks.
func (p *Process) InProvocation(seq int) bool {
	for _, s := range p.index().spans {
		if s.Mark.Provoking && seq >= s.From && seq <= s.To {
			return true
		}
	}
	return false
}

// EraAt returns the era the process speaks at seq and the version its
// traffic is judged under there.
func (p *Process) EraAt(seq int) (wire.Era, string) {
	era, v := wire.EraNone, p.Version
	for _, c := range p.index().eras {
		if c.Seq > seq {
			break
		}
		era, v = c.Era, c.Version
	}
	return era, v
}

// MarkSpans returns the stretches bracketed by marks of the probe (or
// vector test) named, in order.
func (p *Process) MarkSpans(probe string) []span {
	var out []span
	for _, s := range p.index().spans {
		if s.Mark.Probe == probe {
			out = append(out, s)
		}
	}
	return out
}

// index returns the process's exchanges, rebuilt when the transcript has
// grown since (the executor asks while a process still runs).
func (p *Process) index() *exchanges {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	if p.Transcript != nil {
		n = p.Transcript.Len()
	}
	if p.x == nil || p.xn != n {
		p.x, p.xn = buildIndex(p), n
	}
	return p.x
}

// httpCarriers maps each message the server sent over HTTP (a Recv entry
// right after the response header or the server-sent event that carried
// it) to the client line its exchange carried: the Send entry right after
// that exchange's request, or -1 for an exchange that carried none (a GET
// stream). Entries of other transports are not in it.
func httpCarriers(entries []transcript.Entry) map[int]int {
	var out map[int]int
	sent := map[int]int{}
	for i, e := range entries {
		if i == 0 {
			continue
		}
		ev := entries[i-1].Event
		if ev == nil {
			continue
		}
		switch {
		case e.Dir == transcript.Send && ev.HTTPRequest != nil:
			sent[ev.HTTPRequest.Exchange] = e.Seq
		case e.Dir == transcript.Recv && (ev.HTTPResponse != nil || ev.SSEEvent != nil && ev.SSEEvent.Message):
			n := 0
			if ev.HTTPResponse != nil {
				n = ev.HTTPResponse.Exchange
			} else {
				n = ev.SSEEvent.Exchange
			}
			if out == nil {
				out = map[int]int{}
			}
			line, ok := sent[n]
			if !ok {
				line = -1
			}
			out[e.Seq] = line
		}
	}
	return out
}

// httpRefusals returns the messages that are the body of an HTTP error
// status answering a POST of no request (notifications or responses
// only): "If the server cannot accept the input, it MUST return an HTTP
// error status code ... The HTTP response body MAY comprise a JSON-RPC
// error response that has no id". Such a body is the transport's
// refusal, not a reply to a notification.
func httpRefusals(entries []transcript.Entry) map[int]bool {
	out := map[int]bool{}
	sent := map[int]int{}
	for i, e := range entries {
		if i == 0 {
			continue
		}
		ev := entries[i-1].Event
		switch {
		case ev == nil:
		case e.Dir == transcript.Send && ev.HTTPRequest != nil:
			sent[ev.HTTPRequest.Exchange] = e.Seq
		case e.Dir == transcript.Recv && ev.HTTPResponse != nil && ev.HTTPResponse.Status >= 400:
			line, ok := sent[ev.HTTPResponse.Exchange]
			if ok && line < len(entries) && onlyNotices(entries[line]) {
				out[e.Seq] = true
			}
		}
	}
	return out
}

// onlyNotices reports whether a client line carries notifications or
// responses, and nothing else: no request, nothing it could not read
// (whose answer is the error a malformed line gets).
func onlyNotices(e transcript.Entry) bool {
	for _, m := range e.Msgs {
		if m == nil || m.Kind() == wire.KindRequest {
			return false
		}
	}
	return len(e.Msgs) > 0
}

// readableID returns the id member of a client line when the line is an
// object that has one (whatever else is wrong with it), else nil.
func readableID(e transcript.Entry) json.RawMessage {
	if len(e.Msgs) != 1 || e.Batch {
		return nil
	}
	return e.Msgs[0].ID
}

func buildIndex(p *Process) *exchanges {
	x := &exchanges{byTag: map[string][]*Exchange{}, bySent: map[int][]*Exchange{}, replyTo: map[int]*Reply{}, provoked: map[int]bool{}}
	entries := p.Entries()
	pending := map[string]*Exchange{}
	loose := map[string]*Exchange{}
	// Client lines that may still get a reply: every provoking line (a
	// malformed line, a batch, an invalid id may get an answer without a
	// usable id), and every well-formed line that was no request (a
	// notification, which must get none).
	open := map[int]bool{}
	var openOrder []int
	begins := map[string]int{}
	provokedSent := map[int]bool{}
	inProvocation := func(seq int) bool {
		for _, s := range x.spans {
			if s.Mark.Provoking && seq >= s.From && seq <= s.To {
				return true
			}
		}
		for key, from := range begins {
			if strings.HasPrefix(key, "!") && seq >= from {
				return true
			}
		}
		return false
	}
	add := func(ex *Exchange) {
		x.all = append(x.all, ex)
		x.byTag[ex.Tag] = append(x.byTag[ex.Tag], ex)
		if ex.SentSeq >= 0 {
			x.bySent[ex.SentSeq] = append(x.bySent[ex.SentSeq], ex)
		}
	}
	flooded := false
	// Over HTTP a reply belongs to the exchange that carried it: the
	// client line it answers is that exchange's body, whatever came
	// between (see transcript/http.go).
	carried := httpCarriers(entries)
	refusals := httpRefusals(entries)
	for _, e := range entries {
		switch e.Dir {
		case transcript.Send:
			correlated := false
			for _, m := range e.Msgs {
				if m.Kind() != wire.KindRequest || wire.IsNullID(m.ID) {
					continue
				}
				if t := wire.Type(m.ID); t != "string" && t != "integer" && t != "number" {
					continue
				}
				ex := &Exchange{Process: p, Tag: e.Tag, Method: m.Method, ID: m.ID, Request: m, SentSeq: e.Seq, RecvSeq: -1}
				pending[wire.IDKey(m.ID)] = ex
				loose[wire.LooseIDKey(m.ID)] = ex
				add(ex)
				correlated = true
			}
			if inProvocation(e.Seq) {
				provokedSent[e.Seq] = true
			}
			if !correlated || provokedSent[e.Seq] || e.Batch {
				open[e.Seq] = true
				openOrder = append(openOrder, e.Seq)
			}
		case transcript.Recv:
			for _, m := range e.Msgs {
				if m.Kind() != wire.KindResponse {
					continue
				}
				if !wire.IsNullID(m.ID) {
					if ex, ok := pending[wire.IDKey(m.ID)]; ok {
						ex.Response, ex.RecvSeq = m, e.Seq
						ex.Late, ex.Clipped = ex.NoResponse != nil, e.Clipped()
						open[ex.SentSeq] = false
						delete(pending, wire.IDKey(m.ID))
						delete(loose, wire.LooseIDKey(m.ID))
						if provokedSent[ex.SentSeq] {
							x.provoked[e.Seq] = true
						}
						continue
					}
					if ex, ok := loose[wire.LooseIDKey(m.ID)]; ok {
						ex.Response, ex.RecvSeq, ex.LooseID = m, e.Seq, true
						ex.Late, ex.Clipped = ex.NoResponse != nil, e.Clipped()
						open[ex.SentSeq] = false
						delete(pending, wire.IDKey(ex.ID))
						delete(loose, wire.LooseIDKey(m.ID))
						if provokedSent[ex.SentSeq] {
							x.provoked[e.Seq] = true
						}
						continue
					}
				}
				if refusals[e.Seq] {
					continue // the transport's refusal of a notice, judged by HTTP-03
				}
				r := &Reply{Msg: m, Seq: e.Seq, To: -1}
				x.replies = append(x.replies, r)
				// A reply inside a probe's or a test's marks answers a line
				// of that span: an older line left open elsewhere does not
				// capture it.
				floor := -1
				for _, from := range begins {
					floor = max(floor, from)
				}
				pick := -2
				if line, ok := carried[e.Seq]; ok {
					// The exchange's own line, whatever became of it: a
					// reply without a usable id to a request (an id the
					// server could not read) answers it all the same.
					pick = line
				}
				if pick == -2 {
					pick = answeredLine(m, e.Seq, floor, entries, openOrder, open, provokedSent)
				}
				if pick >= 0 {
					r.To = pick
					open[pick] = false
					x.replyTo[pick] = r
					if provokedSent[pick] {
						x.provoked[e.Seq] = true
					}
				}
			}
			if inProvocation(e.Seq) {
				x.provoked[e.Seq] = true
			}
		case transcript.Note:
			if e.Event == nil {
				continue
			}
			if m := e.Event.Mark; m != nil {
				key := m.Probe + "#" + itoa(m.Item)
				if m.Provoking {
					key = "!" + key
				}
				switch m.Kind {
				case transcript.Begin:
					begins[key] = e.Seq
				case transcript.End:
					if from, ok := begins[key]; ok {
						x.spans = append(x.spans, span{From: from, To: e.Seq, Mark: *m})
						delete(begins, key)
					}
				}
			}
			if b := e.Event.Budget; b != nil && b.What == "transcript" {
				flooded = true
			}
			if n := e.Event.NoResponse; n != nil {
				var ex *Exchange
				if n.ID != nil {
					ex = pending[wire.IDKey(n.ID)]
				}
				if ex == nil || ex.Method != n.Method || n.NotSent {
					// Never written: the request exists only as this event.
					ex = &Exchange{Process: p, Tag: n.Tag, Method: n.Method, ID: n.ID, SentSeq: -1, RecvSeq: -1}
					add(ex)
				} else if n.Reason != transcript.ReasonTimeout {
					delete(pending, wire.IDKey(ex.ID))
					delete(loose, wire.LooseIDKey(ex.ID))
				}
				// A request that timed out stays pending: an answer that
				// comes later still answers it (late, which is recorded).
				nr := *n
				ex.NoResponse, ex.EventSeq = &nr, e.Seq
			}
		}
	}
	if flooded {
		// Past the transcript's budget lines are counted, not kept: a
		// request with neither an answer nor a reason for its silence may
		// have been answered there. The harness's budget decides nothing.
		for _, ex := range x.all {
			if ex.Response == nil && ex.NoResponse == nil {
				ex.NoResponse = &transcript.NoResponse{Tag: ex.Tag, Method: ex.Method, ID: ex.ID, Reason: transcript.ReasonStopped,
					Detail: "the transcript went past its budget: an answer, if any, was not kept"}
			}
		}
	}
	// A mark left open (the run ended inside a probe) spans to the end.
	for key, from := range begins {
		m := transcript.Mark{Probe: strings.TrimPrefix(key, "!"), Provoking: strings.HasPrefix(key, "!")}
		x.spans = append(x.spans, span{From: from, To: len(entries), Mark: m})
	}
	sort.Slice(x.spans, func(i, j int) bool { return x.spans[i].From < x.spans[j].From })
	x.eras = eras(p, x.all)
	return x
}

// eras finds where the process entered an era: a successful initialize
// (legacy) or a successful request in the 2026-07-28 envelope while no
// handshake had happened (modern). An era begins where the request that
// opened it was sent, not where it was answered: what the server writes
// while it answers (a ping or a log message while it answers initialize,
// which the handshake allows) already follows that era's rules.
func eras(p *Process, all []*Exchange) []eraChange {
	var out []eraChange
	cur := wire.EraNone
	for _, ex := range all {
		res := ex.Result()
		if res == nil {
			continue
		}
		at := ex.SentSeq // a request with a result was written
		if ex.Method == "initialize" {
			v, _ := wire.String(res["protocolVersion"])
			out = append(out, eraChange{Seq: at, Era: wire.EraLegacy, Version: v})
			cur = wire.EraLegacy
			continue
		}
		if cur == wire.EraNone && ex.Request != nil {
			if v, ok := wire.EnvelopeVersion(ex.Request); ok && v == wire.Modern {
				out = append(out, eraChange{Seq: at, Era: wire.EraModern, Version: wire.Modern})
				cur = wire.EraModern
			}
		}
	}
	return out
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// usableID returns id when it is a request id MCP allows (a string or an
// integer), else nil. A fraction is JSON-RPC's but not MCP's: a server
// that reads ids into integers may answer it with another id (1.5 with
// 1), and that answer is still the line's own.
func usableID(id json.RawMessage) json.RawMessage {
	switch wire.Type(id) {
	case "string", "integer":
		return id
	}
	return nil
}

// answeredLine finds the client line a response that answers no request
// of the client answers, or -1.
//
// A response whose id some open line carries answers that line (the
// latest, if several). Otherwise it answers a line whose id could not be
// used (a server may even invent one): an open provoking line before it,
// the earliest, since a server answers lines in order, preferring the
// kind its code names (-32700 a line that is not JSON, other codes a line
// that is JSON with an unusable id); else a batch line answered as a
// whole; else, for a response without an id, the latest notification
// before it (a reply to a notification follows it). Only lines at or
// after floor count (the start of the innermost marks the response came
// in): a reply inside a test answers that test's lines. Failing all of
// these, an open provoking line before floor: a late reply to a probe.
// fitsLater reports whether a reply after seq, among the next few lines
// the server wrote, has a null or absent id and fits a provoking line
// that parsed (or did not) as JSON: -32700 for one that did not, another
// error for one that did.
func fitsLater(entries []transcript.Entry, seq int, parsed bool) bool {
	const ahead = 64
	for i := seq + 1; i < len(entries) && i <= seq+ahead; i++ {
		if entries[i].Dir != transcript.Recv {
			continue
		}
		for _, m := range entries[i].Msgs {
			if m.Kind() != wire.KindResponse || !wire.IsNullID(m.ID) || m.Error == nil {
				continue
			}
			code, _ := wire.Int(wire.Object(m.Error)["code"])
			if (code == wire.CodeParseError) == !parsed {
				return true
			}
		}
	}
	return false
}

func answeredLine(m *wire.Message, seq, floor int, entries []transcript.Entry, order []int, open, provoked map[int]bool) int {
	if !wire.IsNullID(m.ID) {
		pick := -1
		for _, s := range order {
			if id := readableID(entries[s]); open[s] && s <= seq && id != nil && wire.IDKey(id) == wire.IDKey(m.ID) {
				pick = s
			}
		}
		if pick >= 0 {
			return pick
		}
	}
	code, _ := wire.Int(wire.Object(m.Error)["code"])
	// provokedLine picks among the open provoking lines from lo on.
	provokedLine := func(lo int) int {
		first, fitting := -1, -1
		for _, s := range order {
			if !open[s] || s > seq || s < lo || !provoked[s] {
				continue
			}
			if usableID(readableID(entries[s])) != nil && !entries[s].Batch && !wire.IsNullID(m.ID) {
				// It had a usable id: an answer with another id is not its
				// own. A null id may be: a server that could not make sense
				// of the request may not have found its id either.
				continue
			}
			if first < 0 {
				first = s
			}
			parsed := json.Valid(bytes.TrimSpace(entries[s].Data))
			if fitting < 0 && (code == wire.CodeParseError) == !parsed {
				fitting = s
			}
		}
		if fitting >= 0 {
			return fitting
		}
		if first >= 0 && fitsLater(entries, seq, json.Valid(bytes.TrimSpace(entries[first].Data))) {
			// A reply that fits the line comes next (a -32700 after a
			// line that was not JSON): this one, unsolicited, is not its
			// answer.
			return -1
		}
		return first
	}
	if pick := provokedLine(floor); pick >= 0 {
		return pick
	}
	if wire.IsNullID(m.ID) {
		for _, s := range order {
			if open[s] && s <= seq && s >= floor && entries[s].Batch {
				return s
			}
		}
		pick := -1
		for _, s := range order {
			if open[s] && s <= seq && s >= floor && !provoked[s] && usableID(readableID(entries[s])) == nil {
				pick = s
			}
		}
		if pick >= 0 {
			return pick
		}
	}
	// A late reply, after the marks of the test that provoked it closed:
	// it still answers that provocation rather than nothing.
	return provokedLine(-1)
}
