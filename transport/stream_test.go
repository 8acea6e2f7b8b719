package transport

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// dialPipe opens a stream connection over an in-memory pipe and returns
// it with the peer's end.
func dialPipe(t *testing.T) (Conn, net.Conn) {
	t.Helper()
	client, peer := net.Pipe()
	t.Cleanup(func() { peer.Close() })
	c, err := Stream(func(context.Context) (io.ReadWriteCloser, error) { return client, nil })(context.Background(), DialOptions{Transcript: transcript.New(time.Now(), transcript.Limits{}), MaxFrame: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return c, peer
}

// readAll reads frames until the connection ends and returns them.
func readAll(c Conn) ([]*wire.Line, error) {
	var out []*wire.Line
	for {
		f, err := c.Read()
		if err != nil {
			return out, err
		}
		out = append(out, f.Line)
	}
}

// TestStreamFramesLines: frames go out newline-terminated and come back
// with their framing issues, and a peer that hangs up first ends the
// connection before any shutdown.
func TestStreamFramesLines(t *testing.T) {
	c, peer := dialPipe(t)
	got := make(chan []*wire.Line, 1)
	go func() {
		lines, _ := readAll(c)
		got <- lines
	}()
	go func() {
		peer.Write([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"))
		buf := make([]byte, 64)
		n, _ := peer.Read(buf)
		peer.Write(buf[:n])
		peer.Close()
	}()
	if err := c.Write([]byte(`{"a":1}`), time.Second); err != nil {
		t.Fatal(err)
	}
	lines := <-got
	if len(lines) != 3 || !lines[0].Has(wire.IssueCRLF) || !lines[1].Has(wire.IssueBOM) || string(lines[2].Raw) != `{"a":1}` || len(lines[2].Issues) != 0 {
		t.Fatalf("got %d lines: %+v", len(lines), lines)
	}
	<-c.Done()
	if e := c.End(0); !e.Exited || !e.Hangup || e.Stage != string(transcript.BeforeShutdown) {
		t.Errorf("got %+v, want a hangup before shutdown", e)
	}
	c.Close(time.Second)
}

// TestStreamEnds: how a stream connection ends, as the transcript will
// record it.
func TestStreamEnds(t *testing.T) {
	t.Run("the peer closes on its input's end", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "tr")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		ln, err := net.Listen("unix", filepath.Join(dir, "s"))
		if err != nil {
			t.Skipf("no Unix socket: %v", err)
		}
		defer ln.Close()
		go func() {
			peer, err := ln.Accept()
			if err == nil {
				io.Copy(io.Discard, peer)
				peer.Close()
			}
		}()
		c, err := Stream(func(ctx context.Context) (io.ReadWriteCloser, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", filepath.Join(dir, "s"))
		})(context.Background(), DialOptions{Transcript: transcript.New(time.Now(), transcript.Limits{}), MaxFrame: 1024})
		if err != nil {
			t.Fatal(err)
		}
		go readAll(c)
		c.Close(10 * time.Second)
		<-c.Done()
		if e := c.End(0); e.Stage != string(transcript.StdinEOF) || !e.Hangup || e.Grace != 10*time.Second {
			t.Errorf("got %+v, want a hangup on input EOF", e)
		}
	})
	t.Run("the harness closes what cannot half-close", func(t *testing.T) {
		c, _ := dialPipe(t)
		done := make(chan error, 1)
		go func() {
			_, err := readAll(c)
			done <- err
		}()
		c.Close(time.Minute) // no half-close on a pipe: no wait either
		if err := <-done; err != io.EOF {
			t.Errorf("the read ended with %v", err)
		}
		if e := c.End(0); e.Stage != string(transcript.Closed) || e.String() != "kept the connection open; the harness closed it" {
			t.Errorf("got %+v (%s), want the harness's close", e, e)
		}
	})
	t.Run("a flood stops it", func(t *testing.T) {
		c, _ := dialPipe(t)
		go readAll(c)
		c.Stop()
		<-c.Done()
		if e := c.End(0); e.Stage != string(transcript.Stopped) {
			t.Errorf("got %+v, want stopped", e)
		}
	})
}
