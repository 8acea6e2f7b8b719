package reports

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Caps that keep one hostile value from swelling a document.
const (
	docValueBytes       = 64 << 10 // one Expected, Actual or message
	docTranscriptLines  = 40       // transcript lines shown per check (the last ones)
	docTranscriptBytes  = 2000     // one transcript line
	junitMessageLetters = 300      // the message attribute of <failure> and friends
)

// The JUnit XML document, in the shape the Jenkins/Ant schema describes:
// testsuites > testsuite > testcase > failure|error|skipped|system-out.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Timestamp  string           `xml:"timestamp,attr,omitempty"`
		Properties *junitProperties `xml:"properties"`
		Cases      []junitCase      `xml:"testcase"`
	}
	junitProperties struct {
		Properties []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
		Skipped   *junitSkipped `xml:"skipped"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// WriteJUnit writes the report as JUnit XML for CI test tabs: one testsuite
// per area, one testcase per result. fail maps to <failure>, error to
// <error>, skip to <skipped>; warn, info and xfail count as passed with
// their message in <system-out>, except that warn is a <failure> of type
// "warning" when r.Strict (warnings fail such a run). Stale baseline
// entries are failed testcases of a testsuite named "baseline".
//
// Every string is sanitized before encoding/xml escapes it, so the output is
// well-formed XML 1.0 whatever the server sent: characters XML forbids
// (NUL and other C0 controls, U+FFFE, U+FFFF) and bytes that are not UTF-8
// show as visible escapes. No CDATA is used, so "]]>" needs no care.
func WriteJUnit(w io.Writer, r *Report) error {
	return commandSafe(w, func(w io.Writer) error { return writeJUnit(w, r) })
}

func writeJUnit(w io.Writer, r *Report) error {
	return encodeJUnit(w, junitDocument(r))
}

// encodeJUnit writes a JUnit document with its XML header.
func encodeJUnit(w io.Writer, doc *junitSuites) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding junit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

func junitDocument(r *Report) *junitSuites {
	doc := &junitSuites{
		Name: xmlText(toolName(r)),
		Time: seconds(r.DurationMs),
	}
	props := junitTargetProperties(r)
	timestamp := ""
	if !r.StartedAt.IsZero() {
		timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	index := map[string]int{}
	spent := map[int]int64{} // per suite: the sum of its cases' times
	for i := range r.Results {
		res := &r.Results[i]
		area := xmlText(areaOf(res))
		k, ok := index[area]
		if !ok {
			k = len(doc.Suites)
			index[area] = k
			doc.Suites = append(doc.Suites, junitSuite{
				Name: area, Time: seconds(0), Timestamp: timestamp, Properties: props,
			})
		}
		s := &doc.Suites[k]
		tc := junitTestCase(res, area, r.Strict)
		spent[k] += max(res.DurationMs, 0)
		s.Time = seconds(spent[k])
		s.Tests++
		switch {
		case tc.Failure != nil:
			s.Failures++
		case tc.Error != nil:
			s.Errors++
		case tc.Skipped != nil:
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	if len(r.Stale) > 0 {
		// A stale baseline entry fails the run, so CI must show it as a
		// failed test, not only in a summary nobody opens.
		s := junitSuite{Name: "baseline", Time: seconds(0), Timestamp: timestamp, Properties: props}
		for _, key := range r.Stale {
			s.Cases = append(s.Cases, junitCase{
				Name:      xmlText(key),
				Classname: "mcpconform.baseline",
				Time:      seconds(0),
				Failure: &junitProblem{
					Message: "stale baseline entry: this check passes now",
					Type:    "stale-baseline",
					Body:    xmlText(key + " is listed in the baseline as a known failure but no longer fails; remove it from the baseline.\n"),
				},
			})
			s.Tests++
			s.Failures++
		}
		doc.Suites = append(doc.Suites, s)
	}
	if whys := runProblems(r); len(whys) > 0 {
		// A run that could not judge everything is an error in CI too, not
		// only a property nobody opens.
		s := junitSuite{Name: "run", Time: seconds(0), Timestamp: timestamp, Properties: props}
		for _, why := range whys {
			s.Cases = append(s.Cases, junitCase{
				Name:      xmlText(why.name),
				Classname: "mcpconform.run",
				Time:      seconds(0),
				Error:     &junitProblem{Message: xmlText(firstLine(why.text)), Type: why.name, Body: xmlText(why.text + "\n")},
			})
			s.Tests++
			s.Errors++
		}
		doc.Suites = append(doc.Suites, s)
	}
	if len(doc.Suites) == 0 {
		// An empty run (the target never started) still yields a suite, so CI
		// shows something rather than "no test results".
		doc.Suites = append(doc.Suites, junitSuite{Name: "general", Time: seconds(0), Timestamp: timestamp, Properties: props})
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	return doc
}

func junitTestCase(res *Result, area string, strict bool) junitCase {
	name := res.ID
	if res.ProtocolVersion != "" {
		// The same check runs once per version judged: the name tells
		// the runs apart in a CI test tab.
		name += " [" + res.ProtocolVersion + "]"
	}
	tc := junitCase{
		Name:      xmlText(name),
		Classname: "mcpconform." + area,
		Time:      seconds(res.DurationMs),
	}
	msg := xmlText(truncate(firstLine(res.Message), junitMessageLetters))
	switch res.Verdict {
	case Fail:
		tc.Failure = &junitProblem{Message: msg, Type: xmlText(res.Requirement), Body: problemBody(res)}
		tc.SystemOut = transcriptExcerpt(res.Transcript)
	case Error:
		tc.Error = &junitProblem{Message: msg, Type: xmlText(res.Requirement), Body: problemBody(res)}
		tc.SystemOut = transcriptExcerpt(res.Transcript)
	case Warn:
		if !strict {
			tc.SystemOut = "WARN: " + problemBody(res)
			break
		}
		tc.Failure = &junitProblem{Message: msg, Type: "warning", Body: "A warning fails this run (--strict).\n" + problemBody(res)}
		tc.SystemOut = transcriptExcerpt(res.Transcript)
	case Skip:
		tc.Skipped = &junitSkipped{Message: msg}
	case Pass:
	default: // warn, info, xfail and anything unknown: passed, but worth reading
		tc.SystemOut = strings.ToUpper(xmlText(string(res.Verdict))) + ": " + problemBody(res)
	}
	return tc
}

// problemBody is the text under a failure: the whole message, the
// requirement, Expected, Actual and the spec link.
func problemBody(res *Result) string {
	var b strings.Builder
	b.WriteString(truncateBytes(res.Message, docValueBytes))
	b.WriteString("\n\n")
	if res.Sent != "" {
		fmt.Fprintf(&b, "Sent: %s\n", truncateBytes(res.Sent, docValueBytes))
	}
	if res.Got != "" {
		fmt.Fprintf(&b, "Got: %s\n", truncateBytes(res.Got, docValueBytes))
	}
	fmt.Fprintf(&b, "Rule: %s (%s)", res.Requirement, res.Level)
	if res.ProtocolVersion != "" {
		fmt.Fprintf(&b, " in protocol version %s", res.ProtocolVersion)
	}
	b.WriteString("\n")
	if res.Quote != "" {
		fmt.Fprintf(&b, "  \"%s\"\n", truncateBytes(res.Quote, docValueBytes))
	}
	if res.Spec != "" {
		fmt.Fprintf(&b, "Spec: %s\n", res.Spec)
	}
	if res.Expect != "" {
		fmt.Fprintf(&b, "Expected: %s\n", truncateBytes(res.Expect, docValueBytes))
	}
	if v, ok := prettyJSON(res.Expected); ok {
		fmt.Fprintf(&b, "Matcher:\n%s\n", truncateBytes(v, docValueBytes))
	}
	if v, ok := prettyJSON(res.Actual); ok {
		fmt.Fprintf(&b, "Actual:\n%s\n", truncateBytes(v, docValueBytes))
	}
	return xmlText(b.String())
}

// transcriptExcerpt renders the last lines of a check's transcript.
func transcriptExcerpt(lines []TranscriptLine) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	if n := len(lines) - docTranscriptLines; n > 0 {
		fmt.Fprintf(&b, "[%d earlier transcript lines left out]\n", n)
		lines = lines[n:]
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "%6dms %-6s %s\n", l.AtMs, sanitize(l.Dir, oneLine), sanitize(truncateBytes(l.Text, docTranscriptBytes), oneLine))
	}
	return xmlText(b.String())
}

func junitTargetProperties(r *Report) *junitProperties {
	var p []junitProperty
	add := func(name, value string) {
		if value != "" {
			p = append(p, junitProperty{Name: name, Value: xmlText(truncateBytes(value, docTranscriptBytes))})
		}
	}
	add("command", strings.Join(r.Target.Command, " "))
	add("url", r.Target.URL)
	add("vectors", r.Target.Vectors)
	add("server", serverInfoText(r.Target.ServerInfo))
	add("protocolVersion", r.Target.ProtocolVersion)
	add("toolVersion", r.Tool.Version)
	if r.Spec != nil {
		add("specCommit", r.Spec.Commit)
		add("schemas", strings.Join(r.Spec.Schemas, " "))
	}
	add("verdict", summarize(r).Verdict)
	if len(p) == 0 {
		return nil
	}
	return &junitProperties{Properties: p}
}

// xmlText makes s safe for XML 1.0 text and attributes: control characters
// and invalid UTF-8 become visible escapes (tab and newline stay).
func xmlText(s string) string {
	return sanitize(s, multiLine)
}

func toolName(r *Report) string {
	if r.Tool.Name != "" {
		return r.Tool.Name
	}
	return "mcpconform"
}

func seconds(ms int64) string {
	ms = max(ms, 0)
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

type runProblem struct{ name, text string }

// runProblems lists why a run could not judge everything: it was cut
// short, or the harness stopped a process past one of its budgets.
func runProblems(r *Report) []runProblem {
	var out []runProblem
	if r.Interrupted != "" {
		out = append(out, runProblem{"interrupted", r.Interrupted})
	}
	for _, why := range r.Incomplete {
		out = append(out, runProblem{"incomplete", why})
	}
	return out
}
