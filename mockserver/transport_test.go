package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

// sessionLines is a client's side of a short session: the handshake,
// requests of every family, and lines that draw errors (not JSON, an id
// that is neither a string nor an integer, an unknown method), a blank
// line and a line ended by "\r\n".
func sessionLines() []string {
	return []string{
		request("1", "initialize", initParams("2025-06-18")),
		notification("notifications/initialized", nil),
		request("2", "ping", nil),
		request(`"two"`, "resources/list", nil),
		request("3", "resources/read", map[string]any{"uri": "test://static/hello.txt"}),
		request("4", "tools/list", nil),
		request("5", "prompts/list", nil),
		`{"jsonrpc":"2.0","id":6,"method":`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		"",
		request("7", "no/such/method", nil),
		request("8", "ping", nil) + "\r",
	}
}

// TestServeConnUnixSocket serves a client on a Unix socket and gets, byte
// for byte, what Serve writes on stdout for the same input, with and
// without the faults of the line framing.
func TestServeConnUnixSocket(t *testing.T) {
	input := strings.Join(sessionLines(), "\n") + "\n"
	for _, faults := range [][]string{nil, {"bom", "crlf", "blank-lines", "pretty-print"}, {"stream-decoder"}} {
		opts := Options{Faults: faults}
		want, _, stdioErr := transcript(opts, input)
		got, connErr := overUnixSocket(t, opts, input)
		// stream-decoder ends the session at the line that is not JSON.
		if a, b := errText(stdioErr, "stdin"), errText(connErr, "the connection"); a != b {
			t.Errorf("faults %v: Serve returned %v, ServeConn %v", faults, stdioErr, connErr)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("faults %v: the socket's answers differ from stdout's (-stdout +socket):\n%s", faults, diff)
		}
	}
}

// errText is err's text with the name of the input taken out, or "".
func errText(err error, input string) string {
	if err == nil {
		return ""
	}
	return strings.Replace(err.Error(), "reading "+input, "reading", 1)
}

// overUnixSocket serves one client on a Unix socket in a temporary
// directory: the client writes input, ends its side, and reads until the
// server closes the connection. It returns what the client read and
// what ServeConn returned.
func overUnixSocket(t *testing.T, opts Options, input string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	// A short directory: a socket's path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "ms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix socket: %v", err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		served <- ServeConn(ctx, c, nil, opts)
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		_, _ = io.WriteString(c, input)
		_ = c.(*net.UnixConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("reading the socket: %v", err)
	}
	return got, <-served
}

// frameConn is a transport without a byte stream, as Streamable HTTP is:
// frames come in as values and messages go out as values, with no
// framing of their own.
type frameConn struct {
	in   []frame
	mu   sync.Mutex
	sent []outFrame
	raws [][]byte
}

func (c *frameConn) next() (frame, error) {
	if len(c.in) == 0 {
		return frame{}, io.EOF
	}
	f := c.in[0]
	c.in = c.in[1:]
	return f, nil
}

func (c *frameConn) send(m outFrame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, m)
}

func (c *frameConn) raw(b []byte, terminate bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raws = append(c.raws, b)
}

func (c *frameConn) endless(head, chunk []byte, pause time.Duration) { c.raw(head, false) }

func (c *frameConn) failed() error { return nil }

// TestServeOverFrames serves the session over frameConn: the messages are
// those Serve writes on stdout for the same lines, and each response
// names the frame that carried its request.
func TestServeOverFrames(t *testing.T) {
	lines := sessionLines()
	want, _, err := transcript(Options{}, strings.Join(lines, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	c := &frameConn{}
	seqOf := map[string]int{} // the frame of each request id
	for i, l := range lines {
		raw := []byte(strings.TrimSuffix(l, "\r"))
		f := frame{seq: i + 1, Line: &wire.Line{Raw: raw, Len: len(raw)}}
		c.in = append(c.in, f)
		var m struct{ ID json.RawMessage }
		if json.Unmarshal(raw, &m) == nil && m.ID != nil {
			seqOf[wire.IDKey(m.ID)] = f.seq
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := serve(ctx, nil, Options{}, func(faultSet, *recorder) conn { return c }); err != nil {
		t.Fatalf("serve: %v", err)
	}
	var got bytes.Buffer
	for _, m := range c.sent {
		got.Write(m.data)
		got.WriteByte('\n')
		var r struct{ ID json.RawMessage }
		if err := json.Unmarshal(m.data, &r); err != nil {
			t.Errorf("not a message: %q", m.data)
			continue
		}
		if seq, ok := seqOf[wire.IDKey(r.ID)]; ok && m.re != seq {
			t.Errorf("the response to id %s names frame %d, want %d (the request's)", r.ID, m.re, seq)
		}
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("answers over frames differ from stdout's (-stdout +frames):\n%s", diff)
	}
	if len(c.raws) > 0 {
		t.Errorf("raw writes without a fault: %q", c.raws)
	}
}
