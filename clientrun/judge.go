package clientrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
)

// JudgeFunc judges one scenario run of a client run: the client checks
// (checks.JudgeScenario, which the command passes in, so that this package
// does not depend on the suite).
type JudgeFunc func(run *evidence.ClientRun, sc *evidence.ScenarioRun) []reports.Result

// Status is the class of a client run's ending, as the command's exit
// codes carry it (the same as server mode: reports.Status).
type Status = reports.Status

// The statuses a client run ends in.
const (
	Conformant    = reports.StatusConformant
	Nonconformant = reports.StatusNonconformant
	NotStarted    = reports.StatusNotStarted
	Incomplete    = reports.StatusIncomplete
)

// ReportOptions say how to turn a judged run into a report.
type ReportOptions struct {
	Tool string
	// Strict makes a warning fail the run, as in server mode.
	Strict bool
	// Keep, when set, decides which results the report keeps (--only,
	// --skip).
	Keep func(reports.Result) bool
}

// Report judges every scenario run of run and returns the report and the
// status its exit code carries. Conformance runs decide the verdict;
// interoperability and resilience runs are reported apart (their results
// carry the label "class:..."): only a MUST broken in them counts, their
// warnings are kept as information, and each adds one result saying
// whether the client completed (interoperability) or coped (resilience).
// A run no client process could even start is NotStarted.
func Report(run *evidence.ClientRun, judge JudgeFunc, o ReportOptions) (*reports.Report, Status) {
	rep := reports.NewReport(o.Tool, run.Started, run.Duration, run.Interrupted, o.Strict)
	rep.Target = reports.Target{Command: run.Command, Transport: run.Transport}
	started := 0
	var startErr string
	for _, sc := range run.Scenarios {
		if sc.Client.StartError == "" {
			started++
		} else if startErr == "" {
			startErr = sc.Client.StartError
		}
		results := judge(run, sc)
		if sc.Class != evidence.ClassConformance {
			results = apart(sc, results)
		}
		for i := range results {
			if v := results[i].Verdict; v != reports.Pass && v != reports.Skip {
				// The console and the other writers list results by
				// check: the message says which run a problem is from.
				results[i].Message = runName(sc) + ": " + results[i].Message
			}
		}
		for _, r := range results {
			if o.Keep == nil || o.Keep(r) {
				rep.Results = append(rep.Results, r)
			}
			if r.ProtocolVersion != "" && !slices.Contains(rep.Target.Versions, r.ProtocolVersion) {
				rep.Target.Versions = append(rep.Target.Versions, r.ProtocolVersion)
			}
		}
		rep.Target.Processes += len(sc.Spawns)
	}
	slices.Sort(rep.Target.Versions)
	rep.Spec = reports.SpecOf(rep.Target.Versions)
	if started == 0 && len(run.Scenarios) > 0 && run.Interrupted == "" {
		rep.DidNotStart = &reports.StartFailure{Stage: "start", What: "the client could not be started: " + startErr,
			Hint: "check the command after --: it is run as given, from the current directory"}
	}
	status := rep.Settle()
	switch {
	case rep.Interrupted != "":
		// Cut short, a client run is incomplete whatever it found.
		rep.Summary.Verdict = reports.ErrorVerdict
		status = Incomplete
	case rep.DidNotStart != nil && rep.Summary.Fail == 0:
		status = NotStarted
	}
	return rep, status
}

// runName names a scenario run in a message: "scenario initialize", with
// the variant or fault of an interoperability or resilience run.
func runName(sc *evidence.ScenarioRun) string {
	s := "scenario " + sc.Name
	switch {
	case sc.Variant != "":
		s += ", legal variant " + sc.Variant
	case sc.Fault != "":
		s += ", fault " + sc.Fault
	}
	return s
}

// apart turns the results of an interoperability or resilience run into
// results reported apart: a MUST broken stays a failure (the client broke
// it, whatever server it met) unless the fault garbles the server's lines
// (then the check may have misread the server), a SHOULD broken is kept
// as information, and one result says whether the client completed the
// scenario or coped.
func apart(sc *evidence.ScenarioRun, results []reports.Result) []reports.Result {
	against := "the legal variant " + sc.Variant
	if sc.Class == evidence.ClassResilience {
		against = "the fault " + sc.Fault
	}
	garbled := sc.Fault != "" && garbles(sc.Fault)
	out := make([]reports.Result, 0, len(results)+1)
	for _, r := range results {
		// Their own section in every writer that groups by area (the
		// verbose console, JUnit's classname, the HTML facets).
		r.Area = sc.Class
		switch {
		case r.Verdict == reports.Warn:
			r.Verdict = reports.Info
			r.Message = fmt.Sprintf("%s (a SHOULD: reported apart, in a %s run)", r.Message, sc.Class)
		case r.Verdict == reports.Fail && garbled:
			r.Verdict = reports.Info
			r.Message = fmt.Sprintf("%s (not judged: the fault %s breaks the framing of the server's own lines, so what it handed out is not all on record)", r.Message, sc.Fault)
		}
		out = append(out, r)
	}
	return append(out, classResult(sc, against))
}

// classResult says whether the client completed its scenario against a
// legal variant (a client that gives up on a legal server has an
// interoperability bug), or coped with a fault (ended on its own, within
// its deadline, whatever its exit status).
func classResult(sc *evidence.ScenarioRun, against string) reports.Result {
	c := sc.Client
	res := reports.Result{
		Area: sc.Class, ProtocolVersion: sc.Version,
		Labels: []string{"area:" + sc.Class, "scenario:" + sc.Name, "class:" + sc.Class},
	}
	how := "ended with " + exitText(c)
	if sc.Class == evidence.ClassInteroperability {
		res.ID = "client-interop-completes"
		res.Labels = append(res.Labels, "variant:"+sc.Variant)
		res.Expect = "the client completes the scenario (exit status 0) against a legal server"
		res.Verdict = reports.Info
		res.Message = fmt.Sprintf("the client did not complete the scenario: it %s%s", how, tail(c.StderrTail))
		if c.Exit != nil && c.Exit.Code == 0 && c.Exit.Signal == "" {
			res.Verdict, res.Message = reports.Pass, fmt.Sprintf("the client completed %s against %s", sc.Name, against)
		}
		if c.Exit != nil && c.Exit.Code == 2 && c.Exit.Signal == "" {
			res.Verdict = reports.Skip
			res.Message = "the client declined the scenario (exit status 2)"
		}
		return res
	}
	res.ID = "client-resilience-copes"
	res.Labels = append(res.Labels, "fault:"+sc.Fault)
	res.Expect = "the client ends on its own within its deadline when the server misbehaves"
	if c.Exit != nil {
		res.Verdict, res.Message = reports.Pass, fmt.Sprintf("the client coped with %s: it %s", against, how)
	} else {
		res.Verdict, res.Message = reports.Info, "the client did not cope: "+exitText(c)
	}
	return res
}

// exitText says how a client process ended.
func exitText(c evidence.ClientProcess) string {
	switch {
	case c.StartError != "":
		return "could not be started: " + c.StartError
	case c.Exit == nil && c.Stopped != "":
		return "the harness stopped it: " + c.Stopped
	case c.Exit == nil:
		return "no exit recorded"
	case c.Exit.Signal != "":
		return "killed by " + c.Exit.Signal
	}
	return fmt.Sprintf("exit status %d", c.Exit.Code)
}

// tail quotes the last stderr line, briefly.
func tail(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 160 {
		last = last[:160] + "..."
	}
	return fmt.Sprintf(" (stderr: %q)", last)
}
