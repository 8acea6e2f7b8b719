// Package execute drives a server through everything the suite needs to
// see and records it as evidence. It decides nothing: what it observed is
// judged by package checks, from the evidence alone.
//
// A well-behaved server costs two processes in a default run (see
// docs/performance.md for why each exists):
//
//   - the shared process: initialize, discovery, the session probes and
//     the shared vector tests, with well-formed traffic only;
//   - the probe process: server/discover before anything else (the era
//     probe), the requests before initialize, an initialize offering an
//     unknown version (the counter-offer), then the tests that may kill or
//     wedge the server, one after another; it is replaced when it dies.
package execute

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// Config says what to test and how.
type Config struct {
	// Command starts the server: a stdio server, or with HTTP set and no
	// HTTP.URL, an HTTP server launched on a free port.
	Command []string
	Dir     string
	Env     []string
	// HTTP, when set, reaches the server over Streamable HTTP: each
	// process of the run is an HTTP session with it.
	HTTP *HTTPTarget
	// Timeout is the deadline of one request (10 s when zero).
	Timeout time.Duration
	// StartTimeout is the deadline from spawning a process to its first
	// answer (default: the larger of Timeout and 20 s).
	StartTimeout time.Duration
	// Grace is each wait of the shutdown sequence.
	Grace time.Duration
	// MaxMessageSize bounds one line of server output.
	MaxMessageSize int
	// SpecVersion is "" (the newest handshake version the server agrees
	// to), a version, or "all".
	SpecVersion string
	// Vectors are the vector files to run (nil: the embedded ones).
	Vectors []*vectors.File
	// Parallel bounds how many versions are driven at once (default 4).
	Parallel int
	// RequestWindow is how long, at least, the probe process stays open
	// after its initialize for the requests a server makes of the client
	// (ServerRequestWindow when zero).
	RequestWindow time.Duration
	// Tests, when set, says whether a vector test is selected (--only,
	// --skip); the others are not run.
	Tests func(id string) bool
	// Needs are the probes the selected checks need (suite.Needs); the
	// others are not sent, and processes that only they need are not
	// started. nil sends every probe.
	Needs plan.Set
	// Progress, when set, is called as each vector test finishes (from
	// several goroutines): done of total, and the test's id.
	Progress func(done, total int, id string)
	// Tool is the version of mcpconform, recorded in the evidence.
	Tool string
	// CallTools says which listed tools may be called (--call-tools).
	CallTools plan.ToolPolicy
}

// HTTPTarget is a server spoken to over Streamable HTTP: at a URL, or
// launched from Config.Command.
type HTTPTarget struct {
	// URL is the endpoint of a server already running: an http or https
	// URL, or unix:///path/to.sock for HTTP over a Unix socket (the
	// endpoint then at Path, with Host localhost). Empty for a launched
	// server.
	URL string
	// Header are fields added to every request (--header).
	Header transcript.Header
	// Host, PortFrom and Path place a launched server: a free port from
	// PortFrom on (any when 0) replaces {port} in its arguments and
	// environment values; it is reached at Host (127.0.0.1, then [::1],
	// when empty), its endpoint at Path (/mcp when empty, and for a
	// Unix socket).
	Host     string
	PortFrom int
	Path     string
}

// runLines and runKeptBytes bound what the transcripts of a run hold in
// all: a normal run holds a few thousand lines, a server with thousands of
// resources a few tens of thousands. runKeptBytes is one line of the
// largest size (64 MiB) and more: a 50 MB answer is kept whole once, and
// the same answer in another process, or read again, is clipped (and read
// without being held whole) rather than held twice.
const (
	runLines     = 60_000
	runKeptBytes = 96 << 20 // kept whole; past it lines are clipped, not dropped
)

// unknownVersion is offered to see the server's counter-offer (LIFE-05);
// otherVersion is a second one not shaped like a date, in a process of
// its own (a server may parse the date and compare).
const (
	unknownVersion = "2099-01-01"
	otherVersion   = "1.0.0"
)

// ClientInfo is what mcpconform says about itself.
var ClientInfo = map[string]any{"name": "mcpconform", "version": "dev"}

// Execute drives the target and returns the evidence. It returns an error
// only for bad configuration; a target that cannot start is recorded in
// Run.Fatal.
func Execute(ctx context.Context, cfg Config) (*evidence.Run, error) {
	if len(cfg.Command) == 0 && (cfg.HTTP == nil || cfg.HTTP.URL == "") {
		return nil, errors.New("no server command or URL")
	}
	if cfg.SpecVersion != "" && cfg.SpecVersion != "all" && !wire.KnownVersion(cfg.SpecVersion) {
		return nil, fmt.Errorf("unknown --spec-version %q (want one of %s, or all)", cfg.SpecVersion, strings.Join(wire.AllVersions, ", "))
	}
	if cfg.Vectors == nil {
		files, err := vectors.Embedded()
		if err != nil {
			return nil, err
		}
		cfg.Vectors = files
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = max(cfg.Timeout, 20*time.Second)
	}
	if cfg.RequestWindow <= 0 {
		cfg.RequestWindow = ServerRequestWindow
	}
	if cfg.Tests == nil {
		cfg.Tests = func(string) bool { return true }
	}
	if cfg.Needs == nil {
		cfg.Needs = plan.Every()
	}
	// A usage error found on the way (a tool --call-tools names that the
	// server does not list) stops the run as an interrupt would.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	x := &executor{cfg: cfg, stalls: mockclient.NewStalls(), pool: transcript.NewPool(runLines, runKeptBytes), stop: stop}
	x.run = &evidence.Run{Format: evidence.Format, Tool: cfg.Tool, Transport: evidence.TransportStdio, Command: cfg.Command, SpecVersion: cfg.SpecVersion, Nonce: nonce(), Started: time.Now(), Timeout: cfg.Timeout, RequestWindow: cfg.RequestWindow, StrayCoverage: transport.StrayCoverage(), CallTools: cfg.CallTools.String()}
	if cfg.HTTP != nil {
		x.run.Transport = evidence.TransportHTTP
		if err := x.reach(ctx); err != nil {
			return nil, err
		}
	}
	for _, f := range cfg.Vectors {
		for _, t := range f.Tests {
			if cfg.Tests(t.ID) {
				x.total++
			}
		}
	}
	done := make(chan struct{})
	go func() {
		// Interrupted: every shutdown, under way or to come, is hurried.
		select {
		case <-ctx.Done():
			x.hurryAll()
		case <-done:
		}
	}()
	if x.run.Fatal == nil {
		x.execute(ctx)
	}
	x.stopServer(ctx)
	close(done)
	x.releaseHolds()
	x.run.Duration = time.Since(x.run.Started)
	x.run.Bind()
	return x.run, nil
}

// hold keeps s's view as discovery left it until the run ends.
func (x *executor) hold(s *evidence.Session) {
	release := s.Hold()
	x.mu.Lock()
	x.holds = append(x.holds, release)
	x.mu.Unlock()
}

func (x *executor) releaseHolds() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, release := range x.holds {
		release()
	}
	x.holds = nil
}

type executor struct {
	cfg    Config
	run    *evidence.Run
	stalls *mockclient.Stalls
	// pool is the run's budget of lines, shared by its processes: a
	// server flooding every process still meets one bound.
	pool *transcript.Pool

	mu    sync.Mutex
	holds []func() // Session.Hold releases, called when the run ends
	procs []*proc
	done  int
	total int
	// hurried is set once the run is interrupted: shutdowns are quick.
	hurried bool
	// mute is set when the first process wrote nothing on stdout while
	// it waited for initialize, or echoed its input: the server speaks no
	// protocol at all.
	mute bool
	// slowest is the longest a follow-up request took to be answered.
	slowest time.Duration
	// stop ends the run early.
	stop context.CancelFunc
	// tokens counts the progress tokens handed out.
	tokens atomic.Int64
	// dial opens an HTTP session (nil: each process is a stdio server);
	// server is the HTTP server the run launched.
	dial   transport.Dial
	server *transport.Launched
	// unopened is set once the probes of a refused opening request ran.
	unopened atomic.Bool
}

// progressToken returns a progress token no other request of the run
// carries ("MUST be unique across all active requests").
func (x *executor) progressToken() string {
	return fmt.Sprintf("mcpconform-progress-%s-%d", x.run.Nonce, x.tokens.Add(1))
}

// unlisted stops the run when the --call-tools policy names a tool that
// session s does not list (tools: what it listed; declared: whether it
// declared the tools capability at all): the user named a tool that is
// not there, a usage error found only now. A list that could not be
// walked to its end proves nothing missing. It reports whether it
// stopped the run.
func (x *executor) unlisted(s *evidence.Session, declared bool, tools []json.RawMessage) bool {
	missing := x.cfg.CallTools.Unlisted(tools)
	if len(missing) == 0 || declared && s.Tools().Stopped != "" {
		return false
	}
	u := &evidence.Unlisted{Version: s.Version, Names: missing, Listed: []string{}, NoTools: !declared}
	for _, it := range tools {
		if n, ok := wire.String(wire.Member(it, "name")); ok {
			u.Listed = append(u.Listed, n)
		}
	}
	x.mu.Lock()
	if x.run.Unlisted == nil {
		x.run.Unlisted = u
	}
	x.mu.Unlock()
	x.stop()
	return true
}

// sawFollowUp notes how long an answered follow-up request took.
func (x *executor) sawFollowUp(e *mockclient.Exchange) {
	if e == nil || !e.OK() {
		return
	}
	x.mu.Lock()
	x.slowest = max(x.slowest, e.Duration)
	x.mu.Unlock()
}

// slowestFollowUp is the longest an answered follow-up request took.
func (x *executor) slowestFollowUp() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.slowest
}

// proc is a live process with its evidence record.
type proc struct {
	c  *mockclient.Client
	ev *evidence.Process
}

// start spawns a process for a role. A command that cannot run yields a
// process record with StartError and a nil client.
func (x *executor) start(role evidence.Role, version, why string) *proc {
	// The record joins the run only once whole: other goroutines read
	// the run's processes meanwhile.
	ev := &evidence.Process{Role: role, Version: version, Why: why, Transport: x.run.Transport}
	opts := mockclient.Options{
		Command:        x.cfg.Command,
		Dir:            x.cfg.Dir,
		Env:            x.cfg.Env,
		Timeout:        x.cfg.Timeout,
		Grace:          x.cfg.Grace,
		MaxMessageSize: x.cfg.MaxMessageSize,
		Stalls:         x.stalls,
		Limits:         transcript.Limits{Pool: x.pool},
	}
	var c *mockclient.Client
	var err error
	if x.dial != nil {
		c, err = mockclient.New(context.Background(), x.dial, opts)
	} else {
		c, err = mockclient.Start(opts)
	}
	if err != nil {
		ev.StartError = err.Error()
		ev.Transcript = transcript.New(time.Now(), transcript.Limits{})
		x.run.AddProcess(ev)
		return &proc{ev: ev}
	}
	ev.Pid, ev.Transport = c.Pid(), c.Transport()
	ev.Transcript = c.Transcript()
	x.run.AddProcess(ev)
	what := "process"
	if x.dial != nil {
		what = "HTTP session"
	}
	c.Note(fmt.Sprintf("%s %d (%s): %s", what, ev.ID, role, why))
	p := &proc{c: c, ev: ev}
	x.mu.Lock()
	x.procs = append(x.procs, p)
	if x.hurried {
		c.Hurry()
	}
	x.mu.Unlock()
	return p
}

// finish closes a process and records how it ended.
func (p *proc) finish() { p.end(false) }

// end closes a process, in a hurry when the run was interrupted, and
// records how it ended.
func (p *proc) end(hurry bool) {
	if p == nil || p.c == nil {
		return
	}
	if hurry || abandonedToolCall(p.ev) {
		// A tool still running after its deadline can hold the server
		// up; that process's shutdown is not judged (exits-on-stdin-eof
		// prefers another), so it is not waited out.
		p.c.CloseNow()
	} else {
		p.c.Close()
	}
	p.ev.StderrTail = p.c.StderrTail()
	p.ev.StderrBytes = p.c.StderrBytes()
}

// abandonedToolCall reports whether a tools/call of the process went past
// its deadline unanswered.
func abandonedToolCall(p *evidence.Process) bool {
	for _, x := range p.Exchanges() {
		if (x.Tag == evidence.TagToolCall || x.Tag == evidence.TagToolCallInvalid) && x.Response == nil && x.NoResponse != nil && x.NoResponse.Reason == transcript.ReasonTimeout {
			return true
		}
	}
	return false
}

// alive reports whether the process has not exited on its own.
func (p *proc) alive() bool {
	if p == nil || p.c == nil {
		return false
	}
	select {
	case <-p.c.Done():
		return false
	default:
		return true
	}
}

// hurryAll cuts the shutdown waits of every process, and of those started
// from now on (their closing sees the run's context is done).
func (x *executor) hurryAll() {
	x.mu.Lock()
	x.hurried = true
	procs := slices.Clone(x.procs)
	x.mu.Unlock()
	for _, p := range procs {
		if p.c != nil {
			p.c.Hurry()
		}
	}
}

func (x *executor) closeAll(ctx context.Context) {
	x.mu.Lock()
	procs := slices.Clone(x.procs)
	x.mu.Unlock()
	hurry := ctx.Err() != nil
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.end(hurry)
		}()
	}
	wg.Wait()
}

func (x *executor) progress(id string) {
	x.mu.Lock()
	x.done++
	done := x.done
	x.mu.Unlock()
	if x.cfg.Progress != nil {
		x.cfg.Progress(done, x.total, id)
	}
}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// initializeParams are the params of an initialize offering version v
// with the client capabilities caps.
func initializeParams(v string, caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	return map[string]any{"protocolVersion": v, "capabilities": caps, "clientInfo": ClientInfo}
}

// unknownClientCapabilities are declared in the shared session's
// initialize: capability sets are open, so a server must accept keys it
// does not know (LIFE-13).
var unknownClientCapabilities = map[string]any{
	"experimental":         map[string]any{"com.example.mcpconform/probe": map[string]any{}},
	"x-mcpconform-unknown": map[string]any{"nested": true},
}

// declaredClientCapabilities are declared in the probe process's
// initialize, to see what a server does once a client offers roots,
// sampling and elicitation.
var declaredClientCapabilities = map[string]any{
	"roots":       map[string]any{"listChanged": true},
	"sampling":    map[string]any{},
	"elicitation": map[string]any{},
}

// handshake is the outcome of an initialize.
type handshake struct {
	x          *mockclient.Exchange
	negotiated string
	err        string // why no session came of it
}

// initialize sends initialize and, when it succeeds, the initialized
// notification.
func (p *proc) initialize(ctx context.Context, tag, offer string, caps map[string]any, timeout time.Duration) handshake {
	if p.c == nil {
		return handshake{err: "the process did not start: " + p.ev.StartError}
	}
	x := p.c.Do(ctx, mockclient.Request{Tag: tag, Method: "initialize", Params: initializeParams(offer, caps), Timeout: timeout})
	h := handshake{x: x}
	switch {
	case x.Err != nil:
		h.err = "initialize: " + x.Err.Error()
		return h
	case !x.Response.Has("result"):
		h.err = "initialize was refused: " + clip(string(x.Response.Error), 300)
		return h
	}
	res := wire.Object(x.Response.Result)
	v, ok := wire.String(res["protocolVersion"])
	if !ok {
		h.err = "the initialize result has no protocolVersion string"
		return h
	}
	h.negotiated = v
	_ = p.c.NotifyTagged(evidence.TagInitialized, "notifications/initialized", nil)
	return h
}

// envelope is the per-request _meta of a 2026-07-28 session.
var envelope = mockclient.Envelope{ProtocolVersion: wire.Modern, ClientCapabilities: map[string]any{}, ClientInfo: ClientInfo}

// discover sends server/discover in the 2026-07-28 envelope and reports
// whether the server lists 2026-07-28.
func (p *proc) discover(ctx context.Context, tag string, timeout time.Duration) (bool, string) {
	if p.c == nil {
		return false, "the process did not start: " + p.ev.StartError
	}
	params, _ := envelope.Wrap(nil)
	x := p.c.Do(ctx, mockclient.Request{Tag: tag, Method: "server/discover", Params: params, Timeout: timeout})
	switch {
	case x.Err != nil:
		return false, "server/discover: " + x.Err.Error()
	case !x.Response.Has("result"):
		return false, "server/discover was refused: " + clip(string(x.Response.Error), 300)
	}
	var versions []string
	_ = json.Unmarshal(wire.Object(x.Response.Result)["supportedVersions"], &versions)
	if !slices.Contains(versions, wire.Modern) {
		return false, fmt.Sprintf("server/discover lists supportedVersions %v, without %s", versions, wire.Modern)
	}
	return true, ""
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// needs reports whether a selected check needs any of the probes.
func (x *executor) needs(probes ...plan.Probe) bool {
	for _, p := range probes {
		if x.cfg.Needs.Has(p) {
			return true
		}
	}
	return false
}

// testsOf returns the vector tests of a session kind, in file order.
func (x *executor) testsOf(kind string) []*vectors.Test {
	var out []*vectors.Test
	for _, f := range x.cfg.Vectors {
		for _, t := range f.Tests {
			if plan.SessionKind(t) == kind && x.cfg.Tests(t.ID) {
				out = append(out, t)
			}
		}
	}
	return out
}
