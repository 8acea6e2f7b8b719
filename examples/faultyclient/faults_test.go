package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// The test binary is also the recording mock the faulty client spawns:
// `<test binary> recording-mock --dir DIR [flags]` serves the reference
// mock server in-process and writes one evidence stream per spawn into
// DIR, an entry per line as it happens (a SIGKILLed mock keeps what it
// saw): every line the client wrote, raw, with its framing issues; every
// line the mock wrote; stdin EOF, the signals received, the exit. This
// stands in for the recording mock of `mcpconform client`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "recording-mock" {
		os.Exit(recordingMock(os.Args[2:]))
	}
	os.Exit(m.Run())
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// recorder is one spawn of the recording mock.
type recorder struct {
	mu      sync.Mutex
	tr      *transcript.Transcript
	file    *os.File
	out     io.Writer
	initID  string // IDKey of the client's initialize request
	offer   string // --counter-offer
	ready   bool   // notifications/initialized arrived
	ask     []string
	notify  []string
	asked   int
	pending sync.WaitGroup
}

// add records an entry and appends it to the evidence file.
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

func recordingMock(args []string) int {
	fs := flag.NewFlagSet("recording-mock", flag.ContinueOnError)
	dir := fs.String("dir", "", "where to write the evidence stream")
	fixture := fs.String("fixture", "", "the mock's fixture")
	offer := fs.String("counter-offer", "", "answer initialize with this protocolVersion")
	ignoreEOF := fs.Bool("ignore-eof", false, "keep running after stdin EOF")
	ignoreTerm := fs.Bool("ignore-sigterm", false, "keep running after SIGTERM")
	var variants, faults, ask, notify listFlag
	fs.Var(&variants, "variant", "a legal variant of the mock")
	fs.Var(&faults, "fault", "a fault of the mock")
	fs.Var(&ask, "ask", "a request to send once the client is initialized")
	fs.Var(&notify, "notify", "a notification to send after the first response that follows initialized")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	name := filepath.Join(*dir, fmt.Sprintf("spawn-%d-%d.jsonl", time.Now().UnixNano(), os.Getpid()))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r := &recorder{tr: transcript.New(time.Now(), transcript.Limits{}), file: f, out: os.Stdout, offer: *offer, ask: ask, notify: notify}
	opts := mockserver.Options{Variants: variants, Faults: faults}
	if *fixture != "" {
		if opts.Fixture, err = mockserver.LoadFixture(*fixture); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		for range sigs {
			r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Received: &transcript.Received{Signal: "SIGTERM"}}})
			if !*ignoreTerm {
				r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Exit: &transcript.Exit{Stage: transcript.SIGTERM, Code: -1, Signal: "SIGTERM"}}})
				os.Exit(143)
			}
		}
	}()
	mockIn, toMock := io.Pipe()
	fromMock, mockOut := io.Pipe()
	served := make(chan struct{})
	go func() {
		mockserver.Serve(context.Background(), mockIn, mockOut, os.Stderr, opts)
		mockOut.Close()
		close(served)
	}()
	copied := make(chan struct{})
	go func() {
		r.copyOut(fromMock)
		close(copied)
	}()
	// Read ahead: every line that has arrived is recorded before the
	// mock gets the first of them, so that a request written right behind
	// another is on record before the answer to the first.
	lr := wire.NewLineReader(os.Stdin, 1<<24)
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
		var decoded [][]*wire.Message
		for _, l := range lines {
			msgs, batch := wire.DecodeLine(l.Raw)
			r.add(transcript.Entry{Dir: transcript.Send, Data: l.Raw, Len: l.Len, Issues: l.Issues, Msgs: msgs, Batch: batch})
			decoded = append(decoded, msgs)
		}
		for i, l := range lines {
			r.fromClient(decoded[i], l.Raw, toMock)
		}
	}
	r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Received: &transcript.Received{EOF: true}}})
	if *ignoreEOF {
		select {} // until a signal ends it
	}
	toMock.Close()
	<-served
	<-copied
	r.add(transcript.Entry{Dir: transcript.Note, Event: &transcript.Event{Exit: &transcript.Exit{Stage: transcript.StdinEOF}}})
	return 0
}

// fromClient passes a client line on to the mock, except the answers to
// the recorder's own requests, and sends those requests once the client
// is initialized.
func (r *recorder) fromClient(msgs []*wire.Message, raw []byte, toMock io.Writer) {
	forward := true
	for _, m := range msgs {
		if m.Method == "initialize" {
			r.initID = wire.IDKey(m.ID)
		}
		if m.Kind() == wire.KindResponse && strings.HasPrefix(string(m.ID), `"rec-`) {
			forward = false
		}
	}
	if forward {
		toMock.Write(append(bytes.Clone(raw), '\n'))
	}
	for _, m := range msgs {
		if m.Method == "notifications/initialized" && !r.ready {
			r.ready = true
			for _, method := range r.ask {
				r.asked++
				r.emit([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"rec-%d","method":%q,"params":%s}`, r.asked, method, askParams(method))))
			}
		}
	}
}

func askParams(method string) string {
	switch method {
	case "sampling/createMessage":
		return `{"messages":[{"role":"user","content":{"type":"text","text":"Say hi."}}],"maxTokens":10}`
	case "elicitation/create":
		return `{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`
	}
	return `{}`
}

// copyOut passes the mock's lines to the client, recording them, with
// the initialize result's version replaced by --counter-offer, and the
// --notify notifications after the first response once the client is
// initialized.
func (r *recorder) copyOut(from io.Reader) {
	br := bufio.NewReaderSize(from, 1<<20)
	notified := false
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > 0 {
			msgs, _ := wire.DecodeLine(line)
			if r.offer != "" && len(msgs) == 1 && msgs[0].Kind() == wire.KindResponse && wire.IDKey(msgs[0].ID) == r.initID {
				var m map[string]any
				json.Unmarshal(line, &m)
				if res, ok := m["result"].(map[string]any); ok {
					res["protocolVersion"] = r.offer
					line, _ = json.Marshal(m)
				}
			}
			r.emit(line)
			if r.ready && !notified && len(msgs) == 1 && msgs[0].Kind() == wire.KindResponse {
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

// clientRun runs the faulty client once and returns what the recording
// mock saw, as a client run of one scenario.
func clientRun(t *testing.T, bin string, flags []string, scenario, version, ctxJSON string, server []string) *evidence.ClientRun {
	t.Helper()
	dir := t.TempDir()
	argv := append([]string{os.Args[0], "recording-mock", "--dir", dir}, server...)
	cmdJSON, _ := json.Marshal(argv)
	if ctxJSON == "" {
		ctxJSON = fmt.Sprintf(`{"name":%q}`, scenario)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, flags...)
	cmd.Env = append(os.Environ(), "MCP_CONFORMANCE_SCENARIO="+scenario, "MCP_CONFORMANCE_SERVER_COMMAND="+string(cmdJSON), "MCP_CONFORMANCE_CONTEXT="+ctxJSON)
	if version != "" {
		cmd.Env = append(cmd.Env, "MCP_CONFORMANCE_PROTOCOL_VERSION="+version)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	sc := &evidence.ScenarioRun{Name: scenario, Version: version, Context: json.RawMessage(ctxJSON), Class: evidence.ClassConformance}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		sc.Client.Stopped = "the test's deadline passed"
	case err == nil:
		sc.Client.Exit = &transcript.Exit{Stage: transcript.BeforeShutdown}
	case errors.As(err, &exitErr):
		sc.Client.Exit = &transcript.Exit{Stage: transcript.BeforeShutdown, Code: exitErr.ExitCode()}
	default:
		t.Fatalf("running the client: %v", err)
	}
	if tail := strings.TrimSpace(stderr.String()); tail != "" {
		sc.Client.StderrTail = strings.Split(tail, "\n")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "spawn-*.jsonl"))
	sort.Strings(files) // named by start time
	for i, f := range files {
		sc.Spawns = append(sc.Spawns, &evidence.Spawn{ID: i + 1, Argv: argv, Transcript: readStream(t, f)})
	}
	return &evidence.ClientRun{Format: 1, Transport: evidence.TransportStdio, Command: append([]string{bin}, flags...), Scenarios: []*evidence.ScenarioRun{sc}}
}

// readStream reads an evidence stream: one transcript entry per line.
func readStream(t *testing.T, path string) *transcript.Transcript {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []transcript.Entry
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e transcript.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		entries = append(entries, e)
	}
	return transcript.FromEntries(entries)
}

// buildClient builds the faulty client once.
func buildClient(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "faultyclient")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// levelOf is the verdict breaking requirement id costs a client in
// version v, by the catalogue.
func levelOf(t *testing.T, id, v string) reports.Verdict {
	r, ok := catalog.Get(id)
	if !ok {
		t.Fatalf("no requirement %s", id)
	}
	st, ok := r.In(v)
	if !ok || !r.Binds(catalog.PartyClient) {
		return reports.Info
	}
	return reports.Verdict(catalog.SeverityOf(st.Level))
}

func describe(results []reports.Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Verdict != reports.Pass && r.Verdict != reports.Skip {
			fmt.Fprintf(&b, "\n  %s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
	return b.String()
}

// logRun shows what the recording mock saw, for a failure.
func logRun(t *testing.T, run *evidence.ClientRun) {
	for _, sc := range run.Scenarios {
		t.Logf("client: exit %v, stopped %q, stderr %q", sc.Client.Exit, sc.Client.Stopped, sc.Client.StderrTail)
		for _, sp := range sc.Spawns {
			t.Logf("spawn %d:\n%s", sp.ID, transcript.FormatText(sp.Transcript.Entries()))
		}
	}
}

// TestEveryFaultIsDetected: every fault of the faulty client is reported
// under each requirement it declares, at the level the catalogue gives it
// in the version the client used, and draws no fail, warn or error under
// any other requirement.
func TestEveryFaultIsDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the faulty client once per fault")
	}
	bin := buildClient(t)
	covered := map[string]bool{}
	ran := 0
	for _, f := range Faults {
		t.Run(f.Name, func(t *testing.T) {
			ran++
			run := clientRun(t, bin, []string{"-fault", f.Name}, f.Scenario, f.Version, f.Context, f.Server)
			results := checks.JudgeClientRun(run)
			for _, b := range f.Breaks {
				covered[b] = true
				found := false
				for _, r := range results {
					if r.Requirement == b && r.Verdict != reports.Pass && r.Verdict != reports.Skip {
						found = true
						if want := levelOf(t, b, r.ProtocolVersion); r.Verdict != want {
							t.Errorf("%s reported under %s as %s, want %s: %s", r.ID, b, r.Verdict, want, r.Message)
						}
					}
				}
				if !found {
					t.Errorf("nothing reported under %s; results:%s", b, describe(results))
				}
			}
			defer func() {
				if t.Failed() {
					logRun(t, run)
				}
			}()
			for _, r := range results {
				switch r.Verdict {
				case reports.Fail, reports.Warn, reports.Error:
					if !slices.Contains(f.Breaks, r.Requirement) {
						t.Errorf("undeclared: %s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
					}
				}
			}
		})
	}
	if ran < len(Faults) {
		return // a selection of faults ran
	}
	// Every client check's requirement that a client can break on the
	// wire has a fault, but those whose breaking needs a server this
	// recorder does not play (a sampled or elicited answer of the wrong
	// shape, inputs for an input request, a retry after an unsupported
	// version) and the ones that only record or need no client at all.
	for _, c := range checks.ClientChecks() {
		if !covered[c.Requirement] && c.Requirement != "RES-LC-04" && c.Requirement != "STDIO-01" &&
			!slices.Contains([]string{"SAMP-02", "ELIC-01", "ELIC-02", "MRTR-06", "LIFE-33", "JSONRPC-18"}, c.Requirement) {
			t.Errorf("no fault of the faulty client breaks %s (%s)", c.Requirement, c.ID)
		}
	}
}

// correct is the correct client in every scenario it can do, each with a
// server that gives the scenario something to judge.
var correct = []struct {
	scenario, version, context string
	server                     []string
}{
	{"initialize", "", "", nil},
	{"initialize", "2024-11-05", "", nil},
	{"initialize", "2025-03-26", "", nil},
	{"initialize", "2025-06-18", "", nil},
	{"tools_call", "", "", []string{"--fixture", filepath.Join("..", "everything", "testdata", "add-numbers.json")}},
	{"resources", "", "", nil},
	{"resources", "2026-07-28", "", []string{"--variant", "empty-string-cursor"}},
	{"prompts", "", "", nil},
	{"list-changed", "", "", []string{"--notify", "notifications/tools/list_changed"}},
	{"server-requests", "", "", []string{"--variant", "server-pings", "--ask", "roots/list", "--ask", "sampling/createMessage", "--ask", "elicitation/create"}},
	{"cancellation", "", `{"name":"cancellation","timeoutMs":300}`, []string{"--fault", "hang-on-read"}},
	{"shutdown", "", "", []string{"--ignore-eof", "--ignore-sigterm"}},
	{"version-negotiation", "", "", []string{"--variant", "only-2024-11-05"}},
	{"version-negotiation", "", "", []string{"--counter-offer", "1999-01-01"}},
	{"request-metadata", "2026-07-28", "", nil},
	{"sep-2322-client-request-state", "2026-07-28", "", []string{"--variant", "input-required-retry"}},
}

// TestCorrectAndLegalClientsPass: the faulty client without a fault, in
// every scenario, and each of its legal but unusual behaviours draw no
// fail, warn or error; each run passes something.
func TestCorrectAndLegalClientsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the client once per scenario and behaviour")
	}
	bin := buildClient(t)
	check := func(t *testing.T, run *evidence.ClientRun) {
		passed := 0
		for _, r := range checks.JudgeClientRun(run) {
			switch r.Verdict {
			case reports.Fail, reports.Warn, reports.Error:
				t.Errorf("%s %s [%s %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
			case reports.Pass:
				passed++
			}
		}
		if passed == 0 {
			t.Error("nothing passed: the run judged nothing")
		}
		if t.Failed() {
			logRun(t, run)
		}
	}
	for _, c := range correct {
		name := c.scenario + "/" + c.version + strings.Join(c.server, "")
		t.Run(name, func(t *testing.T) {
			check(t, clientRun(t, bin, nil, c.scenario, c.version, c.context, c.server))
		})
	}
	for _, l := range Legal {
		t.Run("legal/"+l.Name, func(t *testing.T) {
			check(t, clientRun(t, bin, []string{"-legal", l.Name}, l.Scenario, l.Version, "", l.Server))
		})
	}
}
