package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/vectors"
)

// severity orders verdicts from best to worst for aggregation.
var severity = map[reports.Verdict]int{
	reports.Skip: 0, reports.Pass: 1, reports.Info: 2, reports.Warn: 3, reports.Error: 4, reports.Fail: 5,
}

func worse(a, b reports.Verdict) reports.Verdict {
	if severity[b] > severity[a] {
		return b
	}
	return a
}

// itemVerdict judges one execution against the test's outcomes.
type itemVerdict struct {
	verdict reports.Verdict
	message string
	actual  any
}

// JudgeVector turns a vector observation into a result.
func JudgeVector(o *VectorObs) reports.Result {
	t := o.Test
	res := baseResult(t.ID, t.Requirement, t.Level, t.Spec, t.File.Area, o.Version, t.Flags)
	res.Expected = outcomesJSON(t, o.Version)
	if o.Skip != "" {
		res.Verdict, res.Message = reports.Skip, o.Skip
		return res
	}
	if len(o.Items) == 0 {
		res.Verdict, res.Message = reports.Error, "the test ran no steps"
		return res
	}
	overall := reports.Pass
	var worst *itemVerdict
	var msgs []string
	for _, it := range o.Items {
		v := judgeItem(t, o.Version, it)
		if worst == nil || severity[v.verdict] > severity[worst.verdict] {
			worst = &v
		}
		overall = worse(overall, v.verdict)
		if v.verdict != reports.Pass && len(o.Items) > 1 {
			msgs = append(msgs, fmt.Sprintf("%s: %s: %s", it.Label, v.verdict, v.message))
		}
	}
	res.Verdict = overall
	res.Actual = worst.actual
	if worst.verdict == reports.Skip {
		res.Verdict = reports.Skip // every item was skipped
	}
	if len(o.Items) > 1 {
		bad := len(msgs)
		if bad == 0 {
			res.Message = fmt.Sprintf("all %d items: %s", len(o.Items), worst.message)
		} else {
			if len(msgs) > 5 {
				msgs = append(msgs[:5], fmt.Sprintf("(and %d more)", bad-5))
			}
			res.Message = fmt.Sprintf("%d of %d items: %s", bad, len(o.Items), strings.Join(msgs, "; "))
		}
	} else {
		res.Message = worst.message
	}
	if o.Client != nil {
		res.Transcript = excerpt(o.Client.Transcript(), o.From, o.To)
		if res.Verdict == reports.Fail || res.Verdict == reports.Error {
			if info := o.Client.ExitInfo(); info.Exited && info.Stage == "before-shutdown" {
				res.Message += fmt.Sprintf(" (server %s; stderr: %s)", info, tailText(o.Client.StderrTail(), 3))
			}
		}
	}
	return res
}

func tailText(lines []string, n int) string {
	if len(lines) == 0 {
		return "empty"
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func judgeItem(t *vectors.Test, version string, it *ItemObs) itemVerdict {
	if it.Err != "" {
		return itemVerdict{verdict: reports.Error, message: it.Err}
	}
	if it.Skip != "" {
		return itemVerdict{verdict: reports.Skip, message: it.Skip}
	}
	resp := it.Reply
	var xErr error
	if it.X != nil {
		resp = it.X.Response
		xErr = it.X.Err
	}
	if errors.Is(xErr, mockclient.ErrStopped) {
		return itemVerdict{verdict: reports.Error, message: "not judged: " + xErr.Error()}
	}
	actual := describe(resp, xErr)
	silence := resp == nil && (it.X == nil || errors.Is(xErr, mockclient.ErrTimeout))
	for _, oc := range t.Expect {
		if len(oc.Versions) > 0 && !slices.Contains(oc.Versions, version) {
			continue
		}
		if oc.Alive != nil && (it.Alive == nil || *it.Alive != *oc.Alive) {
			continue
		}
		ok, why := matchOutcome(oc, resp, silence, it.Bindings)
		if why != "" {
			return itemVerdict{verdict: reports.Error, message: why, actual: actual}
		}
		if !ok {
			continue
		}
		msg := oc.Note
		if msg == "" {
			msg = "as expected: " + outcomeSummary(oc, it.Bindings)
		}
		if oc.Verdict != "pass" && oc.Verdict != "info" || oc.Note == "" {
			msg += "; got " + shortActual(resp, xErr)
		}
		return itemVerdict{verdict: reports.Verdict(oc.Verdict), message: msg, actual: actual}
	}
	other := t.Otherwise
	if other == "" {
		other = "fail"
	}
	return itemVerdict{verdict: reports.Verdict(other), message: "no expected outcome matched; got " + shortActual(resp, xErr), actual: actual}
}

// matchOutcome reports whether an outcome fits. A non-empty string is a
// harness problem (a pattern that cannot be expanded).
func matchOutcome(oc vectors.Outcome, resp *mockclient.Message, silence bool, b map[string]string) (bool, string) {
	if oc.Silence {
		return silence, ""
	}
	try := func(raw json.RawMessage, val json.RawMessage, present bool) (bool, string) {
		exp, err := vectors.Expand(raw, b)
		if err != nil {
			return false, err.Error()
		}
		p, err := vectors.CompilePattern(exp)
		if err != nil {
			return false, err.Error()
		}
		if !present {
			return false, ""
		}
		return p.Match(val) == nil, ""
	}
	switch {
	case oc.Result != nil:
		v, ok := respMember(resp, "result")
		return try(oc.Result, v, ok)
	case oc.Error != nil:
		v, ok := respMember(resp, "error")
		return try(oc.Error, v, ok)
	case oc.Response != nil:
		if resp == nil {
			return false, ""
		}
		return try(oc.Response, resp.Raw, true)
	}
	// Only "alive" was given, and it matched.
	return true, ""
}

func respMember(resp *mockclient.Message, name string) (json.RawMessage, bool) {
	if resp == nil {
		return nil, false
	}
	v, ok := resp.Members[name]
	// A response with both result and error is judged by the envelope checks;
	// here it matches neither, so it cannot pass as a clean outcome.
	if ok && resp.Has("result") && resp.Has("error") {
		return nil, false
	}
	return v, ok
}

func outcomeSummary(oc vectors.Outcome, b map[string]string) string {
	show := func(raw json.RawMessage) string {
		if exp, err := vectors.Expand(raw, b); err == nil {
			raw = exp
		}
		return compact(raw)
	}
	switch {
	case oc.Silence:
		return "no response"
	case oc.Result != nil:
		return "result " + show(oc.Result)
	case oc.Error != nil:
		return "error " + show(oc.Error)
	case oc.Response != nil:
		return "response " + show(oc.Response)
	}
	return "server still answering"
}

func compact(raw json.RawMessage) string {
	if len(raw) > maxEvidence {
		// Only 160 characters are shown: do not re-encode a huge value.
		return clipString(string(raw), 160)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return clipString(string(b), 160)
}

// describe is the Actual of a result: the response, or what happened instead.
func describe(resp *mockclient.Message, err error) any {
	if resp != nil {
		return toAny(resp.Raw)
	}
	if err != nil {
		return map[string]string{"noResponse": err.Error()}
	}
	return map[string]string{"noResponse": "nothing arrived in the listening window"}
}

func shortActual(resp *mockclient.Message, err error) string {
	if resp == nil {
		if err != nil {
			return err.Error()
		}
		return "no response"
	}
	if resp.Has("error") {
		return "error " + compact(resp.Error)
	}
	if resp.Has("result") {
		return "result " + compact(resp.Result)
	}
	return compact(resp.Raw)
}

func outcomesJSON(t *vectors.Test, version string) any {
	var out []any
	for _, oc := range t.Expect {
		if len(oc.Versions) > 0 && !slices.Contains(oc.Versions, version) {
			continue
		}
		m := map[string]any{"verdict": oc.Verdict}
		for k, raw := range map[string]json.RawMessage{"result": oc.Result, "error": oc.Error, "response": oc.Response} {
			if raw != nil {
				var v any
				_ = json.Unmarshal(raw, &v)
				m[k] = v
			}
		}
		if oc.Silence {
			m["silence"] = true
		}
		if oc.Alive != nil {
			m["alive"] = *oc.Alive
		}
		out = append(out, m)
	}
	other := t.Otherwise
	if other == "" {
		other = "fail"
	}
	return map[string]any{"firstMatchWins": out, "otherwise": other}
}

func baseResult(id, req, level, spec, area, version string, flags []string) reports.Result {
	labels := append([]string{"level:" + level, "area:" + area}, flags...)
	return reports.Result{
		ID: id, Requirement: req, Level: level, Spec: SpecURL(version, spec),
		ProtocolVersion: version, Area: area, Labels: labels,
	}
}

// excerpt renders transcript entries [from, to) for a report, bounded.
func excerpt(t *mockclient.Transcript, from, to int) []reports.TranscriptLine {
	const maxLines, maxText = 40, 2000
	entries := t.Slice(from, to)
	var out []reports.TranscriptLine
	if len(entries) > maxLines {
		entries = append(entries[:maxLines/2], entries[len(entries)-maxLines/2:]...)
	}
	for _, e := range entries {
		text := string(e.Data)
		if len(text) > maxText {
			text = text[:maxText] + fmt.Sprintf("… (%d bytes)", e.Len)
		} else if e.Len > len(e.Data) {
			text += fmt.Sprintf("… (%d bytes)", e.Len)
		}
		out = append(out, reports.TranscriptLine{AtMs: e.At.Milliseconds(), Dir: string(e.Dir), Text: text})
	}
	return out
}
