package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/httpfake"
)

// TestHTTPHostilePingIsNoFailure: a server that answers every ping of its
// session with an attack on the harness (no status line ever; an endless
// stream of events that carry no message; a data line that never ends; a
// 10 MiB header; a gzip bomb; a redirect loop) makes the harness end each
// exchange at a deadline or a limit of its own: a run against it ends,
// the checks say they judged nothing, and a limit of the harness alone
// breaches no rule.
func TestHTTPHostilePingIsNoFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		attack func(w http.ResponseWriter, r *http.Request)
		says   string // what a check that judged nothing says
	}{
		{"silent", func(w http.ResponseWriter, _ *http.Request) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			io.Copy(io.Discard, c) // until the harness closes the connection
		}, "did not answer ping"},
		{"endless events", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, "event: tick\n\n"); err != nil {
					return
				}
			}
		}, "ping"},
		{"endless data line", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "data: ")
			chunk := strings.Repeat("x", 4096)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}, "ping"},
		{"huge header", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Filler", strings.Repeat("a", 10<<20))
			w.WriteHeader(http.StatusOK)
		}, "ping"},
		{"gzip bomb", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(make([]byte, 16<<20))
			zw.Close()
		}, "ping"},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		}, "ping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &httpfake.Server{}
			attacked := make(chan struct{}, 64)
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
				if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" && bytes.Contains(body, []byte(`"method":"ping"`)) {
					select {
					case attacked <- struct{}{}:
					default:
					}
					tc.attack(w, r)
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
			r := runCLIIn(t, d, "--only", "area:ping,every-request-answered,http-request-content-type,http-stream-carries-response,http-sse-response-complete", "--timeout", "1s", "--max-message-size", "65536", "--json", "r.json", "http://"+ln.Addr().String()+"/mcp")
			if len(attacked) == 0 {
				t.Fatalf("no ping reached the server (%v)", r)
			}
			if r.code == exitUsage || r.code == exitTarget {
				t.Errorf("got %v", r)
			}
			rep := readJSONReport(t, filepath.Join(d, "r.json"))
			var waited int
			for _, res := range rep.Results {
				switch {
				case res.Verdict == "fail" || res.Verdict == "warn":
					t.Errorf("%s: %s on a limit of the harness alone: %s", res.ID, res.Verdict, res.Message)
				case res.Verdict == "skip" && strings.Contains(res.Message, tc.says):
					waited++
				}
			}
			if waited == 0 {
				t.Errorf("no check says it judged nothing for want of an answer to ping: %+v", rep.Results)
			}
		})
	}
}
