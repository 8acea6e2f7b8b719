package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// wait bounds every wait for the server in these tests. Nothing sleeps:
// tests wait on the pipes, and this only stops a broken test from hanging.
// It is generous: a 64 MiB line parsed on a busy 2-core machine took
// more than 10 s.
const wait = 60 * time.Second

// session drives Serve in this process through pipes.
type session struct {
	t      *testing.T
	stdin  *io.PipeWriter
	lines  chan []byte // stdout lines, terminator removed ("\r" kept)
	stderr *syncBuffer
	done   chan error
	cancel context.CancelFunc
	nextID int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs Serve with opts until the test ends.
func start(t *testing.T, opts Options) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, stdin: inW, lines: make(chan []byte, 1024), stderr: &syncBuffer{}, done: make(chan error, 1), cancel: cancel}
	go func() {
		err := Serve(ctx, inR, outW, s.stderr, opts)
		outW.Close()
		inR.Close()
		s.done <- err
	}()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		defer close(s.lines)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- bytes.TrimSuffix(line, []byte("\n"))
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(wait):
			t.Errorf("Serve did not return after the test")
		}
		for range s.lines {
		}
	})
	return s
}

// send writes one line to the server's stdin.
func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing to the server: %v", err)
	}
}

// recv returns the next stdout line.
func (s *session) recv() []byte {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("stdout closed while a line was expected")
		}
		return l
	case <-time.After(wait):
		s.t.Fatalf("no line from the server within %v", wait)
	}
	return nil
}

// msg is a decoded server message.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireErr        `json:"error,omitempty"`
}

type wireErr struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (s *session) recvMsg() msg {
	s.t.Helper()
	line := s.recv()
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		s.t.Fatalf("server line is not a message: %v: %q", err, line)
	}
	return m
}

// call sends a request with a fresh integer id and returns its response.
// Notifications that arrive first are returned in notes.
func (s *session) call(method string, params any) (m msg, notes []msg) {
	s.t.Helper()
	s.nextID++
	id := strconv.Itoa(s.nextID)
	s.send(request(id, method, params))
	for {
		m := s.recvMsg()
		if string(m.ID) == id && m.Method == "" {
			return m, notes
		}
		notes = append(notes, m)
	}
}

// result calls and decodes a successful result into v.
func (s *session) result(method string, params any, v any) {
	s.t.Helper()
	m, _ := s.call(method, params)
	if m.Error != nil {
		s.t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		s.t.Fatalf("%s: decoding result: %v", method, err)
	}
}

func request(id, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func notification(method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func initParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mockserver-test", "version": "0"},
	}
}

// initialize completes the handshake at version and returns the result.
func (s *session) initialize(version string) map[string]any {
	s.t.Helper()
	var res map[string]any
	s.result("initialize", initParams(version), &res)
	s.send(notification("notifications/initialized", nil))
	return res
}

// closeInput ends stdin and returns what Serve returned and every line
// written after the last one received.
func (s *session) closeInput() (error, [][]byte) {
	s.t.Helper()
	s.stdin.Close()
	var rest [][]byte
	for l := range s.lines {
		rest = append(rest, l)
	}
	select {
	case err := <-s.done:
		s.done <- err // for Cleanup
		return err, rest
	case <-time.After(wait):
		s.t.Fatalf("Serve did not return after stdin EOF")
	}
	return nil, nil
}

// transcript runs input against Serve at once (no round trips) and returns
// stdout, stderr and Serve's error. It gives up after wait.
func transcript(opts Options, input string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	outR, outW := io.Pipe()
	var errBuf syncBuffer
	done := make(chan error, 1)
	go func() {
		e := Serve(ctx, bytes.NewBufferString(input), outW, &errBuf, opts)
		outW.Close()
		done <- e
	}()
	stdout, _ = io.ReadAll(outR)
	err = <-done
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.New("server timed out")
	}
	return stdout, []byte(errBuf.String()), err
}
