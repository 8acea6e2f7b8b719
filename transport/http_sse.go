package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// An event stream is read in two layers. The bytes are split into events
// at blank lines, and each event's fields are noted as the stream gave
// them (an id, even empty; a retry; whether its blank line came) — facts a
// parser normalises away. Then each event is given to go-sse, a parser of
// the WHATWG rules, which says what a client receives: an event it
// dispatches with data is a frame; an event the stream ended in the
// middle of (no blank line) it never dispatches, so neither does this
// client.

// errEventTooLong: an event over the frame size; errPlainEvents: the
// session's budget of events without a message is spent.
var (
	errEventTooLong = errors.New("an event longer than the maximum message size (--max-message-size): the harness stopped reading")
	errPlainEvents  = errors.New("more server-sent events without a message than the harness records in a session")
)

// sseLines reads the lines of an event stream: each ends at CRLF, LF or
// CR.
type sseLines struct {
	r   *bufio.Reader
	cr  bool // the last line ended at a CR: a LF right after it is part of its end
	max int
	n   int64 // bytes read
}

// next returns the next line without its end, and whether its end came;
// at the end of the stream, err is set and line is what came of a last
// line cut off.
func (l *sseLines) next() (line []byte, ended bool, err error) {
	for {
		if l.r.Buffered() == 0 {
			if _, err := l.r.Peek(1); err != nil {
				return line, false, err
			}
		}
		buf, _ := l.r.Peek(l.r.Buffered())
		if l.cr {
			l.cr = false
			if buf[0] == '\n' {
				l.r.Discard(1)
				l.n++
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			i = len(buf)
		}
		if len(line)+i > l.max {
			return line, false, errEventTooLong
		}
		line = append(line, buf[:i]...)
		if i == len(buf) {
			l.r.Discard(i)
			l.n += int64(i)
			continue
		}
		l.cr = buf[i] == '\r'
		l.r.Discard(i + 1)
		l.n += int64(i + 1)
		return line, true, nil
	}
}

// rawEvent is one event's fields as the stream gave them.
type rawEvent struct {
	text   []byte // the event's lines, each ended by LF, for go-sse
	id     *string
	event  string
	data   []string
	retry  *int64
	fields bool // a field line came (comments alone make no event)
}

func (e *rawEvent) add(line []byte) {
	e.text = append(append(e.text, line...), '\n')
	if len(line) > 0 && line[0] == ':' {
		return // a comment
	}
	name, value := string(line), ""
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = string(line[:i]), string(line[i+1:])
		value = strings.TrimPrefix(value, " ")
	}
	e.fields = true
	switch name {
	case "data":
		e.data = append(e.data, value)
	case "event":
		e.event = value
	case "id":
		e.id = &value
	case "retry":
		if n, err := strconv.ParseInt(value, 10, 64); err == nil && value != "" && strings.Trim(value, "0123456789") == "" {
			e.retry = &n
		}
	}
}

// dispatched returns the event a WHATWG client gets from text (an
// event's lines and the blank line after them, or without it when the
// stream ended first): go-sse's reading of it.
func dispatched(text []byte) (sse.Event, bool) {
	for ev, err := range sse.Read(bytes.NewReader(text), &sse.ReadConfig{MaxEventSize: len(text) + 64}) {
		if err != nil {
			return sse.Event{}, false
		}
		return ev, true
	}
	return sse.Event{}, false
}

// readStream reads an event stream to its end, handing over each event
// that carries a message as a frame, recording the others, and at the
// end resuming the stream when the server closed it before it was done
// and said where to resume.
func (ex *exchange) readStream(resp *http.Response) {
	l := &sseLines{r: bufio.NewReaderSize(resp.Body, 64<<10), max: ex.c.max + 64<<10}
	var ev rawEvent
	var lastID string
	var retry *int64
	first := true
	var err error
	size := 0
	for {
		var line []byte
		var ended bool
		line, ended, err = l.next()
		if first && len(line) > 0 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			first = false
		}
		if err != nil {
			if len(line) > 0 {
				ev.add(line)
			}
			break
		}
		if len(line) > 0 || !ended {
			if size += len(line); size > l.max {
				err = errEventTooLong
				break
			}
			ev.add(line)
			continue
		}
		// A blank line: the event is complete.
		size = 0
		if ev.id != nil && !strings.ContainsRune(*ev.id, 0) {
			lastID = *ev.id
		}
		if ev.retry != nil {
			retry = ev.retry
		}
		complete := ex.onEvent(&ev)
		ev = rawEvent{}
		if !complete {
			err = errPlainEvents
			ex.c.record(transcript.Event{Budget: &transcript.Budget{What: "server-sent events", Limit: fmt.Sprintf("%d events without a message in a session", maxPlainEvents)}})
			break
		}
	}
	if ev.fields {
		// The stream ended inside an event: a WHATWG client drops it.
		if _, ok := dispatched(ev.text); !ok {
			sev := ex.sseEvent(&ev)
			sev.Data, sev.Unterminated = strings.Join(ev.data, "\n"), true
			if errors.Is(err, errEventTooLong) {
				// Cut by the harness: only what a line past the size
				// limit keeps is kept, as of a body too long.
				sev.Data = string(clip([]byte(sev.Data), ex.c.rec.ClipTo()))
			}
			ex.c.record(transcript.Event{SSEEvent: sev})
		}
	}
	end := &transcript.HTTPBody{Exchange: ex.n, Response: true, Len: l.n, End: true}
	clean := errors.Is(err, io.EOF)
	if !clean {
		end.Err = stopWhy(ex, describe(err))
	} else if why := ex.stopped(); why != "" {
		end.Err = why
	}
	ex.c.record(transcript.Event{HTTPBody: end})
	left := ex.remaining()
	how := "the stream ended without it"
	switch {
	case ev.fields && clean:
		how = "the stream ended before the blank line that ends its last event, which a WHATWG client drops"
	case end.Err != "":
		how = "the stream broke off without it: " + end.Err
	}
	if ex.resume(lastID, retry, left) || end.Err != "" && ex.serverDied() {
		return
	}
	ex.settle(how)
}

// onEvent hands over or records one complete event, and reports whether
// the session's budget of events without a message still holds.
func (ex *exchange) onEvent(ev *rawEvent) bool {
	if !ev.fields {
		return true // comments only: nothing to record
	}
	if ex.events > 0 {
		ex.seen++
		if ex.seen == ex.events {
			defer ex.stop(fmt.Sprintf("closed by the harness: the probe reads %d event(s) of it", ex.events))
		}
	}
	got, ok := dispatched(append(ev.text, '\n'))
	sev := ex.sseEvent(ev)
	if ok && got.Data != "" {
		sev.Message = true
		ex.deliver(wire.FrameOf([]byte(got.Data), len(got.Data), ex.c.max), transcript.Event{SSEEvent: sev})
		ex.linger()
		return true
	}
	sev.Data = strings.Join(ev.data, "\n")
	ex.c.record(transcript.Event{SSEEvent: sev})
	return ex.c.plainEvent()
}

func (ex *exchange) sseEvent(ev *rawEvent) *transcript.SSEEvent {
	return &transcript.SSEEvent{Exchange: ex.n, ID: ev.id, Event: ev.event, Retry: ev.retry}
}

// resume reconnects to a stream the server closed before it carried
// everything it owed, as the 2025 transports say a client should: "If
// the client wishes to resume after a disconnection ... it SHOULD issue
// an HTTP GET to the MCP endpoint, and include the Last-Event-ID header",
// waiting what the last retry field asked ("The client MUST respect the
// retry field"). Only a stream that gave an event id can be resumed, and
// a listening GET stream only when it asked for a retry; 2026-07-28
// streams are never resumed. It reports whether a resumption was begun.
func (ex *exchange) resume(lastID string, retry *int64, left []json.RawMessage) bool {
	if lastID == "" || ex.modern || ex.reconnects <= 0 || ex.c.ctx.Err() != nil || ex.stopped() != "" || ex.c.sessionDeleted() {
		return false
	}
	if ex.method == http.MethodGet && len(left) == 0 && retry == nil {
		return false
	}
	if ex.method == http.MethodPost && len(left) == 0 {
		return false
	}
	wait := time.Second
	if retry != nil {
		wait = time.Duration(*retry) * time.Millisecond
	}
	wait = min(wait, maxRetryWait)
	ex.c.running.Add(1)
	go func() {
		defer ex.c.running.Done()
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
			if ex.c.get("", lastID, ex.reconnects-1, left) {
				return
			}
		case <-ex.c.ctx.Done():
		}
		if len(left) > 0 {
			ex.c.push(item{unanswered: &Unanswered{IDs: left, Why: fmt.Sprintf("http %d: the stream ended without it, and the session ended before it was resumed", ex.n)}})
		}
	}()
	return true
}
