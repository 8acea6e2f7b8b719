package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestWriteSARIFGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, sampleReport(), SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.sarif.golden", b.Bytes())
}

// TestSARIFRequiredMembers checks a log against the members SARIF 2.1.0
// requires (sarifLog: version, runs; run: tool; tool: driver;
// toolComponent: name; reportingDescriptor: id; result: message with its
// text; invocation: executionSuccessful; notification: message;
// suppression: kind; a level one of none, note, warning, error) and those
// GitHub code scanning requires besides (the $schema, a run's results, a
// rule's shortDescription, fullDescription and help texts, a result's
// locations and partialFingerprints; with --sarif-artifact, a physical
// location with a whole region). The schema itself is not embedded: it is
// an OASIS work whose notice would have to travel with it.
func TestSARIFRequiredMembers(t *testing.T) {
	for _, o := range []SARIFOptions{{}, {Artifact: "cmd/server/main.go"}} {
		for _, r := range []*Report{sampleReport(), hostileReport(), {Tool: Tool{Name: "mcpconform"}}} {
			var b bytes.Buffer
			if err := WriteSARIF(&b, r, o); err != nil {
				t.Fatal(err)
			}
			var log map[string]any
			if err := json.Unmarshal(b.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			for _, p := range sarifProblems(log, o.Artifact != "") {
				t.Errorf("artifact %q: %s", o.Artifact, p)
			}
		}
	}
}

// sarifProblems lists what a log lacks of the required members.
func sarifProblems(log map[string]any, physical bool) []string {
	var out []string
	need := func(obj any, where string, members ...string) map[string]any {
		m, ok := obj.(map[string]any)
		if !ok {
			out = append(out, where+" is not an object")
			return nil
		}
		for _, k := range members {
			v, ok := m[k]
			if !ok || v == "" || v == nil {
				out = append(out, fmt.Sprintf("%s lacks %s", where, k))
			}
		}
		return m
	}
	level := func(v any, where string) {
		if s, _ := v.(string); s != "none" && s != "note" && s != "warning" && s != "error" {
			out = append(out, fmt.Sprintf("%s: level %v", where, v))
		}
	}
	need(log, "the log", "$schema", "version", "runs")
	if log["version"] != "2.1.0" {
		out = append(out, fmt.Sprintf("version %v", log["version"]))
	}
	runs, _ := log["runs"].([]any)
	if len(runs) != 1 {
		return append(out, fmt.Sprintf("%d runs", len(runs)))
	}
	run := need(runs[0], "the run", "tool", "results", "invocations")
	driver := need(need(run["tool"], "tool", "driver")["driver"], "driver", "name", "rules")
	rules, _ := driver["rules"].([]any)
	ids := map[string]int{}
	for i, rule := range rules {
		m := need(rule, fmt.Sprintf("rule %d", i), "id", "shortDescription", "fullDescription", "help", "defaultConfiguration")
		for _, k := range []string{"shortDescription", "fullDescription", "help"} {
			need(m[k], fmt.Sprintf("rule %v %s", m["id"], k), "text")
		}
		level(need(m["defaultConfiguration"], "defaultConfiguration", "level")["level"], fmt.Sprintf("rule %v", m["id"]))
		ids[fmt.Sprint(m["id"])] = i
	}
	results, _ := run["results"].([]any)
	for i, res := range results {
		where := fmt.Sprintf("result %d", i)
		m := need(res, where, "ruleId", "message", "locations", "partialFingerprints", "level")
		need(m["message"], where+" message", "text")
		level(m["level"], where)
		if k, ok := ids[fmt.Sprint(m["ruleId"])]; !ok || float64(k) != m["ruleIndex"] {
			out = append(out, fmt.Sprintf("%s: rule %v at index %v, not among the rules", where, m["ruleId"], m["ruleIndex"]))
		}
		need(m["partialFingerprints"], where+" fingerprints", "primaryLocationLineHash")
		locs, _ := m["locations"].([]any)
		if len(locs) != 1 {
			out = append(out, fmt.Sprintf("%s: %d locations", where, len(locs)))
			continue
		}
		loc := need(locs[0], where+" location", "logicalLocations")
		if physical {
			p := need(loc["physicalLocation"], where+" physicalLocation", "artifactLocation", "region")
			need(p["artifactLocation"], where+" artifactLocation", "uri")
			need(p["region"], where+" region", "startLine", "startColumn", "endLine", "endColumn")
		}
		if sups, ok := m["suppressions"].([]any); ok {
			for _, s := range sups {
				need(s, where+" suppression", "kind")
			}
		}
	}
	for _, inv := range run["invocations"].([]any) {
		m := need(inv, "invocation", "executionSuccessful")
		notes, _ := m["toolExecutionNotifications"].([]any)
		for _, n := range notes {
			need(need(n, "notification", "message")["message"], "notification message", "text")
		}
	}
	return out
}

// TestSARIFResults: a finding is one result, however many versions it was
// seen in; fail, warn and info are error, warning and note; a failure the
// baseline accepts is suppressed; passes and skips are no result; a check
// that could not be judged is a notification; at most the cap of results,
// the rest counted.
func TestSARIFResults(t *testing.T) {
	r := &Report{
		Tool:   Tool{Name: "mcpconform", Version: "1.0.0"},
		Target: Target{Versions: []string{"2025-06-18", "2025-11-25"}},
		Results: []Result{
			{ID: "a", Requirement: "R-1", Level: "MUST", Verdict: Fail, ProtocolVersion: "2025-06-18", Message: "broken (id 3)", Spec: "https://example.invalid/a"},
			{ID: "a", Requirement: "R-1", Level: "MUST", Verdict: Fail, ProtocolVersion: "2025-11-25", Message: "broken (id 9)", Spec: "https://example.invalid/a"},
			{ID: "b", Requirement: "R-2", Level: "SHOULD", Verdict: Warn, ProtocolVersion: "2025-11-25", Message: "meh"},
			{ID: "c", Requirement: "R-3", Level: "MAY", Verdict: Info, ProtocolVersion: "2025-11-25", Message: "noted"},
			{ID: "d", Requirement: "R-4", Level: "MUST", Verdict: XFail, ProtocolVersion: "2025-11-25", Message: "known"},
			{ID: "e", Requirement: "R-5", Level: "MUST", Verdict: Pass, ProtocolVersion: "2025-11-25"},
			{ID: "f", Requirement: "R-6", Level: "MUST", Verdict: Skip, ProtocolVersion: "2025-11-25"},
			{ID: "g", Requirement: "R-7", Level: "MUST", Verdict: Error, ProtocolVersion: "2025-11-25", Message: "not judged: deadline"},
		},
	}
	log := sarifLogOf(r, SARIFOptions{}, SARIFMaxResults)
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != 7 {
		t.Errorf("%d rules, want one per check (7)", len(run.Tool.Driver.Rules))
	}
	var got []string
	for _, res := range run.Results {
		got = append(got, fmt.Sprintf("%s %s %q %d", res.RuleID, res.Level, res.Message.Text, len(res.Suppressions)))
	}
	want := []string{`a error "all versions: broken (id 9)" 0`, `b warning "2025-11-25: meh" 0`, `c note "2025-11-25: noted" 0`, `d error "2025-11-25: known" 1`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName != "R-1/a" {
		t.Errorf("logical location %+v", run.Results[0].Locations[0])
	}
	if rule := run.Tool.Driver.Rules[0]; rule.HelpURI != "https://example.invalid/a" || rule.DefaultConfiguration.Level != "error" {
		t.Errorf("rule a: %+v", rule)
	}
	notes := run.Invocations[0].Notifications
	if len(notes) != 1 || notes[0].Descriptor.ID != "g" || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocation %+v, want a notification of g and a successful execution", run.Invocations[0])
	}

	capped := sarifLogOf(r, SARIFOptions{}, 2).Runs[0]
	last := capped.Invocations[0].Notifications[len(capped.Invocations[0].Notifications)-1]
	if len(capped.Results) != 2 || !strings.Contains(last.Message.Text, "2 more findings are left out") {
		t.Errorf("capped at 2: %d results, last notification %q", len(capped.Results), last.Message.Text)
	}

	r.Interrupted = "interrupted by interrupt"
	if inv := sarifLogOf(r, SARIFOptions{}, SARIFMaxResults).Runs[0].Invocations[0]; inv.ExecutionSuccessful || !strings.Contains(inv.Notifications[0].Message.Text, "interrupted by interrupt") {
		t.Errorf("an interrupted run: %+v", inv)
	}
}
