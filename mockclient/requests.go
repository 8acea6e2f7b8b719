package mockclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// slowLineFactor bounds how long a request waits for a line that is still
// arriving when its deadline passes: that many deadlines in all.
const slowLineFactor = 10

// Errors an Exchange can carry.
var (
	ErrTimeout = errors.New("no response within the deadline")
	ErrExited  = errors.New("server exited")
	ErrClosed  = errors.New("client closed")
	// ErrWrite is a request whose line could not be written to the
	// server (it had exited, say): the server never got it.
	ErrWrite = errors.New("writing request")
	// ErrHung is a request not sent because its method went unanswered
	// twice already in this run.
	ErrHung = errors.New("the method is hung")
	// ErrStopped is a request the caller's context ended: the run was
	// interrupted or reached its deadline, so nothing can be judged from it.
	// The error also matches the context's own error.
	ErrStopped = errors.New("the run was stopped")
	// ErrUnreadable is a request whose answer came nested deeper than the
	// harness decodes.
	ErrUnreadable = errors.New("the answer cannot be read")
	// ErrExchangeEnded is a request whose HTTP exchange ended without
	// its answer, with nothing left open that could carry it.
	ErrExchangeEnded = errors.New("the HTTP exchange ended without a response")
)

// Exchange is one request the client sent and what came back.
type Exchange struct {
	Tag    string
	ID     json.RawMessage
	Method string
	Sent   json.RawMessage
	// Response is the message that answered; for a line longer than the
	// transcript keeps whole, the slim copy it keeps (transcript.Slim):
	// such a line is never held whole.
	Response *wire.Message
	// LooseID is set when the response matched only after ignoring the id's
	// JSON type (the request said 7, the response "7").
	LooseID  bool
	Err      error
	Duration time.Duration
	SentSeq  int
	RecvSeq  int
}

// OK reports whether a response arrived.
func (x *Exchange) OK() bool { return x.Response != nil }

// errExited is the error of a request the server's end left unanswered.
func errExited(info transport.ExitInfo) error { return fmt.Errorf("%w (%s)", ErrExited, info) }

type call struct {
	x    *Exchange
	done chan struct{}
}

// Request is one request to send.
type Request struct {
	// Tag names the purpose of the request in the transcript.
	Tag string
	// ID is the request id; nil means a fresh integer id.
	ID     json.RawMessage
	Method string
	// Params may be nil (no params member), a json.RawMessage, or any
	// value encoding/json accepts.
	Params any
	// Line, when set, is written as is instead of an encoding of ID,
	// Method and Params (which still name the response to wait for).
	Line []byte
	// Timeout replaces the client's default deadline when positive.
	Timeout time.Duration
}

// Do sends a request and waits for its response, the deadline, or the end
// of the server.
func (c *Client) Do(ctx context.Context, r Request) *Exchange {
	return c.send(ctx, r, true).Wait()
}

// Call sends a request with a fresh id and waits for its response, the
// deadline, or the end of the server.
func (c *Client) Call(ctx context.Context, method string, params any) *Exchange {
	return c.Do(ctx, Request{Method: method, Params: params})
}

func (c *Client) noResponse(x *Exchange, reason transcript.Reason, deadline time.Duration, detail string) {
	// SentSeq is set under c.mu: the request's own goroutine may still be
	// writing it when the server's exit fails the call.
	c.mu.Lock()
	notSent := x.SentSeq < 0
	c.mu.Unlock()
	c.trans.Event(transcript.Event{NoResponse: &transcript.NoResponse{
		Tag: x.Tag, Method: x.Method, ID: x.ID, Reason: reason, Deadline: deadline, Detail: detail,
		NotSent: notSent,
	}})
}

// Pending is a request written (or refused before writing) whose
// response is still to be awaited.
type Pending struct {
	c       *Client
	ctx     context.Context
	x       *Exchange
	cl      *call // nil when the request ended before it was written
	timeout time.Duration
	start   time.Time
	stalls  bool // whether a timeout counts towards the method's hang
	once    sync.Once
}

// Send writes a request and returns without waiting: Wait gives the
// exchange Do would have. A request sent so does not count towards
// deeming its method hung (it is a probe of the process, not of the
// method).
func (c *Client) Send(ctx context.Context, r Request) *Pending {
	return c.send(ctx, r, false)
}

func (c *Client) send(ctx context.Context, r Request, stalls bool) *Pending {
	if r.ID == nil {
		r.ID = c.NewID()
	}
	if r.Timeout <= 0 {
		r.Timeout = c.opts.Timeout
	}
	line := r.Line
	if line == nil {
		var err error
		if line, err = encodeRequest(r.ID, r.Method, r.Params); err != nil {
			return &Pending{x: &Exchange{Tag: r.Tag, ID: r.ID, Method: r.Method, Err: err}}
		}
	}
	return c.begin(ctx, r.Tag, r.ID, r.Method, line, r.Timeout, stalls)
}

func (c *Client) begin(ctx context.Context, tag string, id json.RawMessage, method string, line []byte, timeout time.Duration, stalls bool) *Pending {
	c.noteDeclared(method, line)
	x := &Exchange{Tag: tag, ID: id, Method: method, Sent: line, SentSeq: -1, RecvSeq: -1}
	pd := &Pending{c: c, ctx: ctx, x: x, timeout: timeout, stalls: stalls}
	cl := &call{x: x, done: make(chan struct{})}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		x.Err = ErrClosed
		return pd
	}
	if err := ctx.Err(); err != nil {
		// The run is over (its deadline, or an interrupt): nothing more is sent.
		c.mu.Unlock()
		x.Err = fmt.Errorf("%w: not sent (%w)", ErrStopped, err)
		return pd
	}
	if c.exited {
		c.mu.Unlock()
		info := c.conn.End(0)
		x.Err = errExited(info)
		if info.Stage == string(transcript.Stopped) {
			c.noResponse(x, transcript.ReasonStopped, 0, "not sent: the harness had stopped the server (past its transcript budget)")
			return pd
		}
		c.noResponse(x, transcript.ReasonExited, 0, "before the request; "+info.String())
		return pd
	}
	if why := c.stuckLocked(); why != "" {
		c.mu.Unlock()
		x.Err = fmt.Errorf("%w (%s)", ErrHung, why)
		c.noResponse(x, transcript.ReasonHung, 0, why)
		return pd
	}
	// A server that hangs on a method would cost a full deadline per call;
	// after stallLimit consecutive timeouts anywhere in the run the method
	// is deemed hung and further calls fail at once (the verdict is the
	// same: no response).
	if stalls && c.opts.Stalls.isHung(c, method) {
		c.mu.Unlock()
		x.Err = fmt.Errorf("%w (earlier %s requests got no response within %s)", ErrHung, method, c.opts.Timeout)
		c.noResponse(x, transcript.ReasonHung, 0, "")
		return pd
	}
	c.pending[wire.IDKey(id)] = cl
	c.loose[wire.LooseIDKey(id)] = cl
	c.mu.Unlock()
	pd.start = time.Now()
	seq, err := c.write(tag, line)
	c.mu.Lock()
	x.SentSeq = seq
	c.mu.Unlock()
	if err != nil {
		if c.withdraw(cl) {
			x.Err = fmt.Errorf("%w: %w", ErrWrite, err)
			c.noResponse(x, transcript.ReasonWriteFailed, 0, err.Error())
		} else {
			<-cl.done
		}
		return pd
	}
	pd.cl = cl
	return pd
}

// Wait waits for the response, the deadline, or the end of the server,
// and returns the exchange; it may be called more than once.
func (pd *Pending) Wait() *Exchange {
	pd.once.Do(pd.wait)
	return pd.x
}

// WaitWithin is Wait with a deadline of d from now instead of the
// request's own; it has effect only on the first wait.
func (pd *Pending) WaitWithin(d time.Duration) *Exchange {
	pd.once.Do(func() {
		pd.timeout = max(d, time.Millisecond)
		pd.wait()
	})
	return pd.x
}

func (pd *Pending) wait() {
	if pd.cl == nil {
		return
	}
	c, ctx, x, cl, method, timeout := pd.c, pd.ctx, pd.x, pd.cl, pd.x.Method, pd.timeout
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stop error
	waited := timeout
	// A line still arriving when the deadline passes may be this response,
	// slowed by its size (50 MB through a pipe): wait on while it grows, up
	// to slowLineFactor deadlines in all, but only while it can still be a
	// message (a line already over the size limit cannot).
	_, seen := c.conn.Arriving()
	for n := 1; ; n++ {
		select {
		case <-cl.done:
		case <-timer.C:
			if pending, read := c.conn.Arriving(); pending > 0 && pending <= int64(c.opts.MaxMessageSize) && read > seen && n < slowLineFactor {
				seen = read
				timer.Reset(timeout)
				continue
			}
			waited = time.Duration(n) * timeout
			stop = fmt.Errorf("%w (%s)", ErrTimeout, waited)
			if pending, read := c.conn.Arriving(); pending > 0 && (read == seen || pending > int64(c.opts.MaxMessageSize)) {
				// stdout is held by a line that did not grow for a whole
				// deadline, or that can no longer be a message: nothing
				// can be answered before it ends.
				c.mu.Lock()
				c.stuckAt = read - pending
				c.mu.Unlock()
			}
		case <-ctx.Done():
			stop = fmt.Errorf("%w before the response (%w)", ErrStopped, ctx.Err())
		}
		break
	}
	if stop != nil {
		if c.withdraw(cl) {
			x.Err = stop
			if errors.Is(stop, ErrTimeout) {
				if pd.stalls {
					c.opts.Stalls.add(c, method, false)
				}
				c.noResponse(x, transcript.ReasonTimeout, waited, "")
				c.cancelTimedOut(x, waited)
				if a, ok := c.conn.(transport.Abandoner); ok {
					a.Abandon(x.ID)
				}
			} else {
				c.noResponse(x, transcript.ReasonStopped, 0, "")
			}
		} else {
			<-cl.done // completed concurrently: keep that outcome
		}
	}
	if x.Response != nil && pd.stalls {
		c.opts.Stalls.add(c, method, true)
	}
	x.Duration = time.Since(pd.start)
}

// stuckLocked says why no request can be answered now: stdout is still
// inside the line that held an earlier request past its deadline. c.mu
// is held.
func (c *Client) stuckLocked() string {
	if c.stuckAt < 0 {
		return ""
	}
	if pending, read := c.conn.Arriving(); pending > 0 && read-pending == c.stuckAt {
		return fmt.Sprintf("not sent: stdout is still inside a line that began at byte %d and kept an earlier request from its answer for a whole deadline (%d bytes so far)", c.stuckAt, pending)
	}
	c.stuckAt = -1
	return ""
}

// withdraw removes a pending call; false means it was completed meanwhile.
func (c *Client) withdraw(cl *call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := wire.IDKey(cl.x.ID)
	if c.pending[k] != cl {
		return false
	}
	delete(c.pending, k)
	delete(c.loose, wire.LooseIDKey(cl.x.ID))
	return true
}

// TagTimeoutCancel tags the notifications/cancelled the client sends for a
// request whose deadline passed.
const TagTimeoutCancel = "timeout-cancel"

// cancelTimedOut keeps the sender's side of the timeout rule (LIFE-15; on
// stdio in 2026-07-28 a MUST): a request that timed out is cancelled, so a
// server may stop working on it and owes it no response. initialize is
// never cancelled: clients MUST NOT.
func (c *Client) cancelTimedOut(x *Exchange, waited time.Duration) {
	if x.Method == "initialize" || x.SentSeq < 0 {
		return
	}
	_ = c.NotifyTagged(TagTimeoutCancel, "notifications/cancelled", map[string]any{
		"requestId": x.ID, "reason": "no response within " + waited.String(),
	})
}
