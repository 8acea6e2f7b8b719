package reports

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The default console shows each problem once: a finding is one check and
// one cause, under every version it was seen in; findings of several checks
// that break the same rule in the same words (the same probe answered the
// same way) share one block, a line per check.

// finding is the results of one check that say the same thing, one per
// version.
type finding struct {
	results []*Result // in report order
}

// shown is the result the console prints: the one of the newest version.
func (f *finding) shown() *Result { return f.results[len(f.results)-1] }

func (f *finding) versions() []string {
	var vs []string
	for _, r := range f.results {
		if r.ProtocolVersion != "" && !slices.Contains(vs, r.ProtocolVersion) {
			vs = append(vs, r.ProtocolVersion)
		}
	}
	return vs
}

// block is what the console prints as one: findings with the same verdict,
// requirement, versions and message (up to what came back, "; got …").
type block struct {
	findings []*finding
}

func (b *block) first() *Result { return b.findings[0].shown() }

// Texts that differ between versions of one finding and say nothing of
// its cause: the version itself, and the ids the run gave its requests.
var (
	versionText = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	idText      = regexp.MustCompile(`\(id [^)]*\)|"id":(-?[0-9.eE+]+|"[^"]*")`)
)

// cause is a message with what varies between versions taken out.
func cause(msg string) string {
	return idText.ReplaceAllString(versionText.ReplaceAllString(msg, "V"), "(id)")
}

// gotSep starts what a message says came back, as the checks write it.
const gotSep = "; got "

// splitGot cuts a message into what it says and what it says came back.
func splitGot(msg string) (head, got string) {
	if i := strings.LastIndex(msg, gotSep); i >= 0 {
		return msg[:i], msg[i+len(gotSep):]
	}
	return msg, ""
}

// findingsOf groups the results whose verdict keep accepts into findings,
// in report order.
func findingsOf(results []*Result, keep func(Verdict) bool) []*finding {
	var findings []*finding
	index := map[string]*finding{}
	for _, res := range results {
		if !keep(res.Verdict) {
			continue
		}
		k := findingKey(res)
		f := index[k]
		if f == nil {
			f = &finding{}
			index[k] = f
			findings = append(findings, f)
		}
		f.results = append(f.results, res)
	}
	return findings
}

// findingKey is what the results of one finding share: the check, the
// verdict, the rule and the cause.
func findingKey(res *Result) string {
	return strings.Join([]string{res.ID, string(res.Verdict), res.Requirement, res.Level, cause(res.Message)}, "\x00")
}

// problemBlocks groups the problems of results into findings and the
// findings into blocks: failures first, then errors, then warnings, each
// in report order.
func problemBlocks(results []*Result) []*block {
	findings := findingsOf(results, problem)
	var blocks []*block
	byKey := map[string]*block{}
	for _, f := range findings {
		r := f.shown()
		head, _ := splitGot(r.Message)
		k := strings.Join([]string{string(r.Verdict), r.Requirement, r.Level, cause(head), strings.Join(f.versions(), ",")}, "\x00")
		if b := byKey[k]; b != nil && r.Requirement != "" {
			b.findings = append(b.findings, f)
			continue
		}
		b := &block{findings: []*finding{f}}
		byKey[k] = b
		blocks = append(blocks, b)
	}
	slices.SortStableFunc(blocks, func(a, b *block) int {
		return severity(a.first().Verdict) - severity(b.first().Verdict)
	})
	return blocks
}

// versionsText names the versions a finding was seen in: "" when the run
// judged one version, "all versions" when it was seen in each one judged,
// "A to B" for three or more judged one after the other.
func versionsText(vs, judged []string) string {
	switch {
	case len(judged) <= 1 || len(vs) == 0:
		return ""
	case slices.Equal(vs, judged):
		return "all versions"
	}
	if i := slices.Index(judged, vs[0]); len(vs) >= 3 && i >= 0 && i+len(vs) <= len(judged) && slices.Equal(judged[i:i+len(vs)], vs) {
		return vs[0] + " to " + vs[len(vs)-1]
	}
	return strings.Join(vs, ", ")
}

// Bounds of a block of the default console.
const (
	// blockMessageLines is how many lines a message may take.
	blockMessageLines = 2
	// blockStderrLines is how many lines of a server's stderr are shown
	// under the finding whose request it died of.
	blockStderrLines = 3
	// abridgeInput bounds the text abridged (a hostile server's message
	// may be megabytes; the console shows two lines of it).
	abridgeInput = 4 << 10
)

// problems prints every block.
func (c console) problems(r *Report, blocks []*block) {
	quoted := map[string]bool{}
	for _, b := range blocks {
		c.block(r, b, quoted)
	}
}

// block prints one block: a heading (verdict, check, rule, versions), the
// message, what was sent and came back (its outline), the stderr of a
// server that died of it, and for a failure the sentence it breaks, the
// first time that sentence comes.
func (c console) block(r *Report, b *block, quoted map[string]bool) {
	res := b.first()
	rule := strings.TrimSpace(line(res.Requirement, consoleMaxReqWidth) + " " + line(res.Level, 14))
	versions := versionsText(b.findings[0].versions(), r.Target.Versions)
	var head []string
	if len(b.findings) == 1 {
		head = append(head, line(res.ID, consoleMaxIDWidth))
	}
	for _, s := range []string{rule, versions} {
		if s != "" {
			head = append(head, s)
		}
	}
	if len(b.findings) > 1 {
		head = append(head, fmt.Sprintf("%d checks", len(b.findings)))
	}
	fmt.Fprintf(c.w, "%s %s\n", c.tag(res.Verdict), line(strings.Join(head, " · "), consoleWidth-6))
	if len(b.findings) == 1 {
		c.wrapped("", shorten(res.Message), blockMessageLines)
		c.exchange(res, detailIndent)
	} else {
		c.rows(b)
	}
	if res.Verdict == Fail && res.Quote != "" && !quoted[res.Quote] {
		quoted[res.Quote] = true
		c.wrapped("", "“"+res.Quote+"”", 2)
		if res.Spec != "" {
			// Whole, so that a terminal can still open it.
			fmt.Fprintf(c.w, "%s%s\n", detailIndent, sanitize(truncate(res.Spec, 300), oneLine))
		}
	}
}

// rows prints the findings of a block of several checks: what they share,
// then a line per check with what tells it apart (what came back, when
// that differs, else what was sent).
func (c console) rows(b *block) {
	head, got := splitGot(b.first().Message)
	same := true
	for _, f := range b.findings[1:] {
		if _, g := splitGot(f.shown().Message); cause(g) != cause(got) {
			same = false
		}
	}
	msg := head
	if same && got != "" {
		msg += gotSep + got
	}
	c.wrapped("", shorten(msg), blockMessageLines)
	idw := 0
	for _, f := range b.findings {
		idw = max(idw, utf8.RuneCountInString(line(f.shown().ID, consoleMaxIDWidth)))
	}
	for _, f := range b.findings {
		res := f.shown()
		what := ""
		switch _, g := splitGot(res.Message); {
		case !same:
			what = "got " + g
		case res.Sent != "":
			what = "sent " + res.Sent
		}
		prefix := detailIndent + pad(line(res.ID, consoleMaxIDWidth), idw) + "  "
		room := max(consoleWidth-utf8.RuneCountInString(prefix), 20)
		fmt.Fprintln(c.w, strings.TrimRight(prefix+line(shorten(what), room), " "))
		c.stderr(res, detailIndent+"  ")
	}
}

// exchange prints what was sent and what came back, each on one line in
// outline, leaving out what the message already says, then the stderr of
// a server that died.
func (c console) exchange(res *Result, indent string) {
	room := consoleWidth - len(indent) - len("sent ")
	if res.Sent != "" {
		fmt.Fprintf(c.w, "%ssent %s\n", indent, line(shorten(res.Sent), room))
	}
	if _, said := splitGot(res.Message); res.Got != "" && said == "" && !strings.Contains(res.Message, res.Got) {
		fmt.Fprintf(c.w, "%sgot  %s\n", indent, line(shorten(res.Got), room))
	}
	c.stderr(res, indent)
}

// stderr prints the last lines a server wrote to stderr before it died,
// when the result's transcript shows that it died (exited with a status
// other than 0, or was killed by a signal the harness does not send).
func (c console) stderr(res *Result, indent string) {
	lines := deathStderr(res.Transcript)
	for i, l := range lines {
		label := "stderr "
		if i > 0 {
			label = "       "
		}
		fmt.Fprintf(c.w, "%s%s%s\n", indent, label, line(l, consoleWidth-len(indent)-len(label)))
	}
}

// deathStderr returns what a transcript excerpt shows a server wrote to
// stderr before it died: from a Go panic or fatal error on, or the last
// lines; nil when the excerpt shows no death.
func deathStderr(tr []TranscriptLine) []string {
	died := false
	var errLines []string
	for _, l := range tr {
		switch l.Dir {
		case "stderr":
			if strings.TrimSpace(l.Text) != "" {
				errLines = append(errLines, l.Text)
			}
		case "note":
			died = died || diedNote(l.Text)
		}
	}
	if !died || len(errLines) == 0 {
		return nil
	}
	for i, l := range errLines {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return errLines[i:min(len(errLines), i+blockStderrLines)]
		}
	}
	return errLines[max(0, len(errLines)-blockStderrLines):]
}

// diedNote reports whether a harness note says the server ended on its
// own terms badly: "server exit status 2", "server killed by SIGSEGV".
func diedNote(text string) bool {
	if s, ok := strings.CutPrefix(text, "server exit status "); ok {
		return s != "0"
	}
	if s, ok := strings.CutPrefix(text, "server killed by "); ok {
		return s != "SIGTERM" && s != "SIGKILL" && s != "terminated" && s != "killed"
	}
	return false
}

// shorten is text with the JSON it quotes in outline.
func shorten(s string) string {
	return abridge(truncateBytes(s, abridgeInput))
}
