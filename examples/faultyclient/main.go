// Command faultyclient is a client under test for mcpconform's client mode
// that breaks one rule at a time, exactly: the self-test of the client
// checks. It follows the contract of docs/client-guide.md (it spawns the
// server that MCP_CONFORMANCE_SERVER_COMMAND names, or, without it, speaks
// Streamable HTTP to the URL given as its last argument, and runs the
// scenario MCP_CONFORMANCE_SCENARIO), and is built on nothing but the standard
// library and this module's wire package, so that every byte it writes is
// the one the fault calls for.
//
//	faultyclient                      a correct client
//	faultyclient -fault no-initialized  breaks one rule (faultyclient -list shows them)
//	faultyclient -legal pipelined       does something legal but unusual
//
// By hand, from the root of this repository:
//
//	MCP_CONFORMANCE_SCENARIO=resources MCP_CONFORMANCE_SERVER_COMMAND='["mcpconform","mock","--record","rec.jsonl"]' go run ./examples/faultyclient -fault cursor-modified
//
// Each fault names the requirements a judge must find broken, and what the
// server must do for the fault to show (Fault.Needs); faults_test.go runs
// every fault and every legal behaviour and judges what the server saw.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// Exit statuses of the contract.
const (
	exitCompleted   = 0
	exitFailed      = 1
	exitUsage       = 2
	exitUnsupported = 3
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("faultyclient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fault := fs.String("fault", "", "break the rule this fault names (see -list)")
	legal := fs.String("legal", "", "do this legal but unusual thing (see -list)")
	list := fs.Bool("list", false, "list the faults and the legal behaviours")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *list {
		printList(stdout)
		return exitCompleted
	}
	if *fault != "" && FaultNamed(*fault) == nil {
		fmt.Fprintf(stderr, "faultyclient: unknown fault %q (faultyclient -list)\n", *fault)
		return exitUsage
	}
	if *legal != "" && LegalNamed(*legal) == nil {
		fmt.Fprintf(stderr, "faultyclient: unknown legal behaviour %q (faultyclient -list)\n", *legal)
		return exitUsage
	}
	env, err := readEnv(getenv, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "faultyclient: %v\n", err)
		return exitUsage
	}
	c := &client{env: env, fault: *fault, legal: *legal, out: stdout, log: stderr}
	if err := c.runScenario(); err != nil {
		if errors.Is(err, errUnsupported) {
			fmt.Fprintf(stderr, "faultyclient: %s: %v\n", env.scenario, err)
			return exitUnsupported
		}
		fmt.Fprintf(stderr, "faultyclient: %s: %v\n", env.scenario, err)
		return exitFailed
	}
	return exitCompleted
}

func printList(w io.Writer) {
	fmt.Fprintln(w, "Faults (-fault NAME): each breaks the requirements named")
	for _, f := range Faults {
		fmt.Fprintf(w, "  %-30s %-22s %s\n", f.Name, strings.Join(f.Breaks, ","), f.Description)
	}
	fmt.Fprintln(w, "Legal behaviours (-legal NAME): none may draw a fail")
	for _, l := range Legal {
		fmt.Fprintf(w, "  %-30s %s\n", l.Name, l.Description)
	}
}

// env is what the contract tells the client.
type env struct {
	scenario string
	version  string
	context  struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
		URI       string         `json:"uri"`
		TimeoutMs int            `json:"timeoutMs"`
	}
	server []string
	// url is the server's URL over Streamable HTTP: the last argument,
	// when MCP_CONFORMANCE_SERVER_COMMAND is not set.
	url string
}

var errUnsupported = errors.New("unsupported by this client")

func readEnv(getenv func(string) string, args []string) (*env, error) {
	e := &env{scenario: getenv("MCP_CONFORMANCE_SCENARIO"), version: getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")}
	if e.scenario == "" {
		return nil, errors.New("MCP_CONFORMANCE_SCENARIO is not set")
	}
	if !knownScenario(e.scenario) {
		return nil, fmt.Errorf("unknown scenario %q", e.scenario)
	}
	raw := getenv("MCP_CONFORMANCE_SERVER_COMMAND")
	switch {
	case raw == "" && len(args) > 0 && (strings.HasPrefix(args[len(args)-1], "http://") || strings.HasPrefix(args[len(args)-1], "https://")):
		e.url = args[len(args)-1]
	case json.Unmarshal([]byte(raw), &e.server) != nil || len(e.server) == 0:
		return nil, errors.New("MCP_CONFORMANCE_SERVER_COMMAND: want a JSON array of strings (or no variable, and the server's URL as the last argument)")
	}
	if e.url == "" && e.scenario == "session-expiry" {
		return nil, errors.New("session-expiry is a scenario of Streamable HTTP")
	}
	if c := getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &e.context); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	if e.version == "" {
		e.version = wire.Newest
	}
	return e, nil
}

var scenarios = []string{"initialize", "tools_call", "resources", "prompts", "list-changed", "server-requests",
	"elicitation-sep1034-client-defaults", "cancellation", "shutdown", "version-negotiation", "session-expiry", "request-metadata",
	"sep-2322-client-request-state"}

func knownScenario(s string) bool {
	for _, x := range scenarios {
		if x == s {
			return true
		}
	}
	return false
}

// client is one run of a scenario: the server process it spawned, and
// what it knows of the session.
type client struct {
	env   *env
	fault string
	legal string
	out   io.Writer
	log   io.Writer

	cmd   *exec.Cmd
	stdin io.WriteCloser
	exit  chan struct{} // closed when the server process has ended

	mu      sync.Mutex
	nextID  int
	waiting map[string]chan *wire.Message
	notes   chan *wire.Message
	// modern is set once the session speaks 2026-07-28.
	modern  bool
	version string
	caps    map[string]any // the client's capabilities
	server  map[string]json.RawMessage
	// http is the session over Streamable HTTP (nil over stdio).
	http *httpConn
}

// spawn starts the server and the reader of its stdout.
func (c *client) spawn() error {
	cmd := exec.Command(c.env.server[0], c.env.server[1:]...)
	cmd.Stderr = c.log
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %v", err)
	}
	c.cmd, c.stdin, c.exit = cmd, in, make(chan struct{})
	c.waiting = map[string]chan *wire.Message{}
	c.notes = make(chan *wire.Message, 64)
	c.nextID = 0
	done := make(chan struct{})
	go func() {
		c.read(outp)
		close(done)
	}()
	go func() {
		<-done
		cmd.Wait()
		close(c.exit)
	}()
	return nil
}

// read dispatches every message the server writes: responses to their
// waiters, requests to the answering code, notifications to notes.
func (c *client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

// dispatch hands out the messages of a line (or an HTTP body, or the
// data of an event).
func (c *client) dispatch(line []byte) {
	msgs, _ := wire.DecodeLine(line)
	for _, m := range msgs {
		switch m.Kind() {
		case wire.KindResponse:
			c.mu.Lock()
			ch := c.waiting[wire.IDKey(m.ID)]
			delete(c.waiting, wire.IDKey(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case wire.KindRequest:
			c.answer(m)
		case wire.KindNotification:
			select {
			case c.notes <- m:
			default:
			}
		}
	}
}

// write sends one message as one line (or as the fault frames it).
func (c *client) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	c.writeRaw(b)
}

// writeRaw writes a line's bytes with its terminator.
func (c *client) writeRaw(b []byte) {
	if c.http != nil {
		c.post(b)
		return
	}
	term := "\n"
	if c.legal == "crlf" {
		term = "\r\n"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stdin.Write(append(b, term...))
}

// writeTogether writes messages as lines in one write, so that they
// arrive together.
func (c *client) writeTogether(msgs ...any) {
	if c.http != nil {
		for _, m := range msgs {
			c.write(m)
		}
		return
	}
	var buf []byte
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		buf = append(append(buf, b...), '\n')
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stdin.Write(buf)
}

// id returns the next request id.
func (c *client) id() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	if c.legal == "string-ids" {
		return fmt.Sprintf("req-\u00fc-%d", c.nextID)
	}
	return c.nextID
}

// obj is a JSON object under construction.
type obj = map[string]any

// request builds a request with the envelope the session needs.
func (c *client) request(id any, method string, params obj) obj {
	if params == nil && (c.modern || c.legal == "meta-everywhere") {
		params = obj{}
	}
	if c.modern && c.fault != "modern-no-meta" {
		meta := obj{
			"io.modelcontextprotocol/protocolVersion":    wire.Modern,
			"io.modelcontextprotocol/clientCapabilities": c.caps,
		}
		if c.fault != "modern-no-client-info" {
			meta["io.modelcontextprotocol/clientInfo"] = obj{"name": "faultyclient", "version": "0.1.0"}
		}
		mergeMeta(params, meta)
	}
	if c.legal == "meta-everywhere" {
		mergeMeta(params, obj{"com.example.faultyclient/trace": fmt.Sprint(id)})
	}
	m := obj{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

func mergeMeta(params obj, add obj) {
	meta, _ := params["_meta"].(obj)
	if meta == nil {
		meta = obj{}
	}
	for k, v := range add {
		meta[k] = v
	}
	params["_meta"] = meta
}

// notify sends a notification.
func (c *client) notify(method string, params obj) {
	m := obj{"jsonrpc": "2.0", "method": method}
	if c.legal == "meta-everywhere" {
		if params == nil {
			params = obj{}
		}
		mergeMeta(params, obj{"com.example.faultyclient/trace": method})
	}
	if params != nil {
		m["params"] = params
	}
	c.write(m)
}

// await registers a waiter for a response to id.
func (c *client) await(id any) chan *wire.Message {
	raw, _ := json.Marshal(id)
	ch := make(chan *wire.Message, 1)
	c.mu.Lock()
	c.waiting[wire.IDKey(raw)] = ch
	c.mu.Unlock()
	return ch
}

// errTimeout is a request whose answer did not come within its deadline.
var errTimeout = errors.New("no answer within the deadline")

// wait waits for a response, at most d.
func (c *client) wait(ch chan *wire.Message, d time.Duration) (*wire.Message, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-c.exit:
		return nil, errors.New("the server exited")
	case <-time.After(d):
		return nil, errTimeout
	}
}

// call sends a request and waits for its result.
func (c *client) call(method string, params obj) (map[string]json.RawMessage, error) {
	id := c.id()
	ch := c.await(id)
	c.write(c.request(id, method, params))
	return c.result(method, ch)
}

func (c *client) result(method string, ch chan *wire.Message) (map[string]json.RawMessage, error) {
	m, err := c.wait(ch, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	if m.Has("error") {
		return nil, fmt.Errorf("%s: error %s", method, m.Error)
	}
	return wire.Object(m.Result), nil
}

// answer answers a request of the server, as the fault or legal
// behaviour says.
func (c *client) answer(m *wire.Message) {
	reply := func(result any) { c.write(obj{"jsonrpc": "2.0", "id": m.ID, "result": result}) }
	refuse := func(code int, msg string) {
		c.write(obj{"jsonrpc": "2.0", "id": m.ID, "error": obj{"code": code, "message": msg}})
	}
	declared := func(name string) bool { _, ok := c.caps[name]; return ok }
	if c.modern && c.http != nil {
		// "The client MUST NOT send JSON-RPC responses" over Streamable
		// HTTP in 2026-07-28: a request of the server goes unanswered.
		if c.fault == "http-responses-in-modern" {
			c.write(obj{"jsonrpc": "2.0", "id": m.ID, "result": obj{"resultType": "complete"}})
		}
		return
	}
	switch m.Method {
	case "ping":
		switch c.fault {
		case "ignore-ping":
			return
		case "response-wrong-id":
			c.write(obj{"jsonrpc": "2.0", "id": "not-" + string(bytes.Trim(m.ID, `"`)), "result": obj{}})
			return
		}
		reply(obj{})
	case "roots/list":
		switch {
		case c.fault == "roots-undeclared-answered" || declared("roots") && c.fault != "roots-not-file":
			reply(obj{"roots": []obj{{"uri": "file:///tmp/mcpconform-root", "name": "root"}}})
		case c.fault == "roots-not-file":
			reply(obj{"roots": []obj{{"uri": "https://example.com/repo"}}})
		case c.fault == "roots-refused-wrong-code":
			refuse(-32603, "Internal error")
		default:
			refuse(-32601, "Method not found")
		}
	case "sampling/createMessage":
		if !declared("sampling") && c.fault != "sampling-undeclared-answered" {
			refuse(-32601, "Method not found")
			return
		}
		reply(obj{"role": "assistant", "content": obj{"type": "text", "text": "A fixed reply."}, "model": "fixed", "stopReason": "endTurn"})
	case "elicitation/create":
		if !declared("elicitation") {
			refuse(-32601, "Method not found")
			return
		}
		reply(obj{"action": "decline"})
	default:
		refuse(-32601, "Method not found")
	}
}

// runScenario spawns the server, opens the session, does what the
// scenario asks, and shuts the server down.
func (c *client) runScenario() error {
	rounds := 1
	if c.legal == "reconnect" {
		rounds = 2
	}
	for i := 0; i < rounds; i++ {
		if c.env.url != "" {
			c.connect()
		} else if err := c.spawn(); err != nil {
			return err
		}
		err := c.session()
		if c.http != nil {
			c.hangUp()
		} else {
			c.shutdown()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *client) session() error {
	c.caps = obj{}
	if c.env.scenario == "server-requests" && c.legal != "no-capabilities" {
		c.caps = obj{"roots": obj{"listChanged": true}, "sampling": obj{}, "elicitation": obj{}}
	}
	if c.fault == "roots-not-file" {
		c.caps = obj{"roots": obj{}}
	}
	if c.env.scenario == "sep-2322-client-request-state" {
		c.caps = obj{"elicitation": obj{}}
	}
	var err error
	if c.env.version == wire.Modern {
		err = c.openModern()
	} else {
		err = c.openLegacy()
	}
	if err != nil {
		return err
	}
	if c.http != nil {
		c.listen()
	}
	return c.scenario()
}

// openLegacy runs the handshake.
func (c *client) openLegacy() error {
	c.version = c.env.version
	if c.env.scenario == "version-negotiation" {
		c.version = wire.Newest
	}
	info := obj{"name": "faultyclient", "version": "0.1.0"}
	p := obj{"protocolVersion": c.version, "capabilities": c.caps, "clientInfo": info}
	if c.fault == "no-client-info" {
		delete(p, "clientInfo")
	}
	if c.fault == "capability-wrong-type" {
		p["capabilities"] = obj{"experimental": "yes"}
	}
	id := c.id()
	ch := c.await(id)
	init := c.request(id, "initialize", p)
	switch c.fault {
	case "batch-initialize":
		b, _ := json.Marshal([]any{init})
		c.writeRaw(b)
	case "bom":
		b, _ := json.Marshal(init)
		c.writeRaw(append([]byte("\uFEFF"), b...))
	case "request-before-init-response": // below
	default:
		if c.fault == "banner" {
			c.writeRaw([]byte("faultyclient 0.1.0 starting"))
		}
		c.write(init)
	}
	if c.fault == "cancel-initialize" {
		c.notify("notifications/cancelled", obj{"requestId": id, "reason": "changed my mind"})
	}
	var early chan *wire.Message
	if c.fault == "request-before-init-response" {
		// Written with initialize, in one write: the server cannot have
		// answered initialize before it arrives.
		early = c.await(c.peekID())
		c.writeTogether(init, c.request(c.id(), "tools/list", nil))
	}
	// A server may well not read a line with a BOM or a batched
	// initialize; the wait is the same, so that a server slow to start is
	// never taken for one that did not read it.
	m, err := c.wait(ch, 10*time.Second)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if m.Kind() != wire.KindResponse {
		return errors.New("initialize: no response")
	}
	res := wire.Object(m.Result)
	if res == nil {
		return fmt.Errorf("initialize: error %s", m.Error)
	}
	got, _ := wire.String(res["protocolVersion"])
	c.server = wire.Object(res["capabilities"])
	if !wire.KnownVersion(got) && c.fault != "wrong-version-accepted" {
		return fmt.Errorf("the server offered %q, which this client does not speak", got)
	}
	if wire.KnownVersion(got) {
		c.version = got
	}
	if c.fault != "no-initialized" {
		if c.fault == "notification-with-id" {
			c.write(obj{"jsonrpc": "2.0", "id": c.id(), "method": "notifications/initialized"})
		} else {
			c.notify("notifications/initialized", nil)
		}
	}
	if early != nil {
		c.wait(early, 10*time.Second)
	}
	return nil
}

// peekID is the id the next call of id will return.
func (c *client) peekID() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.legal == "string-ids" {
		return fmt.Sprintf("req-\u00fc-%d", c.nextID+1)
	}
	return c.nextID + 1
}

// openModern probes with server/discover (2026-07-28).
func (c *client) openModern() error {
	c.modern, c.version = true, wire.Modern
	if c.fault == "no-discover" {
		return nil
	}
	res, err := c.call("server/discover", obj{})
	if err != nil {
		return err
	}
	c.server = wire.Object(res["capabilities"])
	return nil
}

// has reports whether the server declared a capability.
func (c *client) has(name string) bool {
	if c.modern || c.fault == "ignores-capabilities" {
		return true
	}
	_, ok := c.server[name]
	return ok
}

// scenario does what the scenario asks, after connecting.
func (c *client) scenario() error {
	if err := c.jsonrpcFault(); err != nil {
		return err
	}
	switch c.env.scenario {
	case "initialize", "version-negotiation":
		_, err := c.list("tools/list", "tools")
		return err
	case "session-expiry":
		_, err := c.list("tools/list", "tools")
		if err == nil || c.http == nil || !c.lostSession() || c.fault == "http-no-renew" {
			return err
		}
		if err := c.renew(); err != nil {
			return err
		}
		c.listen()
		_, err = c.list("tools/list", "tools")
		return err
	case "tools_call":
		tools, err := c.list("tools/list", "tools")
		if err != nil {
			return err
		}
		if !hasNamed(tools, "add_numbers") {
			return nil
		}
		res, err := c.call("tools/call", obj{"name": "add_numbers", "arguments": obj{"a": 2, "b": 3}})
		fmt.Fprintf(c.out, "add_numbers: %s\n", res["content"])
		return err
	case "resources", "request-metadata":
		return c.resources()
	case "prompts":
		prompts, err := c.list("prompts/list", "prompts")
		for _, p := range prompts {
			name, _ := wire.String(p["name"])
			args := obj{}
			items, _ := wire.Array(p["arguments"])
			for _, a := range items {
				if req := wire.Object(a)["required"]; string(req) == "true" {
					n, _ := wire.String(wire.Object(a)["name"])
					args[n] = "x"
				}
			}
			if _, err := c.call("prompts/get", obj{"name": name, "arguments": args}); err != nil {
				return err
			}
		}
		return err
	case "list-changed":
		for _, kind := range []string{"tools", "resources", "prompts"} {
			if c.has(kind) {
				if _, err := c.list(kind+"/list", kind); err != nil {
					return err
				}
			}
		}
		select {
		case n := <-c.notes:
			if kind, ok := strings.CutSuffix(strings.TrimPrefix(n.Method, "notifications/"), "/list_changed"); ok {
				_, err := c.list(kind+"/list", kind)
				return err
			}
		case <-time.After(2 * time.Second):
		}
		return nil
	case "server-requests":
		if _, err := c.list("tools/list", "tools"); err != nil {
			return err
		}
		if t := c.env.context.Tool; t != "" {
			_, err := c.call("tools/call", obj{"name": t, "arguments": c.env.context.Arguments})
			return err
		}
		return nil
	case "cancellation":
		return c.cancellation()
	case "shutdown":
		if !c.modern {
			_, err := c.call("ping", nil)
			return err
		}
		return nil
	case "sep-2322-client-request-state":
		return c.requestState()
	}
	return errUnsupported
}

func hasNamed(items []map[string]json.RawMessage, name string) bool {
	for _, it := range items {
		if n, _ := wire.String(it["name"]); n == name {
			return true
		}
	}
	return false
}

// jsonrpcFault sends the malformed message of a JSON-RPC fault, once,
// before the scenario's own traffic.
func (c *client) jsonrpcFault() error {
	switch c.fault {
	case "null-id":
		c.write(c.request(nil, "tools/list", nil))
	case "jsonrpc-1.0":
		m := c.request(c.id(), "tools/list", nil)
		m["jsonrpc"] = "1.0"
		c.write(m)
	case "fractional-id":
		c.write(c.request(2.5, "tools/list", nil))
	case "embedded-newline":
		id := c.id()
		ch := c.await(id)
		b, _ := json.MarshalIndent(c.request(id, "tools/list", nil), "", "  ")
		c.writeRaw(b)
		c.wait(ch, 300*time.Millisecond) // the server cannot read it: no answer comes
	case "batch-requests":
		a, b := c.id(), c.id()
		ca, cb := c.await(a), c.await(b)
		raw, _ := json.Marshal([]any{c.request(a, "tools/list", nil), c.request(b, "prompts/list", nil)})
		c.writeRaw(raw)
		c.wait(ca, 300*time.Millisecond) // a server without batches answers neither
		c.wait(cb, 300*time.Millisecond)
	case "unknown-cancel":
		c.notify("notifications/cancelled", obj{"requestId": 4242, "reason": "tidying up"})
	case "responses-in-modern":
		c.write(obj{"jsonrpc": "2.0", "id": "unasked", "result": obj{}})
	case "progress-token-object":
		_, err := c.call("tools/list", obj{"_meta": obj{"progressToken": obj{"n": 1}}})
		return err
	}
	return nil
}

// list lists method to its end (or as the fault says), returning the
// items of member.
func (c *client) list(method, member string) ([]map[string]json.RawMessage, error) {
	if !c.has(strings.TrimSuffix(strings.TrimSuffix(method, "/list"), "/templates")) {
		return nil, nil
	}
	if c.legal == "pipelined" && method == "tools/list" {
		return c.pipelined()
	}
	return c.walk(method, member, nil)
}

// walk asks for the pages of method from cursor (nil: the first page) to
// the last, returning the items of member.
func (c *client) walk(method, member string, cursor *string) ([]map[string]json.RawMessage, error) {
	var items []map[string]json.RawMessage
	seen := map[string]bool{}
	for page := 0; ; page++ {
		p := obj{}
		if cursor != nil {
			p["cursor"] = *cursor
			if c.fault == "cursor-modified" {
				p["cursor"] = *cursor + "x"
			}
		}
		if cursor == nil && !c.modern && c.legal != "meta-everywhere" {
			p = nil
		}
		if c.fault == "id-reused" && page == 1 {
			// The next page under the id of the first: used before in
			// this session.
			c.mu.Lock()
			c.nextID--
			c.mu.Unlock()
		}
		res, err := c.call(method, p)
		if err != nil {
			return items, err
		}
		items = appendItems(items, res[member])
		next, more := wire.String(res["nextCursor"])
		if !more || c.fault == "pagination-stops-early" {
			return items, nil
		}
		if next == "" && (c.fault == "empty-cursor-as-end" || !c.modern) {
			return items, nil
		}
		if seen[next] {
			return items, fmt.Errorf("%s: the cursor %q came back: a loop", method, next)
		}
		seen[next] = true
		cursor = &next
	}
}

func appendItems(items []map[string]json.RawMessage, raw json.RawMessage) []map[string]json.RawMessage {
	arr, _ := wire.Array(raw)
	for _, it := range arr {
		items = append(items, wire.Object(it))
	}
	return items
}

// pipelined sends the first page requests of three lists at once, reads
// the answers as they come, and then follows each list to its end. It
// returns the tools.
func (c *client) pipelined() ([]map[string]json.RawMessage, error) {
	type pending struct {
		method, member string
		ch             chan *wire.Message
	}
	var ps []pending
	for _, l := range [][2]string{{"tools/list", "tools"}, {"resources/list", "resources"}, {"prompts/list", "prompts"}} {
		if !c.has(strings.TrimSuffix(l[0], "/list")) {
			continue
		}
		id := c.id()
		ps = append(ps, pending{l[0], l[1], c.await(id)})
		c.write(c.request(id, l[0], nil))
	}
	var tools []map[string]json.RawMessage
	for _, p := range ps {
		res, err := c.result(p.method, p.ch)
		if err != nil {
			return nil, err
		}
		items := appendItems(nil, res[p.member])
		if next, more := wire.String(res["nextCursor"]); more {
			rest, err := c.walk(p.method, p.member, &next)
			if err != nil {
				return nil, err
			}
			items = append(items, rest...)
		}
		if p.method == "tools/list" {
			tools = items
		}
	}
	return tools, nil
}

// resources lists resources and templates, subscribes to the first where
// the server allows (or the fault ignores that it does not), and reads
// every resource.
func (c *client) resources() error {
	res, err := c.list("resources/list", "resources")
	if err != nil {
		return err
	}
	if _, err := c.list("resources/templates/list", "resourceTemplates"); err != nil {
		return err
	}
	subscribe := !c.modern && len(res) > 0 && (c.fault == "ignores-capabilities" || string(wire.Object(c.server["resources"])["subscribe"]) == "true")
	if subscribe {
		uri, _ := wire.String(res[0]["uri"])
		c.call("resources/subscribe", obj{"uri": uri}) // refused by a server without subscribe
	}
	for i, r := range res {
		if c.env.scenario == "request-metadata" && i > 0 {
			break
		}
		uri, _ := wire.String(r["uri"])
		if _, err := c.readResource(uri); err != nil {
			return err
		}
	}
	return nil
}

// readResource reads a resource, retrying an input_required answer.
func (c *client) readResource(uri string) (map[string]json.RawMessage, error) {
	return c.callRetrying("resources/read", obj{"uri": uri})
}

// callRetrying calls method and, in 2026-07-28, retries an
// input_required result with its requestState and the inputs it asks
// for, under a new id.
func (c *client) callRetrying(method string, params obj) (map[string]json.RawMessage, error) {
	res, err := c.call(method, params)
	for tries := 0; err == nil && tries < 3; tries++ {
		if kind, _ := wire.String(res["resultType"]); kind != "input_required" {
			return res, nil
		}
		retry := obj{}
		for k, v := range params {
			retry[k] = v
		}
		if st, ok := wire.String(res["requestState"]); ok {
			switch c.fault {
			case "request-state-modified":
				st += "!"
			}
			retry["requestState"] = st
		}
		if asked := wire.Object(res["inputRequests"]); len(asked) > 0 {
			answers := obj{}
			for k := range asked {
				answers[k] = obj{"action": "decline"}
			}
			retry["inputResponses"] = answers
		}
		if c.fault == "retry-same-id" {
			c.mu.Lock()
			c.nextID--
			c.mu.Unlock()
		}
		res, err = c.call(method, retry)
	}
	return res, err
}

// requestState calls the scenario's tool (or reads the first resource)
// and retries its input_required answers.
func (c *client) requestState() error {
	if !c.modern {
		return errUnsupported
	}
	if t := c.env.context.Tool; t != "" {
		_, err := c.callRetrying("tools/call", obj{"name": t, "arguments": c.env.context.Arguments})
		return err
	}
	res, err := c.list("resources/list", "resources")
	if err != nil || len(res) == 0 {
		return err
	}
	uri, _ := wire.String(res[0]["uri"])
	_, err = c.readResource(uri)
	return err
}

// cancellation reads the context's resource (or calls its tool) with the
// context's deadline, and cancels the request when the deadline passes.
func (c *client) cancellation() error {
	d := time.Duration(c.env.context.TimeoutMs) * time.Millisecond
	if d <= 0 {
		d = time.Second
	}
	method, params := "resources/read", obj{"uri": c.env.context.URI}
	if t := c.env.context.Tool; t != "" {
		method, params = "tools/call", obj{"name": t, "arguments": c.env.context.Arguments}
	} else if c.env.context.URI == "" {
		res, err := c.list("resources/list", "resources")
		if err != nil || len(res) == 0 {
			return err
		}
		params["uri"], _ = wire.String(res[0]["uri"])
	}
	id := c.id()
	ch := c.await(id)
	ids := []any{id}
	if c.fault == "progress-token-reused" {
		// Two requests at once, both with the token "shared".
		other := c.id()
		ids = append(ids, other)
		shared := func(id any) obj {
			p := obj{}
			for k, v := range params {
				p[k] = v
			}
			p["_meta"] = obj{"progressToken": "shared"}
			return c.request(id, method, p)
		}
		c.writeTogether(shared(id), shared(other))
	} else {
		c.write(c.request(id, method, params))
	}
	_, err := c.wait(ch, d)
	if !errors.Is(err, errTimeout) {
		return err
	}
	if c.fault != "no-cancel-on-timeout" {
		for _, id := range ids {
			c.notify("notifications/cancelled", obj{"requestId": id, "reason": "the request timed out"})
		}
	}
	fmt.Fprintf(c.out, "%s timed out after %s; cancelled\n", method, d)
	return nil
}

// shutdown ends the server as the stdio transport says: close its stdin,
// wait, SIGTERM, wait, SIGKILL (or as the fault says).
func (c *client) shutdown() {
	const grace = 500 * time.Millisecond
	p := c.cmd.Process
	switch c.fault {
	case "sigkill-first":
		p.Signal(syscall.SIGKILL)
		<-c.exit
		c.stdin.Close()
		return
	case "sigterm-first":
		p.Signal(syscall.SIGTERM)
		select {
		case <-c.exit:
		case <-time.After(grace):
			p.Signal(syscall.SIGKILL)
			<-c.exit
		}
		c.stdin.Close()
		return
	}
	c.stdin.Close()
	select {
	case <-c.exit:
		return
	case <-time.After(grace):
	}
	p.Signal(syscall.SIGTERM)
	select {
	case <-c.exit:
		return
	case <-time.After(grace):
	}
	p.Signal(syscall.SIGKILL)
	<-c.exit
}
