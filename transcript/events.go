package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Event is something the harness observed or did, recorded as a Note
// entry. Exactly one of its members is set (Text alone is a plain note for
// readers).
type Event struct {
	NoResponse *NoResponse `json:"noResponse,omitempty"`
	Exit       *Exit       `json:"exit,omitempty"`
	Stray      *Stray      `json:"stray,omitempty"`
	Mark       *Mark       `json:"mark,omitempty"`
	Budget     *Budget     `json:"budget,omitempty"`
	// The events of an HTTP transport: see http.go.
	HTTPRequest  *HTTPRequest  `json:"httpRequest,omitempty"`
	HTTPResponse *HTTPResponse `json:"httpResponse,omitempty"`
	HTTPBody     *HTTPBody     `json:"httpBody,omitempty"`
	SSEEvent     *SSEEvent     `json:"sseEvent,omitempty"`
	// Received is what a server of client mode received other than lines.
	Received *Received `json:"received,omitempty"`
	Text     string    `json:"text,omitempty"`
}

func (ev Event) String() string {
	switch {
	case ev.NoResponse != nil:
		return ev.NoResponse.String()
	case ev.Exit != nil:
		return "server " + ev.Exit.String()
	case ev.Stray != nil:
		return "stray process: " + ev.Stray.String()
	case ev.Mark != nil:
		return ev.Mark.String()
	case ev.Budget != nil:
		return ev.Budget.String()
	case ev.HTTPRequest != nil:
		return ev.HTTPRequest.String()
	case ev.HTTPResponse != nil:
		return ev.HTTPResponse.String()
	case ev.HTTPBody != nil:
		return ev.HTTPBody.String()
	case ev.SSEEvent != nil:
		return ev.SSEEvent.String()
	case ev.Received != nil:
		return ev.Received.String()
	}
	return ev.Text
}

// Received is what a process received from its peer other than lines, as
// the process itself saw it: the recording mock of client mode notes the
// end of its stdin and each signal delivered to it, so that the order of
// a client's shutdown (stdin closed first, then SIGTERM, then SIGKILL) is
// on record. A SIGKILL cannot be noted: a transcript that ends with
// neither an exit nor a harness event says the process was killed.
type Received struct {
	// EOF: stdin reached end of file (the client closed it, or exited).
	EOF bool `json:"eof,omitempty"`
	// Signal names a signal delivered to the process ("SIGTERM").
	Signal string `json:"signal,omitempty"`
}

func (r Received) String() string {
	if r.Signal != "" {
		return "received " + r.Signal
	}
	return "stdin reached end of file"
}

// Reason says why a request got no response.
type Reason string

// The reasons a request can go unanswered.
const (
	// ReasonTimeout: nothing arrived within the request's deadline.
	ReasonTimeout Reason = "timeout"
	// ReasonExited: the process ended first (or had ended before it was sent).
	ReasonExited Reason = "exited"
	// ReasonHung: not sent, because the method had already gone unanswered
	// twice in this run.
	ReasonHung Reason = "hung"
	// ReasonStopped: the run was interrupted or reached its deadline; this
	// judges nothing.
	ReasonStopped Reason = "stopped"
	// ReasonClosed: the harness shut the process down while it waited.
	ReasonClosed Reason = "closed"
	// ReasonWriteFailed: the request could not be written (the server read
	// none of its input).
	ReasonWriteFailed Reason = "write-failed"
	// ReasonUnreadable: a line naming the request's id at its top level
	// came, nested deeper than the harness decodes; this judges nothing.
	ReasonUnreadable Reason = "unreadable"
	// ReasonExchangeEnded: the HTTP exchange that carried the request
	// ended without its response (an error status with no message for
	// it, a 202, a stream that ended first) and nothing left open can
	// carry it; Detail says how it ended.
	ReasonExchangeEnded Reason = "exchange-ended"
)

// NoResponse is a request that got no response.
type NoResponse struct {
	// Tag is the request's tag (see Entry.Tag): a request never written
	// has no Send entry to carry it.
	Tag    string          `json:"tag,omitempty"`
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id,omitempty"`
	Reason Reason          `json:"reason"`
	// Deadline is the wait that passed (ReasonTimeout).
	Deadline time.Duration `json:"deadlineNs,omitempty"`
	// Detail says more in words (the exit status, the write error).
	Detail string `json:"detail,omitempty"`
	// NotSent is set when the request was never written: the process had
	// exited, or the method was hung. It is a consequence of what happened
	// before, not a new fact about the server.
	NotSent bool `json:"notSent,omitempty"`
}

func (n NoResponse) String() string {
	s := fmt.Sprintf("no response to %s (id %s): ", n.Method, n.ID)
	switch n.Reason {
	case ReasonTimeout:
		// Plainly: the deadline passed with no answer, which alone says
		// nothing of why.
		s = fmt.Sprintf("the server did not answer %s (id %s) within %s", n.Method, n.ID, n.Deadline)
	case ReasonExited:
		s += "the server exited"
	case ReasonHung:
		s += "not sent; the method went unanswered twice already"
	case ReasonStopped:
		s += "the run was stopped"
	case ReasonClosed:
		s += "the harness closed the connection"
	case ReasonWriteFailed:
		s += "the request could not be written"
	case ReasonUnreadable:
		s += "its answer nests deeper than the harness decodes"
	case ReasonExchangeEnded:
		s += "the HTTP exchange that carried it ended without it"
	}
	if n.Detail != "" {
		s += " (" + n.Detail + ")"
	}
	return s
}

// Harnessed reports whether the missing response says nothing about the
// server: the run was stopped, or the harness closed the connection.
func (n NoResponse) Harnessed() bool {
	return n.Reason == ReasonStopped || n.Reason == ReasonClosed
}

// Stage is how far the shutdown sequence had gone when a process ended.
type Stage string

// The stages of the stdio shutdown sequence: close stdin, wait, SIGTERM,
// wait, SIGKILL.
const (
	BeforeShutdown Stage = "before-shutdown" // it exited on its own
	StdinEOF       Stage = "stdin-eof"
	SIGTERM        Stage = "sigterm"
	SIGKILL        Stage = "sigkill"
	// Stopped: the harness killed it mid-run, past one of its budgets (a
	// flood): its end says nothing of the server.
	Stopped Stage = "stopped"
	// Closed: the harness closed a connection whose peer had not closed it
	// within the grace (a connection with no process behind it).
	Closed Stage = "closed"
	// SessionEnded: the harness ended an HTTP session (a DELETE where the
	// server issued a session id) and closed its streams; the server
	// itself lives on.
	SessionEnded Stage = "session-ended"
)

// Exit is how a process ended.
type Exit struct {
	Stage  Stage  `json:"stage"`
	Code   int    `json:"code"`             // exit status, -1 when killed by a signal
	Signal string `json:"signal,omitempty"` // the signal that killed it
	// AfterShutdown is the time from the start of shutdown to the exit.
	AfterShutdown time.Duration `json:"afterShutdownNs,omitempty"`
	// Hurried: the run was interrupted and the shutdown's waits cut short.
	Hurried bool `json:"hurried,omitempty"`
	// Grace is how long the harness waited after closing stdin before it
	// sent SIGTERM (zero when the shutdown did not get that far).
	Grace time.Duration `json:"graceNs,omitempty"`
	// Hangup: the peer closed a connection that no process of the harness
	// stands behind; there is no exit status (Code and Signal are unset).
	Hangup bool `json:"hangup,omitempty"`
}

func (e Exit) String() string {
	if e.Hangup && e.Stage == Closed {
		return "kept the connection open; the harness closed it"
	}
	if e.Stage == SessionEnded {
		return "lives on; the harness ended the session"
	}
	if e.Hangup {
		return "closed the connection"
	}
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// Stray is a process that outlived its server's shutdown.
type Stray struct {
	Pid     int    `json:"pid"`
	Command string `json:"command"`
	// Holds says what tied it to the server: "process group", "stdin",
	// "stdout", "stderr" (pipes it held), "descendant".
	Holds  []string `json:"holds"`
	Killed bool     `json:"killed"`
	// Reaped: it had become the harness's child (or the supervisor's) and
	// its exit was collected.
	Reaped bool `json:"reaped,omitempty"`
	// OtherServers are other servers running when it was found that it
	// may have come from instead (an orphan whose ancestry is lost).
	OtherServers []int `json:"otherServers,omitempty"`
}

func (s Stray) String() string {
	verdict := "killed"
	if !s.Killed {
		verdict = "could not be killed"
	}
	out := fmt.Sprintf("pid %d (%s), tied to the server by %s, outlived its shutdown; %s", s.Pid, s.Command, strings.Join(s.Holds, ", "), verdict)
	if len(s.OtherServers) > 0 {
		pids := make([]string, len(s.OtherServers))
		for i, p := range s.OtherServers {
			pids[i] = fmt.Sprint(p)
		}
		out += " (it may have come from server pid " + strings.Join(pids, ", ") + " instead)"
	}
	return out
}

// MarkKind says whether a mark opens or closes a stretch of traffic.
type MarkKind string

// Mark kinds.
const (
	Begin MarkKind = "begin"
	End   MarkKind = "end"
)

// Mark brackets the traffic of one probe or one item of a vector test, so
// that judging can attribute it.
type Mark struct {
	Kind MarkKind `json:"kind"`
	// Probe is the name of the probe, or the id of the vector test.
	Probe string `json:"probe"`
	Item  int    `json:"item,omitempty"`
	Label string `json:"label,omitempty"`
	// Bindings are the values a vector test item was run with.
	Bindings map[string]string `json:"bindings,omitempty"`
	// Provoking marks traffic outside the spec on purpose (a malformed line,
	// a request before initialize): what it provokes is judged by the probe
	// alone, never by the checks that judge every message.
	Provoking bool `json:"provoking,omitempty"`
	// Skip or Err say why the item was not, or not fully, tried.
	Skip string `json:"skip,omitempty"`
	Err  string `json:"err,omitempty"`
}

func (m Mark) String() string {
	s := string(m.Kind) + " " + m.Probe
	if m.Label != "" {
		s += " [" + m.Label + "]"
	}
	if m.Provoking {
		s += " (out of spec on purpose)"
	}
	if m.Skip != "" {
		s += ": skipped: " + m.Skip
	}
	if m.Err != "" {
		s += ": " + m.Err
	}
	return s
}

// Budget is a limit of the harness that was reached: what stopped there
// is the harness's choice, never the server's fault.
type Budget struct {
	What  string `json:"what"`
	Limit string `json:"limit"`
	// Dropped and Bytes count what a transcript flood left out.
	Dropped int   `json:"dropped,omitempty"`
	Bytes   int64 `json:"bytes,omitempty"`
}

func (b Budget) String() string {
	s := fmt.Sprintf("harness limit reached: %s, %s", b.What, b.Limit)
	if b.Dropped > 0 {
		s += fmt.Sprintf("; %d entries (%d bytes) were not kept", b.Dropped, b.Bytes)
	}
	return s
}
