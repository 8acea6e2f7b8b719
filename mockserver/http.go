package mockserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// HTTPOptions configure ServeHTTP and NewHTTPHandler.
type HTTPOptions struct {
	Options
	// Path is the path of the MCP endpoint (default "/mcp").
	Path string
	// Lead, when set, is called with the session's id and the body of
	// each POST of requests in a session of the handshake era, before the
	// session's mock gets it. The messages it returns, of the server's
	// own, go out ahead of anything the mock writes for that POST: on the
	// session's GET stream when one is open, else first on the POST's
	// own stream (or kept for a GET stream when the POST is answered with
	// JSON, which carries nothing but the response). A recording mock
	// asks the client its questions so.
	Lead func(sessionID string, body []byte) [][]byte
}

// ServeHTTP serves the mock over Streamable HTTP on ln until ctx is done,
// then ends every session and returns ctx.Err(). Options.Faults and
// Options.Variants may name the HTTP transport's own (HTTPFaults,
// HTTPVariants) beside the others.
//
// Each initialize opens a session of its own, with the id the response's
// Mcp-Session-Id gives, served by a mock of its own (the handshake era).
// Requests of 2026-07-28, which carry their version in _meta and need no
// session, share one mock, as the process of a stdio mock serves them.
func ServeHTTP(ctx context.Context, ln net.Listener, errOut io.Writer, opts HTTPOptions) error {
	h, err := NewHTTPHandler(ctx, errOut, opts)
	if err != nil {
		return err
	}
	defer h.Close()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ctx.Err()
}

// HTTPHandler serves the mock's MCP endpoint over Streamable HTTP.
type HTTPHandler struct {
	ctx      context.Context
	cancel   context.CancelFunc
	errOut   io.Writer
	path     string
	opts     Options // what each session's mock serves: the faults and variants not of HTTP
	faults   httpSet
	variants httpSet
	legacy   bool // the fixture serves the handshake era
	modern   bool // ... and 2026-07-28
	lead     func(sessionID string, body []byte) [][]byte

	mu       sync.Mutex
	sessions map[string]*httpSession
	ended    map[string]bool
	shared   *httpSession // the mock of the requests that need no session
	nextID   int
	streams  int  // streams opened so far: each gets the next number
	expired  bool // http-session-expires has ended a session
}

// NewHTTPHandler returns the handler ServeHTTP serves; Close ends its
// sessions. Its sessions end with ctx too.
func NewHTTPHandler(ctx context.Context, errOut io.Writer, opts HTTPOptions) (*HTTPHandler, error) {
	faults, rest := splitHTTP(opts.Faults, isHTTPFault)
	variants, restV := splitHTTP(opts.Variants, isHTTPVariant)
	o := opts.Options
	o.Faults, o.Variants = rest, restV
	cat, err := compileOptions(o)
	if err != nil {
		return nil, err
	}
	if errOut == nil {
		errOut = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &HTTPHandler{ctx: ctx, cancel: cancel, errOut: errOut, path: opts.Path, opts: o,
		faults: faults, variants: variants, legacy: cat.legacy, modern: cat.modern, lead: opts.Lead,
		sessions: map[string]*httpSession{}, ended: map[string]bool{}}
	if h.path == "" {
		h.path = "/mcp"
	}
	return h, nil
}

// Close ends every session.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	all := []*httpSession{h.shared}
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		if s != nil {
			s.end()
		}
	}
	h.cancel()
	for _, s := range all {
		if s != nil {
			<-s.done
		}
	}
}

// httpSession is one mock serving over HTTP: a session of the handshake
// era, or the shared mock of the requests without one.
type httpSession struct {
	h    *HTTPHandler
	id   string // the Mcp-Session-Id ("" for none)
	conn *httpConn
	done chan struct{} // closed when its mock has returned
}

// newSession starts a mock for a session.
func (h *HTTPHandler) newSession(id string) *httpSession {
	s := &httpSession{h: h, id: id, done: make(chan struct{})}
	s.conn = newHTTPConn(s)
	go func() {
		defer close(s.done)
		err := serve(h.ctx, h.errOut, h.opts, func(_ faultSet, rec *recorder) conn {
			s.conn.rec = rec
			return s.conn
		})
		if err != nil && h.ctx.Err() == nil {
			fmt.Fprintf(h.errOut, "mockserver: session %q: %v\n", id, err)
		}
		s.conn.finish()
	}()
	return s
}

// end closes the session's input: its mock finishes as at stdin EOF.
func (s *httpSession) end() { s.conn.endInput() }

// httpError is a refusal the transport writes itself, before any mock
// sees the request: a status and, where a JSON-RPC error goes with it,
// that error.
type httpError struct {
	status int
	code   int64 // 0: a plain-text body
	msg    string
	id     json.RawMessage
}

func (h *HTTPHandler) write(w http.ResponseWriter, e *httpError) {
	if e.code == 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(e.status)
		fmt.Fprintln(w, e.msg)
		return
	}
	body := map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": e.code, "message": e.msg}}
	if e.id != nil {
		body["id"] = e.id
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(b)
}

// ServeHTTP answers one request.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/.well-known/oauth-protected-resource"+h.path && h.variants.has("http-protected") {
		h.metadata(w, r)
		return
	}
	if r.URL.Path != h.path {
		http.NotFound(w, r)
		return
	}
	if e := h.origin(r); e != nil {
		h.write(w, e)
		return
	}
	if e := h.authorize(w, r); e != nil {
		h.write(w, e)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		h.notAllowed(w, "GET, POST, DELETE", "use POST, GET or DELETE")
	}
}

// notAllowed answers 405 Method Not Allowed, naming the methods allowed.
func (h *HTTPHandler) notAllowed(w http.ResponseWriter, allow, why string) {
	w.Header().Set("Allow", allow)
	h.write(w, &httpError{status: http.StatusMethodNotAllowed, msg: "Method Not Allowed: " + why})
}

// origin refuses a request whose Origin is present and foreign: a page of
// another site reaching a server on this machine is the DNS rebinding the
// rule prevents. Pages of the machine itself (localhost, a loopback
// address) are let through.
func (h *HTTPHandler) origin(r *http.Request) *httpError {
	o := r.Header.Get("Origin")
	if o == "" || h.faults.has("http-origin-ignored") {
		return nil
	}
	u, err := url.Parse(o)
	if err == nil && u.Host != "" {
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	status := http.StatusForbidden
	if h.faults.has("http-origin-400") {
		status = http.StatusBadRequest
	}
	return &httpError{status: status, code: wire.CodeInvalidRequest, msg: "Forbidden: the Origin " + o + " is not allowed"}
}

// authorize refuses a request without the mock's token when the mock is
// protected.
func (h *HTTPHandler) authorize(w http.ResponseWriter, r *http.Request) *httpError {
	protected, hidden := h.variants.has("http-protected"), h.faults.has("http-protected-no-metadata")
	if !protected && !hidden || r.Header.Get("Authorization") == "Bearer "+mockToken {
		return nil
	}
	challenge := `Bearer realm="mcpconform-mock"`
	if !hidden {
		challenge = fmt.Sprintf(`Bearer resource_metadata="%s", scope="mcp"`, h.origURL(r, "/.well-known/oauth-protected-resource"+h.path))
	}
	w.Header().Set("WWW-Authenticate", challenge)
	return &httpError{status: http.StatusUnauthorized, msg: "Unauthorized: a bearer token is needed"}
}

// origURL is the URL of path on the server the request reached.
func (h *HTTPHandler) origURL(r *http.Request, path string) string {
	return "http://" + r.Host + path
}

// metadata serves the protected-resource metadata (RFC 9728).
func (h *HTTPHandler) metadata(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{
		"resource":              h.origURL(r, h.path),
		"authorization_servers": []string{h.origURL(r, "/mcpconform-mock-authorization-server")},
		"scopes_supported":      []string{"mcp"},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

// session finds the session a request names; nil with an error when it
// names none the server knows.
func (h *HTTPHandler) session(r *http.Request) (*httpSession, *httpError) {
	id := r.Header.Get("Mcp-Session-Id")
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[id]; s != nil && id != "" {
		return s, nil
	}
	if id == "" {
		status := http.StatusBadRequest
		if h.faults.has("http-no-session-404") {
			status = http.StatusNotFound
		}
		return nil, &httpError{status: status, code: wire.CodeInvalidRequest, msg: "Bad Request: no Mcp-Session-Id header"}
	}
	return nil, &httpError{status: http.StatusNotFound, code: -32001, msg: "Session not found"}
}

// sharedSession returns the mock of the requests that need no session.
func (h *HTTPHandler) sharedSession() *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shared == nil {
		h.shared = h.newSession("")
	}
	return h.shared
}

// openSession starts a session for an initialize, under a new id.
func (h *HTTPHandler) openSession() *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextID++
	id := fmt.Sprintf("mock-%d-%x", h.nextID, time.Now().UnixNano()&0xffffff)
	if h.faults.has("http-session-id-space") {
		id = fmt.Sprintf("mock session %d", h.nextID)
	}
	s := h.newSession(id)
	h.sessions[id] = s
	return s
}

// maxBody is the largest POST body the mock reads.
const maxBody = maxLine

// body is what a POST carried, as the transport sees it.
type body struct {
	raw      []byte
	msgs     []map[string]json.RawMessage // the objects (one, or the items of a batch)
	batch    bool
	requests []json.RawMessage // the ids of its requests
	method   string            // the method of its first message
	params   json.RawMessage
}

func readBody(r *http.Request) (*body, *httpError) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, &httpError{status: http.StatusBadRequest, msg: "Bad Request: reading the body: " + err.Error()}
	}
	if len(raw) > maxBody {
		return nil, &httpError{status: http.StatusRequestEntityTooLarge, code: wire.CodeInvalidRequest, msg: "the body is too large"}
	}
	b := &body{raw: bytes.TrimSpace(raw)}
	if !json.Valid(b.raw) {
		return nil, &httpError{status: http.StatusBadRequest, code: wire.CodeParseError, msg: "Parse error: the body is not JSON"}
	}
	var items []json.RawMessage
	if len(b.raw) > 0 && b.raw[0] == '[' {
		b.batch = true
		_ = json.Unmarshal(b.raw, &items)
	} else {
		items = []json.RawMessage{b.raw}
	}
	for _, it := range items {
		m := wire.Object(it)
		if m == nil {
			return nil, &httpError{status: http.StatusBadRequest, code: wire.CodeInvalidRequest, msg: "Invalid request: not a JSON-RPC message"}
		}
		b.msgs = append(b.msgs, m)
		if _, ok := m["method"]; ok {
			if id, ok := m["id"]; ok {
				b.requests = append(b.requests, id)
			}
		}
	}
	if len(b.msgs) > 0 {
		b.method, _ = wire.String(b.msgs[0]["method"])
		b.params = b.msgs[0]["params"]
	}
	return b, nil
}

// modern reports whether the body is a 2026-07-28 request: the request
// names its version in _meta, or the header names 2026-07-28.
func (b *body) modern(r *http.Request) bool {
	if r.Header.Get("MCP-Protocol-Version") == modernVersion {
		return true
	}
	_, ok := wire.Object(wire.Object(b.params)["_meta"])[wire.MetaProtocolVersion]
	return ok && len(b.requests) > 0 && !b.batch
}

// post answers a POST.
func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(r)
	if e != nil {
		h.write(w, e)
		return
	}
	if e := notices(b); e != nil && len(b.requests) == 0 {
		if h.faults.has("http-refusal-200") {
			e.status = http.StatusOK
		}
		h.write(w, e)
		return
	}
	if b.batch && h.faults.has("http-batch-refused") {
		h.write(w, &httpError{status: http.StatusBadRequest, code: wire.CodeInvalidRequest, msg: "Invalid request: batches are not supported"})
		return
	}
	var s *httpSession
	switch {
	case b.modern(r):
		if e := h.validateModern(r, b); e != nil {
			h.write(w, e)
			return
		}
		s = h.sharedSession()
	case h.variants.has("http-stateless"):
		if e := h.versionHeader(r); e != nil {
			h.write(w, e)
			return
		}
		s = h.statelessSession(r, b)
		defer s.end()
	case b.method == "initialize" && len(b.requests) == 1 && !b.batch:
		s = h.openSession()
		w.Header().Set("Mcp-Session-Id", s.id)
	default:
		s, e = h.session(r)
		if e == nil {
			e = h.versionHeader(r)
		}
		if e == nil && len(b.requests) > 0 && h.expire(s) {
			e = &httpError{status: http.StatusNotFound, code: -32001, msg: "Session not found"}
		}
		if e != nil {
			h.write(w, e)
			return
		}
	}
	if len(b.requests) == 0 {
		if err := s.conn.push(r.Context(), b.raw, nil); err != nil {
			h.write(w, &httpError{status: http.StatusNotFound, code: -32001, msg: "Session not found"})
			return
		}
		status := http.StatusAccepted
		if h.faults.has("http-notice-200") {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		return
	}
	s.conn.answer(w, r, b)
}

// notices refuses a POST holding no request that the mock cannot accept:
// an empty batch, a message that is neither a notification nor a
// response, or a notification whose params is not an object. The refusal
// is the POST's own answer ("If the server cannot accept the input, it
// MUST return an HTTP error status code"), never a message on another
// stream: an error with a null id on the GET stream would be a response
// where none may go.
func notices(b *body) *httpError {
	invalid := func(why string) *httpError {
		return &httpError{status: http.StatusBadRequest, code: wire.CodeInvalidRequest, msg: "Invalid request: " + why}
	}
	if len(b.msgs) == 0 {
		return invalid("an empty batch")
	}
	for _, m := range b.msgs {
		if v, _ := wire.String(m["jsonrpc"]); v != "2.0" {
			return invalid(`"jsonrpc" must be "2.0"`)
		}
		_, result := m["result"]
		_, failure := m["error"]
		_, id := m["id"]
		method, hasMethod := m["method"]
		switch {
		case hasMethod && wire.Type(method) != "string":
			return invalid(`"method" must be a string`)
		case !hasMethod && !(id && (result || failure)):
			return invalid(`"method" is missing`)
		}
		if p, ok := m["params"]; ok && wire.Type(p) != "object" {
			return invalid("params must be an object")
		}
	}
	return nil
}

// versionHeader refuses a handshake-era request whose
// MCP-Protocol-Version names a version the mock does not serve.
func (h *HTTPHandler) versionHeader(r *http.Request) *httpError {
	v := r.Header.Get("MCP-Protocol-Version")
	if v == "" || slices.Contains(knownVersions, v) || h.faults.has("http-version-header-ignored") {
		return nil
	}
	return &httpError{status: http.StatusBadRequest, code: wire.CodeInvalidRequest, msg: fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %q", v)}
}

// validateModern checks the headers of a 2026-07-28 request against its
// body: "Servers that process the request body MUST reject requests where
// the values specified in the headers do not match the corresponding
// values in the request body."
func (h *HTTPHandler) validateModern(r *http.Request, b *body) *httpError {
	if h.faults.has("http-headers-unchecked") || len(b.requests) == 0 {
		return nil
	}
	id := b.requests[0]
	mismatch := func(format string, a ...any) *httpError {
		return &httpError{status: http.StatusBadRequest, code: wire.CodeHeaderMismatch, id: id, msg: "Header mismatch: " + fmt.Sprintf(format, a...)}
	}
	metaVersion, _ := wire.String(wire.Object(wire.Object(b.params)["_meta"])[wire.MetaProtocolVersion])
	switch v, ok := r.Header["Mcp-Protocol-Version"]; {
	case !ok:
		return mismatch("the MCP-Protocol-Version header is missing")
	case metaVersion != "" && v[0] != metaVersion:
		// A body that names no version is malformed, not in
		// disagreement: its -32602 comes from the mock.
		return mismatch("MCP-Protocol-Version %q does not match the body's %q", v[0], metaVersion)
	}
	switch m, ok := r.Header["Mcp-Method"]; {
	case !ok:
		return mismatch("the Mcp-Method header is missing")
	case m[0] != b.method:
		return mismatch("Mcp-Method %q does not match the body's %q", m[0], b.method)
	}
	member := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}[b.method]
	if member == "" {
		return nil
	}
	want, named := wire.String(wire.Object(b.params)[member])
	if !named {
		return nil // no name to mirror: the mock refuses the params with -32602
	}
	got, ok := r.Header["Mcp-Name"]
	if !ok {
		return mismatch("the Mcp-Name header is missing")
	}
	name := got[0]
	if !h.faults.has("http-name-not-decoded") {
		name = decodeSentinel(name)
	}
	if name != want {
		return mismatch("Mcp-Name %q does not match the body's %q", got[0], want)
	}
	return nil
}

// decodeSentinel decodes a header value in the Base64 sentinel form
// (=?base64?…?=); any other value is returned as it is.
func decodeSentinel(v string) string {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v
	}
	d, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return v
	}
	return string(d)
}

// statelessSession serves one POST of a stateless server: a mock of its
// own, already initialized at the version the request's header names, so
// that the request is served as by a server that keeps nothing between
// requests.
func (h *HTTPHandler) statelessSession(r *http.Request, b *body) *httpSession {
	s := h.newSession("")
	if b.method == "initialize" {
		// Requests name their version from 2025-06-18 on, and a request
		// that names none is taken as 2025-03-26 (as the transports page
		// says): a 2024-11-05 client could not be served as one, so it
		// is offered 2025-03-26 instead.
		if v, _ := wire.String(wire.Object(b.params)["protocolVersion"]); v == "2024-11-05" {
			b.raw = bytes.Replace(b.raw, []byte(`"2024-11-05"`), []byte(`"2025-03-26"`), 1)
		}
		return s
	}
	v := r.Header.Get("MCP-Protocol-Version")
	if !slices.Contains(knownVersions, v) {
		v = "2025-03-26"
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpconform-mock-stateless","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"stateless","version":"0"}}}`, v)
	s.conn.discard = true
	_ = s.conn.push(r.Context(), []byte(init), nil)
	_ = s.conn.push(r.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	return s
}

// get answers a GET: the session's stream of messages that go with no
// request, or the resumption of a stream.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	switch {
	case h.faults.has("http-get-404"):
		h.write(w, &httpError{status: http.StatusNotFound, msg: "Not Found"})
		return
	case h.faults.has("http-modern-get-stream") && r.Header.Get("Mcp-Session-Id") == "":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		return
	case !h.legacy || h.variants.has("http-no-get-stream") || h.variants.has("http-stateless"):
		h.notAllowed(w, "POST, DELETE", "this server offers no stream on GET")
		return
	}
	s, e := h.session(r)
	if e != nil {
		h.write(w, e)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		h.write(w, &httpError{status: http.StatusNotAcceptable, code: wire.CodeInvalidRequest, msg: "Not Acceptable: a GET must accept text/event-stream"})
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		s.conn.resume(w, r, last)
		return
	}
	s.conn.listen(w, r)
}

// Notify sends data, a notification of the server's own, on the GET
// stream of the session named (kept for it until the client opens one,
// as the mock's own notifications are), and reports whether the session
// exists. A recording mock uses it for the notifications a scenario
// needs sent.
func (h *HTTPHandler) Notify(sessionID string, data []byte) bool {
	h.mu.Lock()
	s := h.sessions[sessionID]
	h.mu.Unlock()
	if s == nil || sessionID == "" {
		return false
	}
	s.conn.mu.Lock()
	defer s.conn.mu.Unlock()
	s.conn.toGet(bytes.Clone(data))
	return true
}

// expire ends session s, the first one, when --variant
// http-session-expires asks for it, and reports whether it did.
func (h *HTTPHandler) expire(s *httpSession) bool {
	if !h.variants.has("http-session-expires") {
		return false
	}
	h.mu.Lock()
	first := !h.expired && h.nextID == 1 && h.sessions[s.id] == s
	if first {
		h.expired = true
		delete(h.sessions, s.id)
		h.ended[s.id] = true
	}
	h.mu.Unlock()
	if first {
		s.end()
	}
	return first
}

// delete ends a session.
func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if h.faults.has("http-modern-get-stream") && r.Header.Get("Mcp-Session-Id") == "" {
		w.WriteHeader(http.StatusOK)
		return
	}
	if !h.legacy || h.variants.has("http-no-delete") || h.variants.has("http-stateless") {
		h.notAllowed(w, "GET, POST", "clients cannot end sessions here")
		return
	}
	s, e := h.session(r)
	if e != nil {
		h.write(w, e)
		return
	}
	if h.faults.has("http-delete-keeps-session") {
		w.WriteHeader(http.StatusOK)
		return
	}
	h.mu.Lock()
	delete(h.sessions, s.id)
	h.ended[s.id] = true
	h.mu.Unlock()
	s.end()
	w.WriteHeader(http.StatusOK)
}
