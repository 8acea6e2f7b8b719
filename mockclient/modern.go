package mockclient

import (
	"encoding/json"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// Envelope is the per-request _meta of the 2026-07-28 protocol.
type Envelope struct {
	ProtocolVersion    string
	ClientCapabilities map[string]any
	ClientInfo         map[string]any // nil: left out
}

// Wrap returns params with the envelope merged into params._meta. Members
// already in params._meta win, so a probe can override one field. params
// may be nil, a json.RawMessage or any value encoding/json accepts; a
// params value that is not an object is returned unchanged.
func (e Envelope) Wrap(params any) (json.RawMessage, error) {
	var raw json.RawMessage
	switch p := params.(type) {
	case nil:
		raw = json.RawMessage(`{}`)
	case json.RawMessage:
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw, nil
	}
	meta := map[string]json.RawMessage{}
	if cur, ok := m["_meta"]; ok {
		if json.Unmarshal(cur, &meta) != nil {
			return raw, nil // a non-object _meta is the probe's point; keep it
		}
	}
	set := func(k string, v any) {
		if _, ok := meta[k]; ok {
			return
		}
		b, _ := json.Marshal(v)
		meta[k] = b
	}
	set(wire.MetaProtocolVersion, e.ProtocolVersion)
	caps := e.ClientCapabilities
	if caps == nil {
		caps = map[string]any{}
	}
	set(wire.MetaClientCapabilities, caps)
	if e.ClientInfo != nil {
		set(wire.MetaClientInfo, e.ClientInfo)
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	m["_meta"] = b
	return json.Marshal(m)
}

// Stream is an open subscriptions/listen request: its notifications are the
// ones whose _meta carries the listen request's id as subscriptionId.
type Stream struct {
	c   *Client
	ID  json.RawMessage
	Seq int // transcript position of the listen request
}

// Listen sends a subscriptions/listen request and returns at once: the
// response comes only when the stream ends, so nothing waits for it.
func (c *Client) Listen(id json.RawMessage, params json.RawMessage) (*Stream, error) {
	return c.ListenTagged("", id, params)
}

// ListenTagged is Listen with a tag for the transcript.
func (c *Client) ListenTagged(tag string, id json.RawMessage, params json.RawMessage) (*Stream, error) {
	line, err := encodeRequest(id, "subscriptions/listen", params)
	if err != nil {
		return nil, err
	}
	seq, err := c.Write(tag, line)
	if err != nil {
		return nil, err
	}
	return &Stream{c: c, ID: id, Seq: seq}, nil
}

// Belongs reports whether m is tagged for this stream: same JSON type and
// value as the listen request's id.
func (s *Stream) Belongs(m *wire.Message) bool {
	id := wire.SubscriptionID(m)
	return id != nil && wire.IDKey(id) == wire.IDKey(s.ID)
}

// WaitFor waits for a stream notification of the given method.
func (s *Stream) WaitFor(method string, timeout time.Duration) *Inbound {
	return s.c.WaitInbound(s.Seq, timeout, func(m *wire.Message) bool {
		return m.Method == method && s.Belongs(m)
	})
}

// Cancel ends the stream from the client side with notifications/cancelled.
func (s *Stream) Cancel() error { return s.CancelTagged("") }

// CancelTagged is Cancel with a tag for the transcript.
func (s *Stream) CancelTagged(tag string) error {
	return s.c.NotifyTagged(tag, "notifications/cancelled", map[string]any{"requestId": s.ID, "reason": "conformance probe done"})
}
