package mockclient

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// mockEnv makes the test binary serve the reference mock server on its
// stdio, as `mcpconform mock` does.
const mockEnv = "MOCKCLIENT_TEST_MOCK"

func serveMock() int {
	if err := mockserver.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, mockserver.Options{}); err != nil {
		return 1
	}
	return 0
}

// session drives one short session: the handshake, a few requests (one
// for a method the server does not have), and the shutdown.
func session(t *testing.T, c *Client) {
	t.Helper()
	ctx := context.Background()
	init := map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}
	if x := c.Do(ctx, Request{Tag: "init", Method: "initialize", Params: init}); !x.OK() {
		t.Fatalf("initialize: %v", x.Err)
	}
	if err := c.NotifyTagged("initialized", "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ping", "tools/list", "resources/list", "x/unknown"} {
		if x := c.Do(ctx, Request{Tag: m, Method: m}); !x.OK() {
			t.Fatalf("%s: %v", m, x.Err)
		}
	}
	if info := c.Close(); info.Stage != string(transcript.StdinEOF) {
		t.Errorf("got %+v, want the server to end on its input's EOF", info)
	}
}

// recorded is what a transcript holds, without its times: the frames each
// way, each exit's stage, and every other event or note as it reads.
func recorded(tr *transcript.Transcript) []string {
	var out []string
	for _, e := range tr.Entries() {
		switch {
		case e.Dir == transcript.Send || e.Dir == transcript.Recv:
			out = append(out, string(e.Dir)+" "+e.Tag+" "+string(e.Data))
		case e.Event != nil && e.Event.Exit != nil:
			out = append(out, "exit "+string(e.Event.Exit.Stage))
		case e.Event != nil:
			out = append(out, "event "+e.Event.String())
		}
	}
	return out
}

// TestDrivesAServerOverAnyConnection: the client drives the mock server
// over a Unix socket (no process of its own: the server runs in this
// one) exactly as over the stdio of a process, and records the same
// transcript; only the end differs in kind, a hangup instead of an exit.
func TestDrivesAServerOverAnyConnection(t *testing.T) {
	dir, err := os.MkdirTemp("", "mc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix socket: %v", err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer conn.Close()
		served <- mockserver.Serve(context.Background(), conn, conn, io.Discard, mockserver.Options{})
	}()
	dial := transport.Stream(func(ctx context.Context) (io.ReadWriteCloser, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	})
	overSocket, err := New(context.Background(), dial, Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	session(t, overSocket)
	if err := <-served; err != nil {
		t.Errorf("the server over the socket: %v", err)
	}
	select {
	case <-overSocket.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection never ended")
	}

	overStdio, err := Start(Options{Command: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), mockEnv+"=1"), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	session(t, overStdio)

	if got, want := overSocket.Transport(), "stream"; got != want {
		t.Errorf("the socket's transport is %q, want %q", got, want)
	}
	if got, want := overStdio.Transport(), "stdio"; got != want {
		t.Errorf("the process's transport is %q, want %q", got, want)
	}
	socket, stdio := recorded(overSocket.Transcript()), recorded(overStdio.Transcript())
	if len(stdio) < 12 {
		t.Fatalf("the stdio session recorded %d entries, want the whole session: %q", len(stdio), stdio)
	}
	if diff := cmp.Diff(stdio, socket); diff != "" {
		t.Errorf("the socket's transcript differs from the process's (-stdio +socket):\n%s", diff)
	}
	var exit *transcript.Exit
	for _, e := range overSocket.Transcript().Entries() {
		if e.Event != nil && e.Event.Exit != nil {
			exit = e.Event.Exit
		}
	}
	if exit == nil || !exit.Hangup || exit.Code != 0 || exit.Signal != "" {
		t.Errorf("the socket's end is %+v, want a hangup with no exit status", exit)
	}
	if overSocket.Pid() != 0 || overSocket.StderrTail() != nil || slices.ContainsFunc(overSocket.Transcript().Entries(), func(e transcript.Entry) bool { return e.Dir == transcript.Stderr }) {
		t.Error("the socket has a process, or a stderr")
	}
}
