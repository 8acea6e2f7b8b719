package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/httpfake"
)

// TestHTTPSilentServerIsNoFailure: a server that takes every ping of its
// session and never sends a status line for it makes the ping checks
// wait their deadline: a run against it ends, the checks say they judged
// nothing, and the deadline alone fails nothing.
func TestHTTPSilentServerIsNoFailure(t *testing.T) {
	fake := &httpfake.Server{}
	held := make(chan struct{}, 64)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" && bytes.Contains(body, []byte(`"method":"ping"`)) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			held <- struct{}{}
			io.Copy(io.Discard, c) // until the harness closes the connection
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	d := t.TempDir()
	r := runCLIIn(t, d, "--only", "area:ping", "--timeout", "1s", "--json", "r.json", "http://"+ln.Addr().String()+"/mcp")
	if len(held) == 0 {
		t.Fatalf("no ping reached the server (%v)", r)
	}
	rep := readJSONReport(t, filepath.Join(d, "r.json"))
	var waited int
	for _, res := range rep.Results {
		switch {
		case res.Verdict == "fail":
			t.Errorf("%s: failed on a deadline alone: %s", res.ID, res.Message)
		case res.Verdict == "skip" && strings.Contains(res.Message, "did not answer ping"):
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("no check says it waited for ping in vain: %+v", rep.Results)
	}
	if r.code == exitUsage || r.code == exitTarget {
		t.Errorf("got %v", r)
	}
}
