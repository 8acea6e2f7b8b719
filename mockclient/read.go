package mockclient

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// Inbound is one message the server sent that was not a matched response:
// a notification, a server-to-client request, or an unmatched response.
type Inbound struct {
	Msg *wire.Message
	Seq int
}

// testHookNextLine, when set (by tests), runs before the reader takes
// each frame.
var testHookNextLine atomic.Pointer[func()]

// readLoop records every frame the server sends, then routes its
// messages: answers to their requests, the rest to the inbound list.
func (c *Client) readLoop() {
	defer close(c.readDone)
	// Frames that arrived together are all recorded before any is acted
	// on: a waiter woken by the first (the initialize answer, say) then
	// finds in the transcript what the server wrote right after it, before
	// the client's next frame, whatever the goroutines' timing.
	type arrived struct {
		l    *wire.Line
		msgs []*wire.Message
		seq  int
	}
	var batch []arrived
	act := func() {
		for _, a := range batch {
			for _, m := range a.msgs {
				c.dispatch(m, a.seq)
			}
			if slices.Contains(a.l.Issues, wire.IssueTooDeep) {
				raw := a.l.Raw
				if a.l.Squeezed != nil {
					raw = a.l.Squeezed.Text
				}
				c.unreadable(raw, a.seq)
			}
		}
		batch = batch[:0]
		c.mu.Lock()
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	for {
		if hook := testHookNextLine.Load(); hook != nil {
			(*hook)()
		}
		f, err := c.conn.Read()
		if err != nil {
			if len(batch) > 0 {
				act()
			}
			if !errors.Is(err, io.EOF) {
				c.Note(err.Error())
			}
			return
		}
		if f.Line == nil {
			// What the transport says of requests it can no longer
			// answer comes after every frame that could have: those
			// frames are acted on first.
			if len(batch) > 0 {
				act()
			}
			if f.Unanswered != nil {
				c.unanswered(f.Unanswered)
			}
			continue
		}
		// Recorded before dispatching, so that a waiter that wakes up
		// finds it in the transcript.
		msgs, seq := c.received(f.Line, f.Events)
		batch = append(batch, arrived{f.Line, msgs, seq})
		if len(batch) < 64 && f.More {
			continue
		}
		act()
	}
}

// unanswered ends the wait of the requests an HTTP exchange carried and
// ended without answering: no answer can come any more, so no deadline
// need pass.
func (c *Client) unanswered(u *transport.Unanswered) {
	var ended []*call
	c.mu.Lock()
	for _, id := range u.IDs {
		cl, ok := c.pending[wire.IDKey(id)]
		if !ok {
			continue
		}
		delete(c.pending, wire.IDKey(cl.x.ID))
		delete(c.loose, wire.LooseIDKey(cl.x.ID))
		cl.x.Err = fmt.Errorf("%w: %s", ErrExchangeEnded, u.Why)
		ended = append(ended, cl)
	}
	c.mu.Unlock()
	for _, cl := range ended {
		c.noResponse(cl.x, transcript.ReasonExchangeEnded, 0, u.Why)
		close(cl.done)
	}
}

// unreadable ends the wait of the request a line too deeply nested to
// decode names by its top-level id: the answer came, and the harness
// cannot read it, so no deadline need pass.
func (c *Client) unreadable(raw []byte, seq int) {
	id, ok := wire.TopLevelMember(raw, "id")
	if !ok {
		return
	}
	c.mu.Lock()
	cl, ok := c.pending[wire.IDKey(id)]
	if ok {
		delete(c.pending, wire.IDKey(cl.x.ID))
		delete(c.loose, wire.LooseIDKey(cl.x.ID))
		cl.x.Err = fmt.Errorf("%w: nested deeper than %d levels", ErrUnreadable, wire.MaxDepth)
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	c.noResponse(cl.x, transcript.ReasonUnreadable, 0, fmt.Sprintf("line %d nests deeper than %d levels", seq, wire.MaxDepth))
	close(cl.done)
}

func (c *Client) dispatch(m *wire.Message, seq int) {
	switch m.Kind() {
	case wire.KindResponse:
		if m.ID != nil {
			c.mu.Lock()
			cl, ok := c.pending[wire.IDKey(m.ID)]
			loose := false
			if !ok {
				cl, ok = c.loose[wire.LooseIDKey(m.ID)]
				loose = ok
			}
			if ok {
				delete(c.pending, wire.IDKey(cl.x.ID))
				delete(c.loose, wire.LooseIDKey(cl.x.ID))
				cl.x.Response, cl.x.LooseID, cl.x.RecvSeq = m, loose, seq
				c.mu.Unlock()
				close(cl.done)
				return
			}
			c.mu.Unlock()
		}
	case wire.KindRequest:
		if seq >= 0 {
			c.answerServerRequest(m)
		}
	}
	if seq < 0 {
		// Past the transcript's budget (a flood): the line is counted, not
		// kept, here either; the process is being stopped.
		return
	}
	c.mu.Lock()
	c.inbound = append(c.inbound, &Inbound{Msg: m, Seq: seq})
	c.mu.Unlock()
}

// WaitInbound waits until an unmatched message with sequence number >= from
// satisfies pred, the timeout passes, or the server ends.
func (c *Client) WaitInbound(from int, timeout time.Duration, pred func(*wire.Message) bool) *Inbound {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if in := c.findInbound(from, pred); in != nil {
			return in
		}
		select {
		case <-ch:
		case <-deadline.C:
			return nil
		case <-c.conn.Done():
			// The server has ended: wait until its output is read to the
			// end (a descendant may still hold it), then take one last look.
			select {
			case <-ch:
				continue
			case <-c.readDone:
				return c.findInbound(from, pred)
			case <-deadline.C:
				return nil
			}
		}
	}
}

// findInbound returns the first inbound message from seq on that pred
// accepts, or nil.
func (c *Client) findInbound(from int, pred func(*wire.Message) bool) *Inbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, in := range c.inbound {
		if in.Seq >= from && pred(in.Msg) {
			return in
		}
	}
	return nil
}
