package transcript

import (
	"fmt"
	"strconv"
	"strings"
)

// The events of an HTTP transport (Streamable HTTP, and HTTP over a local
// byte stream). The messages an exchange carries stay Send and Recv
// entries, so that every check of messages judges them as it judges
// stdio lines; these events record what HTTP adds around them: the
// request line and header, the status and the response header, body bytes
// that carry no message, and each server-sent event's fields. An
// exchange number ties together the events and entries of one request.
//
// How an exchange is recorded (the transport keeps these rules; the
// events of different exchanges may interleave, those of one exchange
// are in order):
//
//   - A POST is an HTTPRequest followed at once by the Send entry of the
//     frame it carries, with nothing between. A GET or a DELETE is an
//     HTTPRequest alone.
//   - A JSON body that holds a JSON object or array is a Recv entry that
//     follows its HTTPResponse at once. An event stream is its
//     HTTPResponse, then one SSEEvent per event in order; an event whose
//     data a WHATWG parser dispatches is a message, its SSEEvent
//     (Message set) followed at once by the Recv entry of its data. An
//     event cut off by the end of the stream delivers nothing and is
//     recorded with Unterminated and its data; an event of comments alone
//     is not recorded. Any other body is an HTTPBody with its bytes.
//   - Every exchange ends with one HTTPBody of the response with End set:
//     Len counts the body's bytes (its Data are kept only for a body that
//     carried no message); Err says when it did not end cleanly, the
//     harness included ("closed by the harness ..."). An exchange that got
//     no response at all has that HTTPBody with Err "no response: ..."
//     and no HTTPResponse.
//   - A redirect followed (307 or 308 to the same host) is its 3xx
//     HTTPResponse, the HTTPBody of its body, and a further HTTPRequest of
//     the same exchange for the new URL, with no Send entry after it: the
//     same body goes again. A redirect not followed is a plain response,
//     with a note saying why.
//   - A frame the client wrote that went out in no request (in
//     2026-07-28 a cancellation, which closes the request's stream
//     instead, or a response, which a client does not send) follows a
//     note that begins "not posted:".

// HeaderField is one field of an HTTP header.
type HeaderField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Header is an HTTP header as it was sent: its fields in order, each name
// as written, a name repeated where it was.
type Header []HeaderField

// Values returns the values of the fields named name, compared without
// regard to case, as HTTP compares them.
func (h Header) Values(name string) []string {
	var out []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out
}

// HTTPRequest is a request the client sent: its request line and header.
// A body that carries a message is the Send entry that follows; any other
// body is an HTTPBody.
type HTTPRequest struct {
	// Exchange numbers the request within its connection; the response
	// and the stream events that answer it carry the same number.
	Exchange int    `json:"exchange"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Proto    string `json:"proto,omitempty"` // "HTTP/1.1"
	Header   Header `json:"header,omitempty"`
}

func (r HTTPRequest) String() string {
	s := fmt.Sprintf("http %d: %s %s", r.Exchange, r.Method, r.URL)
	if r.Proto != "" {
		s += " " + r.Proto
	}
	return s + fieldCount(r.Header)
}

// HTTPResponse is the status line and header of the response to an
// exchange. A body that carries messages is the Recv entries that follow
// (a JSON body, or the data of its server-sent events).
type HTTPResponse struct {
	Exchange int    `json:"exchange"`
	Proto    string `json:"proto,omitempty"`
	Status   int    `json:"status"`
	// Reason is the status line's reason phrase, as sent.
	Reason string `json:"reason,omitempty"`
	Header Header `json:"header,omitempty"`
}

func (r HTTPResponse) String() string {
	s := fmt.Sprintf("http %d: status %d", r.Exchange, r.Status)
	if r.Reason != "" {
		s += " " + r.Reason
	}
	if ct := r.Header.Values("Content-Type"); len(ct) > 0 {
		s += ", " + strings.Join(ct, ", ")
	}
	return s + fieldCount(r.Header)
}

func fieldCount(h Header) string {
	if len(h) == 1 {
		return " (1 header field)"
	}
	return fmt.Sprintf(" (%d header fields)", len(h))
}

// HTTPBody is body bytes that carry no message (an error page, what a
// stream held past its last event), or only the count of a body's bytes,
// and whether the body ended.
type HTTPBody struct {
	Exchange int `json:"exchange"`
	// Response is set for the response's body, unset for the request's.
	Response bool `json:"response,omitempty"`
	// Data are the bytes kept, at most as many as the transcript keeps of
	// a line; Len counts them all.
	Data []byte `json:"data,omitempty"`
	Len  int64  `json:"len"`
	// End: the body ended here, cleanly unless Err says how it did not
	// (the connection dropped, a harness budget).
	End bool   `json:"end,omitempty"`
	Err string `json:"err,omitempty"`
}

func (b HTTPBody) String() string {
	side := "request"
	if b.Response {
		side = "response"
	}
	s := fmt.Sprintf("http %d: %s body, %d bytes", b.Exchange, side, b.Len)
	switch {
	case b.Err != "":
		s += ", ended: " + b.Err
	case b.End:
		s += ", ended"
	}
	return s
}

// SSEEvent is one event of a text/event-stream response, with its fields
// as the stream gave them, before any client acts on them.
type SSEEvent struct {
	Exchange int `json:"exchange"`
	// ID is the id field, nil when the event had none: an empty id is a
	// value (it resets the last event id).
	ID *string `json:"id,omitempty"`
	// Event is the event field (empty: the default, "message").
	Event string `json:"event,omitempty"`
	// Data is the data field, its lines joined by newlines, unless Message
	// is set.
	Data string `json:"data,omitempty"`
	// Message: the data is the message of the Recv entry that follows,
	// and Data is left empty.
	Message bool `json:"message,omitempty"`
	// Retry is the retry field in milliseconds, nil when absent.
	Retry *int64 `json:"retry,omitempty"`
	// Unterminated: the stream ended before the blank line that ends the
	// event, so that a client parsing as the WHATWG rules say drops it.
	Unterminated bool `json:"unterminated,omitempty"`
}

func (e SSEEvent) String() string {
	parts := []string{}
	if e.ID != nil {
		parts = append(parts, "id "+strconv.Quote(*e.ID))
	}
	if e.Event != "" {
		parts = append(parts, "event "+strconv.Quote(e.Event))
	}
	if e.Retry != nil {
		parts = append(parts, fmt.Sprintf("retry %d ms", *e.Retry))
	}
	switch {
	case e.Message:
		parts = append(parts, "data: the message that follows")
	case e.Data != "":
		parts = append(parts, fmt.Sprintf("data of %d bytes", len(e.Data)))
	}
	s := fmt.Sprintf("sse %d: event", e.Exchange)
	if len(parts) > 0 {
		s += " " + strings.Join(parts, ", ")
	}
	if e.Unterminated {
		s += " (the stream ended before its blank line)"
	}
	return s
}
