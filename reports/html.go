package reports

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

// The HTML report is one self-contained file: the stylesheet and the script
// are inline, and a Content-Security-Policy forbids every fetch, so opening a
// report never touches the network and a string from the server, even one
// that got past html/template, could not run as script.
var (
	//go:embed report.html.tmpl
	htmlTemplateText string
	//go:embed report.css
	htmlCSS string
	//go:embed report.js
	htmlScript string

	htmlTemplate = template.Must(template.New("report").Parse(htmlTemplateText))

	htmlCSP = policyFor(htmlScript)
)

// policyFor is the Content-Security-Policy of a page whose one script is
// script: it allows exactly that inline script (by its hash), inline
// styles and data: images, and nothing else.
func policyFor(script string) string {
	return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '" +
		scriptHash(script) + "'; base-uri 'none'; form-action 'none'"
}

// Caps of the HTML report.
const (
	htmlTranscriptLines = 500     // per check, the last ones
	htmlTranscriptBytes = 8 << 10 // per transcript line
	htmlHeadlineLetters = 200
)

// scriptHash returns the CSP source expression of an inline script.
func scriptHash(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// WriteHTML writes the report as one self-contained HTML page: the summary
// on top, filters by verdict, level and area, a search box, and every result
// expandable to its message, Expected, Actual, their line diff, the spec link
// and the transcript of the check.
//
// Every row is rendered here with html/template, so the page reads complete
// without script; the script only filters. A filter can be given in the URL,
// as in report.html#verdict=fail,warn&level=MUST&area=resources&q=text.
func WriteHTML(w io.Writer, r *Report) error {
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, newHTMLView(r)); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	_, err := buf.WriteTo(w)
	return err
}

// htmlView is what the template renders. Every string in it is sanitized
// text; html/template escapes it for its context.
type htmlView struct {
	Title       string
	CSP         string
	CSS         template.CSS
	Script      template.JS
	Tool        string
	Server      string
	Verdict     string
	Total       int
	Counts      []htmlCount
	Target      []htmlFact
	Stale       []string
	Interrupted string
	Incomplete  []string
	StderrTail  string
	Levels      []htmlFacet
	Areas       []htmlFacet
	Versions    []htmlFacet
	Results     []htmlResult
}

type htmlCount struct {
	Verdict string
	N       int
}

type htmlFact struct {
	Name, Value string
	Code        bool
	Wide        bool // long values get a row of their own
}

type htmlFacet struct {
	Value string // as the rows carry it
	Label string // as the filter shows it
	N     int
}

type htmlResult struct {
	Anchor          string
	ID              string
	Requirement     string
	Level           string
	Verdict         string
	Area            string
	ProtocolVersion string
	Labels          []string
	Headline        string
	Message         string
	Spec            string
	SpecIsLink      bool
	// Sent, Got, Quote and Expect: what was sent, what came back, the
	// sentence of the rule, what was expected in words.
	Sent          string
	Got           string
	Quote         string
	Expect        string
	Expected      string
	Actual        string
	Diff          []htmlDiffLine
	Transcript    []htmlTranscriptLine
	TranscriptCut int
}

type htmlDiffLine struct {
	Class string
	Text  string
}

type htmlTranscriptLine struct {
	AtMs int64
	Dir  string
	Text string
}

func newHTMLView(r *Report) *htmlView {
	s := summarize(r)
	v := &htmlView{
		CSP:         htmlCSP,
		CSS:         template.CSS(htmlCSS),
		Script:      template.JS(htmlScript),
		Tool:        htmlText(toolName(r)),
		Verdict:     s.Verdict,
		Total:       len(r.Results),
		Interrupted: htmlText(r.Interrupted),
		Incomplete:  htmlTexts(r.Incomplete),
		StderrTail:  htmlText(truncateBytes(strings.Join(r.Target.StderrTail, "\n"), docValueBytes)),
	}
	v.Title = v.Tool + " report: " + s.Verdict
	if si := serverInfoText(r.Target.ServerInfo); si != "" {
		v.Server = htmlText(truncate(si, 80))
		v.Title += " · " + v.Server
	}
	for _, verdict := range Verdicts {
		if verdict == XFail && s.XFail == 0 {
			continue
		}
		v.Counts = append(v.Counts, htmlCount{Verdict: string(verdict), N: s.count(verdict)})
	}
	v.Target = htmlTargetFacts(r)
	for _, id := range r.Stale {
		v.Stale = append(v.Stale, htmlText(id))
	}
	v.Levels = facets(r.Results, func(res *Result) string { return htmlText(res.Level) })
	v.Areas = facets(r.Results, func(res *Result) string { return htmlText(areaOf(res)) })
	v.Versions = facets(r.Results, func(res *Result) string { return htmlText(versionOf(res)) })
	for n, i := range bySeverity(r.Results) {
		v.Results = append(v.Results, newHTMLResult(&r.Results[i], n))
	}
	return v
}

func htmlTargetFacts(r *Report) []htmlFact {
	var f []htmlFact
	add := func(name, value string, code bool) {
		if value != "" {
			value = htmlText(truncateBytes(value, docTranscriptBytes))
			f = append(f, htmlFact{Name: name, Value: value, Code: code, Wide: len(value) > 40})
		}
	}
	add("Command", strings.Join(r.Target.Command, " "), true)
	add("URL", r.Target.URL, true)
	add("Vectors", r.Target.Vectors, false)
	add("Server", serverInfoText(r.Target.ServerInfo), false)
	add("Protocol version", r.Target.ProtocolVersion, true)
	add("Versions judged", strings.Join(r.Target.Versions, ", "), true)
	if v, ok := compactJSON(rawJSON(r.Target.Capabilities)); ok {
		add("Capabilities", v, true)
	}
	if r.Target.Processes > 0 {
		add("Server processes", fmt.Sprint(r.Target.Processes), false)
	}
	add("Tools", r.Target.ToolCallsText(), false)
	add("To call tools", r.Target.ReadonlyText(), false)
	tool := toolName(r)
	if r.Tool.Version != "" {
		tool += " " + r.Tool.Version
	}
	add("Tool", tool, false)
	add("Spec", r.Spec.Text(), false)
	if !r.StartedAt.IsZero() {
		add("Started", r.StartedAt.UTC().Format(time.RFC3339), false)
	}
	if r.DurationMs > 0 {
		add("Duration", seconds(r.DurationMs)+" s", false)
	}
	return f
}

func newHTMLResult(res *Result, n int) htmlResult {
	h := htmlResult{
		Anchor:          fmt.Sprintf("r%d", n),
		ID:              htmlText(res.ID),
		Requirement:     htmlText(res.Requirement),
		Level:           htmlText(res.Level),
		Verdict:         htmlText(string(res.Verdict)),
		Area:            htmlText(areaOf(res)),
		ProtocolVersion: htmlText(versionOf(res)),
		Headline:        htmlText(truncate(firstLine(res.Message), htmlHeadlineLetters)),
		Message:         htmlText(truncateBytes(res.Message, docValueBytes)),
		Spec:            htmlText(res.Spec),
		SpecIsLink:      isHTTPS(res.Spec),
		Sent:            htmlText(truncateBytes(res.Sent, docValueBytes)),
		Got:             htmlText(truncateBytes(res.Got, docValueBytes)),
		Quote:           htmlText(truncateBytes(res.Quote, docValueBytes)),
		Expect:          htmlText(truncateBytes(res.Expect, docValueBytes)),
	}
	for _, l := range res.Labels {
		h.Labels = append(h.Labels, htmlText(l))
	}
	exp, hasExp := prettyJSON(res.Expected)
	act, hasAct := prettyJSON(res.Actual)
	if hasExp {
		h.Expected = htmlText(truncateBytes(exp, docValueBytes))
	}
	if hasAct {
		h.Actual = htmlText(truncateBytes(act, docValueBytes))
	}
	if hasExp && hasAct && h.Expected != h.Actual {
		for _, d := range lineDiff(h.Expected, h.Actual) {
			h.Diff = append(h.Diff, htmlDiffLine{Class: diffClass[d.Op], Text: string(d.Op) + " " + d.Text})
		}
	}
	lines := res.Transcript
	if n := len(lines) - htmlTranscriptLines; n > 0 {
		h.TranscriptCut = n
		lines = lines[n:]
	}
	for _, l := range lines {
		h.Transcript = append(h.Transcript, htmlTranscriptLine{
			AtMs: l.AtMs,
			Dir:  htmlText(l.Dir),
			Text: sanitize(truncateBytes(l.Text, htmlTranscriptBytes), oneLine),
		})
	}
	return h
}

var diffClass = map[diffOp]string{diffSame: "same", diffDel: "del", diffAdd: "add"}

// facets returns the values of f with their counts, every result counted
// once: an empty value too (a skip that names no level), shown as "none",
// so that with every box checked every row shows.
func facets(results []Result, f func(*Result) string) []htmlFacet {
	var out []htmlFacet
	index := map[string]int{}
	for i := range results {
		v := f(&results[i])
		k, ok := index[v]
		if !ok {
			k = len(out)
			index[v] = k
			label := v
			if v == "" {
				label = "none"
			}
			out = append(out, htmlFacet{Value: v, Label: label})
		}
		out[k].N++
	}
	return out
}

// htmlText sanitizes s for display: html/template does the escaping, this
// makes control characters and invalid UTF-8 visible instead of letting the
// browser swallow or replace them.
func htmlText(s string) string {
	return sanitize(s, multiLine)
}

func htmlTexts(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, htmlText(s))
	}
	return out
}

// versionOf is the protocol version a result is about, "any" for one
// judged across versions.
func versionOf(res *Result) string { return versionName(res.ProtocolVersion) }
