package evidence

import (
	"mime"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// HTTPExchange is one HTTP request of a connection and what answered it,
// gathered from the transcript's HTTP events by their exchange number.
//
// The messages an exchange carries stay the transcript's Send and Recv
// entries; each is tied to the HTTP event recorded right before it that
// can carry one: a Send entry to the HTTPRequest before it (the body of
// that request), a Recv entry to the SSEEvent before it whose Message is
// set, or to an HTTPResponse with a JSON body before it (that body). A
// request without a message (a GET, a DELETE) carries its tag on the
// HTTPRequest's own entry.
type HTTPExchange struct {
	Process *Process
	N       int
	// Tag is the tag of the request's entry or of the Send entry of its
	// body.
	Tag        string
	Request    *transcript.HTTPRequest
	RequestSeq int
	// Sent is the message (or the items of the batch) the body carried;
	// SentSeq is its entry (-1: the request carried no message).
	Sent      []*wire.Message
	SentBatch bool
	SentSeq   int
	// RequestBody is a request body that carried no message.
	RequestBody *transcript.HTTPBody
	Response    *transcript.HTTPResponse
	ResponseSeq int
	// Events are the server-sent events of a text/event-stream response.
	Events []*SSE
	// Received are the messages of the response: its JSON body, or the
	// data of its events, in order.
	Received []*Received
	// Body holds the response's bytes that carried no message, and how
	// the body ended.
	Body    []byte
	BodyLen int64
	Ended   bool
	EndErr  string
	EndSeq  int
}

// SSE is one server-sent event of an exchange.
type SSE struct {
	transcript.SSEEvent
	Seq int
	// Msgs are the messages of the Recv entry that carried its data
	// (Message set), or of its Data.
	Msgs []*wire.Message
	// RecvSeq is that Recv entry (-1: none).
	RecvSeq int
}

// Received is a message entry of a response.
type Received struct {
	Seq   int
	Msgs  []*wire.Message
	Batch bool
	// Event is the event that carried it, nil for a JSON body.
	Event *SSE
}

// Delivered reports whether a client reading the stream as the SSE
// standard says gets the message: an event whose blank line never came
// is dropped.
func (r *Received) Delivered() bool { return r.Event == nil || !r.Event.Unterminated }

// SpeaksHTTP reports whether the process's connection was HTTP: its
// transport says so, or its transcript holds HTTP exchanges.
func (p *Process) SpeaksHTTP() bool {
	if p.Transport == TransportHTTP {
		return true
	}
	for _, e := range p.Entries() {
		if e.Event != nil && e.Event.HTTPRequest != nil {
			return true
		}
	}
	return false
}

// HTTPErrorBodies returns the entries (by seq) that are a JSON body of an
// HTTP response with an error status: the transport refusing its input,
// whose body "MAY comprise a JSON-RPC error response that has no id".
func (p *Process) HTTPErrorBodies() map[int]bool {
	out := map[int]bool{}
	if !p.SpeaksHTTP() {
		return out
	}
	for _, x := range p.HTTPExchanges() {
		if x.Response == nil || x.Response.Status < 400 {
			continue
		}
		for _, r := range x.Received {
			if r.Event == nil {
				out[r.Seq] = true
			}
		}
	}
	return out
}

// HTTPExchanges returns the process's HTTP exchanges in the order their
// requests were recorded.
func (p *Process) HTTPExchanges() []*HTTPExchange {
	byN := map[int]*HTTPExchange{}
	var order []*HTTPExchange
	get := func(n int) *HTTPExchange {
		x := byN[n]
		if x == nil {
			x = &HTTPExchange{Process: p, N: n, RequestSeq: -1, SentSeq: -1, ResponseSeq: -1, EndSeq: -1}
			byN[n] = x
			order = append(order, x)
		}
		return x
	}
	var sending *HTTPExchange // a request whose body entry may follow
	var carrier *HTTPExchange // a JSON body or an event whose message may follow
	var event *SSE
	for _, e := range p.Entries() {
		switch {
		case e.Dir == transcript.Send:
			if sending != nil {
				sending.Sent, sending.SentBatch, sending.SentSeq = e.Msgs, e.Batch, e.Seq
				if sending.Tag == "" {
					sending.Tag = e.Tag
				}
				sending = nil
			}
		case e.Dir == transcript.Recv:
			if carrier != nil {
				r := &Received{Seq: e.Seq, Msgs: e.Msgs, Batch: e.Batch, Event: event}
				if event != nil {
					event.Msgs, event.RecvSeq = e.Msgs, e.Seq
				}
				carrier.Received = append(carrier.Received, r)
				carrier, event = nil, nil
			}
		case e.Event == nil:
		case e.Event.HTTPRequest != nil:
			x := get(e.Event.HTTPRequest.Exchange)
			x.Request, x.RequestSeq, x.Tag = e.Event.HTTPRequest, e.Seq, e.Tag
			sending = x
		case e.Event.HTTPResponse != nil:
			x := get(e.Event.HTTPResponse.Exchange)
			x.Response, x.ResponseSeq = e.Event.HTTPResponse, e.Seq
			if x.MediaType() == "application/json" {
				carrier, event = x, nil
			}
		case e.Event.SSEEvent != nil:
			x := get(e.Event.SSEEvent.Exchange)
			ev := &SSE{SSEEvent: *e.Event.SSEEvent, Seq: e.Seq, RecvSeq: -1}
			if !ev.Message && ev.Data != "" {
				ev.Msgs, _ = wire.DecodeLine([]byte(ev.Data))
			}
			x.Events = append(x.Events, ev)
			if ev.Message {
				carrier, event = x, ev
			}
		case e.Event.HTTPBody != nil:
			b := e.Event.HTTPBody
			x := get(b.Exchange)
			if !b.Response {
				x.RequestBody = b
				continue
			}
			x.Body = append(x.Body, b.Data...)
			x.BodyLen += b.Len
			if b.End {
				x.Ended, x.EndErr, x.EndSeq = true, b.Err, e.Seq
			}
		}
	}
	return order
}

// Method is the HTTP method of the request ("" when none was recorded).
func (x *HTTPExchange) Method() string {
	if x.Request == nil {
		return ""
	}
	return x.Request.Method
}

// Status is the response's status code, 0 when none came.
func (x *HTTPExchange) Status() int {
	if x.Response == nil {
		return 0
	}
	return x.Response.Status
}

// MediaType is the response's Content-Type without its parameters, in
// lower case ("" when it has none).
func (x *HTTPExchange) MediaType() string {
	if x.Response == nil {
		return ""
	}
	return MediaType(x.Response.Header)
}

// MediaType is the media type a header's Content-Type names, without
// parameters, in lower case.
func MediaType(h transcript.Header) string {
	ct := h.Values("Content-Type")
	if len(ct) == 0 {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct[0])
	if err != nil {
		mt, _, _ = strings.Cut(ct[0], ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// SSE reports whether the response is an event stream.
func (x *HTTPExchange) SSE() bool { return x.MediaType() == "text/event-stream" }

// RequestHeader returns the first value of a request header field.
func (x *HTTPExchange) RequestHeader(name string) (string, bool) {
	if x.Request == nil {
		return "", false
	}
	return first(x.Request.Header, name)
}

// ResponseHeader returns the first value of a response header field.
func (x *HTTPExchange) ResponseHeader(name string) (string, bool) {
	if x.Response == nil {
		return "", false
	}
	return first(x.Response.Header, name)
}

func first(h transcript.Header, name string) (string, bool) {
	if v := h.Values(name); len(v) > 0 {
		return v[0], true
	}
	return "", false
}

// SessionID is the Mcp-Session-Id the request carried ("" for none).
func (x *HTTPExchange) SessionID() string {
	v, _ := x.RequestHeader("Mcp-Session-Id")
	return v
}

// HasRequest reports whether the body carried a request (alone or in a
// batch).
func (x *HTTPExchange) HasRequest() bool {
	for _, m := range x.Sent {
		if m != nil && m.Kind() == wire.KindRequest {
			return true
		}
	}
	return false
}

// OnlyNotices reports whether the body carried messages, none of them a
// request: notifications and responses only.
func (x *HTTPExchange) OnlyNotices() bool {
	return len(x.Sent) > 0 && !x.HasRequest()
}

// Messages returns every message of the response a client gets: those of
// its JSON body and of its terminated events, in order.
func (x *HTTPExchange) Messages() []*wire.Message {
	var out []*wire.Message
	for _, r := range x.Received {
		if r.Delivered() {
			out = append(out, r.Msgs...)
		}
	}
	return out
}

// Answer returns the response to the request with the id that the
// exchange delivered, and its entry, or nil.
func (x *HTTPExchange) Answer(id []byte) (*wire.Message, int) {
	key := wire.IDKey(id)
	for _, r := range x.Received {
		if !r.Delivered() {
			continue
		}
		for _, m := range r.Msgs {
			if m != nil && m.Kind() == wire.KindResponse && m.ID != nil && wire.IDKey(m.ID) == key {
				return m, r.Seq
			}
		}
	}
	return nil, -1
}

// Requests returns the requests the body carried.
func (x *HTTPExchange) Requests() []*wire.Message {
	var out []*wire.Message
	for _, m := range x.Sent {
		if m != nil && m.Kind() == wire.KindRequest {
			out = append(out, m)
		}
	}
	return out
}

// Replayed returns the entries of messages that came on a resumed stream
// (a GET with Last-Event-ID): the server may replay there what it sent
// after that event, which the client may have had already ("the server
// MAY use this header to replay messages that would have been sent after
// the last event ID"), so a response there is no second answer.
func (p *Process) Replayed() map[int]bool {
	out := map[int]bool{}
	for _, x := range p.HTTPExchanges() {
		if _, ok := x.RequestHeader("Last-Event-ID"); !ok || x.Method() != "GET" {
			continue
		}
		for _, r := range x.Received {
			out[r.Seq] = true
		}
	}
	return out
}

// Streams returns the HTTP exchange whose response carried each received
// message entry, by the entry's sequence number: messages of different
// exchanges come over different connections, and the order in which
// they were read says nothing of the order in which they were sent.
func (p *Process) Streams() map[int]int {
	out := map[int]int{}
	for _, x := range p.HTTPExchanges() {
		for _, r := range x.Received {
			out[r.Seq] = x.N
		}
	}
	return out
}
