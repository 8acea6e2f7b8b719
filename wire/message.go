package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf8"
	"unsafe"
	"weak"
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

// Message is one JSON-RPC object as it crossed the pipe. Fields keep their raw
// JSON so that checks can judge types exactly (an id "1" is not an id 1), and
// Has records which members were present at all.
type Message struct {
	Raw    json.RawMessage
	ID     json.RawMessage // nil when the member is absent
	Method string          // empty unless "method" is a JSON string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
	// members are the object's members in order, slices of Raw: a few
	// per message, so a slice costs less than a map (a flood holds
	// hundreds of thousands of messages).
	members []member
}

type member struct {
	name  string
	value json.RawMessage
}

// Member returns the value of the named member and whether the message
// had it (the last one, if it was named twice).
func (m *Message) Member(name string) (json.RawMessage, bool) {
	for i := len(m.members) - 1; i >= 0; i-- {
		if m.members[i].name == name {
			return m.members[i].value, true
		}
	}
	return nil, false
}

// Has reports whether the message had the member.
func (m *Message) Has(member string) bool {
	_, ok := m.Member(member)
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
// object (null counts as an object without members); every other oddity is
// left for the checks to judge.
//
// Raw, Members and the fields are slices of raw, not copies: a 50 MB result
// costs no second 50 MB. Callers must not modify raw afterwards.
func DecodeMessage(raw json.RawMessage) (*Message, error) {
	if !json.Valid(raw) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return nil, errors.New("invalid JSON")
	}
	return decodeValid(raw)
}

// errNotObject is what DecodeMessage says of valid JSON that is not an object.
var errNotObject = errors.New("not a JSON object")

// decodeValid is DecodeMessage for raw already known to be valid JSON.
func decodeValid(raw json.RawMessage) (*Message, error) {
	m := &Message{Raw: raw}
	// Members are gathered on the stack and kept in a slice of exactly
	// their number: a flood holds tens of thousands of messages.
	var buf [8]member
	members := buf[:0]
	if err := eachMember(raw, func(name string, v json.RawMessage) {
		members = append(members, member{name, v})
	}); err != nil {
		return nil, err
	}
	if len(members) > 0 {
		m.members = make([]member, len(members))
		copy(m.members, members)
	}
	m.ID, _ = m.Member("id")
	if v, ok := m.Member("method"); ok && len(v) > 0 && v[0] == '"' {
		m.Method = unquote(v)
	}
	m.Params, _ = m.Member("params")
	m.Result, _ = m.Member("result")
	m.Error, _ = m.Member("error")
	return m, nil
}

// SplitObject returns the members of a JSON object as slices of raw,
// copying nothing, or false when raw is not valid JSON or not an object. A
// member named twice keeps its last value, as with encoding/json. Judging
// a 50 MB result member by member costs no copy of it.
func SplitObject(raw []byte) (map[string]json.RawMessage, bool) {
	if i := skipSpace(raw, 0); i == len(raw) || raw[i] != '{' || !valid(raw) {
		return nil, false
	}
	m, err := splitObject(raw)
	return m, err == nil
}

// SplitArray returns the items of a JSON array as slices of raw, copying
// nothing, or false when raw is not valid JSON or not an array.
func SplitArray(raw []byte) ([]json.RawMessage, bool) {
	if i := skipSpace(raw, 0); i == len(raw) || raw[i] != '[' || !valid(raw) {
		return nil, false
	}
	items := splitArray(raw)
	if items == nil {
		items = []json.RawMessage{}
	}
	return items, true
}

// validMemo remembers the last few large values found valid JSON. Checks
// split the same result again and again (a 50 MB read is split by a dozen
// of them), and validating it each time was most of the judging time.
// An entry holds its bytes only weakly: a remembered line the transcript
// has let go of (a clipped 50 MB read) is collected, not kept alive by the
// memo. A weak pointer matches only the object it was made from, even
// after that object is collected, so other bytes later allocated at the
// same address are never taken for remembered ones.
var validMemo struct {
	sync.Mutex
	vals [4]memoEntry
	next int
}

type memoEntry struct {
	p weak.Pointer[byte]
	n int
}

// validMemoMin is the size from which a value's validity is remembered.
const validMemoMin = 64 << 10

// valid is json.Valid, remembered for large values.
func valid(raw []byte) bool {
	if len(raw) < validMemoMin {
		return json.Valid(raw)
	}
	p := weak.Make(unsafe.SliceData(raw))
	validMemo.Lock()
	for _, v := range validMemo.vals {
		if v.n == len(raw) && v.p == p {
			validMemo.Unlock()
			return true
		}
	}
	validMemo.Unlock()
	if !json.Valid(raw) {
		return false
	}
	validMemo.Lock()
	validMemo.vals[validMemo.next] = memoEntry{p, len(raw)}
	validMemo.next = (validMemo.next + 1) % len(validMemo.vals)
	validMemo.Unlock()
	return true
}

// splitObject returns the members of the valid JSON object raw as slices of
// raw (null gives no members). A member named twice keeps its last value, as
// encoding/json does.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	members := map[string]json.RawMessage{}
	if err := eachMember(raw, func(name string, v json.RawMessage) { members[name] = v }); err != nil {
		return nil, err
	}
	return members, nil
}

// eachMember calls f with each member of the valid JSON object raw, in
// order, its value a slice of raw (null has none).
func eachMember(raw []byte, f func(name string, v json.RawMessage)) error {
	i := skipSpace(raw, 0)
	if i < len(raw) && raw[i] == 'n' {
		return nil
	}
	if i >= len(raw) || raw[i] != '{' {
		return errNotObject
	}
	i++
	for {
		i = skipSpace(raw, i)
		switch raw[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(raw, i+1)
		}
		end := skipString(raw, i)
		key := unquote(raw[i:end])
		i = skipSpace(raw, end) + 1 // the colon
		i = skipSpace(raw, i)
		end = skipValue(raw, i)
		f(key, json.RawMessage(raw[i:end:end]))
		i = end
	}
}

// splitArray returns the items of the valid JSON array raw as slices of raw.
func splitArray(raw []byte) []json.RawMessage {
	var items []json.RawMessage
	eachItem(raw, func(it json.RawMessage) bool {
		items = append(items, it)
		return true
	})
	return items
}

// eachItem calls f with each item of the valid JSON array raw, in order,
// as slices of raw, until f returns false; nothing when raw is no array.
func eachItem(raw []byte, f func(json.RawMessage) bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(raw, i)
		switch raw[i] {
		case ']':
			return
		case ',':
			i = skipSpace(raw, i+1)
		}
		end := skipValue(raw, i)
		if !f(json.RawMessage(raw[i:end:end])) {
			return
		}
		i = end
	}
}

// unquote decodes a JSON string literal the way encoding/json does (invalid
// UTF-8 becomes U+FFFD); plain keys take the fast path.
func unquote(lit []byte) string {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		switch string(body) { // the names every message has cost no copy
		case "jsonrpc":
			return "jsonrpc"
		case "id":
			return "id"
		case "method":
			return "method"
		case "params":
			return "params"
		case "result":
			return "result"
		case "error":
			return "error"
		}
		return string(body)
	}
	var s string
	_ = json.Unmarshal(lit, &s)
	return s
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string literal starting at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the valid JSON value starting at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	// A number or a literal: up to the next delimiter.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// RPCError is the error member of a response, decoded leniently.
type RPCError struct {
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// IntCode returns the error code when it is a JSON integer (by value:
// -32601.0 is -32601).
func (e *RPCError) IntCode() (int64, bool) {
	return Int(e.Code)
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

// DecodeLine decodes the JSON-RPC objects of one line: one object, or the
// items of a batch array. What is not an object is left out. The messages
// are slices of line, not copies.
func DecodeLine(line []byte) (msgs []*Message, batch bool) {
	trimmed := bytes.TrimSpace(line)
	batch = len(trimmed) > 0 && trimmed[0] == '['
	if !json.Valid(trimmed) {
		return nil, batch
	}
	return DecodeValidLine(trimmed), batch
}

// DecodeValidLine is DecodeLine for a trimmed line known to be valid JSON.
func DecodeValidLine(trimmed []byte) (msgs []*Message) {
	if len(trimmed) > 0 && trimmed[0] == '[' {
		for _, it := range splitArray(trimmed) {
			if m, err := decodeValid(it); err == nil {
				msgs = append(msgs, m)
			}
		}
		return msgs
	}
	if m, err := decodeValid(trimmed); err == nil {
		msgs = append(msgs, m)
	}
	return msgs
}
