// Package transcript records everything that crossed one connection to a
// server, in order: the frames the client wrote and the server wrote
// (for stdio, the lines of stdin and stdout), the server's stderr, and
// typed events of the transport and the harness (a request that got no
// response, the process's exit, a stray process, the start and end of a
// probe; for HTTP, each request, status, header, body and server-sent
// event). A transcript is plain data: it serialises to JSON and back
// without loss of what the checks judge, so a saved run can be judged
// again without any server.
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// Dir says which way an entry of a transcript went.
type Dir string

// Directions of transcript entries.
const (
	Send   Dir = "send"   // client to server (stdin)
	Recv   Dir = "recv"   // server stdout
	Stderr Dir = "stderr" // server stderr
	// Stdout is what a server wrote on its stdout where stdout carries no
	// messages: a server the harness launched and speaks to over HTTP.
	Stdout Dir = "stdout"
	Note   Dir = "note" // an event of the harness
)

// Entry is one record of a transcript.
type Entry struct {
	Seq int
	// At is the time since the process started.
	At  time.Duration
	Dir Dir
	// Data is the line as written or read, without its terminator (for a
	// note, the event as text). It is cut when it is longer than the
	// transcript keeps whole: Len is then larger than len(Data).
	Data []byte
	// Len is the full length of the line in bytes.
	Len int
	// Issues are the framing facts of a stdout line.
	Issues []wire.FrameIssue
	// Msgs are the JSON-RPC objects of a Send or Recv line: one, or the
	// items of a batch array. They are whole unless the line was cut.
	Msgs []*wire.Message
	// Batch is set when the line was a JSON array.
	Batch bool
	// Tag names what the harness sent a Send line for (a probe, a vector
	// test, discovery), so that judging can find its exchange.
	Tag string
	// Event is the typed event of a Note.
	Event *Event
}

// Has reports whether a stdout line carries the framing issue.
func (e *Entry) Has(i wire.FrameIssue) bool {
	for _, x := range e.Issues {
		if x == i {
			return true
		}
	}
	return false
}

// Clipped reports whether Data holds only the start of the line.
func (e *Entry) Clipped() bool { return len(e.Data) < e.Len }

// Limits bound what a transcript holds.
type Limits struct {
	// KeepWhole is how many bytes of lines are kept whole; later lines
	// keep their first ClipTo bytes, and their messages lose members over
	// ClipTo bytes (default 96 MiB).
	KeepWhole int64
	// ClipTo is what a line past KeepWhole keeps (default 4 KiB).
	ClipTo int
	// MaxEntries and MaxBytes bound a flood: past either, the transcript
	// keeps only counts and the last Tail entries (defaults 20,000
	// entries, 128 MiB of line bytes kept, 20). What a line past the size
	// limit does not keep does not count: the budget is the memory held.
	MaxEntries int
	MaxBytes   int64
	Tail       int
	// Pool, when set, is a budget the transcripts of one run share: a
	// server that floods every process it is started in is stopped once
	// the run has held that many lines, or that much memory for them
	// (Pool.MaxHeld), and past its bytes every transcript keeps lines
	// clipped, as past KeepWhole.
	Pool *Pool
}

// Pool is a budget of lines and of bytes kept whole, shared by the
// transcripts of a run.
type Pool struct {
	MaxEntries int64
	KeepWhole  int64
	// MaxHeld bounds the memory the run's entries hold beyond the bytes
	// kept whole (which KeepWhole bounds): each entry's record, its
	// messages, and up to ClipTo bytes of its line, as estimated by
	// entryCost. A flood of small lines costs far more than their bytes;
	// this stops it by what it costs (default 16 MiB: about 24,000 lines
	// of a notification flood, where a default run holds a few hundred).
	MaxHeld  int64
	entries  atomic.Int64
	whole    atomic.Int64
	held     atomic.Int64
	reserved atomic.Int64 // set aside for lines still arriving (Reserve)
}

// NewPool returns a pool of maxEntries lines and keepWhole bytes kept
// whole, holding at most 16 MiB besides (see MaxHeld).
func NewPool(maxEntries, keepWhole int64) *Pool {
	return &Pool{MaxEntries: maxEntries, KeepWhole: keepWhole, MaxHeld: 16 << 20}
}

// over reports whether the pool's lines are spent, and how.
func (p *Pool) over() string {
	switch {
	case p == nil:
		return ""
	case p.entries.Load() >= p.MaxEntries:
		return fmt.Sprintf("more than %d lines in all the run's processes", p.MaxEntries)
	case p.MaxHeld > 0 && p.held.Load() >= p.MaxHeld:
		return fmt.Sprintf("more than %d MiB held for the lines of all the run's processes", p.MaxHeld>>20)
	}
	return ""
}

// Estimates of what an entry holds besides its line's bytes: the record
// in the transcript's slice, and per message its decoded form, its
// members and the client's note of it. They err high: a notification
// flood stopped at 16 MiB by them held about 13 MiB (550 bytes a line of
// 95 bytes; see docs/performance.md).
const (
	entryOverhead   = 208
	messageOverhead = 400
)

// entryCost estimates the memory e holds, counting at most clipTo bytes
// of its line (the rest is counted as kept whole).
func entryCost(e *Entry, clipTo int) int64 {
	n := entryOverhead + min(len(e.Data), clipTo)
	for _, m := range e.Msgs {
		n += messageOverhead
		if m != nil && e.Clipped() {
			n += min(len(m.Raw), clipTo) // a slim copy of its own
		}
	}
	return int64(n)
}

// full reports whether keeping n more bytes whole passes the pool, with
// what lines still arriving have set aside.
func (p *Pool) full(n int64) bool {
	return p != nil && p.whole.Load()+p.reserved.Load()+n > p.KeepWhole
}

func (l Limits) withDefaults() Limits {
	if l.KeepWhole == 0 {
		l.KeepWhole = 96 << 20
	}
	if l.ClipTo == 0 {
		l.ClipTo = 4 << 10
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = 20_000
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = 128 << 20
	}
	if l.Tail == 0 {
		l.Tail = 20
	}
	return l
}

// Transcript is the ordered record of one server process. It is safe for
// concurrent use.
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	limits  Limits
	entries []Entry
	kept    int64 // bytes of Data held whole so far
	// reserved is what the stdout line arriving has set aside in the
	// pool (Reserve); it is given back when the line is added.
	reserved int64
	total    int64 // bytes of every line recorded or dropped
	flood    *Flood
	tail     []Entry // while flooded: the latest entries, oldest first
	onFlood  func(Flood)
}

// Flood counts what a transcript dropped once it was over its limits.
type Flood struct {
	// Dropped is how many entries were not kept, and Bytes their size.
	Dropped int
	Bytes   int64
	// Reason names the limit that was passed.
	Reason string
}

// New returns an empty transcript whose times count from start.
func New(start time.Time, limits Limits) *Transcript {
	return &Transcript{start: start, limits: limits.withDefaults()}
}

// OnFlood registers f to be called once, when the transcript first passes
// its flood limits (the caller typically stops the process).
func (t *Transcript) OnFlood(f func(Flood)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onFlood = f
}

// Add records an entry and returns its sequence number (-1 when a flood
// dropped it). It takes ownership of e.Data and e.Msgs.
func (t *Transcript) Add(e Entry) int { return t.AddAfter(nil, e) }

// AddAfter records the events, then the entry, with nothing between them
// whatever else is recorded at the same time: a transport's events that
// say what carried a frame (an HTTP request's line and header, the
// server-sent event whose data the frame is) stand right before it. It
// returns the entry's sequence number, as Add does.
func (t *Transcript) AddAfter(before []Event, e Entry) int {
	t.mu.Lock()
	for i := range before {
		t.addLocked(Entry{Dir: Note, Event: &before[i]})
	}
	seq, flooded := t.addLocked(e)
	cb := t.onFlood
	t.mu.Unlock()
	if flooded != nil && cb != nil {
		cb(*flooded)
	}
	return seq
}

// addLocked records an entry with t.mu held. When the entry is the first
// past the flood limits, it returns the flood, for the caller to report
// once t.mu is released.
func (t *Transcript) addLocked(e Entry) (int, *Flood) {
	e.At = time.Since(t.start)
	if e.Len == 0 {
		e.Len = len(e.Data)
	}
	t.total += int64(e.Len)
	if e.Dir == Recv {
		t.reserveLocked(0) // the line has arrived: it is kept, or clipped, below
	}
	var flooded *Flood
	pooled := t.limits.Pool.over()
	if t.flood == nil && e.Dir != Note &&
		(len(t.entries) >= t.limits.MaxEntries || t.kept > t.limits.MaxBytes || pooled != "") {
		reason := fmt.Sprintf("more than %d lines", t.limits.MaxEntries)
		switch {
		case t.kept > t.limits.MaxBytes:
			reason = fmt.Sprintf("more than %d MiB of lines to keep", t.limits.MaxBytes>>20)
		case pooled != "":
			reason = pooled
		}
		t.flood = &Flood{Reason: reason}
		f := *t.flood
		flooded = &f
		t.appendLocked(Entry{At: e.At, Dir: Note, Event: &Event{Budget: &Budget{What: "transcript", Limit: reason}}})
	}
	if t.flood != nil && e.Dir != Note {
		t.flood.Dropped++
		t.flood.Bytes += int64(e.Len)
		t.clipLocked(&e, true)
		t.tail = append(t.tail, e)
		if len(t.tail) > t.limits.Tail {
			t.tail = append(t.tail[:0:0], t.tail[len(t.tail)-t.limits.Tail:]...)
		}
		return -1, flooded
	}
	if t.kept+int64(len(e.Data)) > t.limits.KeepWhole || t.limits.Pool.full(int64(len(e.Data))) {
		t.clipLocked(&e, false)
	}
	t.kept += int64(len(e.Data))
	if p := t.limits.Pool; p != nil && e.Dir != Note {
		p.entries.Add(1)
		p.whole.Add(int64(len(e.Data)))
		p.held.Add(entryCost(&e, t.limits.ClipTo))
	}
	return t.appendLocked(e), flooded
}

func (t *Transcript) appendLocked(e Entry) int {
	e.Seq = len(t.entries)
	if e.Event != nil && e.Data == nil {
		e.Data = []byte(e.Event.String())
		e.Len = len(e.Data)
	}
	t.entries = append(t.entries, e)
	return e.Seq
}

// clipLocked cuts an entry to the transcript's clip size, keeping slim
// copies of its messages (members over the clip size emptied), so a cut
// entry never holds its whole line alive.
func (t *Transcript) clipLocked(e *Entry, hard bool) {
	n := t.limits.ClipTo
	if hard {
		n = min(n, 256)
	}
	if len(e.Data) > n {
		e.Data = bytes.Clone(e.Data[:n])
		for i, m := range e.Msgs {
			e.Msgs[i] = Slim(m, n)
		}
	}
}

// Event records a harness event and returns its sequence number.
func (t *Transcript) Event(ev Event) int {
	return t.Add(Entry{Dir: Note, Event: &ev})
}

// Finish closes a flood: the count of what was dropped and the last
// entries kept go at the end of the transcript. Call it once the process
// is gone.
func (t *Transcript) Finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flood == nil || t.tail == nil {
		return
	}
	f := *t.flood
	t.appendLocked(Entry{Dir: Note, Event: &Event{Budget: &Budget{What: "transcript", Limit: f.Reason, Dropped: f.Dropped, Bytes: f.Bytes}}})
	for _, e := range t.tail {
		t.appendLocked(e)
	}
	t.tail = nil
}

// Flooded returns the flood record, or nil when the transcript stayed
// within its limits.
func (t *Transcript) Flooded() *Flood {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.flood == nil {
		return nil
	}
	f := *t.flood
	return &f
}

// Entries returns the entries recorded so far. The slice is a view, not
// a copy (a flood of lines would make every call copy tens of thousands of
// entries): entries are immutable once added, and callers must not write
// to it, nor append to a reslice of it (entries[:n]), which would write
// over the transcript; slices.Concat or Slice make copies.
func (t *Transcript) Entries() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.entries[:len(t.entries):len(t.entries)]
}

// Elapsed returns the time since the process started, on the clock of
// the entries' At.
func (t *Transcript) Elapsed() time.Duration { return time.Since(t.start) }

// Len returns the number of entries so far: the sequence number the next
// entry will get.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// Slice returns a copy of the entries with sequence numbers in [from,
// to); to < 0 means to the end.
func (t *Transcript) Slice(from, to int) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if to > len(t.entries) || to < 0 {
		to = len(t.entries)
	}
	from = max(from, 0)
	if from >= to {
		return nil
	}
	return append([]Entry(nil), t.entries[from:to]...)
}

// FromEntries builds a finished transcript from recorded entries (a saved
// run, a test case); sequence numbers are renumbered in order.
func FromEntries(entries []Entry) *Transcript {
	t := New(time.Time{}, Limits{})
	for i := range entries {
		entries[i].Seq = i
	}
	t.entries = entries
	return t
}

// Slim returns m itself when its text is at most n bytes, or a copy that
// keeps its structure (every member and item, to a depth and a count)
// with the strings, numbers and deep values over n bytes emptied: a check
// can still see the shape of a clipped message, and knows from the entry
// that its values were cut.
func Slim(m *wire.Message, n int) *wire.Message {
	return slimSized(m, n, func(v []byte) int { return len(v) })
}

// slimSized is Slim with the size of a value given by size: a squeezed
// line's text is shorter than the line it stands for.
func slimSized(m *wire.Message, n int, size func([]byte) int) *wire.Message {
	if m == nil || size(m.Raw) <= n {
		return m
	}
	raw := slimValue(m.Raw, n, 0, size)
	c, err := wire.DecodeMessage(raw)
	if err != nil {
		return m
	}
	return c
}

// SlimLine returns the messages of a squeezed stdout line as the
// transcript keeps those of a line it clips (see Slim), and whether the
// line is a batch: the same copies a whole line would have given.
func (t *Transcript) SlimLine(sq *wire.Squeezed) ([]*wire.Message, bool) {
	if sq == nil || sq.Value == nil {
		return nil, false
	}
	msgs := wire.DecodeValidLine(sq.Value)
	for i, m := range msgs {
		msgs[i] = slimSized(m, t.limits.ClipTo, sq.Size)
	}
	return msgs, sq.Value[0] == '['
}

// Reserve reports whether a stdout line of n bytes, still arriving, may
// be kept whole, and if so sets those bytes aside in the run's pool until
// the line is added: lines growing at once in several processes share the
// pool instead of each counting on all of it. A line refused stays
// refused (nothing it is measured against shrinks) and is clipped; what
// it had set aside stays so until Reserve(0), which gives it back.
func (t *Transcript) Reserve(n int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ok := t.limits.ClipTo > wire.SqueezeAbove || // a squeezed line would lose strings a clipped one keeps
		t.flood == nil && t.kept+n <= t.limits.KeepWhole && !t.limits.Pool.full(n-t.reserved)
	// A line refused keeps what it had set aside: the reader still holds
	// those bytes while it squeezes them, and gives them back with
	// Reserve(0) once it has let go of them. Given back at once, another
	// line could set them aside again, and lines arriving at once in
	// several processes held far more than the pool.
	if ok || n == 0 {
		t.reserveLocked(n)
	}
	return ok
}

// reserveLocked sets aside n bytes for the line arriving, instead of what
// was set aside before.
func (t *Transcript) reserveLocked(n int64) {
	if p := t.limits.Pool; p != nil {
		p.reserved.Add(n - t.reserved)
	}
	t.reserved = n
}

// ClipTo returns how many bytes of a line past the budget are kept.
func (t *Transcript) ClipTo() int { return t.limits.ClipTo }

// slimValue copies a JSON value, emptying what is over n bytes below the
// structure it keeps (at most 16 levels, 256 members or items each).
func slimValue(v json.RawMessage, n, depth int, size func([]byte) int) json.RawMessage {
	if size(v) <= n {
		return bytes.Clone(v)
	}
	switch wire.Type(v) {
	case "object":
		if depth >= 16 {
			return json.RawMessage(`{}`)
		}
		out := []byte{'{'}
		i := 0
		wire.EachMember(v, func(k string, mv json.RawMessage) bool {
			if i == 256 {
				return false
			}
			if i > 0 {
				out = append(out, ',')
			}
			kb, _ := json.Marshal(k)
			out = append(append(append(out, kb...), ':'), slimValue(mv, n, depth+1, size)...)
			i++
			return true
		})
		return append(out, '}')
	case "array":
		if depth >= 16 {
			return json.RawMessage(`[]`)
		}
		out := []byte{'['}
		i := 0
		wire.EachItem(v, func(it json.RawMessage) bool {
			if i == 256 {
				return false
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, slimValue(it, n, depth+1, size)...)
			i++
			return true
		})
		return append(out, ']')
	case "string":
		return json.RawMessage(`""`)
	}
	return json.RawMessage(`0`)
}
