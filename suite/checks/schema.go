package checks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/schema"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// schemaChecks judge every message of a run against the published JSON
// schema of the version it was written in (SCHEMA-01).
func schemaChecks() []*Check {
	return []*Check{
		{
			ID: schemaCheckID, Requirement: "SCHEMA-01", Area: "schema",
			Description: "every message keeps its definition in the version's published JSON schema: a request or notification its method's, a result the result type of the request it answers, an error the error object and the version's typed error for its code; a message mcpconform wrote that breaks it is a harness error",
			Needs:       serverMessages,
			Judge:       judgeSchema,
		},
	}
}

const schemaCheckID = "schema-valid"

// maxBreachesShown bounds the breaches a result lists in its actual value.
const maxBreachesShown = 50

// schemaBreach is a breach as a result reports it: where the message is,
// and what it breaks.
type schemaBreach struct {
	Process int    `json:"process"`
	Seq     int    `json:"seq"`
	Version string `json:"version"`
	Message string `json:"message"`
	schema.Breach
}

// judgeSchema judges every message of the processes: the server's, whose
// breaches fail at the "schema" level, and the harness's, whose breaches
// are harness errors (the server was judged on traffic the harness got
// wrong). Traffic of a provocation is left out: a probe that breaks the
// rules on purpose, and the answers it provokes, are judged by that probe
// alone.
func judgeSchema(j *J) Finding {
	return schemaSide{
		party: "the server", judged: transcript.Recv,
		version: func(p *evidence.Process, seq int) string {
			if era, v := p.EraAt(seq); era != wire.EraModern {
				return v
			}
			return wire.Modern
		},
		skip:      outsideRules,
		elsewhere: func() map[[2]int]string { return failedElsewhere(j) },
	}.judge(j.Processes)
}

// schemaSide is what differs between judging a server and a client by
// the schema: who is judged (the direction of the lines it wrote), the
// version of a line, the lines left out, and the messages other checks
// failed.
type schemaSide struct {
	party     string
	judged    transcript.Dir
	version   func(p *evidence.Process, seq int) string
	skip      func(p *evidence.Process, e transcript.Entry) bool
	elsewhere func() map[[2]int]string
	// harnessOnPurpose is set when the harness breaks rules on purpose
	// throughout (a faulty server of client mode): its lines are not
	// judged.
	harnessOnPurpose bool
}

func (side schemaSide) judge(procs []*evidence.Process) Finding {
	t := &tally{}
	// Every breach first: which of them another check failed is known
	// only once all are.
	type found struct {
		p      *evidence.Process
		seq    int
		v      string
		what   string
		judged bool
		b      schema.Breach
	}
	var all []found
	oversize := 0
	for _, p := range procs {
		refusals := p.HTTPErrorBodies()
		walkSchema(p, side.skip, func(e transcript.Entry, m *wire.Message, answered *schema.Answered) {
			judged := e.Dir == side.judged
			if !judged && side.harnessOnPurpose {
				return
			}
			if len(m.Raw) > maxSchemaMessage {
				oversize++
				return
			}
			v := side.version(p, e.Seq)
			s := schema.For(v)
			if s == nil {
				return
			}
			verdict, err := s.Message(m, answered)
			if err != nil {
				t.undecide(At(p, e.Seq), "message %d: %v", e.Seq, err)
				return
			}
			if len(verdict.Definitions) == 0 {
				return
			}
			if judged {
				t.judged()
			}
			for _, b := range verdict.Breaches {
				if nullErrorID(m, b) || !judged && echoedID(m, b) || refusals[e.Seq] && missingErrorID(m, b) {
					continue
				}
				all = append(all, found{p: p, seq: e.Seq, v: v, what: describeMessage(m, answered), judged: judged, b: b})
			}
		})
	}
	// One defect, one finding: a breach in a message another check failed
	// is that check's, and so is the same breach (the same member, the
	// same problem) wherever else it recurs.
	defects := map[string]string{}
	var elsewhere map[[2]int]string
	for _, f := range all {
		if !f.judged {
			continue
		}
		if elsewhere == nil {
			elsewhere = side.elsewhere()
		}
		if by := elsewhere[[2]int{f.p.ID, f.seq}]; by != "" {
			if _, ok := defects[defectKey(f.b)]; !ok {
				defects[defectKey(f.b)] = by
			}
		}
	}
	var shown []schemaBreach
	var firstHarness *Where
	var covered, harnessBreaches []string
	for _, f := range all {
		if by := defects[defectKey(f.b)]; f.judged && by != "" {
			covered = append(covered, fmt.Sprintf("message %d %s: %s (failed by %s)", f.seq, pointerText(f.b.Pointer), f.b.Problem, by))
			continue
		}
		text := fmt.Sprintf("message %d (%s, schema %s): %s: %s [%s %s: %s]",
			f.seq, f.what, f.v, pointerText(f.b.Pointer), f.b.Problem, f.b.Keyword, f.b.Rule, clipString(f.b.Excerpt, 120))
		if f.judged {
			t.violateSchema(At(f.p, f.seq), fmt.Sprintf("%s %s: %s", f.v, f.b.Rule, f.b.Excerpt), "%s", text)
		} else {
			if len(harnessBreaches) == 0 {
				firstHarness = At(f.p, f.seq)
			}
			harnessBreaches = append(harnessBreaches, text)
		}
		if len(shown) < maxBreachesShown {
			shown = append(shown, schemaBreach{Process: f.p.ID, Seq: f.seq, Version: f.v, Message: f.what, Breach: f.b})
		}
	}
	if len(shown) > 0 {
		t.actual = shown
	}
	ok := fmt.Sprintf("every message %s wrote keeps its version's schema (%d messages, spec commit %s)", side.party, t.n, schema.Commit[:8])
	f := t.finding(ok, side.party+" wrote no message to judge")
	switch {
	case len(harnessBreaches) > 0 && f.Outcome == Violation:
		f.Message += "; mcpconform itself wrote messages that break the schema (a harness error): " + strings.Join(firstN(harnessBreaches, 3), "; ")
	case len(harnessBreaches) > 0:
		// The party was judged on traffic the harness got wrong: that
		// is the harness's error, and nothing of the party's.
		f = Finding{Outcome: Error, Where: firstHarness, Actual: shown,
			Message: "mcpconform wrote messages that break the schema: " + strings.Join(firstN(harnessBreaches, 6), "; ")}
	}
	if len(covered) > 0 && f.Outcome != Skip {
		f.Message += "; left to the checks that failed the same defect: " + strings.Join(firstN(covered, 6), "; ")
	}
	if oversize > 0 && f.Outcome != Skip {
		f.Message += fmt.Sprintf("; not judged: %d message(s) over %d MiB (their contents are judged by the checks of their members)", oversize, maxSchemaMessage>>20)
	}
	return f
}

// maxSchemaMessage bounds the messages judged by the schema: decoding one
// whole costs memory in proportion (a 50 MB blob read, a hostile server's
// huge line), and the harness keeps its memory within budgets of its own.
var maxSchemaMessage = 8 << 20

// arrayIndex is an index in a JSON pointer.
var arrayIndex = regexp.MustCompile(`/[0-9]+(/|$)`)

// defectKey names a breach by its member and problem, whichever item of a
// list and whichever message it is in: the same defect recurs in every
// page and every session of a run.
func defectKey(b schema.Breach) string {
	p := arrayIndex.ReplaceAllString(b.Pointer, "/N$1")
	p = arrayIndex.ReplaceAllString(p, "/N$1")
	return b.Definition + " " + p + " " + b.Keyword + " " + b.Problem
}

// echoedID reports whether a breach is the id of a response the harness
// wrote: it echoes the id of the request it answers, as JSON-RPC requires,
// and an id the other party got wrong is judged in that party's request.
func echoedID(m *wire.Message, b schema.Breach) bool {
	return b.Pointer == "/id" && m.Kind() == wire.KindResponse
}

// nullErrorID reports whether a breach is the null id of an error
// response. JSON-RPC 2.0, which every MCP message follows, answers with
// "id": null when the request's id could not be read; the handshake-era
// schemas type the id without null, and 2026-07-28 makes it optional for
// this case. The id is judged by the JSON-RPC checks, with JSON-RPC's
// sentence (jsonrpc-response-id-echo).
func nullErrorID(m *wire.Message, b schema.Breach) bool {
	return b.Pointer == "/id" && m.Has("error") && wire.IsNullID(m.ID)
}

// missingErrorID reports whether a breach is an error response without an
// id. In the body of an HTTP error status that is the transport's refusal,
// which Streamable HTTP allows: "The HTTP response body MAY comprise a
// JSON-RPC error response that has no id". The status is judged by the
// HTTP checks.
func missingErrorID(m *wire.Message, b schema.Breach) bool {
	return m.Has("error") && len(m.ID) == 0 && b.Keyword == "required" && strings.Contains(b.Problem, "'id'")
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("(and %d more)", len(s)-n))
	}
	return s
}

func pointerText(p string) string {
	if p == "" {
		return "the message"
	}
	return p
}

// describeMessage names a message for a reader: "tools/list result",
// "notifications/message".
func describeMessage(m *wire.Message, answered *schema.Answered) string {
	switch m.Kind() {
	case wire.KindRequest:
		return m.Method + " request"
	case wire.KindNotification:
		return m.Method
	}
	what := "response"
	if answered != nil {
		what = answered.Method + " " + what
	}
	if m.Has("error") {
		return what + " (error)"
	}
	return what
}

// walkSchema yields every message of either direction that skip does not
// leave out, with, for a response, the request it answers.
func walkSchema(p *evidence.Process, skip func(*evidence.Process, transcript.Entry) bool, yield func(e transcript.Entry, m *wire.Message, answered *schema.Answered)) {
	// Requests by id, per direction: a response answers a request that
	// went the other way.
	sent, received := map[string]*schema.Answered{}, map[string]*schema.Answered{}
	for _, e := range p.Entries() {
		if e.Dir != transcript.Send && e.Dir != transcript.Recv {
			continue
		}
		for _, m := range e.Msgs {
			if m.Kind() == wire.KindRequest && !wire.IsNullID(m.ID) {
				table := sent
				if e.Dir == transcript.Recv {
					table = received
				}
				table[wire.LooseIDKey(m.ID)] = &schema.Answered{Method: m.Method, Params: m.Params}
			}
		}
		if e.Clipped() || skip(p, e) {
			continue
		}
		for _, m := range e.Msgs {
			var answered *schema.Answered
			if m.Kind() == wire.KindResponse && m.ID != nil {
				table := sent
				if e.Dir == transcript.Send {
					table = received
				}
				answered = table[wire.LooseIDKey(m.ID)]
			}
			yield(e, m, answered)
		}
	}
}

// outsideRules reports whether an entry is traffic outside the rules on
// purpose: a provoking probe's lines and what they provoked, and the
// requests that break the schema to be refused (plan.OffSchema).
func outsideRules(p *evidence.Process, e transcript.Entry) bool {
	if e.Dir == transcript.Recv {
		return p.Provoked(e.Seq)
	}
	return p.InProvocation(e.Seq) || plan.OffSchema(e.Tag)
}

// failedElsewhere maps each message another check failed (by process id
// and seq) to that check: one defect, one finding. A breach of the schema
// in a message a check with its own sentence already failed is that
// check's finding, not a second one; the schema check lists it without
// failing on it. Only fails count: a check that warns on a member the
// schema requires does not lower the schema's grade.
func failedElsewhere(j *J) map[[2]int]string {
	out := map[[2]int]string{}
	for _, c := range All() {
		if c.ID == schemaCheckID {
			continue
		}
		if res, f := c.judge(j); f != nil && res.Verdict == reports.Fail {
			addWheres(out, c.ID, f.Wheres)
		}
	}
	return out
}

// addWheres records the messages a check failed (by process id and seq).
func addWheres(out map[[2]int]string, check string, wheres []*Where) {
	for _, w := range wheres {
		if w.Process != nil && w.at {
			if _, taken := out[[2]int{w.Process.ID, w.Seq}]; !taken {
				out[[2]int{w.Process.ID, w.Seq}] = check
			}
		}
	}
}
