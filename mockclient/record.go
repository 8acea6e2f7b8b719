package mockclient

import (
	"slices"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// sentEntry is the transcript's record of a frame the client writes: the
// line as written, with the messages it decodes to.
func sentEntry(tag string, line []byte) transcript.Entry {
	e := transcript.Entry{Dir: transcript.Send, Data: line, Tag: tag}
	e.Msgs, e.Batch = wire.DecodeLine(line)
	return e
}

// received records a frame the server sent, right after the transport's
// events that carried it, and returns its messages and sequence number
// (-1 past a flood). The transcript may keep slim copies of the messages;
// the caller gets them whole.
func (c *Client) received(l *wire.Line, before []transcript.Event) ([]*wire.Message, int) {
	e := transcript.Entry{Dir: transcript.Recv, Data: l.Raw, Len: l.Len, Issues: l.Issues}
	var msgs []*wire.Message
	switch {
	case c.trans.Flooded() != nil:
		// Past the transcript's budget frames are only counted: no need
		// to decode them.
	case l.Value != nil:
		// The reader trimmed and validated the line: decode it in place.
		msgs, e.Batch = wire.DecodeValidLine(l.Value), l.Value[0] == '['
	case l.Squeezed != nil:
		// A line the transcript clips was never held whole: its messages
		// are the slim copies the transcript keeps, and dispatch gets
		// those too.
		msgs, e.Batch = c.trans.SlimLine(l.Squeezed)
	}
	e.Msgs = slices.Clone(msgs)
	return msgs, c.trans.AddAfter(before, e)
}
