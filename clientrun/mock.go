package clientrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// MockConfig is what one process of the recording mock does: the reference
// mock server, set up for a scenario, that writes what crosses its stdio
// into an evidence stream. Everything in it comes from the mock's argv
// (RegisterFlags): a client may pass its server no environment at all.
type MockConfig struct {
	// Scenario names the scenario whose mock this is; its setup (Scenario
	// .Mock) comes before the fields below, which add to it.
	Scenario string
	// EvidenceDir is where the stream file of this process goes.
	EvidenceDir string
	// ProtocolVersion is the version the run asked the client to use,
	// written in the stream's header.
	ProtocolVersion string
	// Fixture, Faults and Variants are the mock server's options.
	FixturePath string
	Faults      []string
	Variants    []string
	// CounterOffer replaces the protocolVersion of the initialize result.
	CounterOffer string
	// IgnoreEOF keeps the process running after stdin EOF, IgnoreSIGTERM
	// after SIGTERM: a client must escalate to end it.
	IgnoreEOF     bool
	IgnoreSIGTERM bool
	// Ask are requests sent once the client is initialized (over stdio
	// their answers are recorded, not passed to the mock server; over
	// HTTP see HTTPMock); Notify are notifications sent after the first
	// response that follows.
	Ask    []string
	Notify []string
	// HoldAnswers holds back the server's responses while a request of
	// Ask is unanswered, so that a client cannot complete its scenario and
	// close before it has answered them (the check of unanswered requests
	// would otherwise depend on a race). Over HTTP the mock always holds
	// them, for a bounded time (HTTPMock).
	HoldAnswers bool
}

// stringList is a repeatable, comma-separated flag.
type stringList struct{ p *[]string }

func (l stringList) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l stringList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l.p = append(*l.p, part)
		}
	}
	return nil
}

// RegisterFlags defines the recording mock's own flags on fs: --scenario,
// --evidence, --protocol-version, --counter-offer, --ignore-eof,
// --ignore-sigterm, --ask and --notify. The mock server's --fixture,
// --fault and --variant are the caller's (`mcpconform mock` has them).
func (c *MockConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Scenario, "scenario", "", "serve what client scenario `NAME` needs (see mcpconform client --list)")
	fs.StringVar(&c.EvidenceDir, "evidence", "", "record every byte in both directions, stdin EOF, signals and the exit into a new stream file in `DIR`, as it happens")
	fs.StringVar(&c.ProtocolVersion, "protocol-version", "", "with --evidence: the `VERSION` the client was asked to use, noted in the stream")
	fs.StringVar(&c.CounterOffer, "counter-offer", "", "answer initialize with protocol `VERSION` whatever was offered")
	fs.BoolVar(&c.IgnoreEOF, "ignore-eof", false, "keep running after stdin EOF, until a signal ends it")
	fs.BoolVar(&c.IgnoreSIGTERM, "ignore-sigterm", false, "keep running after SIGTERM (with --evidence)")
	fs.Var(stringList{&c.Ask}, "ask", "send request `METHOD` once the client is initialized (ping, roots/list, sampling/createMessage, elicitation/create)")
	fs.Var(stringList{&c.Notify}, "notify", "send notification `METHOD` after the first response that follows initialized")
	fs.BoolVar(&c.HoldAnswers, "hold-answers", false, "hold back responses while a request of --ask is unanswered")
}

// MockMain is the recording mock as a program: it parses args (the flags
// of RegisterFlags and --fixture, --fault, --variant) and serves stdin
// and stdout, returning the exit status. A test binary can be the mock a
// client spawns by calling it from TestMain.
func MockMain(args []string) int {
	var c MockConfig
	fs := flag.NewFlagSet("recording mock", flag.ContinueOnError)
	c.RegisterFlags(fs)
	fs.StringVar(&c.FixturePath, "fixture", "", "the mock's fixture")
	fs.Var(stringList{&c.Faults}, "fault", "a fault of the mock")
	fs.Var(stringList{&c.Variants}, "variant", "a legal variant of the mock")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	return ServeRecording(c, os.Stdin, os.Stdout, os.Stderr)
}

// streamHeader is the first line of an evidence stream.
type streamHeader struct {
	Pid             int       `json:"pid"`
	Argv            []string  `json:"argv"`
	Scenario        string    `json:"scenario,omitempty"`
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	Started         time.Time `json:"started"`
}

// recorder is one process of the recording mock.
type recorder struct {
	mu     sync.Mutex
	tr     *transcript.Transcript
	file   *os.File
	out    io.Writer
	initID string // IDKey of the client's initialize request
	offer  string
	ready  bool // notifications/initialized arrived
	ask    []string
	notify []string
	asked  int
	// hold, waiting, eof and answered: responses are held while waiting
	// (asks unanswered) is above zero, until stdin ends; answered is
	// signalled whenever either changes.
	hold     bool
	waiting  int
	eof      bool
	answered *sync.Cond
}

// add records an entry and appends it to the evidence stream at once, so
// that a mock killed with SIGKILL leaves what it saw.
func (r *recorder) add(e transcript.Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq := r.tr.Add(e)
	b, _ := json.Marshal(r.tr.Slice(seq, seq+1)[0])
	r.file.Write(append(b, '\n'))
}

// emit records a line and writes it to the client: recorded first, so
// that whatever the client does once it has read the line comes after it
// in the record.
func (r *recorder) emit(line []byte) {
	msgs, batch := wire.DecodeLine(line)
	r.add(transcript.Entry{Dir: transcript.Recv, Data: bytes.Clone(line), Msgs: msgs, Batch: batch})
	r.mu.Lock()
	r.out.Write(append(bytes.Clone(line), '\n'))
	r.mu.Unlock()
}

// ServeRecording serves the reference mock, set up by c, on stdin and
// stdout and records its traffic into a new stream file in c.EvidenceDir;
// it returns the process's exit status. It handles SIGTERM itself (it
// records it, then exits 143 unless IgnoreSIGTERM), so it is meant for a
// process of its own.
func ServeRecording(c MockConfig, stdin io.Reader, stdout, stderr io.Writer) int {
	if c.EvidenceDir == "" {
		fmt.Fprintln(stderr, "mcpconform mock: the recording mock needs --evidence DIR")
		return 2
	}
	c, opts, err := c.setup()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: %v\n", err)
		return 2
	}
	started := time.Now()
	name := filepath.Join(c.EvidenceDir, fmt.Sprintf("spawn-%020d-%d.jsonl", started.UnixNano(), os.Getpid()))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform mock: --evidence: %v\n", err)
		return 2
	}
	defer f.Close()
	head, _ := json.Marshal(struct {
		Spawn streamHeader `json:"spawn"`
	}{streamHeader{Pid: os.Getpid(), Argv: os.Args, Scenario: c.Scenario, ProtocolVersion: c.ProtocolVersion, Started: started}})
	f.Write(append(head, '\n'))
	r := &recorder{tr: transcript.New(started, transcript.Limits{}), file: f, out: stdout, offer: c.CounterOffer, ask: c.Ask, notify: c.Notify, hold: c.HoldAnswers}
	r.answered = sync.NewCond(&r.mu)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Received: &transcript.Received{Signal: "SIGTERM"}}})
			if !c.IgnoreSIGTERM {
				r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Exit: &transcript.Exit{Stage: transcript.SIGTERM, Code: -1, Signal: "SIGTERM"}}})
				os.Exit(143)
			}
		}
	}()
	mockIn, toMock := io.Pipe()
	fromMock, mockOut := io.Pipe()
	served := make(chan struct{})
	go func() {
		mockserver.Serve(context.Background(), mockIn, mockOut, stderr, opts)
		mockOut.Close()
		close(served)
	}()
	copied := make(chan struct{})
	go func() {
		r.copyOut(fromMock)
		close(copied)
	}()
	// Read ahead: every line that has arrived is recorded before the mock
	// server gets the first of them, so that a request written right
	// behind another is on record before the answer to the first.
	lr := wire.NewLineReader(stdin, 1<<24)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		lines := []*wire.Line{l}
		for lr.LineBuffered() {
			if more, err := lr.Next(); err == nil {
				lines = append(lines, more)
			}
		}
		decoded := make([][]*wire.Message, len(lines))
		for i, l := range lines {
			msgs, batch := wire.DecodeLine(l.Raw)
			r.add(transcript.Entry{Dir: transcript.Send, Data: l.Raw, Len: l.Len, Issues: l.Issues, Msgs: msgs, Batch: batch})
			decoded[i] = msgs
		}
		for i, l := range lines {
			r.fromClient(decoded[i], l.Raw, toMock)
		}
	}
	r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Received: &transcript.Received{EOF: true}}})
	r.mu.Lock()
	r.eof = true
	r.answered.Broadcast()
	r.mu.Unlock()
	if c.IgnoreEOF {
		select {} // until a signal ends it
	}
	toMock.Close()
	<-served
	<-copied
	r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Exit: &transcript.Exit{Stage: transcript.StdinEOF}}})
	return 0
}

// setup adds the scenario's setup to c and builds the mock server's
// options.
func (c MockConfig) setup() (MockConfig, mockserver.Options, error) {
	var opts mockserver.Options
	if c.Scenario != "" {
		sc, ok := ScenarioNamed(c.Scenario)
		if !ok {
			return c, opts, fmt.Errorf("--scenario: no scenario %q (mcpconform client --list lists them)", c.Scenario)
		}
		m := sc.Mock
		c.Variants = append(append([]string(nil), m.Variants...), c.Variants...)
		c.Faults = append(append([]string(nil), m.Faults...), c.Faults...)
		c.Ask = append(append([]string(nil), m.Ask...), c.Ask...)
		c.Notify = append(append([]string(nil), m.Notify...), c.Notify...)
		c.IgnoreEOF = c.IgnoreEOF || m.IgnoreEOF
		c.IgnoreSIGTERM = c.IgnoreSIGTERM || m.IgnoreSIGTERM
		c.HoldAnswers = c.HoldAnswers || m.HoldAnswers
		if c.CounterOffer == "" {
			c.CounterOffer = m.CounterOffer
		}
		if c.FixturePath == "" && m.Fixture != "" {
			f, err := builtinFixture(m.Fixture)
			if err != nil {
				return c, opts, err
			}
			opts.Fixture = f
		}
	}
	if c.FixturePath != "" {
		f, err := mockserver.LoadFixture(c.FixturePath)
		if err != nil {
			return c, opts, err
		}
		opts.Fixture = f
	}
	if err := mockserver.CheckFaultNames(c.Faults); err != nil {
		return c, opts, err
	}
	if err := validateVariants(c.Variants); err != nil {
		return c, opts, err
	}
	opts.Faults, opts.Variants = c.Faults, c.Variants
	return c, opts, nil
}

// fromClient passes a client line on to the mock server, except the
// answers to the recorder's own requests, and sends those requests once
// the client is initialized.
func (r *recorder) fromClient(msgs []*wire.Message, raw []byte, toMock io.Writer) {
	forward := true
	for _, m := range msgs {
		if m.Method == "initialize" {
			r.mu.Lock()
			r.initID = wire.IDKey(m.ID)
			r.mu.Unlock()
		}
		if m.Kind() == wire.KindResponse && strings.HasPrefix(string(m.ID), `"rec-`) {
			forward = false
			r.mu.Lock()
			r.waiting--
			r.answered.Broadcast()
			r.mu.Unlock()
		}
	}
	if forward {
		toMock.Write(append(bytes.Clone(raw), '\n'))
	}
	for _, m := range msgs {
		r.mu.Lock()
		first := m.Method == "notifications/initialized" && !r.ready
		r.ready = r.ready || first
		if first && r.hold {
			r.waiting += len(r.ask)
		}
		r.mu.Unlock()
		if first {
			for _, method := range r.ask {
				r.asked++
				r.emit([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"rec-%d","method":%q,"params":%s}`, r.asked, method, askParams(method))))
			}
		}
	}
}

// askParams are the params of a request the recorder sends.
func askParams(method string) string {
	switch method {
	case "sampling/createMessage":
		return `{"messages":[{"role":"user","content":{"type":"text","text":"Say hi."}}],"maxTokens":10}`
	case "elicitation/create":
		return `{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ada"}}}}`
	}
	return `{}`
}

// copyOut passes the mock server's lines to the client, recording them,
// with the initialize result's version replaced by the counter-offer, and
// the notifications to send after the first response once the client is
// initialized.
func (r *recorder) copyOut(from io.Reader) {
	br := bufio.NewReaderSize(from, 1<<20)
	notified := false
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > 0 {
			msgs, _ := wire.DecodeLine(line)
			r.mu.Lock()
			for r.waiting > 0 && !r.eof && len(msgs) == 1 && msgs[0].Kind() == wire.KindResponse {
				r.answered.Wait()
			}
			initID, ready := r.initID, r.ready
			r.mu.Unlock()
			if r.offer != "" && len(msgs) == 1 && msgs[0].Kind() == wire.KindResponse && wire.IDKey(msgs[0].ID) == initID {
				var m map[string]any
				json.Unmarshal(line, &m)
				if res, ok := m["result"].(map[string]any); ok {
					res["protocolVersion"] = r.offer
					line, _ = json.Marshal(m)
				}
			}
			r.emit(line)
			if ready && !notified && len(msgs) == 1 && msgs[0].Kind() == wire.KindResponse {
				notified = true
				for _, n := range r.notify {
					r.emit([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, n)))
				}
			}
		}
		if err != nil {
			return
		}
	}
}
