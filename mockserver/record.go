package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// recorder writes the Options.Record log: one JSON line per message in
// either direction. The transport records, as what it reads arrives and
// as it writes, so that a record can keep what only the transport sees.
type recorder struct {
	mu     sync.Mutex
	w      io.Writer // nil: recording is off
	closed bool      // the session ended: a goroutine still reading or writing records nothing
}

// maxRecorded caps how much of a line that is not JSON is recorded.
const maxRecorded = 1 << 20

type recordLine struct {
	T   string `json:"t"`
	Dir string `json:"dir"`
	Msg any    `json:"msg"`
}

func (r *recorder) record(dir string, line []byte) {
	if r == nil || r.w == nil {
		return
	}
	rl := recordLine{T: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\uFEFF")))
	if len(trimmed) > 0 && utf8.Valid(trimmed) && json.Valid(trimmed) {
		rl.Msg = json.RawMessage(trimmed)
	} else if len(line) > maxRecorded {
		rl.Msg = fmt.Sprintf("%s… (%d bytes in all)", line[:maxRecorded], len(line))
	} else {
		rl.Msg = string(line)
	}
	b, err := json.Marshal(rl)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	_, _ = r.w.Write(append(b, '\n'))
}

// close ends the record: it writes nothing after close returns, so that
// the caller may close the writer.
func (r *recorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
}
