package mockclient

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// Direction says which way an entry of a transcript went.
type Direction string

// Directions of transcript entries.
const (
	Send   Direction = "send"   // client to server (stdin)
	Recv   Direction = "recv"   // server stdout
	Stderr Direction = "stderr" // server stderr
	Event  Direction = "event"  // something the harness observed (exit, timeout, signal)
)

// Entry is one record of a transcript.
type Entry struct {
	Seq int
	At  time.Duration // since the process started
	Dir Direction
	// Data is the bytes as written or read (without the line terminator), cut
	// to the transcript's keep limit.
	Data []byte
	// Len is the full length of the data before any cut.
	Len int
	// Line is set for Recv entries: the framing facts of the stdout line.
	Line *Line
	// Msgs holds the decoded JSON-RPC objects of a Recv or Send entry: one, or
	// several for a batch array. Very large members are replaced by empty
	// values of the same JSON type, so a transcript never holds a huge payload.
	Msgs []*Message
	// Batch is set when the line was a JSON array.
	Batch bool
}

// Transcript is the ordered record of everything that crossed the pipes of
// one server process. It is safe for concurrent use.
type Transcript struct {
	mu      sync.Mutex
	start   time.Time
	entries []Entry
	keep    int
	kept    int // bytes of Data held so far
}

// What a transcript keeps of each entry's bytes: 16 KiB, and once 32 MiB
// are held (a server flooding stdout for minutes), 256 bytes.
const (
	transcriptKeep     = 16 * 1024
	transcriptBudget   = 32 << 20
	transcriptKeepLean = 256
)

func newTranscript(start time.Time) *Transcript {
	return &Transcript{start: start, keep: transcriptKeep}
}

func (t *Transcript) add(e Entry) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.Seq = len(t.entries)
	e.At = time.Since(t.start)
	if e.Len == 0 {
		e.Len = len(e.Data)
	}
	keep := t.keep
	if t.kept >= transcriptBudget {
		keep = transcriptKeepLean
	}
	if len(e.Data) > keep {
		e.Data = append([]byte(nil), e.Data[:keep]...)
	} else {
		e.Data = append([]byte(nil), e.Data...)
	}
	t.kept += len(e.Data)
	if e.Line != nil {
		// The line's own Raw may be the whole line (50 MB for a huge
		// response): keep the framing facts with the clipped bytes only.
		l := *e.Line
		l.Raw, l.Value = e.Data, nil
		e.Line = &l
	}
	for i, m := range e.Msgs {
		e.Msgs[i] = slim(m, e.Len)
	}
	t.entries = append(t.entries, e)
	return e.Seq
}

// Entries returns a copy of the entries recorded so far.
func (t *Transcript) Entries() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Entry(nil), t.entries...)
}

// Len returns the number of entries so far.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries)
}

// Slice returns the entries with sequence numbers in [from, to).
func (t *Transcript) Slice(from, to int) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if to > len(t.entries) || to < 0 {
		to = len(t.entries)
	}
	if from < 0 {
		from = 0
	}
	if from >= to {
		return nil
	}
	return append([]Entry(nil), t.entries[from:to]...)
}

// Messages over slimLine bytes are kept in a transcript with their members
// over slimMember bytes emptied.
const (
	slimLine   = 64 * 1024
	slimMember = 4 * 1024
)

// slim returns m itself when small, or a copy whose large members are
// replaced by empty values of the same JSON type. line is the length of the
// line m came from: a small message cut from a big line (one item of a huge
// batch) is copied too, since a slice of the line would keep it all alive.
func slim(m *Message, line int) *Message {
	if m == nil || line <= slimLine && len(m.Raw) <= slimLine {
		return m
	}
	if len(m.Raw) <= slimLine {
		if c, err := decodeValid(bytes.Clone(m.Raw)); err == nil {
			return c
		}
	}
	c := &Message{Members: map[string]json.RawMessage{}, Method: m.Method}
	for k, v := range m.Members {
		if len(v) > slimMember {
			switch v[0] {
			case '{':
				v = json.RawMessage(`{}`)
			case '[':
				v = json.RawMessage(`[]`)
			case '"':
				v = json.RawMessage(`""`)
			default:
				v = json.RawMessage(`0`)
			}
		}
		c.Members[k] = bytes.Clone(v)
	}
	c.ID, c.Params, c.Result, c.Error = c.Members["id"], c.Members["params"], c.Members["result"], c.Members["error"]
	c.Raw, _ = json.Marshal(c.Members)
	return c
}
