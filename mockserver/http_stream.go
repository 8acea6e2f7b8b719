package mockserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// The SSE streams of the HTTP transport: the answer to a POST, the GET
// stream, and the resumption of either with Last-Event-ID.

// sseWriter writes the events of one response.
type sseWriter struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func newSSE(w http.ResponseWriter, h *HTTPHandler) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if !h.faults.has("http-no-accel-buffering") {
		w.Header().Set("X-Accel-Buffering", "no")
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	sw := &sseWriter{w: w, fl: fl}
	sw.flush()
	return sw
}

func (sw *sseWriter) flush() {
	if sw.fl != nil {
		sw.fl.Flush()
	}
}

// write writes one event; terminate false leaves out the blank line that
// ends it.
func (sw *sseWriter) write(id, name string, retry int, data []byte, terminate bool) {
	var b bytes.Buffer
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	if retry > 0 {
		fmt.Fprintf(&b, "retry: %d\n", retry)
	}
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	if terminate {
		b.WriteByte('\n')
	}
	_, _ = sw.w.Write(b.Bytes())
	sw.flush()
}

// retryMs is the retry the priming event gives.
const retryMs = 1000

// primes reports whether the session's streams start with a priming
// event: from 2025-11-25, whose clients resume with its id.
func (c *httpConn) primes(p *post) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !p.modern && c.version >= "2025-11-25" && !c.s.h.faults.has("http-no-priming")
}

// eventID numbers the next event of a stream: unique in the server, the
// stream's number before its own count ("" in 2026-07-28, which has no
// resumption). c.mu is held.
func (c *httpConn) eventID(p *post) string {
	if p.modern {
		return ""
	}
	p.k++
	if c.s.h.faults.has("http-event-ids-per-stream") {
		return strconv.Itoa(p.k - 1)
	}
	return fmt.Sprintf("%d-%d", p.n, p.k-1)
}

// emit writes a message as an event of the stream, keeping it for
// resumption.
func (c *httpConn) emit(sw *sseWriter, p *post, data []byte, terminate bool) {
	c.mu.Lock()
	id := c.eventID(p)
	p.events = append(p.events, sseEvent{id: id, data: data})
	c.mu.Unlock()
	name := ""
	if c.s.h.variants.has("http-event-names") {
		name = "message"
	}
	if sw != nil {
		sw.write(id, name, 0, data, terminate)
	}
}

// prime writes the priming event: an id and empty data.
func (c *httpConn) prime(sw *sseWriter, p *post) {
	c.mu.Lock()
	id := c.eventID(p)
	p.events = append(p.events, sseEvent{id: id})
	c.mu.Unlock()
	retry := retryMs
	if c.s.h.faults.has("http-poll-without-retry") {
		retry = 0
	}
	sw.write(id, "", retry, nil, true)
}

// stream writes the SSE answer to a POST: what the mock sends for its
// requests, until the last is answered.
func (c *httpConn) stream(w http.ResponseWriter, r *http.Request, p *post, first [][]byte, done bool) {
	h := c.s.h
	c.newStream(p)
	sw := newSSE(w, h)
	if c.primes(p) {
		c.prime(sw, p)
	}
	if p.modern && h.faults.has("http-request-on-stream") {
		c.emit(sw, p, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"mock-stream-ping-%d","method":"ping"}`, p.n)), true)
	}
	if p.method == "tools/list" && !p.modern {
		switch {
		case h.faults.has("http-stream-no-response"):
			c.mu.Lock()
			p.queue, p.done = nil, true
			c.drop(p)
			c.mu.Unlock()
			return
		case h.faults.has("http-poll-without-retry"):
			// The post stays, with what came for it, for a GET to resume.
			c.mu.Lock()
			p.queue = append(first, p.queue...)
			c.mu.Unlock()
			return
		}
	}
	c.pump(r.Context(), sw, p, first, done)
	if h.faults.has("http-stream-left-open") {
		select {
		case <-r.Context().Done():
		case <-c.gone:
		}
	}
}

// pump writes a stream's messages as events until it is over, or the
// client goes.
func (c *httpConn) pump(ctx context.Context, sw *sseWriter, p *post, q [][]byte, done bool) {
	cut := p.method == "tools/list" && c.s.h.faults.has("http-unterminated-event")
	for {
		for _, data := range q {
			last := done && cut && classify(data).response
			c.emit(sw, p, data, !last)
			if last {
				break
			}
		}
		if done || ctx.Err() != nil {
			break
		}
		q, done = c.wait(ctx, p)
	}
	c.forget(ctx, p)
}

// listen opens the GET stream: the messages that go with no request.
func (c *httpConn) listen(w http.ResponseWriter, r *http.Request) {
	h := c.s.h
	c.mu.Lock()
	if c.get != nil && !c.get.done {
		c.mu.Unlock()
		h.write(w, &httpError{status: http.StatusConflict, msg: "Conflict: a GET stream of this session is open already"})
		return
	}
	p := &post{method: "GET", mode: "sse", ids: map[string]bool{}, all: map[string]bool{}, tokens: map[string]bool{}, wake: make(chan struct{}, 1)}
	p.queue, c.backlog = c.backlog, nil
	c.get = p
	c.mu.Unlock()
	c.newStream(p)
	sw := newSSE(w, h)
	if c.primes(p) {
		c.prime(sw, p)
	}
	defer func() {
		c.mu.Lock()
		if c.get == p {
			c.get = nil
			c.backlog = append(c.backlog, p.queue...)
		}
		c.mu.Unlock()
	}()
	for {
		q, done := c.wait(r.Context(), p)
		for _, data := range q {
			c.emit(sw, p, data, true)
		}
		if done || r.Context().Err() != nil {
			return
		}
	}
}

// resume answers a GET with Last-Event-ID: the events of that id's stream
// after it, then, if the stream is not over, the rest of it.
func (c *httpConn) resume(w http.ResponseWriter, r *http.Request, last string) {
	h := c.s.h
	c.mu.Lock()
	var p *post
	k := -1
	for _, s := range c.streams {
		for i, ev := range s.events {
			if ev.id == last {
				p, k = s, i
			}
		}
	}
	if p == nil {
		c.mu.Unlock()
		h.write(w, &httpError{status: http.StatusNotFound, msg: "Not Found: no stream of this session gave the event id " + last})
		return
	}
	replay := append([]sseEvent(nil), p.events[k+1:]...)
	if h.faults.has("http-replay-other-streams") {
		for _, s := range c.streams {
			if s != p {
				replay = append(replay, s.events...)
			}
		}
	}
	c.mu.Unlock()
	sw := newSSE(w, h)
	for _, ev := range replay {
		if ev.data != nil {
			sw.write(ev.id, "", 0, ev.data, true)
		}
	}
	if p.method != "GET" {
		c.pump(r.Context(), sw, p, nil, false)
	}
}
