package transport

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// Stream returns a Dial that frames messages as lines over the byte stream
// open returns: a Unix socket, a TCP connection, an in-memory pipe. No
// process of the harness stands behind it: the peer ends by closing the
// stream, which is recorded as a hangup.
func Stream(open func(ctx context.Context) (io.ReadWriteCloser, error)) Dial {
	return func(ctx context.Context, opts DialOptions) (Conn, error) {
		rwc, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return &stream{lines: newLines(rwc, rwc, opts, "the connection", "the connection"), rwc: rwc, done: make(chan struct{}), hurryCh: make(chan struct{})}, nil
	}
}

// stream is a connection over a byte stream.
type stream struct {
	*lines
	rwc  io.ReadWriteCloser
	done chan struct{} // closed once the end is known

	mu      sync.Mutex
	closing time.Time // when Close began
	stage   transcript.Stage
	ended   time.Time // when the peer's output ended
	hurried bool
	hurryCh chan struct{}
	grace   time.Duration
}

func (s *stream) Transport() string { return "stream" }

func (s *stream) Read() (Frame, error) {
	f, err := s.lines.Read()
	if err != nil {
		s.mu.Lock()
		if s.ended.IsZero() {
			s.ended = time.Now()
			if s.stage == "" {
				s.stage = transcript.BeforeShutdown
			}
			close(s.done)
		}
		s.mu.Unlock()
	}
	return f, err
}

// Done is closed once the peer's output ended.
func (s *stream) Done() <-chan struct{} { return s.done }

func (s *stream) End(time.Duration) ExitInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended.IsZero() {
		return ExitInfo{}
	}
	e := ExitInfo{Exited: true, Hangup: true, Stage: string(s.stage), Hurried: s.hurried, Grace: s.grace}
	if !s.closing.IsZero() {
		e.AfterShutdown = s.ended.Sub(s.closing)
	}
	return e
}

// Stop closes the stream: the transcript passed its budget.
func (s *stream) Stop() {
	s.setStage(transcript.Stopped)
	s.rwc.Close()
}

func (s *stream) Hurry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hurried {
		s.hurried = true
		close(s.hurryCh)
	}
}

func (s *stream) setStage(st transcript.Stage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.IsZero() {
		s.closing = time.Now()
	}
	if s.stage != transcript.Stopped && s.ended.IsZero() {
		s.stage = st
	}
}

// closeWriter is a stream whose sending half closes alone (a socket).
type closeWriter interface{ CloseWrite() error }

// Close ends the peer's input first, where the stream can close one
// direction, as stdio closes stdin; it waits at most grace for the peer
// to close its end, then closes the stream.
func (s *stream) Close(grace time.Duration) {
	s.mu.Lock()
	if s.hurried {
		grace = hurryGrace
	}
	s.grace = grace
	s.mu.Unlock()
	if cw, ok := s.rwc.(closeWriter); ok {
		s.setStage(transcript.StdinEOF)
		if cw.CloseWrite() == nil {
			t := time.NewTimer(grace)
			select {
			case <-s.done:
			case <-t.C:
			case <-s.hurryCh:
			}
			t.Stop()
		}
	}
	s.setStage(transcript.Closed)
	s.rwc.Close()
}
