package testservers_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// A peer is a bare-bones stdio client for these tests: it writes lines to the
// server's stdin and hands back every line the server writes to stdout, with
// the time it arrived. It judges nothing; the real client is mockclient.
type peer struct {
	tb     testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan line
	exited chan struct{}
	start  time.Time

	mu     sync.Mutex
	stderr bytes.Buffer
}

// A line is one line of the server's stdout.
type line struct {
	text string
	at   time.Duration // since the process started
}

// startPeer starts argv and stops it when the test ends.
func startPeer(tb testing.TB, argv []string) *peer {
	tb.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &peer{tb: tb, cmd: cmd, stdin: stdin, lines: make(chan line, 1024), exited: make(chan struct{})}
	cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %v: %v", argv, err)
	}
	p.start = time.Now()
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- line{text: sc.Text(), at: time.Since(p.start)}
		}
		close(p.lines)
	}()
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Stderr returns what the server wrote to stderr so far.
func (p *peer) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// send writes one line (a newline is added).
func (p *peer) send(s string) {
	p.tb.Helper()
	if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
		p.tb.Fatalf("writing %s: %v", s, err)
	}
}

// sendJSON marshals v and writes it as one line.
func (p *peer) sendJSON(v any) {
	p.tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.tb.Fatal(err)
	}
	p.send(string(b))
}

// next returns the next stdout line, or false at EOF or after d.
func (p *peer) next(d time.Duration) (line, bool) {
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(d):
		return line{}, false
	}
}

// until reads lines until one is a response whose id is the JSON text id,
// and returns that response and every line read before it.
func (p *peer) until(id string, d time.Duration) (resp map[string]json.RawMessage, seen []line, err error) {
	deadline := time.Now().Add(d)
	for {
		l, ok := p.next(time.Until(deadline))
		if !ok {
			return nil, seen, fmt.Errorf("no response with id %s within %v", id, d)
		}
		seen = append(seen, l)
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(l.text), &m) != nil {
			continue
		}
		if raw, ok := m["id"]; ok && string(raw) == id {
			if _, isRequest := m["method"]; !isRequest {
				return m, seen, nil
			}
		}
	}
}

// call sends a request with the given JSON id and waits for its response.
func (p *peer) call(id, method string, params any) map[string]json.RawMessage {
	p.tb.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q`, id, method)
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			p.tb.Fatal(err)
		}
		msg += `,"params":` + string(b)
	}
	p.send(msg + "}")
	resp, _, err := p.until(id, 10*time.Second)
	if err != nil {
		p.tb.Fatalf("%s: %v; stderr: %s", method, err, p.Stderr())
	}
	return resp
}

// initialize runs the handshake at version.
func (p *peer) initialize(version string) map[string]json.RawMessage {
	p.tb.Helper()
	resp := p.call(`"init"`, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpconform-testservers", "version": "0"},
	})
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}
