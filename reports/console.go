package reports

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// ConsoleOptions controls the console report.
type ConsoleOptions struct {
	// Color adds ANSI colours to the verdict tags and the summary. Set it
	// from ColorEnabled.
	Color bool
	// Verbose lists every check, passes and skips too, and adds the
	// matcher and the transcript excerpt to the details of a problem.
	Verbose bool
}

// Widths of the console layout, in characters: every line fits
// consoleWidth; a value (Sent, Got) wraps over at most consoleValueLines.
const (
	consoleWidth       = 100
	consoleMaxIDWidth  = 40
	consoleMaxReqWidth = 14
	consoleValueLines  = 12
	detailIndent       = "      "
	detailLabelWidth   = 10 // "Expected: "
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

// problem reports whether a result needs the reader: it fails, warns or
// could not be judged.
func problem(v Verdict) bool { return v == Fail || v == Warn || v == Error }

// WriteConsole writes the report for a person at a terminal. By default
// each problem once, however many versions it was seen in: a block per
// check and cause (failures, then errors, then warnings) with its message,
// what was sent and what came back in outline, the stderr of a server
// that died of it, and for a failure the sentence it breaks; checks that
// break one rule in the same words share a block. Then the failures a
// baseline accepts, and the summary. Verbose lists every check (passes,
// skips, records) of the versions judged, each problem in full (the rule,
// what was expected, the matcher and the transcript excerpt), then a
// recap, one line per problem.
func WriteConsole(w io.Writer, r *Report, o ConsoleOptions) error {
	return commandSafe(w, func(w io.Writer) error { return writeConsole(w, r, o) })
}

// commandSafe runs write on a writer that defuses workflow commands in
// every line before it reaches w: the console wraps and pads server text,
// so a command could appear only once lines are laid out.
func commandSafe(w io.Writer, write func(io.Writer) error) error {
	cw := &commandSafeWriter{w: w}
	err := write(cw)
	if cerr := cw.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeConsole(w io.Writer, r *Report, o ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	c := console{w: bw, color: o.Color, verbose: o.Verbose, versions: len(r.Target.Versions)}
	s := summarize(r)

	switch {
	case o.Verbose:
	case r.Interrupted != "":
		c.interrupted(r, s)
		return bw.Flush()
	case r.DidNotStart != nil:
		c.header(r)
		c.startFailure(r, s)
		return bw.Flush()
	}
	c.header(r)
	shown := c.selected(r)
	if !o.Verbose {
		blocks := problemBlocks(shown)
		c.problems(r, blocks)
		c.known(shown)
		if len(blocks) > 0 {
			fmt.Fprintln(c.w)
		}
		c.summary(r, s)
		return bw.Flush()
	}
	idw, reqw := columnWidths(shown)
	for _, g := range groupByArea(shown) {
		c.areaHeading(g)
		for _, res := range g.results {
			if problem(res.Verdict) {
				c.problem(res)
			} else {
				c.result(res, idw, reqw)
			}
		}
		fmt.Fprintln(c.w)
	}
	c.recap(shown, idw, reqw)
	c.summary(r, s)
	return bw.Flush()
}

// WriteQuiet writes what --quiet prints: the verdict and counts on one
// line, what cut the run short if anything did, and one line per failing,
// warning or erroring check.
func WriteQuiet(w io.Writer, r *Report, o ConsoleOptions) error {
	return commandSafe(w, func(w io.Writer) error { return writeQuiet(w, r, o) })
}

func writeQuiet(w io.Writer, r *Report, o ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	c := console{w: bw, color: o.Color, versions: len(r.Target.Versions)}
	s := summarize(r)
	if r.Interrupted != "" {
		c.interrupted(r, s)
		return bw.Flush()
	}
	fmt.Fprintf(c.w, "%s: %d pass, %d fail, %d warn, %d error, %d xfail, %d stale\n",
		c.paint(overallColor[s.Verdict], line(s.Verdict, 20)), s.Pass, s.Fail, s.Warn, s.Error, s.XFail, len(r.Stale))
	for _, why := range r.Incomplete {
		fmt.Fprintf(c.w, "%s %s\n", c.paint(verdictColor[Error], "incomplete:"), line(why, consoleWidth-12))
	}
	var shown []*Result
	for i := range r.Results {
		shown = append(shown, &r.Results[i])
	}
	var first []*Result
	versions := map[*Result]string{}
	for _, b := range problemBlocks(shown) {
		for _, f := range b.findings {
			first = append(first, f.shown())
			if v := versionsText(f.versions(), r.Target.Versions); v != "" {
				versions[f.shown()] = v + ": "
			}
		}
	}
	idw, reqw := columnWidths(first)
	for _, res := range first {
		c.resultIn(res, versions[res], idw, reqw)
	}
	return bw.Flush()
}

type console struct {
	w       *bufio.Writer
	color   bool
	verbose bool
	// versions is how many protocol versions the run judged: with more
	// than one, each line says its version.
	versions int
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

// selected is what the console lists: the problems, or with Verbose every
// result of a version the run judged.
func (c console) selected(r *Report) []*Result {
	judged := map[string]bool{}
	for _, v := range r.Target.Versions {
		judged[v] = true
	}
	var out []*Result
	for i := range r.Results {
		res := &r.Results[i]
		switch {
		case problem(res.Verdict), res.Verdict == XFail:
			// Problems, and the known ones a baseline accepts (one line).
		case !c.verbose:
			continue
		case res.ProtocolVersion != "" && len(judged) > 0 && !judged[res.ProtocolVersion]:
			continue // a version nobody asked about
		}
		out = append(out, res)
	}
	return out
}

// areaGroup is the results of one area, in report order.
type areaGroup struct {
	area    string
	results []*Result
}

func groupByArea(results []*Result) []areaGroup {
	var out []areaGroup
	index := map[string]int{}
	for _, res := range results {
		a := res.Area
		if a == "" {
			a = "other"
		}
		i, ok := index[a]
		if !ok {
			i = len(out)
			index[a] = i
			out = append(out, areaGroup{area: a})
		}
		out[i].results = append(out[i].results, res)
	}
	return out
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
	fmt.Fprintln(c.w, line(head, consoleWidth))
	field := func(label, v string) {
		if v != "" {
			fmt.Fprintf(c.w, "%-10s%s\n", label, line(v, consoleWidth-10))
		}
	}
	field("target:", strings.Join(r.Target.Command, " "))
	field("spec:", r.Spec.Text())
	field("vectors:", r.Target.Vectors)
	field("url:", r.Target.URL)
	field("server:", serverInfoText(r.Target.ServerInfo))
	field("tools:", r.Target.ToolCallsText())
	field("", r.Target.ReadonlyText())
	if len(r.Target.Versions) > 1 {
		field("versions:", strings.Join(r.Target.Versions, ", "))
	} else {
		field("protocol:", r.Target.ProtocolVersion)
	}
	fmt.Fprintln(c.w)
}

func (c console) areaHeading(g areaGroup) {
	counts := map[Verdict]int{}
	for _, res := range g.results {
		counts[res.Verdict]++
	}
	var parts []string
	for _, v := range Verdicts {
		if n := counts[v]; n > 0 && (problem(v) || v == XFail || c.verbose) {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	fmt.Fprintln(c.w, line(fmt.Sprintf("── %s (%s)", g.area, strings.Join(parts, ", ")), consoleWidth))
}

// tag is the fixed-width verdict column.
func (c console) tag(v Verdict) string {
	t := strings.ToUpper(line(string(v), 5))
	pad := strings.Repeat(" ", max(0, 5-len(t)))
	return c.paint(verdictColor[v], t) + pad
}

// result prints a result on one line: verdict, id, requirement, and as
// much of the message as fits (with the version, when the run judged
// several).
func (c console) result(res *Result, idw, reqw int) {
	v := ""
	if c.versions > 1 && res.ProtocolVersion != "" {
		v = res.ProtocolVersion + " "
	}
	c.resultIn(res, v, idw, reqw)
}

// resultIn prints a result on one line as result does, its message led
// by lead (the versions it names).
func (c console) resultIn(res *Result, lead string, idw, reqw int) {
	id := line(res.ID, consoleMaxIDWidth)
	req := line(res.Requirement, consoleMaxReqWidth)
	room := max(consoleWidth-(6+idw+1+reqw+1), 20)
	msg := lead + firstLine(shorten(res.Message))
	out := fmt.Sprintf("%s %s %s %s", c.tag(res.Verdict), pad(id, idw), pad(req, reqw), line(msg, room))
	fmt.Fprintln(c.w, strings.TrimRight(out, " "))
}

// problem prints a failing, warning or erroring result: its heading
// line, the whole message, then the details.
func (c console) problem(res *Result) {
	head := []string{line(res.ID, consoleWidth-6)}
	if res.Requirement != "" {
		head = append(head, line(res.Requirement, consoleMaxReqWidth))
	}
	if res.ProtocolVersion != "" {
		head = append(head, line(res.ProtocolVersion, 12))
	}
	fmt.Fprintf(c.w, "%s %s\n", c.tag(res.Verdict), strings.Join(head, " · "))
	c.wrapped("", res.Message, 8)
	c.details(res)
}

// details says what a reader needs to act on a problem: what was sent,
// what came back (or happened instead), the rule broken, and what was
// expected; Verbose adds the matcher, the value judged and the
// transcript excerpt.
func (c console) details(res *Result) {
	if res.Sent != "" {
		c.value("Sent:", res.Sent)
	}
	if res.Got != "" {
		c.value("Got:", res.Got)
	}
	if res.Requirement != "" {
		rule := res.Requirement
		if res.Level != "" {
			rule += " (" + res.Level
			if res.ProtocolVersion != "" {
				rule += " in " + res.ProtocolVersion
			}
			rule += ")"
		}
		if res.Quote != "" {
			rule += ": “" + res.Quote + "”"
		}
		c.wrapped("Rule:", rule, 4)
	}
	if res.Spec != "" {
		// Whole, so that a terminal can still open it.
		fmt.Fprintf(c.w, "%s%-*s%s\n", detailIndent, detailLabelWidth, "", sanitize(truncate(res.Spec, 300), oneLine))
	}
	if res.Expect != "" {
		c.wrapped("Expected:", res.Expect, 3)
	}
	if c.verbose || (res.Sent == "" && res.Got == "") {
		if v, ok := compactJSON(res.Expected); ok {
			c.value("Matcher:", v)
		}
		if v, ok := compactJSON(res.Actual); ok {
			c.value("Actual:", v)
		}
	}
	if c.verbose {
		for _, tl := range res.Transcript {
			c.value(transcriptArrow(tl.Dir), tl.Text)
		}
	}
}

// transcriptArrow labels a transcript line by direction.
func transcriptArrow(dir string) string {
	switch dir {
	case "send":
		return "  >"
	case "recv":
		return "  <"
	case "stderr":
		return "  !"
	}
	return "  #"
}

// value prints a labelled value, wrapped at the console's width over at
// most consoleValueLines lines (then cut, saying how much was left out).
func (c console) value(label, v string) {
	c.wrapRunes(label, sanitize(v, oneLine), consoleValueLines)
}

// wrapped prints text wrapped at word boundaries within the console's
// width, each of its lines a paragraph, at most n lines in all. With no
// label the text starts at the indent.
func (c console) wrapped(label, text string, n int) {
	lead := detailIndent
	if label != "" || text == "" {
		lead = fmt.Sprintf("%s%-*s", detailIndent, detailLabelWidth, "")
	}
	width := consoleWidth - utf8.RuneCountInString(lead)
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		lines = append(lines, wordWrap(sanitize(para, oneLine), width, width)...)
	}
	lines = capLines(lines, n)
	for i, l := range lines {
		prefix := lead
		if i == 0 && label != "" {
			prefix = fmt.Sprintf("%s%-*s", detailIndent, detailLabelWidth, label)
		}
		fmt.Fprintf(c.w, "%s%s\n", prefix, truncate(l, width))
	}
}

// para prints text as a paragraph of its own, wrapped at word boundaries
// within the console's width, at most n lines, the lines after the first
// indented.
func (c console) para(text string, n int) { c.paraAfter("", 0, text, n) }

// paraAfter prints a paragraph as para does, its first line led by lead
// (the writer's own text, colour included), which takes width columns.
func (c console) paraAfter(lead string, width int, text string, n int) {
	lines := capLines(wordWrap(sanitize(text, oneLine), consoleWidth-width, consoleWidth-2), n)
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintln(c.w, lead+truncate(l, consoleWidth-width))
		} else {
			fmt.Fprintln(c.w, "  "+truncate(l, consoleWidth-2))
		}
	}
}

// wordWrap breaks text into lines at its spaces, the first line at most
// first characters wide and the others rest; a word longer than a line
// stands alone on its line.
func wordWrap(text string, first, rest int) []string {
	var lines []string
	cur, width := "", first
	for _, w := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur, width = w, rest
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// capLines keeps at most n lines, the last one holding the rest (to be
// cut when printed).
func capLines(lines []string, n int) []string {
	if len(lines) > n {
		return append(lines[:n-1], strings.Join(lines[n-1:], " "))
	}
	return lines
}

// wrapRunes cuts an already sanitized value into lines of the console's
// width, at most n of them; the last says how much was left out.
func (c console) wrapRunes(label, v string, n int) {
	width := consoleWidth - len(detailIndent) - detailLabelWidth
	r := []rune(v)
	for i := 0; len(r) > 0; i++ {
		k := min(width, len(r))
		tail := ""
		if i == n-1 && len(r) > width {
			k = width - 24 // room for the tail, whatever its number
			tail = fmt.Sprintf("… (%d bytes more)", len(string(r[k:])))
		}
		fmt.Fprintf(c.w, "%s%-*s%s%s\n", detailIndent, detailLabelWidth, label, string(r[:k]), tail)
		if tail != "" {
			return
		}
		r = r[k:]
		label = ""
	}
}

// known lists the failures a baseline accepts, on as few lines as they
// take.
func (c console) known(shown []*Result) {
	var ids []string
	for _, res := range shown {
		if res.Verdict == XFail && !slices.Contains(ids, res.ID) {
			ids = append(ids, res.ID)
		}
	}
	if len(ids) > 0 {
		c.paraAfter(c.tag(XFail)+" ", 6, "known failures (baseline): "+strings.Join(ids, ", "), 3)
	}
}

// recap lists the problems again, one line each, after the details.
func (c console) recap(shown []*Result, idw, reqw int) {
	var probs []*Result
	for _, res := range shown {
		if problem(res.Verdict) {
			probs = append(probs, res)
		}
	}
	if len(probs) == 0 {
		return
	}
	fmt.Fprintf(c.w, "%d to look at:\n", len(probs))
	for _, res := range probs {
		c.result(res, idw, reqw)
	}
	fmt.Fprintln(c.w)
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
	fmt.Fprintf(c.w, "%d checks: %s — %s\n", len(r.Results), strings.Join(parts, ", "),
		c.paint(overallColor[s.Verdict], strings.ToUpper(line(s.Verdict, 20))))
	if len(r.Stale) > 0 {
		fmt.Fprintf(c.w, "%s: these checks pass now; remove them from the baseline:\n",
			c.paint(verdictColor[Fail], fmt.Sprintf("stale baseline entries (%d)", len(r.Stale))))
		for _, id := range r.Stale {
			fmt.Fprintf(c.w, "  %s\n", line(id, consoleWidth-2))
		}
	}
	for _, why := range r.Incomplete {
		fmt.Fprintf(c.w, "%s %s\n", c.paint(verdictColor[Error], "incomplete:"), line(why, consoleWidth-12))
	}
	if r.Interrupted != "" {
		fmt.Fprintf(c.w, "%s %s\n", c.paint(verdictColor[Error], "interrupted:"), line(r.Interrupted, consoleWidth-13))
	}
}

// columnWidths returns the widths of the id and requirement columns: the
// longest value, capped so one long id does not push every message off screen.
func columnWidths(results []*Result) (idw, reqw int) {
	for _, res := range results {
		idw = max(idw, utf8.RuneCountInString(line(res.ID, consoleMaxIDWidth)))
		reqw = max(reqw, utf8.RuneCountInString(line(res.Requirement, consoleMaxReqWidth)))
	}
	return idw, reqw
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}
