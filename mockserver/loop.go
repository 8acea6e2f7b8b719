package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

type lineOrErr struct {
	line    []byte
	n       int
	tooLong bool
	err     error
}

func (s *server) run(ctx context.Context, in io.Reader, out io.Writer) error {
	s.startFaults(out)
	if s.faults.has("slow") {
		s.delay = newDelayedWriter(300 * time.Millisecond)
		defer s.delay.stop()
	}
	// Under the timing variants the reader may run a few lines ahead, so
	// that a line already sent is answered before a put-off one is due.
	ahead := 0
	if s.variants.has("pipelined-out-of-order") || s.variants.has("late-parse-error") || s.variants.has("slow-answers") {
		ahead = 16
	}
	if ahead == 0 && !s.faults.has("stream-decoder") {
		return s.runDirect(ctx, in)
	}
	lines := make(chan lineOrErr, ahead)
	done := make(chan struct{})
	defer close(done)
	go func() {
		if s.faults.has("stream-decoder") {
			streamValues(in, lines, done)
			return
		}
		lr := newLineReader(in, maxLine)
		for {
			line, n, tooLong, err := lr.next()
			select {
			case lines <- lineOrErr{line, n, tooLong, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		var due <-chan time.Time
		if s.timer != nil {
			due = s.timer.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-due:
			s.timer = nil
			if len(lines) == 0 {
				s.flushLater(now)
			}
			if err := s.stdoutErr(); err != nil {
				return err
			}
		case l := <-lines:
			if done, end := s.serveLine(ctx, l); done {
				return end
			}
		}
		s.rearm()
	}
}

// serveLine answers one line read from stdin, or ends the session at the
// end of stdin (l.err): done says whether the session is over, end how.
func (s *server) serveLine(ctx context.Context, l lineOrErr) (done bool, end error) {
	if l.err != nil {
		return true, s.finish(ctx, l.err)
	}
	s.handleLine(l.line, l.n, l.tooLong)
	if s.quit {
		s.drainLater(ctx)
		return true, s.out.failed()
	}
	if err := s.stdoutErr(); err != nil {
		return true, err
	}
	return false, nil
}

// stdoutErr is the first failed write to stdout, if any.
func (s *server) stdoutErr() error {
	if err := s.out.failed(); err != nil {
		return fmt.Errorf("writing stdout: %w", err)
	}
	return nil
}

// runDirect serves a session with no timing variant: one goroutine reads
// each line and answers it before reading the next, with no hand-off to
// another goroutine between them (the hand-off cost as much as the rest
// of a small read's round trip). The caller's goroutine only waits for
// the session's end or for ctx; mu keeps what the session writes inside
// Serve's call, as the loop of run does.
func (s *server) runDirect(ctx context.Context, in io.Reader) error {
	var mu sync.Mutex
	stopped := false
	ended := make(chan error, 1)
	go func() {
		lr := newLineReader(in, maxLine)
		for {
			line, n, tooLong, err := lr.next()
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			done, end := s.serveLine(ctx, lineOrErr{line, n, tooLong, err})
			mu.Unlock()
			if done {
				ended <- end
				return
			}
		}
	}()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		mu.Lock()
		stopped = true
		mu.Unlock()
		return ctx.Err()
	}
}

// streamValues is the reader of the stream-decoder fault: stdin is a
// stream of JSON values whatever its lines, each value handled as if it
// were a line; the first thing that is not JSON ends the server.
func streamValues(in io.Reader, lines chan<- lineOrErr, done <-chan struct{}) {
	dec := json.NewDecoder(in)
	for {
		var v json.RawMessage
		l := lineOrErr{err: dec.Decode(&v)}
		if l.err == nil {
			var b bytes.Buffer
			if json.Compact(&b, v) == nil {
				l.line, l.n = b.Bytes(), b.Len()
			}
		} else if l.err != io.EOF {
			l.err = fmt.Errorf("decoding the JSON stream: %w", l.err)
		}
		select {
		case lines <- l:
		case <-done:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// rearm sets the timer for the first put-off group.
func (s *server) rearm() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if due, ok := s.laterDue(); ok {
		s.timer = time.NewTimer(time.Until(due))
	}
}

// drainLater writes every put-off group when it is due, as a session
// ends; it gives up when ctx does.
func (s *server) drainLater(ctx context.Context) {
	for {
		due, ok := s.laterDue()
		if !ok {
			return
		}
		if wait := time.Until(due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		s.flushLater(due)
	}
}

// finish ends the session at the end of stdin.
func (s *server) finish(ctx context.Context, err error) error {
	if err != io.EOF {
		return fmt.Errorf("reading stdin: %w", err)
	}
	s.closeStreams()
	s.drainLater(ctx)
	if s.delay != nil {
		s.delay.stop()
	}
	if s.faults.has("partial-line-at-exit") {
		s.out.raw([]byte(`{"jsonrpc":"2.0","method":"notifications/mes`), false)
	}
	if s.faults.has("ignore-stdin-eof") {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.out.failed()
}
