package suite

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
)

// Check is a procedural check: a rule judged in Go over everything a run
// observed, for what cannot be said as one request and its response.
type Check struct {
	ID          string
	Requirement string
	Level       string
	Spec        string
	Area        string
	Description string
	Flags       []string
	// Requires lists capability paths that must be declared; otherwise skip.
	Requires []string
	// Session judges one shared session (once per judged version).
	Session func(s *Session) Finding
	// Run judges the whole run (once, under the first judged version).
	Run func(r *Run) Finding
	// Versions restricts the check to these protocol versions (nil = all).
	Versions []string
}

// Finding is a check's verdict with its evidence.
type Finding struct {
	Verdict  reports.Verdict
	Message  string
	Expected any
	Actual   any
	// Client and range of the transcript excerpt to attach.
	Client   *mockclient.Client
	From, To int
}

func pass(msg string) Finding { return Finding{Verdict: reports.Pass, Message: msg} }
func skip(msg string) Finding { return Finding{Verdict: reports.Skip, Message: msg} }
func info(msg string) Finding { return Finding{Verdict: reports.Info, Message: msg} }

// problems accumulates violations of one check at different severities.
type problems struct {
	fails, warns []string
	actual       any
}

func (p *problems) fail(format string, a ...any) {
	p.fails = append(p.fails, fmt.Sprintf(format, a...))
}
func (p *problems) warn(format string, a ...any) {
	p.warns = append(p.warns, fmt.Sprintf(format, a...))
}

// finding turns the collected problems into a verdict: any failure fails,
// else any warning warns, else it passes with okMsg.
func (p *problems) finding(okMsg string) Finding {
	list := func(l []string) string {
		if len(l) > 6 {
			return strings.Join(l[:6], "; ") + fmt.Sprintf("; (and %d more)", len(l)-6)
		}
		return strings.Join(l, "; ")
	}
	switch {
	case len(p.fails) > 0:
		msg := list(p.fails)
		if len(p.warns) > 0 {
			msg += "; also: " + list(p.warns)
		}
		return Finding{Verdict: reports.Fail, Message: msg, Actual: p.actual}
	case len(p.warns) > 0:
		return Finding{Verdict: reports.Warn, Message: list(p.warns), Actual: p.actual}
	}
	return Finding{Verdict: reports.Pass, Message: okMsg, Actual: p.actual}
}

// Checks returns every procedural check, in report order.
func Checks() []*Check {
	var all []*Check
	all = append(all, lifecycleChecks()...)
	all = append(all, transcriptChecks()...)
	all = append(all, resourceChecks()...)
	all = append(all, moreChecks()...)
	all = append(all, extraChecks()...)
	all = append(all, modernChecks()...)
	all = append(all, processChecks()...)
	return all
}

// JudgeCheck runs one check against a session or the run.
func JudgeCheck(c *Check, r *Run, s *Session) reports.Result {
	res := baseResult(c.ID, c.Requirement, c.Level, c.Spec, c.Area, s.Version(), c.Flags)
	if len(c.Versions) > 0 && !contains(c.Versions, s.Version()) {
		res.Verdict, res.Message = reports.Skip, fmt.Sprintf("applies to protocol versions %s, not %s", strings.Join(c.Versions, ", "), s.Version())
		return res
	}
	for _, cap := range c.Requires {
		if !s.Caps.Has(cap) {
			res.Verdict, res.Message = reports.Skip, fmt.Sprintf("the server does not declare the %s capability", cap)
			return res
		}
	}
	var f Finding
	func() {
		defer func() {
			if p := recover(); p != nil {
				f = Finding{Verdict: reports.Error, Message: fmt.Sprintf("the check itself failed: %v", p)}
			}
		}()
		if c.Session != nil {
			f = c.Session(s)
		} else {
			f = c.Run(r)
		}
	}()
	if f.Verdict == reports.Fail && strings.Contains(f.Message, mockclient.ErrStopped.Error()) {
		// Evidence cut off by an interrupt or --run-timeout judges nothing.
		f.Verdict, f.Message = reports.Error, "not judged: "+f.Message
	}
	res.Verdict, res.Message, res.Expected, res.Actual = f.Verdict, f.Message, f.Expected, f.Actual
	if f.Client == nil && c.Session != nil {
		f.Client, f.From, f.To = s.Client, 0, -1
	}
	if f.Client != nil && (f.Verdict == reports.Fail || f.Verdict == reports.Warn || f.Verdict == reports.Error) {
		res.Transcript = excerpt(f.Client.Transcript(), f.From, f.To)
	}
	return res
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
