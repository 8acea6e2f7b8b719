package transport

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// The header fields the transport sets. Names are written as here: HTTP
// compares them without regard to case, and recording them as sent lets
// a check see what went on the wire.
const (
	hdrAccept          = "Accept"
	hdrContentType     = "Content-Type"
	hdrSessionID       = "Mcp-Session-Id"
	hdrProtocolVersion = "MCP-Protocol-Version"
	hdrMethod          = "Mcp-Method"
	hdrName            = "Mcp-Name"
	hdrParamPrefix     = "Mcp-Param-"
	hdrLastEventID     = "Last-Event-ID"
	hdrUserAgent       = "User-Agent"
)

// userAgent names the harness to servers that log it.
const userAgent = "mcpconform"

// reservedFields are the fields a user's --header cannot set: the HTTP
// client writes them from the request itself.
var reservedFields = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Trailer"}

// ParseHeaderField parses a --header value, "Name: value".
func ParseHeaderField(s string) (transcript.HeaderField, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return transcript.HeaderField{}, fmt.Errorf("want 'Name: value', got %q", s)
	}
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return transcript.HeaderField{}, fmt.Errorf("%q is not a header field name", name)
		}
	}
	for _, f := range reservedFields {
		if strings.EqualFold(name, f) {
			return transcript.HeaderField{}, fmt.Errorf("%s is written by the HTTP client itself and cannot be set", f)
		}
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		return transcript.HeaderField{}, fmt.Errorf("the value of %s holds a line break or NUL", name)
	}
	return transcript.HeaderField{Name: name, Value: value}, nil
}

// fields is a request header being built: each name as it is to be
// written, its values in order.
type fields struct {
	names  []string
	values map[string][]string
}

func newFields() *fields { return &fields{values: map[string][]string{}} }

// set replaces every field named name, whatever its case, with one.
func (f *fields) set(name, value string) {
	f.del(name)
	f.names = append(f.names, name)
	f.values[name] = []string{value}
}

// del removes every field named name, whatever its case.
func (f *fields) del(name string) {
	f.names = slices.DeleteFunc(f.names, func(n string) bool {
		if strings.EqualFold(n, name) {
			delete(f.values, n)
			return true
		}
		return false
	})
}

// get returns the value of the field named name, whatever its case.
func (f *fields) get(name string) (string, bool) {
	for _, n := range f.names {
		if strings.EqualFold(n, name) {
			return f.values[n][0], true
		}
	}
	return "", false
}

// header returns the fields as net/http writes them: the map keys are the
// names as given, so that they go on the wire in that case.
func (f *fields) header() http.Header {
	h := http.Header{}
	for _, n := range f.names {
		if strings.EqualFold(n, hdrUserAgent) {
			// net/http looks User-Agent up under its canonical name only.
			h[hdrUserAgent] = f.values[n]
			continue
		}
		h[n] = f.values[n]
	}
	return h
}

// onWire returns the header as net/http's HTTP/1.1 client writes it
// (net/http Request.write): Host, User-Agent, Content-Length for a body,
// then every other field sorted by name as given. The transport's own
// test compares this with the bytes that reach a server.
func (f *fields) onWire(host string, body int) transcript.Header {
	out := transcript.Header{{Name: "Host", Value: host}}
	ua := userAgent
	if v, ok := f.get(hdrUserAgent); ok {
		ua = v
	}
	if ua != "" {
		out = append(out, transcript.HeaderField{Name: hdrUserAgent, Value: ua})
	}
	if body >= 0 {
		out = append(out, transcript.HeaderField{Name: "Content-Length", Value: strconv.Itoa(body)})
	}
	names := slices.Clone(f.names)
	slices.Sort(names)
	for _, n := range names {
		if strings.EqualFold(n, hdrUserAgent) {
			continue
		}
		for _, v := range f.values[n] {
			out = append(out, transcript.HeaderField{Name: n, Value: strings.TrimSpace(v)})
		}
	}
	return out
}

// frameFacts are what the transport reads of a frame the client writes:
// which requests it carries, and the values the 2026-07-28 headers mirror.
type frameFacts struct {
	// ids are the ids of the requests it carries (a batch may carry several).
	ids []json.RawMessage
	// method is the method of a frame that is one message.
	method string
	// request is set when the frame is one request.
	request bool
	// responses is set when the frame carries only responses.
	responses bool
	// modern is the protocol version its _meta names (2026-07-28 and
	// later carry it in every request), or "".
	modern string
	// name is params.name or params.uri, mirrored into Mcp-Name.
	name    string
	hasName bool
	// params are the request's params, for tool parameters mirrored into
	// Mcp-Param-* headers.
	params json.RawMessage
	// cancels is the request id a notifications/cancelled names.
	cancels json.RawMessage
	// initialize: the frame is an initialize request.
	initialize bool
}

func readFrame(frame []byte) frameFacts {
	var f frameFacts
	msgs, batch := wire.DecodeLine(frame)
	f.responses = len(msgs) > 0
	for _, m := range msgs {
		if m == nil {
			f.responses = false
			continue
		}
		k := m.Kind()
		if k == wire.KindRequest {
			f.ids = append(f.ids, m.ID)
		}
		if k != wire.KindResponse {
			f.responses = false
		}
	}
	if batch || len(msgs) != 1 || msgs[0] == nil {
		return f
	}
	m := msgs[0]
	f.method = m.Method
	f.request = m.Kind() == wire.KindRequest
	f.initialize = f.request && m.Method == "initialize"
	params := wire.Object(m.Params)
	f.params = m.Params
	if v, ok := wire.String(wire.Object(params["_meta"])[wire.MetaProtocolVersion]); ok {
		f.modern = v
	}
	switch m.Method {
	case "tools/call", "prompts/get":
		f.name, f.hasName = wire.String(params["name"])
	case "resources/read":
		f.name, f.hasName = wire.String(params["uri"])
	case "notifications/cancelled":
		f.cancels = params["requestId"]
	}
	return f
}

// headerValue encodes a value mirrored into a header as the 2026-07-28
// transport says: as is when it is plain visible ASCII (with inner spaces
// and tabs), otherwise, and when it looks like the encoding itself, as
// "=?base64?...?=" of its UTF-8 bytes.
func headerValue(v string) string {
	plain := v != "" && v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		c := v[i]
		plain = c == '\t' || c >= 0x20 && c <= 0x7e
	}
	if plain || v == "" {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// paramHeader is a tool parameter a server asks to be mirrored into a
// header (x-mcp-header in its inputSchema): the property path to it, and
// the name after "Mcp-Param-".
type paramHeader struct {
	path []string
	name string
}

// paramHeaders returns the x-mcp-header annotations of a tools/list
// result, by tool name. Annotations this client cannot honour (not a
// string, not a token) are left out.
func paramHeaders(result json.RawMessage) map[string][]paramHeader {
	out := map[string][]paramHeader{}
	items, _ := wire.Array(wire.Object(result)["tools"])
	for _, it := range items {
		tool := wire.Object(it)
		name, ok := wire.String(tool["name"])
		if !ok {
			continue
		}
		var found []paramHeader
		var walk func(schema json.RawMessage, path []string)
		walk = func(schema json.RawMessage, path []string) {
			if len(path) > 8 {
				return
			}
			for prop, sub := range wire.Object(wire.Object(schema)["properties"]) {
				p := append(slices.Clone(path), prop)
				if h, ok := wire.String(wire.Object(sub)["x-mcp-header"]); ok && token(h) {
					found = append(found, paramHeader{path: p, name: h})
				}
				walk(sub, p)
			}
		}
		walk(tool["inputSchema"], nil)
		if len(found) > 0 {
			slices.SortFunc(found, func(a, b paramHeader) int { return strings.Compare(a.name, b.name) })
			out[name] = found
		}
	}
	return out
}

// token reports whether s can be the end of a header field name.
func token(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// paramValue returns the header value of the argument at path, and
// whether there is one: a string, an integer or a boolean (null and
// absent values, and other types, give no header).
func paramValue(arguments json.RawMessage, path []string) (string, bool) {
	v := arguments
	for _, p := range path {
		m := wire.Object(v)
		if m == nil {
			return "", false
		}
		if v = m[p]; v == nil {
			return "", false
		}
	}
	switch wire.Type(v) {
	case "string":
		s, _ := wire.String(v)
		return headerValue(s), true
	case "integer":
		return strings.TrimSpace(string(v)), true
	case "boolean":
		return strings.TrimSpace(string(v)), true
	}
	return "", false
}
