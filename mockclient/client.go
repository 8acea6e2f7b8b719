// Package mockclient is the reference client of mcpconform: it spawns a stdio
// server, talks to it strictly (one compact JSON-RPC message per line), and
// records every byte in both directions in a transcript. It judges nothing;
// it records facts for the suite to judge.
package mockclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Options configure a Client.
type Options struct {
	Command []string
	Dir     string
	// Env is the server's whole environment; see Environment.
	Env []string
	// Timeout is the default deadline of one request (10 s when zero).
	Timeout time.Duration
	// MaxMessageSize bounds one stdout line (64 MiB when zero). Longer lines
	// are recorded as oversize and never held whole.
	MaxMessageSize int
	// Grace is each wait of the shutdown sequence (2 s when zero).
	Grace time.Duration
	// StderrLines is how many stderr lines to keep (50 when zero).
	StderrLines int
	// Limits bound the transcript; a server that floods past them is
	// stopped.
	Limits transcript.Limits
	// Stalls remembers methods that went unanswered, across every client
	// sharing it (nil: this client's own).
	Stalls *Stalls
}

// stallLimit is how many consecutive timeouts make a method count as hung.
const stallLimit = 2

// slowLineFactor bounds how long a request waits for a line that is still
// arriving when its deadline passes: that many deadlines in all.
const slowLineFactor = 10

// maxReplyQueue bounds the answers to server-to-client requests waiting to
// be written: a server flooding requests gets no answer past it.
const maxReplyQueue = 256

// Errors an Exchange can carry.
var (
	ErrTimeout = errors.New("no response within the deadline")
	ErrExited  = errors.New("server exited")
	ErrClosed  = errors.New("client closed")
	// ErrWrite is a request whose line could not be written to the
	// server's stdin (it had exited, say): the server never got it.
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

// Stalls remembers methods that went unanswered, across the clients of a
// run. Within one process, stallLimit consecutive timeouts of a method
// make it hung there; a method hung in stallLimit processes is hung for
// the whole run, so a server that hangs on one method costs a few request
// deadlines, not one per process. A process that stops answering
// everything (wedged by a malformed line) does not make its methods hung
// elsewhere on its own.
type Stalls struct {
	mu   sync.Mutex
	n    map[stallKey]int // consecutive timeouts per client and method
	hung map[string]map[*Client]bool
}

type stallKey struct {
	c      *Client
	method string
}

// NewStalls returns an empty record.
func NewStalls() *Stalls {
	return &Stalls{n: map[stallKey]int{}, hung: map[string]map[*Client]bool{}}
}

// isHung reports whether method is hung for c: in c itself, or in
// stallLimit processes of the run.
func (s *Stalls) isHung(c *Client, method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[stallKey{c, method}] >= stallLimit || len(s.hung[method]) >= stallLimit
}

func (s *Stalls) add(c *Client, method string, answered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stallKey{c, method}
	if answered {
		s.n[k] = 0
		return
	}
	s.n[k]++
	if s.n[k] >= stallLimit {
		if s.hung[method] == nil {
			s.hung[method] = map[*Client]bool{}
		}
		s.hung[method][c] = true
	}
}

// Client is a connection to one server process.
type Client struct {
	opts  Options
	proc  *process
	trans *transcript.Transcript
	tail  *stderrTail

	wmu sync.Mutex // serialises writes to stdin

	mu        sync.Mutex
	nextID    int64
	pending   map[string]*call
	loose     map[string]*call
	inbound   []*Inbound
	changed   chan struct{}
	stdoutEOF chan struct{}
	stderrEOF chan struct{}
	closed    bool
	closeOnce sync.Once
	strays    []Stray
	exited    bool
	lines     *wire.LineReader // stdout, read by readLoop only
	replies   chan []byte      // answers to server requests, written in order
	dropped   int              // server requests left unanswered by the bound
	hurry     bool             // CloseNow: short waits
	// stuckAt is where on stdout a line began that held a request past
	// its deadline without ending (-1: none): while that line goes on,
	// no answer can arrive, so requests are not sent.
	stuckAt int64
	// declared are the client capabilities of the last initialize sent:
	// a server request for one of them gets an answer, not -32601.
	declared map[string]json.RawMessage
}

// Inbound is one message the server sent that was not a matched response:
// a notification, a server-to-client request, or an unmatched response.
type Inbound struct {
	Msg *wire.Message
	Seq int
}

type call struct {
	x    *Exchange
	done chan struct{}
}

// Start spawns the server. The error wraps ErrStart when the command cannot run.
func Start(opts Options) (*Client, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxMessageSize == 0 {
		opts.MaxMessageSize = 64 << 20
	}
	if opts.Grace == 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.StderrLines == 0 {
		opts.StderrLines = 50
	}
	if opts.Stalls == nil {
		opts.Stalls = NewStalls()
	}
	start := time.Now()
	p, err := startProcess(opts.Command, opts.Dir, opts.Env)
	if err != nil {
		return nil, err
	}
	c := &Client{
		opts:      opts,
		proc:      p,
		trans:     transcript.New(start, opts.Limits),
		tail:      &stderrTail{max: opts.StderrLines},
		nextID:    1,
		pending:   map[string]*call{},
		loose:     map[string]*call{},
		changed:   make(chan struct{}),
		stdoutEOF: make(chan struct{}),
		stderrEOF: make(chan struct{}),
		lines:     wire.NewLineReader(p.stdout, opts.MaxMessageSize),
		replies:   make(chan []byte, maxReplyQueue),
		stuckAt:   -1,
	}
	// A line the transcript will clip is never held whole: a server that
	// answers 50 MB again and again costs the first answer kept, not one
	// more copy per answer.
	c.lines.ClipPast(c.trans.Reserve, c.trans.ClipTo())
	c.trans.OnFlood(func(transcript.Flood) {
		// A server that floods is stopped: the transcript keeps counts and
		// the last entries, and the checks judge what it held. Its end is
		// the harness's doing, not the server's.
		p.setStage(string(transcript.Stopped))
		go p.signalGroup(sigKill)
	})
	go func() {
		defer close(c.stderrEOF)
		drainStderr(p.stderr, c.tail, c.trans, 200)
	}()
	go c.readLoop()
	go c.watchExit()
	go c.replyLoop()
	return c, nil
}

// Transcript returns the client's transcript.
func (c *Client) Transcript() *transcript.Transcript { return c.trans }

// StderrTail returns the last lines the server wrote to stderr.
func (c *Client) StderrTail() []string { return c.tail.snapshot() }

// StderrBytes returns how many bytes the server wrote to stderr.
func (c *Client) StderrBytes() int64 {
	c.tail.mu.Lock()
	defer c.tail.mu.Unlock()
	return c.tail.bytes
}

// Pid returns the server's process id.
func (c *Client) Pid() int { return c.proc.cmd.Process.Pid }

// Done is closed when the server process has exited.
func (c *Client) Done() <-chan struct{} { return c.proc.done }

// ExitInfo says how the process ended, or that it is still running.
func (c *Client) ExitInfo() ExitInfo { return c.proc.exitInfo() }

// Note records a plain note for readers of the transcript (a restart, a
// probe's purpose).
func (c *Client) Note(text string) {
	c.trans.Event(transcript.Event{Text: text})
}

// Mark records the start or end of a probe's traffic.
func (c *Client) Mark(m transcript.Mark) int {
	return c.trans.Event(transcript.Event{Mark: &m})
}

// Budget records a harness limit that was reached.
func (c *Client) Budget(b transcript.Budget) {
	c.trans.Event(transcript.Event{Budget: &b})
}

// Timeout returns the default request deadline.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// NewID returns a fresh integer id the client has not used.
func (c *Client) NewID() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	return json.RawMessage(strconv.FormatInt(id, 10))
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
// of the process.
func (c *Client) Do(ctx context.Context, r Request) *Exchange {
	return c.send(ctx, r, true).Wait()
}

// Call sends a request with a fresh id and waits for its response, the
// deadline, or the end of the process.
func (c *Client) Call(ctx context.Context, method string, params any) *Exchange {
	return c.Do(ctx, Request{Method: method, Params: params})
}

// CallID is Call with an id chosen by the caller (any JSON value).
func (c *Client) CallID(ctx context.Context, id json.RawMessage, method string, params any) *Exchange {
	return c.Do(ctx, Request{ID: id, Method: method, Params: params})
}

// CallRaw writes line as is and waits for a response whose id is id.
func (c *Client) CallRaw(ctx context.Context, id json.RawMessage, method string, line []byte) *Exchange {
	return c.Do(ctx, Request{ID: id, Method: method, Line: line})
}

// CallWithin is Call with its own deadline instead of the client's default
// (initialize gets the start-up deadline, which may be longer).
func (c *Client) CallWithin(ctx context.Context, timeout time.Duration, method string, params any) *Exchange {
	return c.Do(ctx, Request{Method: method, Params: params, Timeout: timeout})
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

// noteDeclared keeps the client capabilities an initialize line declares.
func (c *Client) noteDeclared(method string, line []byte) {
	if method != "initialize" {
		return
	}
	var req struct {
		Params struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) == nil {
		c.mu.Lock()
		c.declared = req.Params.Capabilities
		c.mu.Unlock()
	}
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
		info := c.proc.exitInfo()
		x.Err = fmt.Errorf("%w (%s)", ErrExited, info)
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

// Wait waits for the response, the deadline, or the end of the process,
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
	_, seen := c.lines.Progress()
	for n := 1; ; n++ {
		select {
		case <-cl.done:
		case <-timer.C:
			if pending, read := c.lines.Progress(); pending > 0 && pending <= int64(c.opts.MaxMessageSize) && read > seen && n < slowLineFactor {
				seen = read
				timer.Reset(timeout)
				continue
			}
			waited = time.Duration(n) * timeout
			stop = fmt.Errorf("%w (%s)", ErrTimeout, waited)
			if pending, read := c.lines.Progress(); pending > 0 && (read == seen || pending > int64(c.opts.MaxMessageSize)) {
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
	if pending, read := c.lines.Progress(); pending > 0 && read-pending == c.stuckAt {
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

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.NotifyTagged("", method, params)
}

// NotifyTagged sends a notification with a tag for the transcript.
func (c *Client) NotifyTagged(tag, method string, params any) error {
	line, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	_, err = c.write(tag, line)
	return err
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

// SendRaw writes line followed by a newline, whatever it holds. Robustness
// probes use it to send what a strict client never would.
func (c *Client) SendRaw(line []byte) error {
	_, err := c.write("", line)
	return err
}

// Write is SendRaw with a tag; it returns the line's sequence number.
func (c *Client) Write(tag string, line []byte) (int, error) {
	return c.write(tag, line)
}

// CloseStdin closes the server's input without waiting.
func (c *Client) CloseStdin() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.proc.stdin.Close()
}

func (c *Client) write(tag string, line []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	e := transcript.Entry{Dir: transcript.Send, Data: line, Tag: tag}
	e.Msgs, e.Batch = wire.DecodeLine(line)
	seq := c.trans.Add(e)
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	// A server that stops reading stdin fills the pipe and would block the
	// write, and every later one, for ever: a write gets the request deadline.
	_ = c.proc.stdin.SetWriteDeadline(time.Now().Add(c.opts.Timeout))
	_, err := c.proc.stdin.Write(buf)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the server read none of it within %s (stdin is full)", c.opts.Timeout)
		c.Note("writing to stdin: " + err.Error())
	}
	return seq, err
}

func encodeRequest(id json.RawMessage, method string, params any) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	b = append(append(b, `,"method":`...), m...)
	if params != nil {
		var p []byte
		if raw, ok := params.(json.RawMessage); ok {
			p = raw
		} else if p, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encoding params: %v", err)
		}
		b = append(append(b, `,"params":`...), p...)
	}
	return append(b, '}'), nil
}

// testHookNextLine, when set (by tests), runs before the reader takes
// each line.
var testHookNextLine atomic.Pointer[func()]

func (c *Client) readLoop() {
	defer close(c.stdoutEOF)
	defer c.trans.Reserve(0) // a line cut short by the end of stdout sets nothing aside
	lr := c.lines
	// Lines that arrived together are all recorded before any is acted on:
	// a waiter woken by the first (the initialize answer, say) then finds
	// in the transcript what the server wrote right after it, before the
	// client's next line, whatever the goroutines' timing.
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
		l, err := lr.Next()
		if err != nil {
			if len(batch) > 0 {
				act()
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				c.Note("reading stdout: " + err.Error())
			}
			return
		}
		e := transcript.Entry{Dir: transcript.Recv, Data: l.Raw, Len: l.Len, Issues: l.Issues}
		var msgs []*wire.Message
		switch {
		case c.trans.Flooded() != nil:
			// Past the transcript's budget lines are only counted: no
			// need to decode them.
		case l.Value != nil:
			// classify trimmed and validated the line: decode it in place.
			msgs, e.Batch = wire.DecodeValidLine(l.Value), l.Value[0] == '['
		case l.Squeezed != nil:
			// A line the transcript clips was never held whole: its
			// messages are the slim copies the transcript keeps, and
			// dispatch gets those too.
			msgs, e.Batch = c.trans.SlimLine(l.Squeezed)
		}
		// Record the line before dispatching so a waiter that wakes up finds
		// it in the transcript. The transcript may keep slim copies;
		// dispatch gets the full messages.
		e.Msgs = slices.Clone(msgs)
		batch = append(batch, arrived{l, msgs, c.trans.Add(e)})
		if len(batch) < 64 && lr.LineBuffered() {
			continue
		}
		act()
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

// answerServerRequest answers what a server may ask of a client: ping gets
// the empty result; anything else is a method this client does not offer
// (it declares no client capabilities). Answers are queued for one writer;
// past maxReplyQueue they are dropped, and the drop is recorded once.
func (c *Client) answerServerRequest(m *wire.Message) {
	c.mu.Lock()
	declared := c.declared
	c.mu.Unlock()
	result := func(r string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + r + `}`) }
	fail := func(code int, msg string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`)
	}
	var line []byte
	switch {
	case m.Method == "ping":
		line = result(`{}`)
	case m.Method == "roots/list" && declared["roots"] != nil:
		line = result(`{"roots":[]}`)
	case m.Method == "elicitation/create" && declared["elicitation"] != nil:
		line = result(`{"action":"decline"}`)
	case m.Method == "sampling/createMessage" && declared["sampling"] != nil:
		// As a user who rejects the request (the spec's own example).
		line = fail(-1, "the conformance client declines sampling requests")
	default:
		line = fail(wire.CodeMethodNotFound, "method not found")
	}
	select {
	case c.replies <- line:
	default:
		c.mu.Lock()
		c.dropped++
		first := c.dropped == 1
		c.mu.Unlock()
		if first {
			c.Budget(transcript.Budget{What: "answers to server requests", Limit: fmt.Sprintf("%d waiting to be written; later requests were not answered", maxReplyQueue)})
		}
	}
}

// replyLoop writes the queued answers to server requests, in order, until
// the process is gone.
func (c *Client) replyLoop() {
	for {
		select {
		case line := <-c.replies:
			if _, err := c.write("", line); err != nil {
				return
			}
		case <-c.proc.done:
			return
		}
	}
}

// watchExit fails every pending request once the process is gone and its
// output has been read (or a short while has passed, for servers whose
// children keep stdout open).
func (c *Client) watchExit() {
	<-c.proc.done
	// What the server wrote before it ended is read first: its last
	// answers on stdout, and its last words on stderr, which the requests
	// it left unanswered quote.
	waitAll(200*time.Millisecond, c.stdoutEOF, c.stderrEOF)
	info := c.proc.exitInfo()
	ev := info.event()
	c.trans.Event(transcript.Event{Exit: &ev})
	c.mu.Lock()
	var lost []*Exchange
	for k, cl := range c.pending {
		cl.x.Err = fmt.Errorf("%w (%s)", ErrExited, info)
		lost = append(lost, cl.x)
		delete(c.pending, k)
		delete(c.loose, wire.LooseIDKey(cl.x.ID))
		close(cl.done)
	}
	c.exited = true
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	for _, x := range lost {
		if info.Stage == string(transcript.Stopped) {
			c.noResponse(x, transcript.ReasonStopped, 0, "the harness stopped the server: it wrote more than its transcript budget")
			continue
		}
		c.noResponse(x, transcript.ReasonExited, 0, info.String())
	}
}

// Inbound returns the unmatched messages received so far.
func (c *Client) Inbound() []*Inbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Inbound(nil), c.inbound...)
}

// WaitInbound waits until an unmatched message with sequence number >= from
// satisfies pred, the timeout passes, or the process exits.
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
		case <-c.proc.done:
			// The process has exited: wait until its stdout is read to the
			// end (a descendant may still hold it), then take one last look.
			select {
			case <-ch:
				continue
			case <-c.stdoutEOF:
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

// Close shuts the server down in the spec's order and returns how it ended.
// Requests still pending fail with ErrClosed. Then it looks for strays
// (processes left in the server's group or holding its pipes: see Stray),
// kills them and records them; Strays returns them. Close may be called
// more than once, and concurrently with requests.
func (c *Client) Close() ExitInfo {
	c.closeOnce.Do(c.close)
	return c.proc.exitInfo()
}

// CloseNow is Close for a run that was interrupted: the same shutdown
// order, with waits of hurryGrace, so that a user's Ctrl-C ends the run
// within about two seconds whatever the server ignores.
func (c *Client) CloseNow() ExitInfo {
	c.Hurry()
	return c.Close()
}

// Hurry cuts every wait of the shutdown to come, or under way, to
// hurryGrace: the run was interrupted.
func (c *Client) Hurry() {
	c.mu.Lock()
	c.hurry = true
	c.mu.Unlock()
	c.proc.hurry()
}

// hurryGrace is each wait of CloseNow's shutdown.
const hurryGrace = 200 * time.Millisecond

func (c *Client) close() {
	c.mu.Lock()
	c.closed = true
	grace, wait := c.opts.Grace, postExitWait
	if c.hurry {
		grace, wait = hurryGrace, hurryGrace
	}
	c.mu.Unlock()
	// No c.wmu here: a write blocked on a full pipe holds it, and closing
	// stdin is what unblocks that write.
	c.proc.shutdown(grace)
	// Read what the server wrote on its way out; the pipes reach EOF once
	// the last process holding them is gone.
	eof := waitAll(wait, c.stdoutEOF, c.stderrEOF)
	strays := settle(findStrays(c.proc.cmd.Process.Pid, c.proc.pipes), wait)
	for i := range strays {
		strays[i].Killed = killStray(strays[i].Pid)
		s := strays[i].event()
		c.trans.Event(transcript.Event{Stray: &s})
	}
	if len(strays) > 0 && !eof {
		eof = waitAll(wait, c.stdoutEOF, c.stderrEOF)
	}
	c.mu.Lock()
	c.strays = strays
	c.mu.Unlock()
	// Unblocks the readers if something unseen still holds the pipes.
	c.proc.stdout.Close()
	c.proc.stderr.Close()
	c.mu.Lock()
	var lost []*Exchange
	for k, cl := range c.pending {
		cl.x.Err = ErrClosed
		lost = append(lost, cl.x)
		delete(c.pending, k)
		delete(c.loose, wire.LooseIDKey(cl.x.ID))
		close(cl.done)
	}
	c.mu.Unlock()
	for _, x := range lost {
		c.noResponse(x, transcript.ReasonClosed, 0, "")
	}
	c.trans.Finish()
}

// settle drops the members of the server's group that are only dying of
// the SIGKILL the group already got, waiting at most timeout for them.
func settle(strays []Stray, timeout time.Duration) []Stray {
	deadline := time.Now().Add(timeout)
	for {
		var dying bool
		kept := strays[:0:0]
		for _, s := range strays {
			if slices.Contains(s.Holds, "process group") && !alive(s.Pid) {
				continue
			}
			kept = append(kept, s)
			dying = dying || slices.Contains(s.Holds, "process group")
		}
		strays = kept
		if !dying || time.Now().After(deadline) {
			return strays
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// postExitWait bounds each wait for the pipes to reach EOF once the
// server's process group is dead.
const postExitWait = 500 * time.Millisecond

// waitAll waits until every channel is closed or the timeout passes, and
// reports whether they all closed.
func waitAll(timeout time.Duration, chans ...chan struct{}) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, ch := range chans {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	return true
}

// Strays returns the processes Close found still running after the
// server's shutdown (nil before Close, and on systems without /proc).
func (c *Client) Strays() []Stray {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Stray(nil), c.strays...)
}
