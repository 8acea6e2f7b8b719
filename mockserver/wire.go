package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/wire"
)

// object is a JSON object under construction. encoding/json writes its keys
// sorted, so output is deterministic.
type object = map[string]any

// rpcError is the error member of a response.
type rpcError struct {
	Code    int
	Message string
	Data    any // nil: no data member
	// malformed marks -32602 errors for params that do not have the
	// request's shape (a missing or mistyped member), the only ones
	// invalid-params-internal turns into -32603.
	malformed bool
	// hostile marks the refusal of a URI that is malformed or a probe
	// (traversal, %00, raw non-ASCII): the code-range faults change these.
	hostile bool
}

// invalidParams is the -32602 error for params of the wrong shape.
func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf(format, args...), malformed: true}
}

// msgKind tells apart the messages the server writes.
type msgKind int

const (
	kindResponse msgKind = iota
	kindNotification
	kindRequest
	kindBatch // a batch response, already encoded in raw
	kindRaw   // bytes written as they are (fault output that is not a message)
)

// outMsg is a message on its way to stdout.
type outMsg struct {
	kind   msgKind
	method string          // the method a response answers, or of a notification or request
	id     json.RawMessage // responses and requests; nil is null
	result any             // success responses
	err    *rpcError       // error responses
	params any             // notifications and requests; nil: no params member
	raw    []byte          // kindBatch and kindRaw
}

// incoming is a message from the client whose envelope is valid.
type incoming struct {
	id     json.RawMessage // nil for notifications
	method string
	params json.RawMessage // nil when absent
}

// coercedID is the integer a server that reads ids into integers makes of
// a fractional or boolean id (the id-coerced fault): 1.5 becomes 1, true 1
// and false 0.
func coercedID(raw json.RawMessage) (json.RawMessage, bool) {
	switch string(raw) {
	case "true":
		return json.RawMessage("1"), true
	case "false":
		return json.RawMessage("0"), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return nil, false
	}
	return json.RawMessage(strconv.FormatInt(int64(math.Trunc(f)), 10)), true
}

// decodeEnvelope checks one message against JSON-RPC 2.0 and MCP. It returns
// the message, or an error response for an invalid one, or neither for a
// message that gets no answer (a client response, or a notification whose
// params are not an object).
func (s *server) decodeEnvelope(raw []byte) (*incoming, *outMsg) {
	invalid := func(id json.RawMessage, why string) (*incoming, *outMsg) {
		return nil, s.errorResponse("", id, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request: " + why + "."})
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return invalid(nil, "a message must be a JSON object")
	}
	idRaw, hasID := m["id"]
	idRaw = bytes.TrimSpace(idRaw)
	echo := json.RawMessage(nil) // the id an error response can carry
	// An id is kept as the text it came in and echoed as it was, so it
	// is read by its text: a string or an integer literal (JSONRPC-02,
	// JSONRPC-03); 1.0, null and the rest are refused.
	if hasID && wire.IsIDLiteral(idRaw) {
		echo = idRaw
	}
	var version string
	if v, ok := m["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" {
		return invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	methodRaw, hasMethod := m["method"]
	if !hasMethod {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if hasID && (hasResult || hasError) {
			return nil, nil // the client answering one of our requests
		}
		return invalid(echo, `"method" is missing`)
	}
	var method string
	if json.Unmarshal(methodRaw, &method) != nil {
		return invalid(echo, `"method" must be a string`)
	}
	params, hasParams := m["params"]
	params = bytes.TrimSpace(params)
	paramsOK := !hasParams || (len(params) > 0 && params[0] == '{')
	if !hasID {
		if !paramsOK {
			return nil, nil // a notification is never answered, not even when malformed
		}
		return &incoming{method: method, params: params}, nil
	}
	if !wire.IsIDLiteral(idRaw) {
		if wire.IsNullID(idRaw) && s.faults.has("id-null-accepted") && paramsOK {
			return &incoming{id: json.RawMessage("null"), method: method, params: params}, nil
		}
		if id, ok := coercedID(idRaw); ok && s.faults.has("id-coerced") && paramsOK {
			return &incoming{id: id, method: method, params: params}, nil
		}
		return invalid(nil, `"id" must be a string or an integer`)
	}
	if !paramsOK {
		if params[0] == '[' && s.faults.has("params-array-dropped") {
			return nil, nil
		}
		return invalid(echo, `"params" must be an object`)
	}
	return &incoming{id: idRaw, method: method, params: params}, nil
}

// errorResponse builds an error response to a request of method.
func (s *server) errorResponse(method string, id json.RawMessage, e *rpcError) *outMsg {
	return &outMsg{kind: kindResponse, method: method, id: id, err: e}
}

const (
	// markInvalidUTF8 and markSurrogate stand in a value for bytes that
	// encoding/json cannot produce; encode swaps them after marshalling.
	markInvalidUTF8 = "\uE000mock-invalid-utf8\uE000"
	markSurrogate   = "\uE000mock-surrogate\uE000"
)

// envelopeTarget is the method whose responses the envelope faults act on.
// Every other message stays correct, so that the rest of a session can
// still be judged. Not ping: harnesses ping to check that a server still
// answers, and a broken ping response would spill into every such check.
const envelopeTarget = "resources/templates/list"

// isEnvelopeTarget tells the messages the envelope faults act on.
func isEnvelopeTarget(m *outMsg) bool { return m.kind == kindResponse && m.method == envelopeTarget }

// encode renders a message as compact JSON, applying the envelope faults.
func (s *server) encode(m *outMsg) []byte {
	if m.kind == kindRaw || m.kind == kindBatch {
		return m.raw
	}
	target := isEnvelopeTarget(m)
	var b bytes.Buffer
	b.WriteByte('{')
	switch {
	case !target:
		b.WriteString(`"jsonrpc":"2.0"`)
	case s.faults.has("missing-jsonrpc"):
	case s.faults.has("wrong-jsonrpc-version"):
		b.WriteString(`"jsonrpc":"1.0"`)
	default:
		b.WriteString(`"jsonrpc":"2.0"`)
	}
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	switch m.kind {
	case kindResponse:
		// From 2025-11-25 an error for a request whose id could not be
		// read may leave the id out (JSONRPC-16).
		if m.id != nil || !s.variants.has("error-id-omitted") {
			sep()
			b.WriteString(`"id":`)
			b.Write(s.responseID(m.id, target))
		}
		if m.err != nil {
			sep()
			b.WriteString(`"error":`)
			b.Write(s.encodeError(m.err))
		} else {
			sep()
			b.WriteString(`"result":`)
			b.Write(marshal(m.result))
			if target && s.faults.has("result-and-error") {
				b.WriteString(`,"error":`)
				b.Write(s.encodeError(&rpcError{Code: wire.CodeInternalError, Message: "Internal error."}))
			}
		}
	case kindNotification:
		if s.faults.has("notification-with-id") {
			sep()
			b.WriteString(`"id":null`)
		}
		sep()
		b.WriteString(`"method":`)
		b.Write(marshal(m.method))
		s.writeParams(&b, m.params)
	case kindRequest:
		sep()
		b.WriteString(`"id":`)
		if m.id == nil {
			b.WriteString("null")
		} else {
			b.Write(m.id)
		}
		b.WriteString(`,"method":`)
		b.Write(marshal(m.method))
		s.writeParams(&b, m.params)
	}
	b.WriteByte('}')
	return s.substitute(b.Bytes())
}

func (s *server) writeParams(b *bytes.Buffer, params any) {
	if s.faults.has("params-array") {
		b.WriteString(`,"params":`)
		if params == nil {
			b.WriteString("[]")
		} else {
			b.Write(marshal([]any{params}))
		}
		return
	}
	if params != nil {
		b.WriteString(`,"params":`)
		b.Write(marshal(params))
	}
}

// responseID is the id a response carries: the request's, unless a fault
// changes it (target: the response is one the envelope faults act on).
func (s *server) responseID(id json.RawMessage, target bool) []byte {
	if id == nil {
		return []byte("null")
	}
	id = safeID(id)
	if v := s.variantID(id); v != nil {
		return v
	}
	if !target {
		return marshal(id)
	}
	isInt := wire.IsIntegerLiteral(id)
	switch {
	case s.faults.has("id-mismatch") && isInt:
		n, _ := new(big.Int).SetString(string(id), 10)
		return []byte(n.Add(n, big.NewInt(1000)).String())
	case s.faults.has("id-mismatch") && id[0] == '"':
		var str string
		_ = json.Unmarshal(id, &str)
		return marshal(str + "+1000")
	case s.faults.has("id-as-string") && isInt:
		return marshal(string(id))
	}
	return marshal(id)
}

// safeID is an id as it may be echoed: never bytes that are not UTF-8
// (such a value is re-encoded).
func safeID(id json.RawMessage) json.RawMessage {
	if utf8.Valid(id) {
		return id
	}
	var v any
	if json.Unmarshal(id, &v) == nil {
		return marshal(v)
	}
	return id
}

func (s *server) encodeError(e *rpcError) []byte {
	var b bytes.Buffer
	b.WriteString(`{"code":`)
	notFound := e.Code == wire.CodeMethodNotFound
	switch {
	case notFound && s.faults.has("error-code-string"):
		b.Write(marshal(strconv.Itoa(e.Code)))
	case notFound && s.faults.has("error-code-float"):
		b.WriteString(strconv.Itoa(e.Code) + ".5")
	default:
		b.WriteString(strconv.Itoa(e.Code))
	}
	msg := e.Message
	if s.variants.has("long-error-messages") {
		msg = strings.TrimSuffix(msg, ".") + ", and the mcpconform mock server spells this out at length on purpose, on a single line and without any line break," +
			" so that a client can check that it copes with an error message that runs to about three hundred characters while staying one sentence."
	}
	if s.faults.has("hostile-strings") {
		msg += " " + hostileText
	}
	if s.faults.has("ci-commands") {
		msg = ciCommands + " " + msg
	}
	if s.faults.has("multiline-error-message") {
		msg += "\ngoroutine 1 [running]:\nmockserver.(*server).dispatch(...)\n\tmockserver/server.go:1 +0x1d\nmain.main()\n\tmain.go:1 +0x25"
	}
	b.WriteString(`,"message":`)
	b.Write(marshal(msg))
	data := e.Data
	if s.variants.has("error-data-rich") {
		data = richErrorData(e)
	}
	if data != nil {
		b.WriteString(`,"data":`)
		b.Write(marshal(data))
	}
	if s.variants.has("extra-members") {
		b.WriteString(`,"mockExtra":`)
		b.Write(marshal(extraValue()))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// substitute swaps the markers for what encoding/json cannot write, and
// leaves U+2028 and U+2029 escaped.
func (s *server) substitute(b []byte) []byte {
	if bytes.Contains(b, []byte(markInvalidUTF8)) {
		b = bytes.ReplaceAll(b, []byte(markInvalidUTF8), []byte("caf\xe9 \xff\xfe"))
	}
	if bytes.Contains(b, []byte(markSurrogate)) {
		b = bytes.ReplaceAll(b, []byte(markSurrogate), []byte(`\udfff\ud800`))
	}
	return b
}

// marshal encodes v compactly. The values the server builds always encode.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mockserver: encoding a message: " + err.Error())
	}
	return b
}
