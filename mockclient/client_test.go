package mockclient

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

func TestCallAndCleanShutdown(t *testing.T) {
	c := startHelper(t, "plain", Options{Timeout: 5 * time.Second})
	x := c.Call(context.Background(), "ping", nil)
	if x.Err != nil || !x.OK() {
		t.Fatalf("ping: %v", x.Err)
	}
	info := c.Close()
	if !info.Exited || info.Stage != "stdin-eof" || info.Code != 0 {
		t.Errorf("got %+v, want an exit with status 0 on stdin EOF", info)
	}
	for _, e := range c.Transcript().Entries() {
		if e.Event != nil && e.Event.Stray != nil {
			t.Errorf("got stray %v, want none", e.Event.Stray)
		}
	}
	// Close again: same answer, nothing new.
	if again := c.Close(); again != info {
		t.Errorf("second Close: got %+v, want %+v", again, info)
	}
	if x := c.Call(context.Background(), "ping", nil); !errors.Is(x.Err, ErrClosed) {
		t.Errorf("call after Close: got %v, want ErrClosed", x.Err)
	}
}

func TestCrashFailsPendingWithExitStatus(t *testing.T) {
	c := startHelper(t, "crash", Options{Timeout: 10 * time.Second})
	start := time.Now()
	x := c.Call(context.Background(), "resources/read", nil)
	if !errors.Is(x.Err, ErrExited) || !strings.Contains(x.Err.Error(), "exit status 7") {
		t.Fatalf("got %v, want ErrExited with exit status 7", x.Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the crash was noticed after %s, want at once", d)
	}
	if tail := strings.Join(c.StderrTail(), "\n"); !strings.Contains(tail, "crashing on resources/read") {
		t.Errorf("stderr tail %q lacks the last words", tail)
	}
	// A request after the crash fails at once, saying so.
	if x := c.Call(context.Background(), "ping", nil); !errors.Is(x.Err, ErrExited) {
		t.Errorf("call after the crash: got %v, want ErrExited", x.Err)
	}
	if info := c.Close(); info.Stage != "before-shutdown" || info.Code != 7 {
		t.Errorf("got %+v, want status 7 before shutdown", info)
	}
}

func TestContextEndsCallsAtOnce(t *testing.T) {
	c := startHelper(t, "no-read", Options{Timeout: time.Minute, Grace: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	x := c.Call(ctx, "ping", nil)
	if !errors.Is(x.Err, ErrStopped) || !errors.Is(x.Err, context.DeadlineExceeded) {
		t.Errorf("got %v, want ErrStopped and the context's deadline", x.Err)
	}
	x = c.Call(ctx, "ping", nil)
	if !errors.Is(x.Err, ErrStopped) || !errors.Is(x.Err, context.DeadlineExceeded) {
		t.Errorf("call after the deadline: got %v, want the context's deadline", x.Err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("calls took %s after a 200ms context", d)
	}
}

// A server that never reads stdin fills the pipe: writes must give up at
// the request deadline instead of blocking every later call and Close.
func TestWriteToFullPipeGivesUp(t *testing.T) {
	const timeout = 300 * time.Millisecond
	c := startHelper(t, "no-read", Options{Timeout: timeout, Grace: 100 * time.Millisecond})
	big := `"` + strings.Repeat("x", 256<<10) + `"`
	start := time.Now()
	var err error
	for i := 0; i < 4 && err == nil; i++ {
		x := c.Do(context.Background(), Request{Method: "fill", Params: rawParams(big)})
		err = x.Err
	}
	if err == nil || !strings.Contains(err.Error(), "stdin is full") {
		t.Errorf("got %v, want a write that gave up on a full stdin", err)
	}
	if d := time.Since(start); d > 10*timeout {
		t.Errorf("took %s", d)
	}
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked")
	}
}

func rawParams(s string) any { return json.RawMessage(`{"data":` + s + `}`) }

func TestStderrFloodIsDrainedAndBounded(t *testing.T) {
	c := startHelper(t, "stderr-flood", Options{Timeout: 10 * time.Second, StderrLines: 20})
	x := c.Call(context.Background(), "ping", nil)
	if x.Err != nil {
		t.Fatalf("ping after a 10 MB stderr flood: %v", x.Err)
	}
	c.Close()
	if n := c.StderrBytes(); n < 10_000_000 {
		t.Errorf("counted %d stderr bytes, want all of the 10 MB", n)
	}
	if n := len(c.StderrTail()); n != 20 {
		t.Errorf("kept %d stderr lines, want 20", n)
	}
	n := 0
	for _, e := range c.Transcript().Entries() {
		if e.Dir == transcript.Stderr {
			n++
		}
	}
	if n > 200 {
		t.Errorf("the transcript holds %d stderr lines, want at most 200", n)
	}
}

// A response still arriving at the deadline is waited for while it grows,
// up to slowLineFactor deadlines; past that it is late like any other.
func TestDeadlineWaitsForALineStillArriving(t *testing.T) {
	c := startHelper(t, "plain", Options{Timeout: 300 * time.Millisecond})
	if x := c.Call(context.Background(), "trickle", nil); x.Err != nil {
		t.Errorf("a 2 s response with a 300 ms deadline, growing all the time: %v", x.Err)
	}
	c2 := startHelper(t, "plain", Options{Timeout: 100 * time.Millisecond})
	start := time.Now()
	x := c2.Call(context.Background(), "trickle", nil)
	if !errors.Is(x.Err, ErrTimeout) {
		t.Errorf("a 2 s response with a 100 ms deadline: got %v, want a timeout", x.Err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("gave up after %s, want about 10 deadlines (1 s)", d)
	}
}

// A line that stopped in its middle for a whole deadline holds stdout:
// no later request can be answered before it ends, so none is sent (the
// run does not wait a deadline for each), until the line moves on.
func TestLineStuckMidwayStopsRequests(t *testing.T) {
	c := startHelper(t, "plain", Options{Timeout: 300 * time.Millisecond})
	if x := c.Call(context.Background(), "half", nil); !errors.Is(x.Err, ErrTimeout) {
		t.Fatalf("half an answer: got %v, want a timeout", x.Err)
	}
	start := time.Now()
	x := c.Call(context.Background(), "ping", nil)
	if !errors.Is(x.Err, ErrHung) || x.SentSeq >= 0 {
		t.Fatalf("after a line stuck midway: got %v (sent at %d), want hung and not sent", x.Err, x.SentSeq)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("the request took %s: it waited instead of failing at once", d)
	}
	var reason transcript.Reason
	for _, e := range c.Transcript().Entries() {
		if e.Event != nil && e.Event.NoResponse != nil && e.Event.NoResponse.Method == "ping" {
			reason = e.Event.NoResponse.Reason
		}
	}
	if reason != transcript.ReasonHung {
		t.Errorf("the ping's noResponse says %q, want %q", reason, transcript.ReasonHung)
	}
}

// TestServerRequestsAnsweredAsDeclared: a request for a capability the
// client declared in its initialize gets an answer in kind (no roots, a
// declined elicitation, a refused sampling request); anything else gets
// -32601, and ping an empty result.
func TestServerRequestsAnsweredAsDeclared(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps map[string]any
		want map[string]string // server request id -> what the answer holds
	}{
		{"declared", map[string]any{"roots": map[string]any{}, "sampling": map[string]any{}, "elicitation": map[string]any{}},
			map[string]string{"s0": `"result":{"roots":[]}`, "s1": `"error":{"code":-1`, "s2": `"result":{"action":"decline"}`, "s3": `"result":{}`, "s4": `"code":-32601`}},
		{"nothing declared", map[string]any{},
			map[string]string{"s0": `"code":-32601`, "s1": `"code":-32601`, "s2": `"code":-32601`, "s3": `"result":{}`, "s4": `"code":-32601`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startHelper(t, "ask-client", Options{Timeout: 5 * time.Second})
			if x := c.Call(context.Background(), "initialize", map[string]any{"capabilities": tc.caps}); !x.OK() {
				t.Fatalf("initialize: %v", x.Err)
			}
			answered := map[string]string{}
			deadline := time.Now().Add(10 * time.Second)
			for len(answered) < len(tc.want) && time.Now().Before(deadline) {
				for _, e := range c.Transcript().Entries() {
					for _, m := range e.Msgs {
						if e.Dir == transcript.Send && m.Kind() == wire.KindResponse {
							answered[strings.Trim(string(m.ID), `"`)] = string(e.Data)
						}
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
			for id, want := range tc.want {
				if !strings.Contains(answered[id], want) {
					t.Errorf("request %s: answered %q, want it to hold %s", id, answered[id], want)
				}
			}
		})
	}
}

// TestSendWritesBeforeReturning: Send's request is on stdin (and in the
// transcript) when Send returns; Wait gives what Do would, as often as
// asked; and requests sent so never make their method hung.
func TestSendWritesBeforeReturning(t *testing.T) {
	c := startHelper(t, "plain", Options{Timeout: 5 * time.Second})
	pd := c.Send(context.Background(), Request{Tag: "sent-early", Method: "ping"})
	written := false
	for _, e := range c.Transcript().Entries() {
		written = written || e.Dir == transcript.Send && e.Tag == "sent-early"
	}
	if !written {
		t.Errorf("Send returned before writing its request")
	}
	x := pd.Wait()
	if !x.OK() || x.Tag != "sent-early" || x.SentSeq < 0 {
		t.Fatalf("Wait: %+v", x)
	}
	if again := pd.Wait(); again != x {
		t.Errorf("a second Wait gave another exchange")
	}

	deaf := startHelper(t, "no-read", Options{Timeout: 5 * time.Second, Grace: 100 * time.Millisecond})
	for range stallLimit + 1 {
		if x := deaf.Send(context.Background(), Request{Method: "ping", Timeout: 20 * time.Millisecond}).Wait(); !errors.Is(x.Err, ErrTimeout) {
			t.Fatalf("a ping to a server that reads nothing: %v, want a timeout", x.Err)
		}
	}
	if x := deaf.Do(context.Background(), Request{Method: "ping", Timeout: 20 * time.Millisecond}); !errors.Is(x.Err, ErrTimeout) {
		t.Errorf("after %d unanswered pings sent with Send, Do gave %v; want the request sent and timed out, not refused as hung", stallLimit+1, x.Err)
	}
}

// TestLinesArrivedTogetherAreRecordedFirst: lines that arrive in one write
// are all in the transcript before the waiter of the first wakes, so what
// the server wrote right after an answer precedes, in the transcript,
// whatever the client sends once it has the answer. The hook holds the
// reader before the line after the answer until initialize has returned
// (or, as it must, 2 s passed without it).
func TestLinesArrivedTogetherAreRecordedFirst(t *testing.T) {
	returned := make(chan struct{})
	var taken atomic.Int32
	hook := func() {
		if taken.Add(1) == 2 {
			select {
			case <-returned:
			case <-time.After(2 * time.Second):
			}
		}
	}
	testHookNextLine.Store(&hook)
	defer testHookNextLine.Store(nil)
	c := startHelper(t, "ask-client", Options{Timeout: 10 * time.Second})
	x := c.Call(context.Background(), "initialize", map[string]any{})
	close(returned)
	if !x.OK() {
		t.Fatalf("initialize: %v", x.Err)
	}
	var requests []string
	for _, e := range c.Transcript().Entries() {
		for _, m := range e.Msgs {
			if e.Dir == transcript.Recv && m.Kind() == wire.KindRequest {
				requests = append(requests, m.Method)
			}
		}
	}
	if len(requests) != 5 {
		t.Errorf("when initialize returned, the transcript held %d of the 5 requests written with its answer: %v", len(requests), requests)
	}
}

// TestUnreadableAnswerEndsTheWait: an answer nested past wire.MaxDepth is
// not decoded, but its top-level id ends the wait of its request at
// once, recorded as unreadable, not as silence past a deadline.
func TestUnreadableAnswerEndsTheWait(t *testing.T) {
	c := startHelper(t, "answer", Options{Timeout: time.Minute})
	x := c.Call(context.Background(), "deep", nil)
	if !errors.Is(x.Err, ErrUnreadable) || x.Response != nil {
		t.Fatalf("got err %v and response %v, want ErrUnreadable and none", x.Err, x.Response)
	}
	found := false
	for _, e := range c.Transcript().Entries() {
		if e.Event != nil && e.Event.NoResponse != nil && e.Event.NoResponse.Reason == transcript.ReasonUnreadable {
			found = true
		}
	}
	if !found {
		t.Error("no unreadable no-response event in the transcript")
	}
	if x := c.Call(context.Background(), "ping", nil); !x.OK() {
		t.Errorf("the next request: %v", x.Err)
	}
}
