package mockserver

import (
	"bytes"
	"fmt"
	"io"
)

// SharedRecord returns an Options.Record writer for a file that other
// processes append to as well (a client that starts the mock several
// times): each JSON line gets "pid" as its first member and goes out to w
// in one write, so that lines of processes appending at once never
// interleave.
func SharedRecord(w io.Writer, pid int) io.Writer {
	return &pidLines{w: w, pid: pid}
}

// pidLines is the writer of SharedRecord.
type pidLines struct {
	w       io.Writer
	pid     int
	pending []byte
}

func (p *pidLines) Write(b []byte) (int, error) {
	p.pending = append(p.pending, b...)
	for {
		i := bytes.IndexByte(p.pending, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.pending[:i+1]
		var out []byte
		if len(line) > 1 && line[0] == '{' {
			out = fmt.Appendf(nil, `{"pid":%d,`, p.pid)
			if bytes.HasPrefix(line, []byte("{}")) {
				out = out[:len(out)-1] // {"pid":N} for an empty object
			}
			out = append(out, line[1:]...)
		} else {
			out = append([]byte(nil), line...)
		}
		p.pending = p.pending[i+1:]
		if _, err := p.w.Write(out); err != nil {
			return len(b), err
		}
	}
}
