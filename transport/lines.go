package transport

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// lines frames messages as newline-delimited lines on a byte stream, the
// framing of stdio: each frame written is followed by a newline, and what
// arrives is split by the strict line reader, which reports what it saw
// (a CRLF, a BOM, a line over the size limit, a last line without its
// newline) and repairs nothing.
type lines struct {
	r   *wire.LineReader
	w   io.Writer
	rec *transcript.Transcript
	// in and out name the peer's input and output in what is recorded
	// ("stdin", "stdout").
	in, out string
	eof     chan struct{} // closed once Read returned an error
	eofOnce sync.Once
}

// deadliner is a stream whose writes can be given a deadline (a pipe, a
// socket).
type deadliner interface{ SetWriteDeadline(time.Time) error }

func newLines(r io.Reader, w io.Writer, opts DialOptions, in, out string) *lines {
	l := &lines{r: wire.NewLineReader(r, opts.MaxFrame), w: w, rec: opts.Transcript, in: in, out: out, eof: make(chan struct{})}
	// A line the transcript will clip is never held whole: a server that
	// answers 50 MB again and again costs the first answer kept, not one
	// more copy per answer.
	l.r.ClipPast(l.rec.Reserve, l.rec.ClipTo())
	return l
}

func (l *lines) Read() (Frame, error) {
	line, err := l.r.Next()
	if err != nil {
		// A line cut short by the end of the stream sets nothing aside.
		l.rec.Reserve(0)
		l.eofOnce.Do(func() { close(l.eof) })
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
			// The peer's output ended, or Close or Stop ended it.
			return Frame{}, io.EOF
		}
		return Frame{}, fmt.Errorf("reading %s: %w", l.out, err)
	}
	return Frame{Line: line, More: l.r.LineBuffered()}, nil
}

func (l *lines) Arriving() (pending, read int64) { return l.r.Progress() }

func (l *lines) Write(frame []byte, timeout time.Duration) error {
	buf := make([]byte, 0, len(frame)+1)
	buf = append(append(buf, frame...), '\n')
	// A peer that stops reading fills the pipe and would block the write,
	// and every later one, for ever: a write gets the request deadline.
	if d, ok := l.w.(deadliner); ok {
		_ = d.SetWriteDeadline(time.Now().Add(timeout))
	}
	_, err := l.w.Write(buf)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("the server read none of it within %s (%s is full)", timeout, l.in)
		l.rec.Event(transcript.Event{Text: "writing to " + l.in + ": " + err.Error()})
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		// "write |1: broken pipe" is how Go says it; the reader is told
		// what happened.
		err = fmt.Errorf("the server closed its %s", l.in)
	case errors.Is(err, os.ErrClosed), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrClosedPipe):
		err = fmt.Errorf("%s was already closed", l.in)
	}
	return err
}
