package transport

import (
	"bytes"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/transcript"
)

// captureConn is one HTTP/1.1 connection of a session, keeping the bytes
// of the last response's header as they arrived: net/http hands a header
// over as a map, which loses the order and the case of the names a
// server wrote, and the checks judge what was sent. net/http sends one
// request at a time on a connection and reads its response before the
// next, so the bytes read after a request is written, up to the first
// blank line, are its response's header.
type captureConn struct {
	net.Conn
	read *atomic.Int64 // the session's count of bytes read

	mu   sync.Mutex
	head []byte // the response header so far, status line included
	got  bool   // head holds a whole final (non-1xx) header
	idle bool   // no request written since the last header was taken
}

// headLimit bounds what is kept of a header: net/http refuses a longer
// one (MaxResponseHeaderBytes), so no more is needed.
const headLimit = maxResponseHeader + 4096

func (c *captureConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.got || !c.idle && c.head == nil {
		// A new request: its response is what is read next.
		c.head, c.got = nil, false
	}
	c.idle = false
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *captureConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	if n > 0 {
		c.mu.Lock()
		if !c.got && !c.idle && len(c.head) < headLimit {
			c.head = append(c.head, p[:n]...)
			c.settle()
		}
		c.mu.Unlock()
	}
	return n, err
}

// settle cuts head at the end of the first final header, dropping
// informational (1xx) headers before it.
func (c *captureConn) settle() {
	for {
		end := headerEnd(c.head)
		if end < 0 {
			return
		}
		if bytes.HasPrefix(c.head, []byte("HTTP/1.1 1")) || bytes.HasPrefix(c.head, []byte("HTTP/1.0 1")) {
			c.head = append([]byte(nil), c.head[end:]...)
			continue
		}
		c.head, c.got = c.head[:end], true
		return
	}
}

// headerEnd returns where the blank line that ends a header ends, or -1.
func headerEnd(b []byte) int {
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		if j := bytes.Index(b, []byte("\n\n")); j >= 0 && j < i {
			return j + 2
		}
		return i + 4
	}
	if j := bytes.Index(b, []byte("\n\n")); j >= 0 {
		return j + 2
	}
	return -1
}

// take returns the header of the response just read, and marks the
// connection idle until its next request.
func (c *captureConn) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.got {
		return nil
	}
	c.idle = true
	return c.head
}

// responseEvent is the status line and header of resp, as the server
// wrote them when they were captured, else as net/http parsed them.
func responseEvent(n int, resp *http.Response, raw []byte) *transcript.HTTPResponse {
	if r := parseHead(raw); r != nil {
		r.Exchange = n
		return r
	}
	r := &transcript.HTTPResponse{Exchange: n, Proto: resp.Proto, Status: resp.StatusCode, Reason: strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))}
	for name, vs := range resp.Header {
		for _, v := range vs {
			r.Header = append(r.Header, transcript.HeaderField{Name: name, Value: v})
		}
	}
	return r
}

// parseHead reads a response header as written: the status line, then
// each field with its name as sent and its value without the whitespace
// around it (RFC 9112, section 5). nil when raw is not one.
func parseHead(raw []byte) *transcript.HTTPResponse {
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 {
		return nil
	}
	proto, rest, ok := strings.Cut(lines[0], " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/") {
		return nil
	}
	code, reason, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if err != nil {
		return nil
	}
	r := &transcript.HTTPResponse{Proto: proto, Status: status, Reason: reason}
	for _, l := range lines[1:] {
		if l != "" && (l[0] == ' ' || l[0] == '\t') && len(r.Header) > 0 {
			// An obsolete line folding: the value goes on.
			r.Header[len(r.Header)-1].Value += " " + strings.TrimSpace(l)
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		r.Header = append(r.Header, transcript.HeaderField{Name: name, Value: strings.Trim(value, " \t")})
	}
	return r
}

// tlsClient wraps a connection in TLS for host, HTTP/1.1 only, with base's
// settings when given.
func tlsClient(nc net.Conn, host string, base *tls.Config) *tls.Conn {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	return tls.Client(nc, cfg)
}
