package mockserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// Options configure Serve.
type Options struct {
	Fixture  *Fixture  // nil means DefaultFixture()
	Faults   []string  // fault names, see Faults
	Variants []string  // legal variations, see Variants
	Record   io.Writer // if non-nil: one JSON line per message in either direction
}

// Serve speaks MCP over newline-delimited JSON on in and out until in
// reaches EOF or ctx is done. It returns nil after EOF (or when a variant
// ends the session) and ctx.Err() when the context ended first; the
// goroutine reading in ends when a Read on it returns. Logs, if any, go to
// errOut (nil discards them).
//
// Faults marked as process-level in README.md act on the whole process
// (they exit, ignore signals or start children): use them only when Serve
// runs in a process of its own, as `mcpconform mock` does.
func Serve(ctx context.Context, in io.Reader, out io.Writer, errOut io.Writer, opts Options) error {
	return serve(ctx, errOut, opts, func(faults faultSet, rec *recorder) conn {
		return newLineConn(in, out, "stdin", "stdout", faults, rec)
	})
}

// ServeConn serves one client on c, a connection that carries
// newline-delimited JSON both ways (a Unix socket, a TCP connection, a
// pipe), as Serve does on stdin and stdout, until c's input ends or ctx is
// done. It does not close c; the goroutine reading c ends when a Read on
// it returns, as closing c makes it.
func ServeConn(ctx context.Context, c io.ReadWriter, errOut io.Writer, opts Options) error {
	return serve(ctx, errOut, opts, func(faults faultSet, rec *recorder) conn {
		return newLineConn(c, c, "the connection", "the connection", faults, rec)
	})
}

// serve runs one session over the transport open returns; open gets the
// faults, for those of its framing, and the recorder.
func serve(ctx context.Context, errOut io.Writer, opts Options, open func(faultSet, *recorder) conn) error {
	cat, err := compileOptions(opts)
	if err != nil {
		return err
	}
	if errOut == nil {
		errOut = io.Discard
	}
	faults := newFaultSet(opts.Faults)
	rec := &recorder{w: opts.Record}
	defer rec.close()
	s := newServer(cat, faults, open(faults, rec), errOut)
	s.variants = newVariantSet(opts.Variants)
	s.startVariants()
	return s.run(ctx)
}

// compileOptions checks the faults and variants of opts and prepares its
// fixture, as the variants change it, for serving.
func compileOptions(opts Options) (*catalog, error) {
	if err := ValidateFaults(opts.Faults); err != nil {
		return nil, err
	}
	if err := ValidateVariants(opts.Variants); err != nil {
		return nil, err
	}
	fx := opts.Fixture
	if fx == nil {
		fx = DefaultFixture()
	}
	variants := newVariantSet(opts.Variants)
	fx, err := variants.fixture(fx)
	if err != nil {
		return nil, err
	}
	cat, err := compile(fx)
	if err != nil {
		return nil, err
	}
	if err := variants.adjustCatalog(cat); err != nil {
		return nil, err
	}
	return cat, nil
}

// server is one MCP session. Its state is touched only by the goroutine of
// run's loop, under its lock; the transport and the delayed writer
// synchronise the output.
type server struct {
	cat      *catalog
	faults   faultSet
	variants variantSet
	conn     conn
	errOut   io.Writer
	delay    *delayedWriter // non-nil under the slow fault
	serving  int            // the seq of the frame being served (the last one, between frames)

	initialized   bool   // the initialize response was sent
	version       string // the negotiated protocol version
	clientReady   bool   // notifications/initialized arrived
	exitAfterInit bool
	flooding      bool // the flood faults were started

	// The 2026-07-28 era. Requests carry everything themselves; what is
	// kept here is the process's own state (streams, the list), what the
	// dual-era switch needs, and what faults remember.
	req          *modernRequest // the 2026-07-28 request being served, if any
	sawModern    bool           // an enveloped request arrived (and no initialize yet)
	discovered   bool           // server/discover was answered once
	streams      []*stream      // open subscriptions/listen requests, oldest first
	stuckVersion string         // stateful-version: the refused version that sticks
	varied       bool           // list-varies changed the list

	listed        []*entry // the current resource list
	templates     []*templateEntry
	tools         []*toolEntry
	prompts       []*Prompt
	fired         []bool // list-change triggers that already fired
	subscriptions map[string]bool
	cursorUses    map[string]int
	nextID        int

	pending []*outMsg // server messages to send after the current response
	pre     []*outMsg // server messages to send before it (variants)
	// afterNext is sent right after the next response (a fault's message
	// that must come once the server has surely read what the client sent).
	afterNext []*outMsg

	// What the variants keep.
	later      []*laterWrite // groups a timing variant put off
	timer      *time.Timer   // fires when the first of later is due
	quit       bool          // a variant ended the session
	started    time.Time
	logLevel   string    // log-notifications: the level logging/setLevel set
	lastPing   time.Time // server-pings
	pings      int
	rotation   int // list-order-varies: the rotation of the next walk
	churn      int // list-changes-while-paging: changes made so far
	readToggle bool
	generation int // time-varying-resource: reads so far
}

func newServer(cat *catalog, faults faultSet, c conn, errOut io.Writer) *server {
	s := &server{
		cat:           cat,
		faults:        faults,
		variants:      variantSet{},
		conn:          c,
		errOut:        errOut,
		fired:         make([]bool, len(cat.listAdds)),
		subscriptions: make(map[string]bool),
		cursorUses:    make(map[string]int),
	}
	s.listed = slices.Clone(cat.resources)
	s.templates = slices.Clone(cat.templates)
	s.tools = slices.DeleteFunc(slices.Clone(cat.tools), func(t *toolEntry) bool { return t.Hidden })
	s.prompts = slices.DeleteFunc(slices.Clone(cat.prompts), func(p *Prompt) bool { return p.Hidden })
	s.addFaultResources()
	return s
}

// handleFrame answers one frame.
func (s *server) handleFrame(f frame) {
	if f.tooLong() {
		s.emitResponse(s.errorResponse("", nil, &rpcError{Code: wire.CodeInvalidRequest, Message: fmt.Sprintf("Invalid request: the line exceeds %d bytes.", maxLine)}))
		return
	}
	if s.variants.has("stderr-chatter") {
		fmt.Fprintf(s.errOut, "%s mockserver: read a line of %d bytes\n", time.Now().UTC().Format(time.RFC3339Nano), f.Len)
	}
	trimmed := bytes.TrimSpace(f.Raw)
	if len(trimmed) == 0 {
		return // blank lines carry no message
	}
	if !json.Valid(trimmed) {
		switch {
		case s.faults.has("crash-on-parse-error"):
			fmt.Fprintln(s.errOut, "mockserver: unparseable input, exiting (crash-on-parse-error)")
			os.Exit(1)
		case s.faults.has("no-parse-error"):
			return
		}
		if s.faults.has("stray-before-parse-error") {
			// An answer to nothing, right before the -32700: the client
			// must not take it for the answer to the malformed line.
			s.conn.raw([]byte(`{"jsonrpc":"2.0","id":"mcpconform-mock-stray","result":{}}`), true)
		}
		id := json.RawMessage(nil)
		if s.faults.has("parse-error-bad-id") {
			id = json.RawMessage("0")
		}
		s.emitResponse(s.errorResponse("", id, &rpcError{Code: wire.CodeParseError, Message: "Parse error: the line is not valid JSON."}))
		return
	}
	if trimmed[0] == '[' {
		if s.variants.has("exit-on-batch") {
			fmt.Fprintln(s.errOut, "mockserver: a batch array arrived; ending the session (exit-on-batch)")
			s.quit = true
			return
		}
		s.handleBatch(trimmed)
		return
	}
	if s.variants.has("unsafe-integer-ids-dropped") && unsafeIntegerID(trimmed) {
		fmt.Fprintln(s.errOut, "mockserver: a message whose id is not a safe integer was dropped (unsafe-integer-ids-dropped)")
		return
	}
	resp := s.handleMessage(trimmed)
	s.emitResponse(resp)
	if s.initialized {
		s.startFloods()
	}
	if s.exitAfterInit {
		if s.delay != nil {
			s.delay.stop()
		}
		os.Exit(0)
	}
}

// unsafeIntegerID reports whether the message on line has an id written
// as an integer beyond 2^53 - 1 in magnitude, which a JavaScript number
// cannot hold exactly.
func unsafeIntegerID(line []byte) bool {
	var m struct{ ID json.RawMessage }
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	id := bytes.TrimSpace(m.ID)
	return wire.IsIntegerLiteral(id) && wire.BeyondSafeInteger(id)
}

// handleBatch answers a JSON array line. Batches exist in 2025-03-26 only
// (JSONRPC-11); elsewhere an array is an invalid request (JSONRPC-12).
func (s *server) handleBatch(line []byte) {
	batching := s.initialized && s.version == "2025-03-26" ||
		s.initialized && s.version == "2024-11-05" && s.variants.has("batch-in-2024")
	var elems []json.RawMessage
	_ = json.Unmarshal(line, &elems)
	switch {
	case batching && s.version == "2025-03-26" && s.faults.has("batch-unsupported"):
		// As a server that parses one object per line: the array is no
		// request to it.
		s.emitResponse(s.errorResponse("", nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request: batches are not supported."}))
		return
	case !batching || len(elems) == 0:
		if s.faults.has("no-invalid-request") {
			return
		}
		why := "batches are only allowed in 2025-03-26 sessions"
		if len(elems) == 0 && batching {
			why = "an empty batch"
		}
		s.emitResponse(s.errorResponse("", nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request: " + why + "."}))
		return
	}
	var parts [][]byte
	for _, el := range elems {
		resp := s.handleMessage(el)
		if resp == nil {
			continue
		}
		parts = append(parts, s.encode(resp))
		if isEnvelopeTarget(resp) && s.faults.has("duplicate-response") {
			parts = append(parts, s.encode(resp))
		}
	}
	group := s.pre
	s.pre = nil
	if len(parts) > 0 {
		batch := append([]byte{'['}, bytes.Join(parts, []byte{','})...)
		batch = append(batch, ']')
		group = append(group, &outMsg{kind: kindBatch, raw: batch})
	}
	s.emit(append(group, s.takePending()...))
}

// handleMessage answers one JSON-RPC message; nil means no answer.
func (s *server) handleMessage(raw []byte) *outMsg {
	msg, invalid := s.decodeEnvelope(raw)
	if invalid != nil {
		if s.faults.has("no-invalid-request") {
			return nil
		}
		return invalid
	}
	if msg == nil {
		return nil
	}
	if msg.id == nil {
		s.notification(msg)
		if s.faults.has("reply-to-notification") ||
			msg.method == "notifications/initialized" && msg.params != nil && s.faults.has("initialized-params-answered") {
			return &outMsg{kind: kindResponse, method: msg.method, result: object{}}
		}
		return nil
	}
	s.beforeResponse(msg)
	result, rerr, answer := s.dispatch(msg)
	if !answer {
		return nil
	}
	if rerr != nil {
		return s.errorResponse(msg.method, msg.id, rerr)
	}
	return &outMsg{kind: kindResponse, method: msg.method, id: msg.id, result: s.dress(msg.method, result)}
}

// methods maps each request method to its handler. The bool says whether
// the method is served before initialize.
var methods = map[string]struct {
	handle  func(*server, json.RawMessage) (any, *rpcError)
	preInit bool
}{
	"initialize":               {(*server).initialize, true},
	"ping":                     {(*server).ping, true},
	"logging/setLevel":         {(*server).setLevel, false},
	"resources/list":           {(*server).listResources, false},
	"resources/templates/list": {(*server).listTemplates, false},
	"resources/read":           {(*server).read, false},
	"resources/subscribe":      {(*server).subscribe, false},
	"resources/unsubscribe":    {(*server).unsubscribe, false},
	"tools/list":               {(*server).listTools, false},
	"tools/call":               {(*server).callTool, false},
	"prompts/list":             {(*server).listPrompts, false},
	"prompts/get":              {(*server).getPrompt, false},
	"completion/complete":      {(*server).complete, false},
}

// dispatch runs a request. answer false means the request is never
// answered (the hang faults).
func (s *server) dispatch(msg *incoming) (result any, rerr *rpcError, answer bool) {
	if s.modernTraffic(msg) {
		return s.dispatchModern(msg)
	}
	h, ok := methods[msg.method]
	if ok && !s.methodDeclared(msg.method) {
		ok = false
	}
	if !ok {
		code := wire.CodeMethodNotFound
		switch {
		case s.faults.has("unknown-method-wrong-code"):
			code = wire.CodeInvalidParams
		case s.faults.has("not-found-code-misused"):
			code = wire.CodeResourceNotFound
		case s.faults.has("elicitation-code-old-version") && s.version != v20251125:
			code = wire.CodeURLElicitationRequired
		}
		return nil, &rpcError{Code: code, Message: fmt.Sprintf("Method not found: %s.", short(msg.method))}, true
	}
	if !s.initialized && !h.preInit {
		switch {
		case s.faults.has("silent-before-initialize"):
			return nil, nil, false
		case s.variants.has("pre-init-served"):
			// Served at the newest version (see servingVersion).
		case s.variants.has("pre-init-refused-32602"):
			return nil, &rpcError{Code: wire.CodeInvalidParams, Message: "Invalid request parameters: the session is not initialized."}, true
		default:
			return nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Server not initialized: send initialize first."}, true
		}
	}
	if strings.HasPrefix(msg.method, "resources/") && s.faults.has("undeclared-resources-wrong-code") {
		return nil, &rpcError{Code: wire.CodeInternalError, Message: "Internal error: resources are switched off."}, true
	}
	if rerr := s.refuseMeta(msg.params); rerr != nil {
		return nil, rerr, true
	}
	if !s.proceed(msg.method) {
		return nil, nil, false
	}
	if msg.method == "resources/read" && msg.params == nil && s.faults.has("crash-on-read-without-params") {
		fmt.Fprintln(s.errOut, "mockserver: panic: nil params in resources/read (crash-on-read-without-params)")
		os.Exit(2)
	}
	result, rerr = h.handle(s, msg.params)
	if rerr != nil && rerr.malformed && s.faults.has("invalid-params-internal") && msg.method != "initialize" {
		rerr.Code = wire.CodeInternalError
	}
	if o, ok := result.(object); ok && rerr == nil {
		switch {
		case msg.method == "resources/list" && s.faults.has("deep-nesting"):
			o["mcpconformDeep"] = json.RawMessage(deepValue(hostileDepth))
		case msg.method != "ping" && s.faults.has("nested-arrays"):
			o["mcpconformNested"] = json.RawMessage(nestedValue(nestedCount, nestedDepth))
		case msg.method == "initialize" && s.faults.has("huge-server-info"):
			if si, ok := o["serverInfo"].(object); ok {
				si["description"] = strings.Repeat("huge serverInfo ", hugeServerInfo/16)
			}
		}
	}
	return result, rerr, true
}

// proceed applies the process faults that stop a request before its
// handler: false means the request is never answered.
func (s *server) proceed(method string) bool {
	switch {
	case method == "resources/list" && s.faults.has("hang-on-list"),
		method == "resources/read" && s.faults.has("hang-on-read"),
		method == "resources/templates/list" && s.faults.has("hang-on-templates-list"):
		return false
	case method == "resources/read" && s.faults.has("crash-on-read"):
		fmt.Fprintln(s.errOut, "mockserver: crashing on resources/read (crash-on-read)")
		os.Exit(1)
	}
	return true
}

// methodDeclared reports whether the capabilities put a method on offer
// (RES-CAP-04: a method behind an undeclared capability is not found).
func (s *server) methodDeclared(method string) bool {
	caps := s.cat.fx.Capabilities
	switch {
	case method == "logging/setLevel":
		return caps.Logging != nil && !s.faults.has("unrequested-log")
	case strings.HasPrefix(method, "tools/"):
		return caps.Tools != nil
	case strings.HasPrefix(method, "prompts/"):
		return caps.Prompts != nil
	case method == "completion/complete":
		return s.completionServed()
	case method == "resources/templates/list" && s.variants.has("templates-not-implemented"):
		return false
	case strings.HasPrefix(method, "resources/"):
		if caps.Resources == nil {
			return false
		}
		switch method {
		case "resources/subscribe":
			return caps.Resources.Subscribe && !s.faults.has("subscribe-unsupported")
		case "resources/unsubscribe":
			return caps.Resources.Subscribe
		}
	}
	return true
}

// notification handles a client notification. None is ever answered.
func (s *server) notification(msg *incoming) {
	switch {
	case msg.method == "notifications/initialized" && s.initialized && !s.clientReady:
		s.clientReady = true
		s.afterInitialized()
	case msg.method == "notifications/initialized" && !s.initialized && s.cat.legacy && s.variants.has("initialized-opens-gate"):
		// As the Python SDK does: a bare initialized opens the session.
		s.initialized, s.clientReady = true, true
		s.version = s.cat.versions[len(s.cat.versions)-1]
		s.afterInitialized()
	case msg.method == "notifications/cancelled":
		// Only a listen stream can still be open: every other request is
		// answered before the next line is read.
		s.cancelStream(msg.params)
	}
}

// notify queues a notification to follow the current response.
func (s *server) notify(method string, params any) {
	s.pending = append(s.pending, &outMsg{kind: kindNotification, method: method, params: s.dressParams(params)})
}

// request queues a server-to-client request.
func (s *server) request(id json.RawMessage, method string, params any) {
	s.pending = append(s.pending, &outMsg{kind: kindRequest, method: method, id: id, params: params})
}

func (s *server) takePending() []*outMsg {
	p := s.pending
	s.pending = nil
	return p
}

// emitResponse sends a response (if any) and then the queued messages.
func (s *server) emitResponse(resp *outMsg) {
	group := s.pre
	s.pre = nil
	if resp != nil {
		group = append(group, resp)
		if isEnvelopeTarget(resp) && s.faults.has("duplicate-response") {
			group = append(group, resp)
		}
	}
	if resp != nil && len(s.afterNext) > 0 {
		// Queued to follow the next response (stream-after-cancel).
		group = append(group, s.afterNext...)
		s.afterNext = nil
	}
	s.emit(append(group, s.takePending()...))
}

// emit writes a group of messages in order, now or (slow) later.
func (s *server) emit(group []*outMsg) {
	if len(group) == 0 {
		return
	}
	type line struct {
		b      []byte
		pretty bool
		raw    bool
		logged string
	}
	lines := make([]line, 0, len(group))
	for _, m := range group {
		l := line{b: s.encode(m), raw: m.kind == kindRaw}
		if !l.raw {
			l.b = s.rewriteWire(l.b)
		}
		isResponse := m.kind == kindResponse || m.kind == kindBatch
		l.pretty = isEnvelopeTarget(m) && s.faults.has("pretty-print")
		if isResponse && s.faults.has("log-stdout") {
			l.logged = fmt.Sprintf("%s INFO mockserver answered %s", time.Now().UTC().Format(time.RFC3339), short(cmp.Or(m.method, "a message")))
		}
		lines = append(lines, l)
	}
	re := s.serving
	write := func() {
		for _, l := range lines {
			if l.logged != "" {
				s.conn.raw([]byte(l.logged), true)
			}
			if l.raw {
				s.conn.raw(l.b, true)
			} else {
				s.conn.send(outFrame{data: l.b, pretty: l.pretty, re: re})
			}
		}
	}
	if s.delay != nil {
		s.delay.add(write)
		return
	}
	s.schedule(group, write)
}

// short makes a client-supplied string fit in an error message.
func short(s string) string {
	const max = 60
	b := []rune(s)
	if len(b) > max {
		s = string(b[:max]) + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}

// delayedWriter runs writes after a fixed delay, in the order they were
// queued, so that slow responses keep their order.
type delayedWriter struct {
	queue    chan delayedWrite
	done     chan struct{}
	delay    time.Duration
	stopOnce sync.Once
}

type delayedWrite struct {
	due   time.Time
	write func()
}

func newDelayedWriter(delay time.Duration) *delayedWriter {
	d := &delayedWriter{queue: make(chan delayedWrite, 1024), done: make(chan struct{}), delay: delay}
	go func() {
		defer close(d.done)
		for w := range d.queue {
			time.Sleep(time.Until(w.due))
			w.write()
		}
	}()
	return d
}

func (d *delayedWriter) add(write func()) {
	d.queue <- delayedWrite{due: time.Now().Add(d.delay), write: write}
}

// stop waits for every queued write; it may be called more than once.
func (d *delayedWriter) stop() {
	d.stopOnce.Do(func() { close(d.queue) })
	<-d.done
}

// refuseMeta applies the faults that refuse a legacy request because of
// what its params._meta holds (META-01, META-05).
func (s *server) refuseMeta(params json.RawMessage) *rpcError {
	if !s.faults.has("unknown-meta-refused") && !s.faults.has("progress-token-refused") {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil {
		return nil
	}
	for k := range p.Meta {
		switch {
		case k == "progressToken" && s.faults.has("progress-token-refused"):
			return invalidParams("Invalid params: progress notifications are not supported.")
		case k != "progressToken" && s.faults.has("unknown-meta-refused"):
			return invalidParams("Invalid params: unknown _meta key %q.", short(k))
		}
	}
	return nil
}
