package mockserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// aheadFrames is how far the reader may run ahead of the loop under a
// timing variant.
const aheadFrames = 16

// event is what the loop acts on next: a frame, the end of the input, or
// a put-off write that may be due.
type event struct {
	f   frame
	err error // the input ended (io.EOF) or failed: the session ends
	// due is set when the timer of the put-off writes fired; framesWaiting
	// says a frame had already arrived then.
	due           time.Time
	framesWaiting bool
}

// errLoopStopped is the event a reader running ahead gives the loop once
// run has returned; the loop, stopped by then, never acts on it.
var errLoopStopped = errors.New("the serve loop stopped")

// run is the session's one loop, fed by s.conn. One goroutine takes each
// event in turn and handles it under mu; the caller's goroutine only
// waits for the session's end or for ctx, and mu keeps what the session
// does inside run's call. Without a timing variant the events are the
// frames themselves, each read and answered on the same goroutine: a
// hand-off to another goroutine cost as much as the rest of a small
// read's round trip. Under one, a reader runs up to aheadFrames ahead, so
// that a frame already sent is answered before a put-off write is due.
func (s *server) run(ctx context.Context) error {
	s.startFaults()
	if s.faults.has("slow") {
		s.delay = newDelayedWriter(300 * time.Millisecond)
		defer s.delay.stop()
	}
	stop := make(chan struct{})
	defer close(stop)
	next := s.events(stop)
	var mu sync.Mutex
	stopped := false
	ended := make(chan error, 1)
	go func() {
		for {
			ev := next()
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			done, end := s.handle(ctx, ev)
			if !done {
				s.rearm()
			}
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

// putsOff reports whether a timing variant may put writes off.
func (s *server) putsOff() bool {
	return s.variants.has("pipelined-out-of-order") || s.variants.has("late-parse-error") || s.variants.has("slow-answers")
}

// events returns what gives the loop its events: s.conn itself, or, when
// writes may be put off, a reader running ahead beside the timer. The
// reader ends once stop is closed and any read it is in returns.
func (s *server) events(stop <-chan struct{}) func() event {
	if !s.putsOff() {
		return func() event {
			f, err := s.conn.next()
			return event{f: f, err: err}
		}
	}
	frames := make(chan event, aheadFrames)
	go func() {
		for {
			f, err := s.conn.next()
			select {
			case frames <- event{f: f, err: err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return func() event {
		var due <-chan time.Time
		if s.timer != nil { // set by rearm, on this goroutine
			due = s.timer.C
		}
		select {
		case ev := <-frames:
			return ev
		case now := <-due:
			return event{due: now, framesWaiting: len(frames) > 0}
		case <-stop:
			return event{err: errLoopStopped}
		}
	}
}

// handle acts on one event: done says whether the session is over, end
// how.
func (s *server) handle(ctx context.Context, ev event) (done bool, end error) {
	switch {
	case !ev.due.IsZero():
		s.timer = nil
		if !ev.framesWaiting {
			s.flushLater(ev.due)
		}
	case ev.err != nil:
		return true, s.finish(ctx, ev.err)
	default:
		s.serving = ev.f.seq
		s.handleFrame(ev.f)
		if s.quit {
			s.drainLater(ctx)
			return true, s.conn.failed()
		}
	}
	if err := s.conn.failed(); err != nil {
		return true, err
	}
	return false, nil
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

// finish ends the session at the end of the input (err io.EOF) or with a
// failed read.
func (s *server) finish(ctx context.Context, err error) error {
	if err != io.EOF {
		return err
	}
	s.closeStreams()
	s.drainLater(ctx)
	if s.delay != nil {
		s.delay.stop()
	}
	if s.faults.has("partial-line-at-exit") {
		s.conn.raw([]byte(`{"jsonrpc":"2.0","method":"notifications/mes`), false)
	}
	if s.faults.has("ignore-stdin-eof") {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.conn.failed()
}
