package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// SARIF is the Static Analysis Results Interchange Format 2.1.0 (OASIS),
// which code scanning services read. The report maps onto it so: the tool
// is a run's driver, each check is a rule (its requirement, level and spec
// link), and each finding (a check and a cause, under every version it was
// seen in, as the console shows it) is a result: a failure an error, a
// warning a warning, a record a note, a failure the baseline accepts an
// error with an external suppression. Checks that could not be judged, and
// a run cut short or a server that never started, are notifications of the
// run's invocation, not results: they say nothing of the server.
//
// A result's location is logical (the requirement and the check): no file
// of the server's repository is at fault in a way mcpconform can see.
// GitHub code scanning shows only results with a file location; SARIFOptions
// Artifact names one (the server's main source file, say) to put every
// result on its first line.

// SARIFMaxResults is the most results a run holds: GitHub code scanning
// rejects a run with more (25,000). The rest are counted in a notification.
const SARIFMaxResults = 25000

// SARIFOptions shapes the SARIF log.
type SARIFOptions struct {
	// Artifact, when set, is a file of the repository (relative to its
	// root) that every result is also located at, on its first line.
	Artifact string
}

// WriteSARIF writes the report as a SARIF 2.1.0 log of one run.
func WriteSARIF(w io.Writer, r *Report, o SARIFOptions) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLogOf(r, o, SARIFMaxResults))
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	Rules   []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Descriptor *sarifReference `json:"associatedRule,omitempty"`
}

type sarifReference struct {
	ID string `json:"id"`
}

// sarifSchema is where the 2.1.0 schema is published, as logs name it.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifLevel is a verdict's level in SARIF.
var sarifLevel = map[Verdict]string{Fail: "error", XFail: "error", Warn: "warning", Info: "note"}

// ruleLevel is the level a check's failure has by its requirement's level.
func ruleLevel(level string) string {
	switch strings.ToUpper(level) {
	case "MUST", "MUST NOT", "SCHEMA", "DERIVED":
		return "error"
	case "SHOULD", "SHOULD NOT", "SCHEMA-SHOULD":
		return "warning"
	}
	return "note"
}

func sarifLogOf(r *Report, o SARIFOptions, maxResults int) sarifLog {
	all := make([]*Result, len(r.Results))
	for i := range r.Results {
		all[i] = &r.Results[i]
	}
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: toolName(r), Version: r.Tool.Version, Rules: []sarifRule{}}},
		Results: []sarifResult{},
	}
	// A rule per check, described by its newest version's result.
	index := map[string]int{}
	for _, res := range all {
		i, seen := index[res.ID]
		if !seen {
			i = len(run.Tool.Driver.Rules)
			index[res.ID] = i
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{})
		}
		run.Tool.Driver.Rules[i] = ruleOf(res, run.Tool.Driver.Rules[i])
	}
	inv := sarifInvocation{ExecutionSuccessful: r.Interrupted == "" && r.DidNotStart == nil}
	if r.Interrupted != "" {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: "the run was cut short: " + r.Interrupted}})
	}
	if f := r.DidNotStart; f != nil {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: "the server did not start: " + f.What}})
	}
	for _, why := range r.Incomplete {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "warning", Message: sarifText{Text: "incomplete: " + why}})
	}
	for _, f := range findingsOf(all, func(v Verdict) bool { return v == Error }) {
		res := f.shown()
		if len(inv.Notifications) >= maxResults {
			break
		}
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "warning", Message: sarifText{Text: versionsPrefix(f, r) + truncateBytes(res.Message, docValueBytes)}, Descriptor: &sarifReference{ID: res.ID}})
	}
	findings := findingsOf(all, func(v Verdict) bool { return sarifLevel[v] != "" })
	for _, f := range findings {
		if len(run.Results) == maxResults {
			left := len(findings) - maxResults
			inv.Notifications = append(inv.Notifications, sarifNotification{Level: "warning",
				Message: sarifText{Text: fmt.Sprintf("%d more findings are left out: a SARIF run holds at most %d results (the JSON report has them all)", left, maxResults)}})
			break
		}
		run.Results = append(run.Results, resultOf(f, r, index[f.shown().ID], o))
	}
	run.Invocations = []sarifInvocation{inv}
	run.Properties = map[string]any{"verdict": summarize(r).Verdict, "versions": r.Target.Versions, "command": r.Target.Command}
	if r.Spec != nil {
		run.Properties["spec"] = r.Spec
	}
	return sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}
}

// ruleOf describes the check of res as a rule, keeping what an earlier
// result of the check said where res says nothing.
func ruleOf(res *Result, was sarifRule) sarifRule {
	short := firstNonEmpty(res.Expect, was.ShortDescription.Text, "the check "+res.ID)
	full := short
	if res.Quote != "" {
		full = res.Requirement + " (" + res.Level + "): “" + res.Quote + "”"
	} else if was.FullDescription.Text != "" {
		full = was.FullDescription.Text
	}
	help := full
	if res.Spec != "" {
		help += " " + res.Spec
	}
	tags := []string{"mcp", "conformance"}
	for _, t := range []string{res.Area, res.Requirement, res.Level} {
		if t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return sarifRule{
		ID:                   res.ID,
		Name:                 res.ID,
		ShortDescription:     sarifText{Text: truncate(short, 1000)},
		FullDescription:      sarifText{Text: truncate(full, 1000)},
		Help:                 sarifText{Text: help},
		HelpURI:              firstNonEmpty(httpsOnly(res.Spec), was.HelpURI),
		DefaultConfiguration: sarifConfig{Level: ruleLevel(res.Level)},
		Properties:           map[string]any{"requirement": res.Requirement, "level": res.Level, "tags": tags, "precision": "high", "problem.severity": problemSeverity(ruleLevel(res.Level))},
	}
}

func problemSeverity(level string) string {
	if level == "note" {
		return "recommendation"
	}
	return level
}

// resultOf is the SARIF result of a finding.
func resultOf(f *finding, r *Report, rule int, o SARIFOptions) sarifResult {
	res := f.shown()
	loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: res.ID, FullyQualifiedName: strings.Trim(res.Requirement+"/"+res.ID, "/")}}}
	if o.Artifact != "" {
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: o.Artifact}, Region: sarifRegion{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 2}}
	}
	out := sarifResult{
		RuleID:    res.ID,
		RuleIndex: rule,
		Level:     sarifLevel[res.Verdict],
		Message:   sarifText{Text: versionsPrefix(f, r) + truncateBytes(res.Message, docValueBytes)},
		Locations: []sarifLocation{loc},
		// One alert per check and cause, whichever run or version found
		// it: the fingerprint is not tied to a line.
		PartialFingerprints: map[string]string{"primaryLocationLineHash": fingerprint(res) + ":1"},
		Properties:          map[string]any{"verdict": string(res.Verdict), "requirement": res.Requirement, "level": res.Level, "protocolVersions": f.versions()},
	}
	if res.Spec != "" {
		out.Properties["spec"] = res.Spec
	}
	if res.Verdict == XFail {
		out.Suppressions = []sarifSuppression{{Kind: "external", Justification: "a known failure, listed in the baseline"}}
	}
	return out
}

// versionsPrefix names the versions of a finding when the run judged
// several: "2024-11-05 to 2025-11-25: ".
func versionsPrefix(f *finding, r *Report) string {
	if v := versionsText(f.versions(), r.Target.Versions); v != "" {
		return v + ": "
	}
	return ""
}

// fingerprint identifies a finding across runs: its check and its cause.
func fingerprint(res *Result) string {
	sum := sha256.Sum256([]byte(res.ID + "\x00" + string(res.Verdict) + "\x00" + cause(res.Message)))
	return hex.EncodeToString(sum[:8])
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func httpsOnly(s string) string {
	if isHTTPS(s) {
		return s
	}
	return ""
}
