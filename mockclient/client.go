// Package mockclient is the reference client of mcpconform: it drives one
// MCP connection strictly (one compact JSON-RPC message per frame) and
// records every byte in both directions in a transcript. It judges
// nothing; it records facts for the suite to judge.
//
// The connection comes from a transport.Dial: Start spawns a stdio server
// (transport.Command), New takes any dial (a Unix socket, an in-memory
// pipe, a Streamable HTTP session: transport.HTTP). The client's concerns have a file each:
// the connection's life (client.go), encoding and recording what is
// written (write.go), reading, recording and routing what arrives
// (read.go), requests and their deadlines (requests.go, stalls.go), and
// the answers to what the server asks (replies.go).
package mockclient

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// Options configure a Client.
type Options struct {
	// Command, Dir, Env and StderrLines are the stdio server Start runs
	// (see transport.Command); New ignores them.
	Command []string
	Dir     string
	// Env is the server's whole environment; see transport.Environment.
	Env []string
	// StderrLines is how many stderr lines to keep (50 when zero).
	StderrLines int
	// Timeout is the default deadline of one request (10 s when zero).
	Timeout time.Duration
	// MaxMessageSize bounds one frame (64 MiB when zero). Longer frames
	// are recorded as oversize and never held whole.
	MaxMessageSize int
	// Grace is each wait of the shutdown sequence (2 s when zero).
	Grace time.Duration
	// Limits bound the transcript; a server that floods past them is
	// stopped.
	Limits transcript.Limits
	// Stalls remembers methods that went unanswered, across every client
	// sharing it (nil: this client's own).
	Stalls *Stalls
}

// Client is a connection to one server.
type Client struct {
	opts  Options
	conn  transport.Conn
	trans *transcript.Transcript

	wmu sync.Mutex // serialises recording and writing a frame

	mu        sync.Mutex
	nextID    int64
	pending   map[string]*call
	loose     map[string]*call
	inbound   []*Inbound
	changed   chan struct{}
	readDone  chan struct{} // closed when the read loop has acted on every frame
	closed    bool
	closeOnce sync.Once
	exited    bool
	replies   chan []byte // answers to server requests, written in order
	dropped   int         // server requests left unanswered by the bound
	// stuckAt is where in the server's output a frame began that held a
	// request past its deadline without ending (-1: none): while that
	// frame goes on, no answer can arrive, so requests are not sent.
	stuckAt int64
	// declared are the client capabilities of the last initialize sent:
	// a server request for one of them gets an answer, not -32601.
	declared map[string]json.RawMessage
}

// Start spawns a stdio server from opts.Command and drives it. The error
// wraps transport.ErrStart when the command cannot run.
func Start(opts Options) (*Client, error) {
	cmd := transport.Command{Argv: opts.Command, Dir: opts.Dir, Env: opts.Env, StderrLines: opts.StderrLines}
	return New(context.Background(), cmd.Dial, opts)
}

// New opens a connection with dial and drives it.
func New(ctx context.Context, dial transport.Dial, opts Options) (*Client, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxMessageSize == 0 {
		opts.MaxMessageSize = 64 << 20
	}
	if opts.Grace == 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.Stalls == nil {
		opts.Stalls = NewStalls()
	}
	trans := transcript.New(time.Now(), opts.Limits)
	conn, err := dial(ctx, transport.DialOptions{Transcript: trans, MaxFrame: opts.MaxMessageSize, Timeout: opts.Timeout})
	if err != nil {
		return nil, err
	}
	c := &Client{
		opts:     opts,
		conn:     conn,
		trans:    trans,
		nextID:   1,
		pending:  map[string]*call{},
		loose:    map[string]*call{},
		changed:  make(chan struct{}),
		readDone: make(chan struct{}),
		replies:  make(chan []byte, maxReplyQueue),
		stuckAt:  -1,
	}
	// A server that floods is stopped: the transcript keeps counts and the
	// last entries, and the checks judge what it held.
	trans.OnFlood(func(transcript.Flood) { conn.Stop() })
	go c.readLoop()
	go c.watchExit()
	go c.replyLoop()
	return c, nil
}

// Transcript returns the client's transcript.
func (c *Client) Transcript() *transcript.Transcript { return c.trans }

// Transport names the connection's transport for the evidence ("stdio").
func (c *Client) Transport() string { return c.conn.Transport() }

// process is what a connection to a server process the harness started
// adds (transport.Stdio).
type process interface {
	Pid() int
	StderrTail() []string
	StderrBytes() int64
}

// StderrTail returns the last lines the server wrote to stderr (nil with
// no server process).
func (c *Client) StderrTail() []string {
	if p, ok := c.conn.(process); ok {
		return p.StderrTail()
	}
	return nil
}

// StderrBytes returns how many bytes the server wrote to stderr.
func (c *Client) StderrBytes() int64 {
	if p, ok := c.conn.(process); ok {
		return p.StderrBytes()
	}
	return 0
}

// Pid returns the server's process id (0 with no server process).
func (c *Client) Pid() int {
	if p, ok := c.conn.(process); ok {
		return p.Pid()
	}
	return 0
}

// Done is closed when the server has ended: its process exited, or it
// closed the connection.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

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

// exitWait bounds the wait, once the server has ended, for what it wrote
// before (its last answers, and its last words on stderr, which the
// requests it left unanswered quote) to be read.
const exitWait = 200 * time.Millisecond

// readEndWait bounds the wait for the read loop to end once the
// connection is closed (closing it unblocks the read).
const readEndWait = time.Second

// watchExit fails every pending request once the server is gone and its
// output has been read (or exitWait has passed, for servers whose
// children keep stdout open).
func (c *Client) watchExit() {
	<-c.conn.Done()
	deadline := time.Now().Add(exitWait)
	select {
	case <-c.readDone:
	case <-time.After(exitWait):
	}
	info := c.conn.End(time.Until(deadline))
	ev := info.Event()
	c.trans.Event(transcript.Event{Exit: &ev})
	c.mu.Lock()
	var lost []*Exchange
	for k, cl := range c.pending {
		cl.x.Err = errExited(info)
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

// Close shuts the server down in its transport's order (for stdio, the
// spec's) and returns how it ended. Requests still pending fail with
// ErrClosed. A stdio connection then looks for strays (processes left in
// the server's group or holding its pipes: see transport.Stray), kills
// and records them. Close may be called more than once, and concurrently
// with requests.
func (c *Client) Close() transport.ExitInfo {
	c.closeOnce.Do(c.close)
	return c.conn.End(0)
}

// CloseNow is Close for a run that was interrupted: the same shutdown
// order, with short waits, so that a user's Ctrl-C ends the run within
// about two seconds whatever the server ignores.
func (c *Client) CloseNow() transport.ExitInfo {
	c.Hurry()
	return c.Close()
}

// Hurry cuts every wait of the shutdown to come, or under way: the run
// was interrupted.
func (c *Client) Hurry() { c.conn.Hurry() }

func (c *Client) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.conn.Close(c.opts.Grace)
	// Closing the connection ends the read loop: the last frames read are
	// acted on before what is still pending fails.
	select {
	case <-c.readDone:
	case <-time.After(readEndWait):
	}
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

// HTTP returns the connection's prober when it is a Streamable HTTP
// session, nil otherwise.
func (c *Client) HTTP() transport.HTTPProber {
	p, _ := c.conn.(transport.HTTPProber)
	return p
}
