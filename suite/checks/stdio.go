package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// stdioChecks judge the stdio transport: framing and encoding of every
// line, what the server writes at all, and how it ends (STDIO-*).
func stdioChecks() []*Check {
	return []*Check{
		{
			ID: "stdio-one-message-per-line", Requirement: "STDIO-02", Area: "stdio",
			Description: "every stdout line is one complete JSON-RPC message: no message spread over several lines, no line cut off at exit or over the size limit",
			Judge:       overStdio(checkFraming),
		},
		{
			ID: "stdio-only-mcp-messages", Requirement: "STDIO-03", Area: "stdio",
			Description: "nothing but MCP messages on stdout: no banners, logs, blank lines or NUL bytes",
			Judge:       overStdio(checkOnlyMessages),
		},
		{
			ID: "stdio-utf8", Requirement: "STDIO-04", Area: "stdio",
			Description: "stdout is UTF-8, with no byte order mark",
			Judge:       overStdio(checkUTF8),
		},
		{
			ID: "server-speaks-stdio", Requirement: "STDIO-01", Area: "stdio",
			Description: "the server, started as a child process, reads JSON-RPC on stdin and answers on stdout",
			Judge:       overStdio(checkSpeaksStdio),
		},
		{
			ID: "stderr-utf8", Requirement: "STDIO-05", Area: "stdio",
			Description: "what the server logs to stderr is UTF-8 (stderr content itself is never an error)",
			Judge:       overStdio(checkStderrUTF8),
		},
		{
			ID: "exits-on-stdin-eof", Requirement: "STDIO-08", Area: "stdio",
			Description: "the server exits when its stdin closes (2026-07-28: promptly); before, how it ends is recorded",
			Judge:       overStdio(checkShutdown),
		},
		{
			ID: "no-stray-processes", Requirement: "STDIO-08", Area: "stdio",
			Description: "once shut down, a server leaves no process behind (recorded: no sentence forbids it)",
			Judge:       overStdio(checkNoStrays),
		},
		{
			ID: "listen-cancel-stops", Requirement: "STDIO-11", Area: "stdio",
			Description: "after notifications/cancelled for a listen request, nothing more comes for that stream",
			Needs:       []plan.Probe{plan.ProbeListen},
			Judge:       overStdio(checkListenCancel),
		},
		{
			ID: "stdio-no-server-requests", Requirement: "STDIO-10", Area: "stdio",
			Description: "over stdio a 2026-07-28 server writes responses and notifications only, never requests",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
			Judge:       overStdio(func(j *J) Finding { return scanModernRequests(j) }),
		},
	}
}

// overStdio wraps the judge of a rule of the stdio transport: it judges
// the processes spoken to over stdio, and is a skip when the server was
// reached over HTTP.
func overStdio(judge func(j *J) Finding) func(j *J) Finding {
	return func(j *J) Finding {
		stdio := slices.DeleteFunc(slices.Clone(j.Processes), (*evidence.Process).SpeaksHTTP)
		switch {
		case len(stdio) == len(j.Processes):
			return judge(j)
		case len(stdio) == 0:
			return skipped("the server was reached over HTTP: the rules of the stdio transport do not apply")
		}
		k := *j
		k.Processes = stdio
		return judge(&k)
	}
}

// lineFinding judges every stdout line with rule, which returns a
// violation, or a recorded oddity.
func lineFinding(j *J, okMsg string, rule func(e transcript.Entry) (violation, record string)) Finding {
	return processLineFinding(j, okMsg, func(_ *evidence.Process, e transcript.Entry) (string, string) { return rule(e) })
}

// processLineFinding is lineFinding for rules that need the line's process.
func processLineFinding(j *J, okMsg string, rule func(p *evidence.Process, e transcript.Entry) (violation, record string)) Finding {
	t := &tally{}
	eachLine(j, func(p *evidence.Process, e transcript.Entry) {
		t.judged()
		v, r := rule(p, e)
		switch {
		case v != "":
			t.violate(At(p, e.Seq), "%s: %s", v, quoteBytes(e.Data, 80))
		case r != "":
			t.record(At(p, e.Seq), "%s: %s", r, quoteBytes(e.Data, 80))
		}
	})
	f := t.finding(fmt.Sprintf("%s (%d lines)", okMsg, t.n), "the server wrote nothing on stdout")
	return f
}

func checkFraming(j *J) Finding {
	return processLineFinding(j, "every line is one whole message", func(p *evidence.Process, e transcript.Entry) (string, string) {
		switch {
		case e.Has(wire.IssuePartialEOF) && killedByHarness(p):
			// The harness's signal cut the line, not the server.
			return "", "stdout ended in the middle of a line when the harness killed the process"
		case e.Has(wire.IssuePartialEOF):
			return "stdout ended in the middle of a line (no final newline)", ""
		case e.Has(wire.IssueNotJSON) && looksLikeFragment(e.Data):
			return "a message spread over several lines (pretty-printed JSON?)", ""
		case e.Has(wire.IssueOversize):
			// The spec sets no size: the limit is the harness's budget,
			// and the line past it was not read, so nothing is judged.
			return "", fmt.Sprintf("a line of %d bytes, over the harness's maximum message size (--max-message-size), not read", e.Len)
		case e.Has(wire.IssueCRLF):
			// The spec names no newline; JSON reads the \r as whitespace.
			return "", "the line ends in CRLF"
		}
		return "", ""
	})
}

// killedByHarness reports whether the process was ended by a signal of the
// harness (shutdown's SIGTERM or SIGKILL, or a stop past a budget).
func killedByHarness(p *evidence.Process) bool {
	e := p.Exit()
	return e != nil && (e.Stage == transcript.SIGTERM || e.Stage == transcript.SIGKILL || e.Stage == transcript.Stopped) && e.Signal != ""
}

// looksLikeFragment guesses that a non-JSON line is a piece of a message
// spread over lines (pretty-printed JSON): it holds nothing but JSON tokens,
// a string left open at its end included. A log line that merely starts
// with a bracket ("[INFO] ready") or ends in a colon holds words that are
// no JSON token, so it is judged as what it is, a line that is not JSON.
func looksLikeFragment(b []byte) bool {
	// Read in place: the line may be tens of megabytes.
	s := bytes.TrimSpace(b)
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.IndexByte("{}[],: \t\r", c) >= 0:
			i++
		case c == '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++ // the closing quote; a string still open at the end of the line continues on the next
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && strings.IndexByte("0123456789.eE+-", s[j]) >= 0 {
				j++
			}
			if !json.Valid(s[i:j]) {
				return false
			}
			i = j
		default:
			j := i
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
			if w := string(s[i:j]); w != "true" && w != "false" && w != "null" {
				return false
			}
			i = j
		}
	}
	return true
}

func checkOnlyMessages(j *J) Finding {
	return lineFinding(j, "every line is a message", func(e transcript.Entry) (string, string) {
		switch {
		case e.Has(wire.IssueTooDeep):
			// The spec sets no depth; the harness's is a budget.
			return "", fmt.Sprintf("a line nested more than %d levels deep, past what the harness decodes (not judged)", wire.MaxDepth)
		case e.Has(wire.IssueOversize) && !messagePrefix(e.Data):
			// Past the harness's size the line was not read, but what was
			// read already cannot begin a JSON-RPC message.
			return fmt.Sprintf("a line of %d bytes whose start is no JSON-RPC message", e.Len), ""
		case e.Has(wire.IssueBlank):
			return "a blank line, which is no message", ""
		case e.Has(wire.IssueNUL):
			return "a raw NUL byte", ""
		case e.Has(wire.IssueNotJSON) && !looksLikeFragment(e.Data):
			return "a line that is not JSON", ""
		case e.Has(wire.IssueNotMessage):
			return "a JSON value that is not a message object", ""
		}
		for _, m := range e.Msgs {
			if m.Kind() == wire.KindInvalid && !m.Has("jsonrpc") {
				// A structured logger writing JSON to stdout: valid JSON,
				// but no JSON-RPC message (STDIO-03).
				return "a JSON object that is no JSON-RPC message (a structured log line?)", ""
			}
		}
		return "", ""
	})
}

// messagePrefix reports whether b can be the start of a JSON object or
// array: a line cut at the harness's size limit is judged by what it
// kept.
func messagePrefix(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r")
	if len(t) == 0 {
		return true
	}
	if t[0] != '{' && t[0] != '[' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	for {
		if _, err := dec.Token(); err != nil {
			return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
}

func checkUTF8(j *J) Finding {
	return lineFinding(j, "every line is UTF-8", func(e transcript.Entry) (string, string) {
		switch {
		case e.Has(wire.IssueBOM):
			return "a UTF-8 byte order mark", ""
		case e.Has(wire.IssueInvalidUTF8):
			return "bytes that are not valid UTF-8", ""
		}
		return "", ""
	})
}

// checkSpeaksStdio fails when no process ever answered a request on
// stdout: the server talks some other way (stderr, a socket) or not at all.
// An answer that came after its deadline is still an answer on stdout (the
// deadline is judged by every-request-answered); a process the run stopped
// before it could answer judges nothing.
func checkSpeaksStdio(j *J) Finding {
	started, judged, answered, ended, garbage := 0, 0, 0, 0, 0
	for _, p := range j.Processes {
		if p.StartError != "" {
			continue
		}
		started++
		ok, asked := false, false
		for _, x := range p.Exchanges() {
			ok = ok || x.OK()
			asked = asked || x.Request != nil && !x.Stopped()
		}
		late := unansweredIDs(p)
		for _, r := range p.Replies() {
			ok = ok || late[wire.IDKey(r.Msg.ID)]
		}
		if ok || asked {
			judged++
		}
		if ok {
			answered++
		} else if e := p.Exit(); asked && e != nil && e.Stage == transcript.BeforeShutdown || asked && answersOnStderr(p) {
			ended++
		} else if asked && wroteGarbage(p) {
			garbage++
		}
	}
	switch {
	case started == 0:
		return skipped("no server process started")
	case judged == 0:
		return skipped("the run was stopped before any process could answer")
	case answered == 0 && ended > 0:
		return broken(noneOf(judged, "answered a request on stdout", "did not answer a request on stdout") + fmt.Sprintf("; %s without answering, or answered on stderr", ofThem(judged, ended, "ended")))
	case answered == 0 && garbage > 0:
		return skipped(noneOf(judged, "answered a request on stdout", "did not answer a request on stdout") + fmt.Sprintf("; %s lines there that are no message (the framing checks judge them)", ofThem(judged, garbage, "wrote")))
	case answered == 0:
		// Silence within the harness's deadlines: a server slower than
		// them is not shown to speak another way.
		return harness("not judged: " + noneOf(judged, "answered a request on stdout within the harness's deadlines", "did not answer a request on stdout within the harness's deadlines"))
	}
	if judged == 1 {
		return passed("the server process answered on stdout")
	}
	return passed(fmt.Sprintf("%d of the %d server processes answered on stdout", answered, judged))
}

// wroteGarbage reports whether a process wrote a stdout line that is no
// message.
func wroteGarbage(p *evidence.Process) bool {
	for _, e := range p.Entries() {
		if e.Dir == transcript.Recv && len(e.Msgs) == 0 && len(e.Issues) > 0 && !e.Has(wire.IssueBlank) {
			return true
		}
	}
	return false
}

// answersOnStderr reports whether a process wrote a response to one of
// its requests on stderr: it answers, but not where stdio says.
func answersOnStderr(p *evidence.Process) bool {
	sent := map[string]bool{}
	for _, x := range p.Exchanges() {
		sent[wire.IDKey(x.ID)] = true
	}
	for _, e := range p.Entries() {
		if e.Dir != transcript.Stderr {
			continue
		}
		msgs, _ := wire.DecodeLine(e.Data)
		for _, m := range msgs {
			if m.Kind() == wire.KindResponse && sent[wire.IDKey(m.ID)] {
				return true
			}
		}
	}
	return false
}

func checkStderrUTF8(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		for _, e := range p.Entries() {
			if e.Dir != transcript.Stderr {
				continue
			}
			t.judged()
			if !utf8.Valid(e.Data) {
				t.record(At(p, e.Seq), "a stderr line that is not UTF-8: %s", quoteBytes(e.Data, 60))
			}
		}
	}
	return t.finding("stderr is UTF-8", "the server wrote nothing to stderr")
}

// checkShutdown judges how the shared session's process ended once stdin
// closed. Only 2026-07-28 says the server should exit on stdin EOF; before,
// the shutdown order binds the client, and what the server did is recorded.
func checkShutdown(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened")
	}
	// The session's last process the harness shut down: one a test
	// killed on purpose says nothing of how the server ends on stdin EOF.
	// A process with a request the harness gave up on (a tool still
	// running, say) may be slow to end for the harness's own doing: one
	// without is preferred.
	procs := j.Session.All()
	p := procs[len(procs)-1]
	busy := ""
	for _, quiet := range []bool{true, false} {
		found := false
		candidates := procs
		if quiet {
			// A probe process the tests left alive shows the same.
			candidates = append(slices.Clone(j.Session.ProbeProcesses()), procs...)
		}
		procs := candidates
		for i := len(procs) - 1; i >= 0; i-- {
			e := procs[i].Exit()
			if e == nil || e.Stage == transcript.BeforeShutdown || e.Stage == transcript.Stopped {
				continue
			}
			abandoned := abandonedRequest(procs[i])
			if quiet && abandoned != "" {
				continue
			}
			p, busy, found = procs[i], abandoned, true
			break
		}
		if found {
			break
		}
	}
	e := p.Exit()
	modern := j.Version == wire.Modern
	switch {
	case e == nil:
		return skipped("the process was not shut down (the run was stopped)")
	case e.Stage == transcript.Stopped:
		return skipped("the harness stopped the process mid-run (a budget), so its shutdown was not seen")
	case busy != "" && e.Stage != transcript.StdinEOF:
		return Finding{Outcome: Recorded, Message: "not judged: " + busy + " was left unanswered when stdin closed, so the server may still have been at work (" + e.String() + ")", Where: exitWhere(p)}
	case e.Hurried && e.Stage != transcript.StdinEOF:
		return skipped("the run was interrupted, and the shutdown's waits were cut short")
	case e.Stage == transcript.BeforeShutdown:
		return Finding{Outcome: Recorded, Message: "the server exited on its own before shutdown began (" + e.String() + ")", Where: exitWhere(p)}
	case e.Stage == transcript.StdinEOF:
		return passed(fmt.Sprintf("exited %s after stdin closed (%s)", e.AfterShutdown.Round(1e6), e))
	}
	what := fmt.Sprintf("ignored stdin EOF; exited on SIGTERM after %s", e.AfterShutdown.Round(1e6))
	if e.Grace > 0 {
		what = fmt.Sprintf("did not exit within the %s given after stdin closed (--grace); exited on SIGTERM after %s", e.Grace, e.AfterShutdown.Round(1e6))
	}
	if e.Stage == transcript.SIGKILL {
		what = fmt.Sprintf("ignored both stdin EOF and SIGTERM; killed with SIGKILL after %s", e.AfterShutdown.Round(1e6))
	}
	if !modern {
		return Finding{Outcome: Recorded, Message: what, Where: exitWhere(p)}
	}
	return Finding{Outcome: Violation, Message: what, Where: exitWhere(p)}
}

// abandonedRequest names a request of the process that the harness gave up
// on (its deadline passed, no answer came), or "".
func abandonedRequest(p *evidence.Process) string {
	for _, x := range p.Exchanges() {
		if _, ok := timedOut(x); ok {
			return fmt.Sprintf("%s (id %s)", x.Method, clipJSON(x.ID, 40))
		}
	}
	return ""
}

func exitWhere(p *evidence.Process) *Where {
	n := p.Transcript.Len()
	return &Where{Process: p, From: n - 6, To: n}
}

// checkNoStrays lists what every process left behind; no sentence forbids
// it, so it is recorded, but never hidden.
func checkNoStrays(j *J) Finding {
	if runtime.GOOS != "linux" {
		return skipped("strays are found through /proc, which " + runtime.GOOS + " lacks")
	}
	t := &tally{}
	var actual []any
	for _, p := range j.Processes {
		if p.Exit() == nil {
			continue
		}
		t.judged()
		for _, s := range p.Strays() {
			t.record(exitWhere(p), "server process %d: %s", p.Pid, s)
			actual = append(actual, map[string]any{"serverPid": p.Pid, "pid": s.Pid, "command": s.Command, "holds": s.Holds, "killed": s.Killed})
		}
	}
	if actual != nil {
		t.actual = actual
	}
	seen := "in its process group or holding its pipes"
	if j.Run.StrayCoverage != "" {
		seen = "(looked at: " + j.Run.StrayCoverage + ")"
	}
	f := t.finding(noneOf(t.n, "left a process behind", "left no process behind")+" "+seen, "no process was shut down")
	if f.Outcome == Recorded && j.Run.StrayCoverage != "" {
		f.Message += " (looked at: " + j.Run.StrayCoverage + ")"
	}
	return f
}

// scanModernRequests fails on any request a server wrote while speaking
// the 2026-07-28 era (JSONRPC-14, STDIO-10).
func scanModernRequests(j *J) Finding {
	t := &tally{}
	eachModernMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		t.judged()
		if m.Kind() == wire.KindRequest {
			t.violate(At(p, e.Seq), "a request from the server (%s)", clipString(m.Method, 40))
		}
	})
	return t.finding(fmt.Sprintf("%d messages, none a request", t.n), "no message of the 2026-07-28 era to judge")
}

// checkListenCancel judges the listen probe's cancelled stream: after the
// client's notifications/cancelled, nothing more may come for it. A
// message written before the server read the cancellation was in flight,
// which the cancellation page allows; the server has certainly read it
// once it answered a request sent after it (stdin is read in order), so
// only what arrives after that answer is judged.
func checkListenCancel(j *J) Finding {
	streams, why := listenStreams(j)
	if streams == nil {
		return skipped(why)
	}
	st := streams[0]
	p := st.x.Process
	cancelAt := -1
	for _, e := range p.Entries() {
		if e.Dir != transcript.Send || e.Tag != plan.ProbeListen.Tag("cancel") {
			continue
		}
		for _, m := range e.Msgs {
			if wire.IDKey(wire.Object(m.Params)["requestId"]) == wire.IDKey(st.x.ID) {
				cancelAt = e.Seq
			}
		}
	}
	if cancelAt < 0 {
		return skipped("the stream was not cancelled")
	}
	fence := -1
	for _, x := range p.Exchanges() {
		if x.SentSeq > cancelAt && x.OK() && !x.Late && (fence < 0 || x.RecvSeq < fence) {
			fence = x.RecvSeq
		}
	}
	t := &tally{}
	t.judged()
	inFlight := 0
	judge := func(seq int, format string, args ...any) {
		switch {
		case seq <= cancelAt:
		case fence >= 0 && seq > fence:
			t.violate(At(p, seq), format, args...)
		default:
			inFlight++
		}
	}
	for _, n := range st.notes {
		judge(n.Seq, "%s for the cancelled stream %s arrived after the server had answered a request sent after the cancellation", clipString(n.Msg.Method, 50), clipJSON(st.x.ID, 40))
	}
	if st.x.OK() {
		if r := st.x.RecvSeq; r > cancelAt && (fence < 0 || r < fence) {
			// An end of the stream that crossed the cancellation, or one
			// sent because of it (which STDIO-11 forbids): the transcript
			// cannot tell them apart, so it is recorded, not failed.
			t.record(At(p, r), "a response to the cancelled listen request %s arrived after the cancellation, before the server had answered a request sent after it: it crossed the cancellation in flight, or answered it, which STDIO-11 forbids; the transcript cannot tell which", clipJSON(st.x.ID, 40))
		} else {
			judge(r, "a response to the cancelled listen request %s arrived after the server had answered a request sent after the cancellation", clipJSON(st.x.ID, 40))
		}
	}
	if inFlight > 0 && fence < 0 {
		t.undecide(At(p, cancelAt), "%d message(s) for the cancelled stream %s arrived after the cancellation, and no request sent after it was answered, so they may have been in flight", inFlight, clipJSON(st.x.ID, 40))
	}
	ok := "nothing more for the stream once the server had read notifications/cancelled"
	if inFlight > 0 && fence >= 0 {
		ok += fmt.Sprintf(" (%d message(s) arrived before it answered a request sent after the cancellation: in flight, as the cancellation page allows)", inFlight)
	}
	return t.finding(ok, "")
}

// noneOf says that none of n server processes did something, in the same
// words however many there were: "none of the 3 server processes
// answered", "the server process did not answer" (one).
func noneOf(n int, did, didNot string) string {
	if n == 1 {
		return "the server process " + didNot
	}
	return fmt.Sprintf("none of the %d server processes %s", n, did)
}

// ofThem says how many of n server processes did something: "it ended"
// (one), "2 ended".
func ofThem(n, k int, did string) string {
	if n == 1 && k == 1 {
		return "it " + did
	}
	return fmt.Sprintf("%d %s", k, did)
}
