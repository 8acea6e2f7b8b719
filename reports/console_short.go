package reports

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// The console of a run that ended early says so in a few lines: the
// reason of an interruption, when it came and what had been judged by
// then; for a server that never got going, what it failed on the way.
// Neither lists the checks left unjudged, which say only that.

// interrupted prints the lines of a run cut short: when, why, what was
// judged before it (and each failure found by then, never hidden), and
// the overall verdict.
func (c console) interrupted(r *Report, s Summary) {
	judged := s.Pass + s.Fail + s.Warn + s.Info + s.Skip + s.XFail
	var counts []string
	for _, v := range []Verdict{Fail, Warn, Pass, Info, Skip, XFail} {
		if n := s.count(v); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, v))
		}
	}
	what := fmt.Sprintf("judged %d of %d checks", judged, len(r.Results))
	if len(r.Results) == 0 {
		what = "nothing was judged"
	}
	if len(counts) > 0 {
		what += " (" + strings.Join(counts, ", ") + ")"
	}
	if s.Error > 0 {
		what += fmt.Sprintf("; %d not judged", s.Error)
	}
	when := ""
	if r.DurationMs > 0 {
		when = " after " + (time.Duration(r.DurationMs) * time.Millisecond).Round(100*time.Millisecond).String()
	}
	verdict := strings.ToUpper(line(s.Verdict, 20))
	c.paraAfter(c.paint(overallColor[s.Verdict], verdict)+" ", len(verdict)+1, fmt.Sprintf("%s%s: %s", r.Interrupted, when, what), 2)
	if failed := failedChecks(r, false); len(failed) > 0 {
		c.para("failed before it: "+strings.Join(failed, ", "), 2)
	}
}

// startFailure prints what a run whose server never got going judged: the
// checks it failed on the way (named, never hidden) and the summary. Why
// it did not start (what happened, the end of its stderr, a hint) is the
// command's to say first, on stderr (StartFailure).
func (c console) startFailure(r *Report, s Summary) {
	if failed := failedChecks(r, true); len(failed) > 0 {
		c.para("failed on the way: "+strings.Join(failed, ", "), 2)
	}
	c.summary(r, s)
}

// failedChecks names each check that failed, once, with its requirement
// when withRequirement.
func failedChecks(r *Report, withRequirement bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, res := range r.Results {
		if res.Verdict != Fail || seen[res.ID] {
			continue
		}
		seen[res.ID] = true
		name := res.ID
		if withRequirement && res.Requirement != "" {
			name += " (" + res.Requirement + ")"
		}
		out = append(out, name)
	}
	return out
}

// WriteStartFailure writes the short block a command prints on stderr
// when the server never got going: what happened, the end of its stderr
// and the hint, each escaped as the console escapes what a server wrote.
func WriteStartFailure(w io.Writer, f *StartFailure) {
	fmt.Fprintf(w, "mcpconform: the server did not start: %s\n", Escape(f.What))
	if len(f.StderrTail) > 0 {
		fmt.Fprintln(w, "  its stderr ended with:")
		for _, l := range f.StderrTail {
			fmt.Fprintf(w, "    %s\n", Escape(l))
		}
	}
	if f.Hint != "" {
		fmt.Fprintf(w, "  hint: %s\n", Escape(f.Hint))
	}
}
