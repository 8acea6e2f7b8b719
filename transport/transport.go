// Package transport is the seam between the harness and the bytes of an MCP
// connection. A Conn carries frames (one message or batch each, as it
// arrived: raw bytes and framing issues) and reports the peer's end; what
// the transport observes besides frames (a process's stderr, processes
// left behind) it records in the transcript it was given. A Dial opens a
// Conn, so the side that drives a connection never needs to know how it
// was made.
//
// Three dials exist: Command starts a server process and speaks stdio over
// its pipes, within its own process group, shut down in the order the
// spec gives for stdio; Stream frames messages as lines over any byte
// stream (a Unix socket, TCP, an in-memory pipe); HTTP opens a Streamable
// HTTP session with an endpoint (over TCP, TLS or a Unix socket), frames
// each message as a POST and records its exchanges as the transcript's
// HTTP events. Command.Launch starts a server that speaks HTTP, whose
// stdio carries no messages.
package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Conn is one connection to an MCP peer, as the side that drives it sees
// it. One goroutine reads; writes are serialised by the caller, which
// records each frame before it writes it. Its methods fall in three
// groups: frames (Write, Read, Arriving), the peer's end (Done, End), and
// ending the connection (Close, Stop, Hurry).
type Conn interface {
	// Transport names the transport for the evidence ("stdio").
	Transport() string
	// Write sends one frame: a message's bytes, which the connection
	// delimits as its transport requires. A peer that takes none of it
	// within timeout fails the write.
	Write(frame []byte, timeout time.Duration) error
	// Read returns the next frame the peer sent, whole or cut to what the
	// transcript keeps (see wire.LineReader), with its framing issues. At
	// the end of the peer's output, or once Close or Stop ended the
	// connection, it returns io.EOF; any other error says what went wrong
	// in words.
	Read() (Frame, error)
	// Arriving returns how many bytes of a frame not returned yet have
	// arrived, and how many bytes arrived in all: a deadline may wait on a
	// frame still growing. It is safe to call concurrently with Read.
	Arriving() (pending, read int64)
	// Done is closed when the peer has ended: its process exited, or it
	// closed the connection.
	Done() <-chan struct{}
	// End says how the peer ended (Exited is false while it runs). It
	// first waits, at most wait, for what the transport records besides
	// frames (a process's last words on stderr) to be recorded.
	End(wait time.Duration) ExitInfo
	// Close ends the connection in the transport's order, waiting at most
	// grace at each step, records what outlived it (stray processes), and
	// unblocks Read. It may be called once.
	Close(grace time.Duration)
	// Stop ends the peer at once for a budget of the harness (a flood):
	// its end is recorded as transcript.Stopped. It does not block.
	Stop()
	// Hurry cuts every wait of Close, under way or to come: the run was
	// interrupted.
	Hurry()
}

// Frame is one frame as it arrived.
type Frame struct {
	*wire.Line
	// More is set when another whole frame had already arrived when this
	// one was read: the next Read returns it without waiting.
	More bool
	// Events are what the transport observed that carried the frame (an
	// HTTP response's status and header before a JSON body, the
	// server-sent event whose data the frame is): the side that records
	// the frame records them right before it, with nothing between
	// (transcript.AddAfter).
	Events []transcript.Event
	// Unanswered, in a frame with no Line, names requests the connection
	// can no longer carry an answer to: the exchange that carried them
	// ended without it. It comes after every frame that exchange carried.
	Unanswered *Unanswered
}

// Unanswered names requests an HTTP exchange carried and ended without
// answering.
type Unanswered struct {
	// IDs are the ids of the requests of the exchange (some may have been
	// answered on it: only those still waiting are unanswered).
	IDs []json.RawMessage
	// Why says in words how the exchange ended.
	Why string
}

// Abandoner is a Conn that holds an exchange open per request (HTTP):
// the side that waits for a request's answer tells it when it gave up,
// so that a server which never even begins its answer does not hold a
// connection until the session ends.
type Abandoner interface {
	// Abandon says the request with id is no longer waited for: its
	// deadline passed. The exchange that carries it is closed once the
	// connection's request deadline (DialOptions.Timeout) has passed
	// since it was sent, unless a response's header came first; a
	// stream already under way is left to end as it will.
	Abandon(id json.RawMessage)
}

// Announcer is a Conn whose frames go out with events of their own: an
// HTTP request's line and header. The side that writes a frame asks for
// them first, under the same lock as the Write of that frame that
// follows, and records them right before the frame (transcript.AddAfter).
type Announcer interface {
	// Announce returns the events that carry frame, the next frame
	// written.
	Announce(frame []byte) []transcript.Event
}

// DialOptions are what a Dial gets from the side that drives the
// connection.
type DialOptions struct {
	// Transcript is where the connection records what it observes besides
	// the frames it returns; frames the transcript will not keep whole are
	// never held whole either.
	Transcript *transcript.Transcript
	// MaxFrame bounds one frame in bytes: a longer one is returned as
	// oversize, with only its start.
	MaxFrame int
	// Timeout is the deadline of one request: a transport that keeps
	// streams open after they have carried what they were for (an HTTP
	// response stream the server does not end) closes them past it.
	Timeout time.Duration
}

// Dial opens a connection.
type Dial func(ctx context.Context, opts DialOptions) (Conn, error)

// ExitInfo says how the peer of a connection ended: a server process's
// exit, or the peer closing a connection that no process of the harness
// stands behind (Hangup).
type ExitInfo struct {
	Exited bool // false if it was still running when last looked at
	Code   int  // exit status, -1 when killed by a signal
	Signal string
	// Stage is how shutdown got it to stop: "before-shutdown" (it ended on
	// its own), "stdin-eof", "sigterm", "sigkill", or "stopped" (the
	// harness ended it past a budget), as transcript.Stage.
	Stage string
	// AfterShutdown is the time from the start of shutdown to the exit.
	AfterShutdown time.Duration
	// Hurried: the shutdown's waits were cut short (the run was
	// interrupted), so how long the server took says nothing.
	Hurried bool
	// Grace is how long the harness waited after closing the peer's input
	// before it went further (SIGTERM).
	Grace time.Duration
	// Hangup: the peer closed the connection; there is no exit status.
	Hangup bool
}

// Event is the end as a transcript event.
func (e ExitInfo) Event() transcript.Exit {
	return transcript.Exit{Stage: transcript.Stage(e.Stage), Code: e.Code, Signal: e.Signal, AfterShutdown: e.AfterShutdown, Hurried: e.Hurried, Grace: e.Grace, Hangup: e.Hangup}
}

func (e ExitInfo) String() string {
	switch {
	case !e.Exited:
		return "still running"
	case e.Hangup:
		return e.Event().String()
	case e.Signal != "":
		return "killed by " + e.Signal
	default:
		return fmt.Sprintf("exit status %d", e.Code)
	}
}
