package reports

import (
	"fmt"
	"io"
	"strings"
)

// WriteFleetJUnit writes the fleet report as JUnit XML: one <testsuite>
// per target, named by its id, holding the testcases its own junit.xml
// holds (classname mcpconform.ID.AREA), with the target's class, reason
// and exit code as properties. A setup-error target is one testcase,
// "setup", in <error type="setup-error">: never a <failure>, for it is no
// violation. What was inferred rather than observed is a property of its
// own, "inferred".
func WriteFleetJUnit(w io.Writer, f *Fleet) error {
	doc := &junitSuites{Name: "mcpconform fleet", Time: seconds(f.DurationMs)}
	for i := range f.Targets {
		doc.Suites = append(doc.Suites, fleetSuite(&f.Targets[i]))
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	return encodeJUnit(w, doc)
}

// fleetSuite is one target's testsuite: its report's cases, all areas in
// one suite.
func fleetSuite(t *FleetTarget) junitSuite {
	s := junitSuite{Name: xmlText(t.ID), Time: seconds(t.DurationMs)}
	props := []junitProperty{
		{Name: "class", Value: string(t.Class)},
		{Name: "exitCode", Value: fmt.Sprint(t.Class.ExitCode())},
		{Name: "reason", Value: xmlText(truncateBytes(t.Reason, docTranscriptBytes))},
	}
	for _, inf := range t.Inferred {
		props = append(props, junitProperty{Name: "inferred", Value: xmlText(truncateBytes(inf, docTranscriptBytes))})
	}
	for _, n := range t.Notes {
		props = append(props, junitProperty{Name: "note", Value: xmlText(truncateBytes(n, docTranscriptBytes))})
	}
	var inner *junitSuites
	if t.Report != nil {
		if !t.Report.StartedAt.IsZero() {
			s.Timestamp = t.Report.StartedAt.UTC().Format("2006-01-02T15:04:05")
		}
		if p := junitTargetProperties(t.Report); p != nil {
			props = append(props, p.Properties...)
		}
		if t.Class != ClassSetupError {
			inner = junitDocument(t.Report)
		}
	}
	s.Properties = &junitProperties{Properties: props}
	if inner != nil {
		for _, is := range inner.Suites {
			for _, c := range is.Cases {
				c.Classname = "mcpconform." + xmlText(t.ID) + strings.TrimPrefix(c.Classname, "mcpconform")
				s.Cases = append(s.Cases, c)
			}
			s.Tests += is.Tests
			s.Failures += is.Failures
			s.Errors += is.Errors
			s.Skipped += is.Skipped
		}
	}
	if t.Class == ClassSetupError || t.Report == nil || t.Report.DidNotStart != nil {
		// A target that never got going is one error, not a pass of
		// nothing.
		name, typ := "setup", string(t.Class)
		if t.Class != ClassSetupError {
			name, typ = "start", "did-not-start"
		}
		body := t.Reason + "\n"
		if t.Report != nil && t.Report.DidNotStart != nil {
			for _, l := range t.Report.DidNotStart.StderrTail {
				body += "  " + l + "\n"
			}
		}
		s.Cases = append(s.Cases, junitCase{
			Name: name, Classname: "mcpconform." + xmlText(t.ID) + "." + name, Time: seconds(0),
			Error: &junitProblem{Message: xmlText(truncate(firstLine(t.Reason), junitMessageLetters)), Type: typ, Body: xmlText(body)},
		})
		s.Tests++
		s.Errors++
	}
	return s
}
