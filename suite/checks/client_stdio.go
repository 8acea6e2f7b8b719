package checks

import (
	"bytes"

	"fmt"
	"github.com/mcpconform/mcpconform/evidence"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// spawnedCheckID is the check that judges a scenario whose client never
// started the server: every other check skips it.
const spawnedCheckID = "client-spawned-server"

// clientStdioChecks judge what a client writes on the server's stdin and
// how it ends the server (STDIO-*).
func clientStdioChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: spawnedCheckID, Requirement: "STDIO-01", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "the client starts the server it was given (MCP_CONFORMANCE_SERVER_COMMAND) as a child process",
			Judge:       checkClientSpawned,
		},
		{
			ID: "client-stdin-framing", Requirement: "STDIO-02", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "every line the client writes is one whole message: no message spread over lines, no line left unterminated",
			Judge:       checkClientFraming,
		},
		{
			ID: "client-stdin-only-messages", Requirement: "STDIO-06", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "the client writes nothing but MCP messages on the server's stdin: no blank lines, no text, no JSON that is no message",
			Judge:       checkClientOnlyMessages,
		},
		{
			ID: "client-stdin-utf8", Requirement: "STDIO-04", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "what the client writes is UTF-8, with no byte order mark",
			Judge:       checkClientUTF8,
		},
		{
			ID: "client-no-responses", Requirement: "STDIO-15", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "over stdio a 2026-07-28 client writes requests and notifications, never responses",
			Judge:       checkClientNoResponses,
		},
		{
			ID: "client-shutdown-order", Requirement: "STDIO-16", Area: "stdio", Transport: evidence.TransportStdio,
			Description: "the client ends the server by closing its stdin first, then waits, and signals (SIGTERM, then SIGKILL) only if it does not exit",
			Judge:       checkClientShutdown,
		},
	}
}

// checkClientSpawned fails a scenario whose client never started the
// server: nothing else could be judged, and a client that does nothing
// must not pass. A client that declined the scenario (exit status 2,
// unknown scenario, or 3, the SDK lacks what it needs, as the contract
// has it) is recorded.
func checkClientSpawned(j *ClientJ) Finding {
	if sc := j.Scenario; len(sc.Spawns) > 0 {
		if len(sc.Spawns) == 1 {
			return passed("the client started the server")
		}
		return passed(fmt.Sprintf("the client started the server %d times", len(sc.Spawns)))
	}
	return neverStarted(j, "started the server", "starting the server")
}

// neverStarted judges a scenario whose client never did what reaches the
// server (over stdio, started it; over HTTP, sent it a request).
func neverStarted(j *ClientJ, did, doing string) Finding {
	c := j.Scenario.Client
	switch {
	case c.StartError != "":
		return harness("the client could not be started: " + c.StartError)
	case c.Stopped != "" && c.Exit == nil:
		return broken(fmt.Sprintf("the client never %s; the harness stopped it (%s)", did, c.Stopped))
	case c.Exit != nil && c.Exit.Signal == "" && (c.Exit.Code == 2 || c.Exit.Code == 3):
		return Finding{Outcome: Recorded, Message: fmt.Sprintf("the client declined the scenario without %s (exit status %d%s)", doing, c.Exit.Code, tailNote(c.StderrTail))}
	case c.Exit != nil:
		return broken(fmt.Sprintf("the client never %s; it ended with %s%s", did, c.Exit, tailNote(c.StderrTail)))
	}
	return broken("the client never " + did)
}

// tailNote quotes the last line of a stderr tail, briefly.
func tailNote(tail []string) string {
	if len(tail) == 0 {
		return ""
	}
	return fmt.Sprintf("; its stderr ends %q", clipString(tail[len(tail)-1], 160))
}

// clientLines judges every line the client wrote with rule, which returns
// a violation or a recorded oddity.
func clientLines(j *ClientJ, okMsg string, rule func(v *spawnView, e transcript.Entry, issues []wire.FrameIssue) (violation, record string)) Finding {
	t := &tally{}
	j.eachLine(func(v *spawnView, e transcript.Entry) {
		t.judged()
		bad, rec := rule(v, e, sendIssues(e))
		switch {
		case bad != "":
			t.violate(v.at(e.Seq), "%s: %s", bad, quoteBytes(e.Data, 80))
		case rec != "":
			t.record(v.at(e.Seq), "%s: %s", rec, quoteBytes(e.Data, 80))
		}
	})
	return t.finding(fmt.Sprintf("%s (%d lines)", okMsg, t.n), "the client wrote nothing on the server's stdin")
}

// sendIssues returns the framing issues of a line the client wrote: those
// the recorder noted (a line cut at the end of input, one over its size
// limit) and those its bytes show, found by the same strict reader that
// classifies the server's lines. A line kept with its \r shows CRLF.
func sendIssues(e transcript.Entry) []wire.FrameIssue {
	issues := slices.Clone(e.Issues)
	if e.Has(wire.IssueOversize) || e.Clipped() {
		return issues
	}
	lr := wire.NewLineReader(bytes.NewReader(append(bytes.Clone(e.Data), '\n')), len(e.Data)+2)
	if l, err := lr.Next(); err == nil {
		for _, i := range l.Issues {
			if !slices.Contains(issues, i) {
				issues = append(issues, i)
			}
		}
	}
	return issues
}

func checkClientFraming(j *ClientJ) Finding {
	stopped := j.Scenario.Client.Stopped != ""
	return clientLines(j, "every line is one whole message", func(_ *spawnView, e transcript.Entry, is []wire.FrameIssue) (string, string) {
		switch {
		case slices.Contains(is, wire.IssuePartialEOF) && stopped:
			return "", "stdin ended in the middle of a line when the harness stopped the client"
		case slices.Contains(is, wire.IssuePartialEOF):
			return "stdin ended in the middle of a line (no final newline)", ""
		case slices.Contains(is, wire.IssueNotJSON) && looksLikeFragment(e.Data):
			return "a message spread over several lines (pretty-printed JSON?)", ""
		case slices.Contains(is, wire.IssueOversize):
			return "", fmt.Sprintf("a line of %d bytes, over the recorder's maximum message size, not read", e.Len)
		case slices.Contains(is, wire.IssueCRLF):
			// The spec names no newline; JSON reads the \r as whitespace.
			return "", "the line ends in CRLF"
		}
		return "", ""
	})
}

func checkClientOnlyMessages(j *ClientJ) Finding {
	return clientLines(j, "every line is a message", func(v *spawnView, e transcript.Entry, is []wire.FrameIssue) (string, string) {
		has := func(i wire.FrameIssue) bool { return slices.Contains(is, i) }
		switch {
		case has(wire.IssueTooDeep):
			return "", fmt.Sprintf("a line nested more than %d levels deep, past what the harness decodes (not judged)", wire.MaxDepth)
		case has(wire.IssueOversize) && !messagePrefix(e.Data):
			return fmt.Sprintf("a line of %d bytes whose start is no JSON-RPC message", e.Len), ""
		case has(wire.IssueBlank):
			return "a blank line, which is no message", ""
		case has(wire.IssueNUL):
			return "a raw NUL byte", ""
		case has(wire.IssueNotJSON) && !looksLikeFragment(e.Data):
			return "a line that is not JSON", ""
		case has(wire.IssueNotMessage):
			return "a JSON value that is not a message object", ""
		}
		for _, m := range sendMsgs(e) {
			if m.Kind() == wire.KindInvalid && !m.Has("jsonrpc") {
				return "a JSON object that is no JSON-RPC message", ""
			}
		}
		return "", ""
	})
}

func checkClientUTF8(j *ClientJ) Finding {
	return clientLines(j, "every line is UTF-8", func(_ *spawnView, _ transcript.Entry, is []wire.FrameIssue) (string, string) {
		switch {
		case slices.Contains(is, wire.IssueBOM):
			return "a UTF-8 byte order mark", ""
		case slices.Contains(is, wire.IssueInvalidUTF8):
			return "bytes that are not valid UTF-8", ""
		}
		return "", ""
	})
}

// checkClientNoResponses fails every response a 2026-07-28 client writes:
// the era has no server requests to answer.
func checkClientNoResponses(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, s := range v.sent {
			t.judged()
			if s.msg.Kind() == wire.KindResponse {
				t.violate(v.at(s.seq), "the client wrote a response (id %s)", clipJSON(s.msg.ID, 40))
			}
		}
	})
	return t.finding(fmt.Sprintf("no responses among %d messages", t.n), "the client wrote no message")
}

// spawnShutdown is how a spawn ended, as its record shows it: where its
// stdin reached end of file, the signals it received, and its exit.
type spawnShutdown struct {
	eof     int // seq, -1 when not recorded
	signals []signalAt
	exit    *transcript.Exit
	exitSeq int
	// harness is set when the harness, not the client, ended the spawn
	// (a harness event after the last shutdown step).
	harness bool
}

type signalAt struct {
	name string
	seq  int
}

// shutdown reads the spawn's end from its record: Received events (stdin
// EOF, signals), the exit the mock recorded, and harness events. An exit
// at stdin EOF implies the EOF; an exit by SIGTERM implies the signal.
func (v *spawnView) shutdown() spawnShutdown {
	s := spawnShutdown{eof: -1, exitSeq: -1}
	for _, e := range v.entries {
		ev := e.Event
		if e.Dir != transcript.Note || ev == nil {
			continue
		}
		switch {
		case ev.Received != nil && ev.Received.EOF && s.eof < 0:
			s.eof = e.Seq
		case ev.Received != nil && ev.Received.Signal != "":
			s.signals = append(s.signals, signalAt{ev.Received.Signal, e.Seq})
		case ev.Exit != nil:
			s.exit, s.exitSeq = ev.Exit, e.Seq
		case ev.Budget != nil || ev.Stray != nil:
			s.harness = true
		}
	}
	if s.exit != nil {
		switch {
		case s.exit.Stage == transcript.Stopped || s.exit.Stage == transcript.Closed:
			s.harness = true
		case s.exit.Stage == transcript.StdinEOF && s.eof < 0:
			s.eof = s.exitSeq
		case s.exit.Signal != "" && !slices.ContainsFunc(s.signals, func(x signalAt) bool { return x.name == s.exit.Signal }):
			s.signals = append(s.signals, signalAt{s.exit.Signal, s.exitSeq})
		}
	}
	return s
}

// checkClientShutdown judges the order of the client's shutdown of each
// spawn: stdin closed before any signal, and the server not killed (nor
// left running) before it had the chance to exit or a SIGTERM. How long
// the client waited between the steps is not judged.
func checkClientShutdown(j *ClientJ) Finding {
	t := &tally{}
	client := j.Scenario.Client
	j.each(func(v *spawnView) {
		s := v.shutdown()
		last := len(v.entries) - 1
		var firstSignal *signalAt
		if len(s.signals) > 0 {
			firstSignal = &s.signals[0]
		}
		switch {
		case s.harness && firstSignal == nil && s.eof < 0:
			t.unexercise("spawn %d was ended by the harness before the client shut it down", v.sp.ID)
		case firstSignal != nil && (s.eof < 0 || firstSignal.seq < s.eof):
			t.judged()
			t.violate(v.at(firstSignal.seq), "spawn %d received %s before its stdin was closed", v.sp.ID, firstSignal.name)
		case s.exit != nil && s.exit.Stage == transcript.BeforeShutdown && s.eof < 0 && firstSignal == nil:
			t.unexercise("spawn %d exited on its own (%s) before the client shut it down", v.sp.ID, s.exit)
		case s.exit != nil && !s.harness:
			t.judged() // it exited: at EOF, or after the signals that followed it
		case s.eof < 0 && client.Stopped != "":
			t.unexercise("the harness stopped the client (%s) before it shut spawn %d down", client.Stopped, v.sp.ID)
		case s.eof < 0 && client.Exit == nil:
			t.unexercise("the record of spawn %d shows nothing of its end", v.sp.ID)
		case s.eof < 0:
			t.judged()
			t.violate(v.at(last), "spawn %d ended with no exit of its own and its stdin never closed: killed outright", v.sp.ID)
		case firstSignal == nil && s.harness:
			t.judged()
			t.violate(v.at(s.eof), "spawn %d was still running after its stdin closed and the client never terminated it: the harness had to", v.sp.ID)
		case firstSignal == nil:
			t.judged()
			t.violate(v.at(s.eof), "after closing its stdin the client neither waited for spawn %d to exit nor sent SIGTERM: it ended with no exit of its own (killed outright, or left running)", v.sp.ID)
		default:
			t.judged() // EOF, SIGTERM, then killed: the whole escalation
		}
	})
	names := []string{}
	for _, sp := range j.Spawns {
		names = append(names, fmt.Sprint(sp.ID))
	}
	return t.finding(fmt.Sprintf("stdin closed first (spawn %s)", strings.Join(names, ", ")), "no spawn to judge")
}

// sendMsgs returns the messages of a line the client wrote, read as the
// server reads its input: a byte order mark and surrounding whitespace
// removed (the framing checks judge those).
func sendMsgs(e transcript.Entry) []*wire.Message {
	if len(e.Msgs) > 0 || e.Clipped() {
		return e.Msgs
	}
	if v := wire.LineValue(e.Data); v != nil {
		return wire.DecodeValidLine(v)
	}
	return nil
}
