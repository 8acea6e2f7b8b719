package mockclient

import (
	"bytes"
	"encoding/json"
)

// Kind is what a decoded JSON-RPC message claims to be.
type Kind string

// Message kinds. KindInvalid covers objects that fit none of the shapes.
const (
	KindRequest      Kind = "request"
	KindNotification Kind = "notification"
	KindResponse     Kind = "response"
	KindInvalid      Kind = "invalid"
)

// Message is one JSON-RPC object as the server sent it. Fields keep their raw
// JSON so that checks can judge types exactly (an id "1" is not an id 1), and
// Has records which members were present at all.
type Message struct {
	Raw     json.RawMessage
	Members map[string]json.RawMessage
	ID      json.RawMessage // nil when the member is absent
	Method  string          // empty unless "method" is a JSON string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   json.RawMessage
}

// Has reports whether the message had the member.
func (m *Message) Has(member string) bool {
	_, ok := m.Members[member]
	return ok
}

// Kind classifies the message by its members.
func (m *Message) Kind() Kind {
	switch {
	case m.Has("method") && m.Has("id"):
		return KindRequest
	case m.Has("method"):
		return KindNotification
	case m.Has("id") && (m.Has("result") || m.Has("error")):
		return KindResponse
	case m.Has("result") || m.Has("error"):
		return KindResponse
	}
	return KindInvalid
}

// DecodeMessage decodes one JSON object. It fails only when raw is not a JSON
// object; every other oddity is left for the checks to judge.
func DecodeMessage(raw json.RawMessage) (*Message, error) {
	m := &Message{Raw: raw}
	if err := json.Unmarshal(raw, &m.Members); err != nil {
		return nil, err
	}
	if m.Members == nil {
		m.Members = map[string]json.RawMessage{}
	}
	m.ID = m.Members["id"]
	if v, ok := m.Members["method"]; ok {
		var s string
		if json.Unmarshal(v, &s) == nil {
			m.Method = s
		}
	}
	m.Params = m.Members["params"]
	m.Result = m.Members["result"]
	m.Error = m.Members["error"]
	return m, nil
}

// RPCError is the error member of a response, decoded leniently.
type RPCError struct {
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IntCode returns the error code when it is a JSON integer.
func (e *RPCError) IntCode() (int64, bool) {
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(e.Code))
	d.UseNumber()
	if d.Decode(&n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// DecodeError decodes m.Error, or returns nil when the message has none or it
// is not an object.
func (m *Message) DecodeError() *RPCError {
	if m.Error == nil {
		return nil
	}
	var e RPCError
	if json.Unmarshal(m.Error, &e) != nil {
		return nil
	}
	return &e
}

// idKey canonicalises a raw id for exact matching: the compact JSON text.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// looseIDKey maps ids that differ only in JSON type ("7" and 7) to one key.
func looseIDKey(id json.RawMessage) string {
	k := idKey(id)
	if len(k) >= 2 && k[0] == '"' {
		var s string
		if json.Unmarshal([]byte(k), &s) == nil {
			return s
		}
	}
	return k
}
