package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// tally collects what one check judged: how many items, and the problems
// found, each where it was seen.
type tally struct {
	n          int
	violations []problem
	disputes   []problem
	records    []problem
	// undecided are items the harness could not judge within its own
	// budget (a deadline it chose): never a violation.
	undecided []problem
	// unexercised says why items judged nothing of the rule (the server
	// had exited, say): with nothing judged, the check is a skip that
	// says so.
	unexercised []string
	actual      any
}

type problem struct {
	text  string
	where *Where
	// schema, when set, is the schema text the item breaks: a required
	// member or a type, a "schema"-level rule whatever level the check's
	// requirement has (a lower-case "should" of a doc comment, say).
	schema string
}

func (t *tally) judged() { t.n++ }

func (t *tally) violate(w *Where, format string, a ...any) {
	t.violations = append(t.violations, problem{text: fmt.Sprintf(format, a...), where: w})
}

// violateSchema records a violation of the version's schema itself (quote
// is its text): it fails at the "schema" level even where the check's
// requirement is priced lower.
func (t *tally) violateSchema(w *Where, quote, format string, a ...any) {
	t.violations = append(t.violations, problem{text: fmt.Sprintf(format, a...), where: w, schema: quote})
}

func (t *tally) dispute(w *Where, format string, a ...any) {
	t.disputes = append(t.disputes, problem{text: fmt.Sprintf(format, a...), where: w})
}

func (t *tally) unexercise(format string, a ...any) {
	t.unexercised = append(t.unexercised, fmt.Sprintf(format, a...))
}

func (t *tally) undecide(w *Where, format string, a ...any) {
	t.undecided = append(t.undecided, problem{text: fmt.Sprintf(format, a...), where: w})
}

func (t *tally) record(w *Where, format string, a ...any) {
	t.records = append(t.records, problem{text: fmt.Sprintf(format, a...), where: w})
}

// finding turns the tally into a finding: a violation if any, else a
// dispute, else an error for what the harness could not judge, else a
// record, else a pass with okMsg; with nothing judged, a skip saying why
// (nothing).
func (t *tally) finding(okMsg, nothing string) Finding {
	list := func(ps []problem) string {
		counts := map[string]int{}
		var order []string
		for _, p := range ps {
			if counts[p.text] == 0 {
				order = append(order, p.text)
			}
			counts[p.text]++
		}
		for i, s := range order {
			if n := counts[s]; n > 1 {
				order[i] = fmt.Sprintf("%s (%d times)", s, n)
			}
		}
		if len(order) > 6 {
			return strings.Join(order[:6], "; ") + fmt.Sprintf("; (and %d more)", len(order)-6)
		}
		return strings.Join(order, "; ")
	}
	var f Finding
	switch {
	case len(t.violations) > 0:
		f = Finding{Outcome: Violation, Message: list(t.violations), Where: t.violations[0].where}
		for _, v := range t.violations {
			if v.where != nil {
				f.Wheres = append(f.Wheres, v.where)
			}
		}
		for _, v := range t.violations {
			if v.schema != "" {
				f.Schema = v.schema
				break
			}
		}
		if len(t.disputes) > 0 {
			f.Message += "; also: " + list(t.disputes)
		}
		if len(t.undecided) > 0 {
			f.Message += "; not judged: " + list(t.undecided)
		}
	case len(t.disputes) > 0:
		f = Finding{Outcome: Disputed, Message: list(t.disputes), Where: t.disputes[0].where}
		if len(t.undecided) > 0 {
			f.Message += "; not judged: " + list(t.undecided)
		}
	case len(t.undecided) > 0:
		f = Finding{Outcome: Error, Message: "not judged: " + list(t.undecided), Where: t.undecided[0].where}
	case len(t.records) > 0:
		f = Finding{Outcome: Recorded, Message: list(t.records), Where: t.records[0].where}
	case t.n == 0 && len(t.unexercised) > 0:
		return skipped("not judged: " + strings.Join(t.unexercised, "; "))
	case t.n == 0:
		return skipped(nothing)
	default:
		f = passed(okMsg)
	}
	f.Actual = t.actual
	return f
}

// Excerpt renders transcript entries [from, to) of a process for a report,
// bounded in lines and bytes.
func Excerpt(p *evidence.Process, from, to int) []reports.TranscriptLine {
	const maxLines, maxText = 40, 2000
	if p == nil || p.Transcript == nil {
		return nil
	}
	entries := p.Transcript.Slice(from, to)
	if len(entries) > maxLines {
		// A new slice: entries is a view of the transcript, which an
		// append into it would overwrite.
		entries = slices.Concat(entries[:maxLines/2], entries[len(entries)-maxLines/2:])
	}
	var out []reports.TranscriptLine
	for _, e := range entries {
		// Only what is shown is copied: the line may be tens of megabytes.
		text := string(e.Data[:min(len(e.Data), maxText)])
		if len(e.Data) > maxText || e.Len > len(e.Data) {
			text += fmt.Sprintf("… (%d bytes)", e.Len)
		}
		if e.Tag != "" {
			text = "[" + e.Tag + "] " + text
		}
		out = append(out, reports.TranscriptLine{AtMs: e.At.Milliseconds(), Dir: string(e.Dir), Text: text})
	}
	return out
}

// maxEvidence bounds a JSON value kept as a result's Expected or Actual.
const maxEvidence = 64 * 1024

// toAny decodes raw for a report; a value over maxEvidence becomes the
// start of its text and its size.
func toAny(raw json.RawMessage) any {
	if len(raw) > maxEvidence {
		return map[string]any{"truncated": string(raw[:1024]), "bytes": len(raw)}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func clipJSON(raw json.RawMessage, n int) string { return clipString(compactJSON(raw), n) }

// compactJSON is raw without insignificant whitespace (raw itself when it
// is not valid JSON, and only the start of a value too large to show).
func compactJSON(raw json.RawMessage) string {
	if len(raw) > maxEvidence {
		return string(raw[:4096]) + "…"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func article(t string) string {
	if t != "" && strings.ContainsAny(t[:1], "aeiou") {
		return "an " + t
	}
	return "a " + t
}

// describeType names the type of raw with its value: "a string \"x\"".
func describeType(raw json.RawMessage) string {
	t := wire.Type(raw)
	if t == "" {
		return "missing"
	}
	return fmt.Sprintf("%s %s", article(t), clipJSON(raw, 60))
}

// quoteBytes shows bytes safely: Go-quoted, clipped.
func quoteBytes(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// sentOf shows what an exchange sent, compact and clipped.
func sentOf(x *evidence.Exchange) string {
	if x == nil || x.Request == nil {
		if x != nil {
			return fmt.Sprintf("%s (id %s), never written", x.Method, x.ID)
		}
		return ""
	}
	return clipJSON(x.Request.Raw, 1000)
}

// gotOf shows what came back for an exchange, or what happened instead.
func gotOf(x *evidence.Exchange) string {
	switch {
	case x == nil:
		return ""
	case x.Response != nil:
		return clipJSON(x.Response.Raw, 2000)
	case x.NoResponse != nil:
		return x.NoResponse.String()
	}
	return "no response"
}

// shortGot is gotOf for a message: the error or result, short.
func shortGot(x *evidence.Exchange) string {
	switch {
	case x == nil:
		return "nothing"
	case x.Response == nil:
		return gotOf(x)
	case x.Response.Has("error"):
		return "error " + clipJSON(x.Response.Error, 200)
	case x.Response.Has("result"):
		return "result " + clipJSON(x.Response.Result, 200)
	}
	return clipJSON(x.Response.Raw, 200)
}

// describe is the Actual of a result: the response, or what happened
// instead.
func describe(x *evidence.Exchange) any {
	switch {
	case x == nil:
		return nil
	case x.Response != nil:
		return toAny(x.Response.Raw)
	case x.NoResponse != nil:
		return map[string]string{"noResponse": x.NoResponse.String()}
	}
	return map[string]string{"noResponse": "no response"}
}

// exchangeFinding fills a finding's evidence from an exchange.
func exchangeFinding(f Finding, x *evidence.Exchange) Finding {
	if x == nil {
		return f
	}
	f.Sent, f.Got = sentOf(x), gotOf(x)
	if f.Actual == nil {
		f.Actual = describe(x)
	}
	if f.Where == nil && x.Process != nil {
		from, to := x.SentSeq, x.RecvSeq
		if from < 0 {
			from = to
		}
		if to < 0 {
			to = from + 2
		}
		f.Where = &Where{Process: x.Process, From: from - 1, To: to + 2}
	}
	return f
}

// messages yields every message a process wrote on stdout, with its entry.
func messages(p *evidence.Process, yield func(e transcript.Entry, m *wire.Message)) {
	for _, e := range p.Entries() {
		if e.Dir != transcript.Recv {
			continue
		}
		for _, m := range e.Msgs {
			yield(e, m)
		}
	}
}

// sortedKeys returns an object's member names in order, so that what a
// check reports does not depend on map order.
func sortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}
