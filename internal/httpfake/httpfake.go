// Package httpfake is a Streamable HTTP server for the tests of the
// harness's HTTP transport: small, with methods that misbehave on
// purpose, and a listener that keeps every request's header as it
// arrived. A test binary runs it as a process with Serve (the TestMain
// trick, as internal/stdiotest does for stdio).
package httpfake

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Env holds the modes of the server the test binary is to run as, and
// AddrEnv the address it listens on.
const (
	Env     = "MCPCONFORM_HTTP_TEST_SERVER"
	AddrEnv = "MCPCONFORM_HTTP_TEST_ADDR"
)

// Server answers MCP over Streamable HTTP. Modes (comma-separated):
//
//	sse        answer requests with an event stream: a priming event (an id
//	           and empty data), a log notification, then the response
//	nosession  issue no Mcp-Session-Id
//	noget      answer GET with 405
//
// and whatever the modes, these methods misbehave: "slow" is never
// answered, "refuse" gets 400 with no body, "accepted" gets 202, "cut"
// gets a stream whose response event never gets its blank line,
// "headers" gets the request's header fields back, "bigheader" a 2 MiB
// header, "gzip" a gzip bomb, "loop" a redirect to itself, "away" a
// redirect to another host, "flood" an endless stream of notifications,
// "nohead" nothing at all, "crlf" a stream whose lines end in CRLF and
// CR.
type Server struct {
	Modes string

	mu      sync.Mutex
	heads   [][]byte
	deleted map[string]bool
	gets    int
	next    int
}

func (s *Server) has(m string) bool { return strings.Contains(","+s.Modes+",", ","+m+",") }

// Heads returns the header of every request received, as it arrived.
func (s *Server) Heads() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.heads...)
}

// Gets counts the GET requests received.
func (s *Server) Gets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// Listen wraps ln so that every request header is kept as it arrived.
func (s *Server) Listen(ln net.Listener) net.Listener { return &listener{Listener: ln, s: s} }

type listener struct {
	net.Listener
	s *Server
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, s: l.s}, nil
}

// conn splits what a client sends into request headers, skipping bodies
// by their Content-Length.
type conn struct {
	net.Conn
	s    *Server
	buf  []byte
	skip int
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.buf = append(c.buf, p[:n]...)
	for {
		if c.skip > 0 {
			k := min(c.skip, len(c.buf))
			c.buf, c.skip = c.buf[k:], c.skip-k
			if c.skip > 0 {
				break
			}
		}
		i := bytes.Index(c.buf, []byte("\r\n\r\n"))
		if i < 0 {
			break
		}
		head := bytes.Clone(c.buf[:i+4])
		c.buf = c.buf[i+4:]
		c.s.mu.Lock()
		c.s.heads = append(c.s.heads, head)
		c.s.mu.Unlock()
		for _, l := range strings.Split(string(head), "\r\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Content-Length") {
				c.skip, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	return n, err
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// ServeHTTP answers one request to the endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	s.mu.Lock()
	gone := sid != "" && s.deleted[sid]
	s.mu.Unlock()
	if gone {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.serveGet(w, r)
		return
	case http.MethodDelete:
		s.mu.Lock()
		if s.deleted == nil {
			s.deleted = map[string]bool{}
		}
		s.deleted[sid] = true
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m message
	if json.Unmarshal(body, &m) != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
		return
	}
	if m.ID == nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.serveRequest(w, r, m)
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	if s.has("noget") {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "id: g1\ndata: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listening"}}`)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func result(id json.RawMessage, res string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + res + `}`
}

func (s *Server) serveRequest(w http.ResponseWriter, r *http.Request, m message) {
	var res string
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v := p.ProtocolVersion
		if !strings.HasPrefix(v, "2025-") {
			v = "2025-11-25"
		}
		res = `{"protocolVersion":"` + v + `","capabilities":{"tools":{}},"serverInfo":{"name":"httpfake","version":"1"}}`
		if !s.has("nosession") {
			s.mu.Lock()
			s.next++
			n := s.next
			s.mu.Unlock()
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("session-%d", n))
		}
	case "ping", "server/discover":
		res = `{}`
	case "tools/list":
		res = `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer"}}}}]}`
	case "headers":
		h, _ := json.Marshal(r.Header)
		res = `{"headers":` + string(h) + `}`
	case "slow":
		<-r.Context().Done()
		return
	case "refuse":
		w.WriteHeader(http.StatusBadRequest)
		return
	case "accepted":
		w.WriteHeader(http.StatusAccepted)
		return
	case "nohead":
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		c, _, err := hj.Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		<-time.After(time.Minute)
		return
	case "bigheader":
		w.Header().Set("X-Big", strings.Repeat("a", 2<<20))
		w.WriteHeader(http.StatusOK)
		return
	case "gzip":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zeros := make([]byte, 1<<20)
		for range 16 {
			if _, err := zw.Write(zeros); err != nil {
				return
			}
		}
		zw.Close()
		return
	case "loop":
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		return
	case "away":
		http.Redirect(w, r, "http://127.0.0.2:9/mcp", http.StatusTemporaryRedirect)
		return
	case "flood":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n"); err != nil {
				return
			}
		}
		return
	case "cut":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "id: c1\ndata: "+result(m.ID, `{}`)+"\n")
		return
	case "crlf":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, ": a comment\r\nid: r0\r\ndata:\r\n\r\nevent: message\rdata: "+result(m.ID, `{}`)+"\r\r")
		return
	default:
		res = ""
	}
	out := result(m.ID, res)
	if res == "" {
		out = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`
	}
	if !s.has("sse") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, out)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "id: p"+string(m.ID)+"\ndata:\n\n")
	io.WriteString(w, "data: "+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`+"\n\n")
	io.WriteString(w, "event: message\nid: r"+string(m.ID)+"\ndata: "+out+"\n\n")
}

// Serve runs the server as the test binary's process: on the address
// AddrEnv names, in the modes Env names, until it is killed or its stdin
// ends. It prints the address it listens on to stdout.
func Serve() int {
	ln, err := net.Listen("tcp", os.Getenv(AddrEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := &Server{Modes: os.Getenv(Env)}
	fmt.Println("listening on", ln.Addr())
	srv := &http.Server{Handler: s}
	go func() {
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "stdin ended")
		srv.Close()
	}()
	if err := srv.Serve(s.Listen(ln)); err != nil && err != http.ErrServerClosed {
		return 1
	}
	return 0
}
