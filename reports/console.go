package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ConsoleOptions controls the console report.
type ConsoleOptions struct {
	// Color adds ANSI colours to the verdict tags and the summary. Set it
	// from ColorEnabled.
	Color bool
	// Verbose also prints the details (Expected, Actual, spec link) of
	// results that are not fail, warn or error.
	Verbose bool
}

// Widths of the console layout, in characters.
const (
	consoleMessageWidth = 160
	consoleValueWidth   = 160
	consoleMaxIDWidth   = 44
	consoleMaxReqWidth  = 16
)

// ANSI SGR codes per verdict. Only the writer's own bytes ever carry an
// escape character; every string from the report is sanitized first.
var verdictColor = map[Verdict]string{
	Pass:  "32",   // green
	Fail:  "1;31", // bold red
	Warn:  "33",   // yellow
	Info:  "36",   // cyan
	Skip:  "2",    // dim
	Error: "1;35", // bold magenta
	XFail: "34",   // blue
}

var overallColor = map[string]string{
	Conformant:    "1;32",
	Nonconformant: "1;31",
	ErrorVerdict:  "1;35",
}

// WriteConsole writes the report for a person at a terminal: one line per
// check (verdict, check id, requirement, message), Expected/Actual and the
// spec link under each fail, warn and error, then a summary line with the
// counts and the overall verdict.
func WriteConsole(w io.Writer, r *Report, o ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	c := console{w: bw, color: o.Color}
	s := summarize(r)

	c.header(r)
	idw, reqw := columnWidths(r.Results)
	for i := range r.Results {
		res := &r.Results[i]
		c.result(res, idw, reqw)
		if o.Verbose || res.Verdict == Fail || res.Verdict == Warn || res.Verdict == Error {
			c.details(res)
		}
	}
	c.summary(r, s)
	return bw.Flush()
}

type console struct {
	w     *bufio.Writer
	color bool
}

func (c console) paint(code, s string) string {
	if !c.color || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line sanitizes s to one terminal line of at most n characters.
func line(s string, n int) string {
	return truncate(sanitize(truncate(s, n), oneLine), n)
}

func (c console) header(r *Report) {
	name := r.Tool.Name
	if name == "" {
		name = "mcpconform"
	}
	head := name
	if r.Tool.Version != "" {
		head += " " + r.Tool.Version
	}
	fmt.Fprintln(c.w, line(head, consoleMessageWidth))
	if len(r.Target.Command) > 0 {
		fmt.Fprintf(c.w, "target:   %s\n", line(strings.Join(r.Target.Command, " "), consoleMessageWidth))
	}
	if si := serverInfoText(r.Target.ServerInfo); si != "" {
		fmt.Fprintf(c.w, "server:   %s\n", line(si, consoleMessageWidth))
	}
	if r.Target.ProtocolVersion != "" {
		fmt.Fprintf(c.w, "protocol: %s\n", line(r.Target.ProtocolVersion, consoleMessageWidth))
	}
	fmt.Fprintln(c.w)
}

// tag is the fixed-width verdict column.
func (c console) tag(v Verdict) string {
	t := strings.ToUpper(line(string(v), 5))
	pad := strings.Repeat(" ", max(0, 5-len(t)))
	return c.paint(verdictColor[v], t) + pad
}

func (c console) result(res *Result, idw, reqw int) {
	id := line(res.ID, consoleMaxIDWidth)
	req := line(res.Requirement, consoleMaxReqWidth)
	msg := line(firstLine(res.Message), consoleMessageWidth)
	out := fmt.Sprintf("%s %s %s %s", c.tag(res.Verdict), pad(id, idw), pad(req, reqw), msg)
	fmt.Fprintln(c.w, strings.TrimRight(out, " "))
}

func (c console) details(res *Result) {
	const indent = "      "
	if v, ok := compactJSON(res.Expected); ok {
		fmt.Fprintf(c.w, "%sExpected: %s\n", indent, line(v, consoleValueWidth))
	}
	if v, ok := compactJSON(res.Actual); ok {
		fmt.Fprintf(c.w, "%sActual:   %s\n", indent, line(v, consoleValueWidth))
	}
	if res.Spec != "" {
		fmt.Fprintf(c.w, "%sSpec:     %s\n", indent, line(res.Spec, consoleValueWidth))
	}
}

func (c console) summary(r *Report, s Summary) {
	var parts []string
	for _, v := range Verdicts {
		n := s.count(v)
		if v == XFail && n == 0 {
			continue
		}
		text := fmt.Sprintf("%d %s", n, v)
		if n > 0 {
			text = c.paint(verdictColor[v], text)
		}
		parts = append(parts, text)
	}
	fmt.Fprintln(c.w)
	fmt.Fprintf(c.w, "%d checks: %s — %s\n", len(r.Results), strings.Join(parts, ", "),
		c.paint(overallColor[s.Verdict], strings.ToUpper(line(s.Verdict, 20))))
	if len(r.Stale) > 0 {
		fmt.Fprintf(c.w, "%s: these checks pass now; remove them from the baseline:\n",
			c.paint(verdictColor[Fail], fmt.Sprintf("stale baseline entries (%d)", len(r.Stale))))
		for _, id := range r.Stale {
			fmt.Fprintf(c.w, "  %s\n", line(id, consoleMessageWidth))
		}
	}
	if r.Interrupted != "" {
		fmt.Fprintf(c.w, "%s %s\n", c.paint(verdictColor[Error], "interrupted:"), line(r.Interrupted, consoleMessageWidth))
	}
}

// columnWidths returns the widths of the id and requirement columns: the
// longest value, capped so one long id does not push every message off screen.
func columnWidths(results []Result) (idw, reqw int) {
	for i := range results {
		idw = max(idw, utf8.RuneCountInString(line(results[i].ID, consoleMaxIDWidth)))
		reqw = max(reqw, utf8.RuneCountInString(line(results[i].Requirement, consoleMaxReqWidth)))
	}
	return idw, reqw
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}
