package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// maxLine is the longest line the server reads; longer lines are skipped
// without being held and answered with -32600.
const maxLine = 128 << 20

// lineConn is the stdio transport: newline-delimited JSON over a byte
// stream, which is what stdin and stdout carry, and a Unix socket or a TCP
// connection too. It applies the faults of that framing: bom, crlf,
// blank-lines, chunked-writes and the indentation of pretty-print on the
// way out, stream-decoder on the way in. With a recorder it records every
// frame in and every line out.
type lineConn struct {
	*lineWriter
	lines  *wire.LineReader
	values *json.Decoder // stream-decoder: the input read as a stream of JSON values
	inName string        // what the input is, for errors: "stdin"
	rec    *recorder
	seq    int
}

// newLineConn returns the transport reading lines from in and writing
// them to out; inName and outName say what in and out are, for errors.
func newLineConn(in io.Reader, out io.Writer, inName, outName string, faults faultSet, rec *recorder) *lineConn {
	c := &lineConn{
		lineWriter: &lineWriter{w: out, name: outName, rec: rec, faults: faults},
		inName:     inName,
		rec:        rec,
	}
	if faults.has("stream-decoder") {
		c.values = json.NewDecoder(in)
	} else {
		c.lines = wire.NewLineReader(in, maxLine)
	}
	return c
}

// next returns the next line (a final line without its newline too),
// without its "\n" or "\r\n", with what the line reader saw of its
// framing. A line over maxLine is skipped: next reports it oversize, with
// its length and only its start.
func (c *lineConn) next() (frame, error) {
	if c.values != nil {
		return c.nextValue()
	}
	l, err := c.lines.Next()
	if err != nil {
		return frame{}, c.readErr(err)
	}
	c.seq++
	f := frame{seq: c.seq, Line: l}
	if f.tooLong() {
		c.rec.record("in", fmt.Appendf(nil, "(a line of %d bytes, over the %d-byte limit, was skipped)", f.Len, maxLine))
	} else {
		c.rec.record("in", f.Raw)
	}
	return f, nil
}

// nextValue is next under the stream-decoder fault: the input is a stream
// of JSON values whatever its lines, each value a frame of its own (as
// go-sdk reads stdin); the first thing that is not JSON ends the session.
func (c *lineConn) nextValue() (frame, error) {
	var v json.RawMessage
	if err := c.values.Decode(&v); err != nil {
		if err != io.EOF {
			err = fmt.Errorf("decoding the JSON stream: %w", err)
		}
		return frame{}, c.readErr(err)
	}
	c.seq++
	f := frame{seq: c.seq, Line: &wire.Line{}}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		f.Raw, f.Len = b.Bytes(), b.Len()
	}
	c.rec.record("in", f.Raw)
	return f, nil
}

// readErr is err as next returns it: io.EOF as it is, anything else
// saying what failed.
func (c *lineConn) readErr(err error) error {
	if err == io.EOF {
		return err
	}
	return fmt.Errorf("reading %s: %w", c.inName, err)
}

// lineWriter writes whole lines, one message per Write call so that
// concurrent writers never interleave, and applies the framing faults.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	name   string // what w is, for errors: "stdout"
	rec    *recorder
	faults faultSet
	wrote  bool
	err    error // the first write error; later writes are dropped
}

// send writes one message as a line; m.pretty indents it over several
// (the pretty-print fault decides which messages qualify).
func (lw *lineWriter) send(m outFrame) {
	b := m.data
	if m.pretty {
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
	if lw.err != nil {
		return fmt.Errorf("writing %s: %w", lw.name, lw.err)
	}
	return nil
}
