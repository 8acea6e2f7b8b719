package mockclient

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// Write records line in the transcript with a tag and writes it as one
// frame, whatever it holds: robustness probes send what a strict client
// never would. It returns the line's sequence number.
func (c *Client) Write(tag string, line []byte) (int, error) {
	return c.write(tag, line)
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

// write records a frame, then writes it: the transcript's order is the
// order on the wire.
func (c *Client) write(tag string, line []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var before []transcript.Event
	if a, ok := c.conn.(transport.Announcer); ok {
		before = a.Announce(line)
	}
	seq := c.trans.AddAfter(before, sentEntry(tag, line))
	return seq, c.conn.Write(line, c.opts.Timeout)
}

// encodeRequest encodes a request, or a notification when id is nil, as
// one compact line.
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
