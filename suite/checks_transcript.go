package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
)

// Transcript checks judge every line of every process the run started
// ("ambient" checks): framing, encoding and the JSON-RPC envelope.
func transcriptChecks() []*Check {
	return []*Check{
		{
			ID: "stdio-one-message-per-line", Requirement: "STDIO-02", Level: "MUST NOT", Area: "stdio",
			Spec:        "basic/transports#stdio",
			Description: "every stdout line is one complete JSON-RPC message: no message spread over several lines, no line cut off at exit",
			Run:         func(r *Run) Finding { return scanLines(r, framingRule) },
		},
		{
			ID: "stdio-only-mcp-messages", Requirement: "STDIO-03", Level: "MUST NOT", Area: "stdio",
			Spec:        "basic/transports#stdio",
			Description: "nothing but MCP messages on stdout: no banners, logs, blank lines or NUL bytes",
			Run:         func(r *Run) Finding { return scanLines(r, onlyMessagesRule) },
		},
		{
			ID: "stdio-utf8", Requirement: "STDIO-04", Level: "MUST", Area: "stdio",
			Spec:        "basic/transports",
			Description: "stdout is UTF-8, with no byte order mark",
			Run:         func(r *Run) Finding { return scanLines(r, utf8Rule) },
		},
		{
			ID: "jsonrpc-version", Requirement: "JSONRPC-01", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#messages",
			Description: "every message is a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" and the shape of a request, notification or response",
			Run:         func(r *Run) Finding { return scanMessages(r, false, envelopeRule) },
		},
		{
			ID: "jsonrpc-response-id-echo", Requirement: "JSONRPC-05", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#responses",
			Description: "a response carries exactly the id of its request, with the same JSON type",
			Run:         checkIDEcho,
		},
		{
			ID: "jsonrpc-result-xor-error", Requirement: "JSONRPC-06", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#responses",
			Description: "a response has exactly one of result and error",
			Run:         func(r *Run) Finding { return scanMessages(r, false, xorRule) },
		},
		{
			ID: "jsonrpc-result-object", Requirement: "JSONRPC-07", Level: "schema", Area: "jsonrpc",
			Spec:        "basic#responses",
			Description: "a result is a JSON object",
			Run:         func(r *Run) Finding { return scanMessages(r, false, resultObjectRule) },
		},
		{
			ID: "jsonrpc-error-object", Requirement: "JSONRPC-08", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#responses",
			Description: "an error has an integer code and a string message",
			Run:         func(r *Run) Finding { return scanMessages(r, false, errorShapeRule) },
		},
		{
			ID: "jsonrpc-notification-no-id", Requirement: "JSONRPC-09", Level: "MUST NOT", Area: "jsonrpc",
			Spec:        "basic#notifications",
			Description: "server notifications carry no id member",
			Run:         func(r *Run) Finding { return scanMessages(r, false, notificationIDRule) },
		},
		{
			ID: "jsonrpc-server-request-ids", Requirement: "JSONRPC-02", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#requests",
			Description: "requests the server sends have string or integer ids",
			Run:         func(r *Run) Finding { return scanMessages(r, false, serverRequestIDRule) },
		},
		{
			ID: "jsonrpc-params-object", Requirement: "JSONRPC-17", Level: "schema", Area: "jsonrpc",
			Spec:        "basic#requests",
			Description: "params in messages the server sends are objects",
			Run:         func(r *Run) Finding { return scanMessages(r, false, paramsRule) },
		},
		{
			ID: "jsonrpc-no-unsolicited-responses", Requirement: "JSONRPC-10", Level: "MUST NOT", Area: "jsonrpc",
			Spec:        "basic#notifications",
			Description: "in well-formed sessions, every response answers a request the client sent: nothing answers a notification",
			Run:         func(r *Run) Finding { return scanMessages(r, true, unsolicitedRule) },
		},
		{
			ID: "jsonrpc-no-batches-sent", Requirement: "JSONRPC-12", Level: "MUST NOT", Area: "jsonrpc",
			Spec:        "basic/transports#stdio",
			Description: "from 2025-06-18 on the server never writes a JSON array (batches were removed)",
			Run:         checkNoBatches,
		},
	}
}

// lineRule judges one stdout line: "" when fine, else the problem, and
// whether it is only a warning.
type lineRule func(e mockclient.Entry) (problem string, warn bool)

func framingRule(e mockclient.Entry) (string, bool) {
	l := e.Line
	switch {
	case l.Has(mockclient.IssuePartialEOF):
		return "stdout ended in the middle of a line (no final newline)", false
	case l.Has(mockclient.IssueNotJSON) && looksLikeFragment(e.Data):
		return "a message spread over several lines (pretty-printed JSON?)", false
	case l.Has(mockclient.IssueOversize):
		return fmt.Sprintf("a line of %d bytes, over the maximum message size", l.Len), false
	case l.Has(mockclient.IssueCRLF):
		return "the line ends in CRLF; accepted, but LF is the separator (edge case E-02)", true
	case l.Has(mockclient.IssueRawNewline):
		return "a raw U+2028 or U+2029 inside the line; JSON allows it, but line-oriented readers may split there", true
	}
	return "", false
}

// looksLikeFragment guesses that a non-JSON line is a piece of a message
// spread over lines: it starts or ends like JSON structure.
func looksLikeFragment(b []byte) bool {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return false
	}
	first, last := s[0], s[len(s)-1]
	return strings.ContainsRune("{}[]\"", rune(first)) || strings.ContainsRune("{[,:", rune(last))
}

func onlyMessagesRule(e mockclient.Entry) (string, bool) {
	l := e.Line
	switch {
	case l.Has(mockclient.IssueBlank):
		return "a blank line", true
	case l.Has(mockclient.IssueNUL):
		return "a raw NUL byte", false
	case l.Has(mockclient.IssueNotJSON) && !looksLikeFragment(e.Data):
		return "a line that is not JSON", false
	case l.Has(mockclient.IssueNotMessage):
		return "a JSON value that is not a message object", false
	}
	return "", false
}

func utf8Rule(e mockclient.Entry) (string, bool) {
	l := e.Line
	switch {
	case l.Has(mockclient.IssueBOM):
		return "a UTF-8 byte order mark", false
	case l.Has(mockclient.IssueInvalidUTF8):
		return "bytes that are not valid UTF-8", false
	}
	return "", false
}

type violation struct {
	client *mockclient.Client
	seq    int
	text   string
	warn   bool
}

func findingOf(vs []violation, okMsg string, total int) Finding {
	if len(vs) == 0 {
		return pass(fmt.Sprintf("%s (%d lines checked)", okMsg, total))
	}
	p := &problems{}
	seen := map[string]int{}
	var samples []any
	for _, v := range vs {
		seen[v.text]++
		if seen[v.text] == 1 {
			if v.warn {
				p.warn("%s", v.text)
			} else {
				p.fail("%s", v.text)
			}
			if len(samples) < 5 {
				samples = append(samples, map[string]any{"line": v.seq, "problem": v.text})
			}
		}
	}
	for i, s := range p.fails {
		if n := seen[s]; n > 1 {
			p.fails[i] = fmt.Sprintf("%s (%d times)", s, n)
		}
	}
	for i, s := range p.warns {
		if n := seen[s]; n > 1 {
			p.warns[i] = fmt.Sprintf("%s (%d times)", s, n)
		}
	}
	p.actual = samples
	f := p.finding(okMsg)
	first := vs[0]
	for _, v := range vs {
		if !v.warn {
			first = v
			break
		}
	}
	f.Client, f.From, f.To = first.client, first.seq-3, first.seq+3
	return f
}

func scanLines(r *Run, rule lineRule) Finding {
	var vs []violation
	total := 0
	for _, c := range r.Clients() {
		for _, e := range c.Transcript().Entries() {
			if e.Dir != mockclient.Recv || e.Line == nil {
				continue
			}
			total++
			if msg, warn := rule(e); msg != "" {
				vs = append(vs, violation{c, e.Seq, msg + ": " + quoteBytes(e.Data, 80), warn})
			}
		}
	}
	return findingOf(vs, "every line complies", total)
}

// quoteBytes shows bytes safely: Go-quoted, clipped.
func quoteBytes(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// msgRule judges one message the server sent, given the client's context.
type msgRule func(c *mockclient.Client, ctx *msgContext, m *mockclient.Message, batch bool) (string, bool)

type msgContext struct {
	sentIDs map[string]bool
	// sentBatch is set once the client has sent a batch line.
	sentBatch bool
}

func scanMessages(r *Run, cleanOnly bool, rule msgRule) Finding {
	clean := map[*mockclient.Client]bool{}
	for _, s := range r.Sessions {
		clean[s.Client] = true
	}
	for _, n := range r.Negotiation {
		clean[n.Session.Client] = true
	}
	var vs []violation
	total := 0
	for _, c := range r.Clients() {
		if cleanOnly && !clean[c] {
			continue
		}
		ctx := &msgContext{sentIDs: map[string]bool{}}
		for _, e := range c.Transcript().Entries() {
			if e.Dir == mockclient.Send {
				ctx.sentBatch = ctx.sentBatch || e.Batch
				ctx.sentBatch = ctx.sentBatch || e.Batch
				for _, m := range e.Msgs {
					if m.Kind() == mockclient.KindRequest {
						ctx.sentIDs[string(m.ID)] = true
					}
				}
				continue
			}
			if e.Dir != mockclient.Recv {
				continue
			}
			for _, m := range e.Msgs {
				total++
				if msg, warn := rule(c, ctx, m, e.Batch); msg != "" {
					vs = append(vs, violation{c, e.Seq, msg + ": " + clipString(string(m.Raw), 160), warn})
				}
			}
		}
	}
	return findingOf(vs, "every message complies", total)
}

func envelopeRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	v, ok := m.Members["jsonrpc"]
	switch {
	case !ok:
		return "no \"jsonrpc\" member", false
	case string(v) != `"2.0"`:
		return "\"jsonrpc\" is " + clipJSON(v, 20) + ", want \"2.0\"", false
	case m.Kind() == mockclient.KindInvalid:
		return "neither a request, a notification nor a response", false
	case m.Has("method") && jtype(m.Members["method"]) != "string":
		return "method is not a string", false
	}
	return "", false
}

func xorRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Kind() != mockclient.KindResponse {
		return "", false
	}
	if m.Has("result") && m.Has("error") {
		return "a response with both result and error", false
	}
	return "", false
}

func resultObjectRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Kind() == mockclient.KindResponse && m.Has("result") && jtype(m.Result) != "object" {
		return "result is " + describeType(m.Result) + ", want an object", false
	}
	return "", false
}

func errorShapeRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Kind() != mockclient.KindResponse || !m.Has("error") {
		return "", false
	}
	e := obj(m.Error)
	switch {
	case e == nil:
		return "error is " + describeType(m.Error) + ", want an object", false
	case jtype(e["code"]) != "integer":
		return "error.code is " + describeType(e["code"]) + ", want an integer", false
	case jtype(e["message"]) != "string":
		return "error.message is " + describeType(e["message"]) + ", want a string", false
	}
	return "", false
}

func notificationIDRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Has("method") && m.Has("id") && string(m.ID) == "null" {
		return "a notification with \"id\": null", false
	}
	return "", false
}

func serverRequestIDRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Kind() != mockclient.KindRequest || string(m.ID) == "null" {
		return "", false
	}
	if t := jtype(m.ID); t != "string" && t != "integer" {
		return "a server request with " + article(t) + " id", false
	}
	return "", false
}

func paramsRule(_ *mockclient.Client, _ *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Has("method") && m.Has("params") && jtype(m.Params) != "object" {
		return "params is " + describeType(m.Params) + ", want an object", false
	}
	return "", false
}

func unsolicitedRule(_ *mockclient.Client, ctx *msgContext, m *mockclient.Message, _ bool) (string, bool) {
	if m.Kind() != mockclient.KindResponse {
		return "", false
	}
	if m.ID == nil || string(m.ID) == "null" {
		if ctx.sentBatch {
			return "", false // an answer to the batch probe, judged by batch-accepted
		}
		return "a response with no usable id, though every message sent was well formed", false
	}
	if beyondSafeInteger(m.ID) {
		return "", false // recorded by id-echo-beyond-safe-integer (edge case E-08)
	}
	if !ctx.sentIDs[string(m.ID)] && !looseSent(ctx, m.ID) {
		return "a response to an id the client never used as a request id (a reply to a notification?)", false
	}
	return "", false
}

// looseSent reports whether the id was sent with another JSON type; that is
// judged by the id-echo check, not here.
func looseSent(ctx *msgContext, id json.RawMessage) bool {
	for k := range ctx.sentIDs {
		if strings.Trim(k, `"`) == strings.Trim(string(id), `"`) {
			return true
		}
	}
	return false
}

func checkIDEcho(r *Run) Finding {
	var vs []violation
	total := 0
	clean := cleanClients(r)
	for _, c := range r.Clients() {
		answered := map[string]bool{}
		byID := map[string]mockclient.Entry{}
		for _, e := range c.Transcript().Entries() {
			if e.Dir == mockclient.Send {
				for _, m := range e.Msgs {
					if m.Kind() == mockclient.KindRequest {
						byID[strings.Trim(string(m.ID), `"`)] = e
						byID["exact:"+string(m.ID)] = e
					}
				}
			}
			if e.Dir != mockclient.Recv {
				continue
			}
			for _, m := range e.Msgs {
				if m.Kind() != mockclient.KindResponse || m.ID == nil || string(m.ID) == "null" {
					continue
				}
				total++
				if _, exact := byID["exact:"+string(m.ID)]; exact {
					if answered[string(m.ID)] {
						vs = append(vs, violation{c, e.Seq, "a second response for id " + clipJSON(m.ID, 40), false})
					}
					answered[string(m.ID)] = true
					continue
				}
				sent, ok := byID[strings.Trim(string(m.ID), `"`)]
				if !ok && clean[c] && !beyondSafeInteger(m.ID) {
					vs = append(vs, violation{c, e.Seq, "a response with id " + clipJSON(m.ID, 40) + ", which no request carried", false})
				}
				if ok {
					var orig string
					if len(sent.Msgs) > 0 {
						orig = string(sent.Msgs[0].ID)
					}
					vs = append(vs, violation{c, e.Seq, fmt.Sprintf("the request had id %s, the response says %s", orig, clipJSON(m.ID, 40)), false})
				}
			}
		}
	}
	return findingOf(vs, "every response id matches its request exactly", total)
}

func checkNoBatches(r *Run) Finding {
	var vs []violation
	total := 0
	for _, c := range r.Clients() {
		v := r.ClientVersion(c)
		if !atLeast(v, "2025-06-18") {
			continue // 2025-03-26 has batches; 2024-11-05 does not mention them
		}
		for _, e := range c.Transcript().Entries() {
			if e.Dir == mockclient.Recv {
				total++
				if e.Batch {
					vs = append(vs, violation{c, e.Seq, "a JSON array on stdout in a " + v + " session", false})
				}
			}
		}
	}
	return findingOf(vs, "no batch arrays", total)
}

// beyondSafeInteger reports whether id is an integer outside ±(2^53-1),
// where JavaScript servers lose precision: such echoes are recorded by the
// id-echo-beyond-safe-integer probe, not judged here (edge case E-08).
func beyondSafeInteger(id json.RawMessage) bool {
	t := strings.TrimPrefix(strings.TrimSpace(string(id)), "-")
	return jtype(id) == "integer" && (len(t) > 16 || (len(t) == 16 && t > "9007199254740991"))
}
