package mockserver

import (
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// The serve loop (loop.go) and a transport meet at conn. The transport
// cuts what the client sends into frames and writes what the server
// sends; the loop reads frames and answers them, and never sees a byte
// stream. Over stdio (stdio.go) a frame is a line and a message goes out
// as a line. Over Streamable HTTP a frame would be a POST body, and a
// message would go out as that POST's JSON response or as an event of an
// SSE stream: that is why what goes out is whole messages, each naming
// the frame that was being answered when it was written, never bytes of
// one stream.
//
// The faults of a transport's own framing (over stdio: a byte order mark,
// "\r\n" endings, blank lines, writes in pieces, input read as a stream
// of values) are the transport's to apply; the server asks for the rest
// of its malformed output through raw and endless (a banner, a line
// without its newline, a flood, a line that never ends).

// conn is one client connection as the serve loop sees it. The loop calls
// next from one goroutine at a time; the writes may come from several
// (the flood faults write beside the loop), and each is whole.
type conn interface {
	// next waits for the client's next frame. It returns io.EOF at the
	// end of the input; any other error ends the session, and says what
	// failed.
	next() (frame, error)
	// send writes one message: a response, a notification, a request or
	// a batch.
	send(m outFrame)
	// raw writes bytes that are no message as a frame of their own (a
	// banner, a log line, garbage, a flood); terminate false leaves the
	// frame open (over stdio, a line without its newline).
	raw(b []byte, terminate bool)
	// endless writes head, then chunk again and again, pause apart, as
	// one frame that never ends. It keeps the connection, so that nothing
	// else gets out, until a write fails.
	endless(head, chunk []byte, pause time.Duration)
	// failed returns the first write that failed, saying what failed, or
	// nil. Every write after it is dropped.
	failed() error
}

// frame is one unit of what the client sent, as it arrived: over stdio a
// line, with what wire.LineReader saw of its framing. Raw is the frame
// without its delimiter and Len its length; a frame over the transport's
// limit (maxLine over stdio) is oversize: skipped, not held (Raw is only
// its start), and answered with -32600.
type frame struct {
	seq int // 1 for the connection's first frame, then 2, 3, ...
	*wire.Line
}

// tooLong reports whether the frame was over the transport's limit.
func (f frame) tooLong() bool { return f.Has(wire.IssueOversize) }

// outFrame is one message on its way to the client.
type outFrame struct {
	data   []byte
	pretty bool // written indented over several lines (the pretty-print fault)
	// re is the seq of the frame being answered when the message was
	// written (0: none yet). Over stdio it changes nothing; over HTTP it
	// names the POST whose response the message can go in.
	re int
}
