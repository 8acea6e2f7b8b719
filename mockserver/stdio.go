package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// maxLine is the longest stdin line the server reads; longer lines are
// skipped and answered with -32600.
const maxLine = 128 << 20

// lineReader splits stdin into newline-delimited lines.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its "\n" (a final line without one is
// returned too). A line over max bytes is skipped: next reports its length
// and tooLong instead of its bytes.
func (lr *lineReader) next() (line []byte, n int, tooLong bool, err error) {
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			if n > lr.max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case rerr == nil:
			return bytes.TrimSuffix(line, []byte("\n")), n - 1, tooLong, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case n > 0 && errors.Is(rerr, io.EOF):
			return line, n, tooLong, nil
		default:
			return nil, 0, false, rerr
		}
	}
}

// lineWriter writes whole lines to stdout, one message per Write call so
// that concurrent writers never interleave, and applies the framing faults.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	rec    *recorder
	faults faultSet
	wrote  bool
	err    error // the first write error; later writes are dropped
}

// message writes one message. pretty asks for indented output (the
// pretty-print fault decides whether a message qualifies).
func (lw *lineWriter) message(b []byte, pretty bool) {
	if pretty {
		var ind bytes.Buffer
		if json.Indent(&ind, b, "", "  ") == nil {
			b = ind.Bytes()
		}
	}
	lw.write(b, b)
}

// raw writes bytes that are not a message (fault output) as a line of their
// own; terminate false leaves the line open.
func (lw *lineWriter) raw(b []byte, terminate bool) {
	if terminate {
		lw.write(b, b)
		return
	}
	lw.writeBytes(b, b, false)
}

func (lw *lineWriter) write(b, recorded []byte) { lw.writeBytes(b, recorded, true) }

func (lw *lineWriter) writeBytes(b, recorded []byte, terminate bool) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return
	}
	var buf bytes.Buffer
	if !lw.wrote && lw.faults.has("bom") {
		buf.WriteString("\uFEFF")
	}
	lw.wrote = true
	buf.Write(b)
	if terminate {
		if lw.faults.has("crlf") {
			buf.WriteString("\r\n")
		} else {
			buf.WriteString("\n")
		}
		if lw.faults.has("blank-lines") {
			buf.WriteString("\n")
		}
	}
	lw.rec.record("out", recorded)
	out := buf.Bytes()
	if lw.faults.has("chunked-writes") && len(out) >= 3 {
		third := len(out) / 3
		for _, part := range [][]byte{out[:third], out[third : 2*third], out[2*third:]} {
			if _, err := lw.w.Write(part); err != nil {
				lw.err = err
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		return
	}
	if _, err := lw.w.Write(out); err != nil {
		lw.err = err
	}
}

// endless writes head, then chunk again and again, pause apart, as one
// line that never ends: it keeps the writer, so no other line gets out
// (a server stuck writing), until a write fails.
func (lw *lineWriter) endless(head, chunk []byte, pause time.Duration) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for b := head; lw.err == nil; b = chunk {
		if _, err := lw.w.Write(b); err != nil {
			lw.err = err
		}
		time.Sleep(pause)
	}
}

func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}
