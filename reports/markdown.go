package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown, made for a CI
// job summary: the verdict counts and the overall verdict first, then the
// target, then one section per failure, error and warning (what was sent,
// what came back, the rule with its sentence, what was expected, and the
// transcript excerpt and the matcher folded away), then a compact table of
// every other result.
//
// Server strings cannot escape their place: table cells escape |, <, > and
// line breaks, prose escapes Markdown punctuation, and every fenced block is
// fenced with more backticks than any run inside it.
func WriteMarkdown(w io.Writer, r *Report) error {
	return commandSafe(w, func(w io.Writer) error { return writeMarkdown(w, r) })
}

func writeMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	s := summarize(r)

	fmt.Fprintf(bw, "# %s report: %s\n\n", mdText(toolName(r)), strings.ToUpper(mdText(s.Verdict)))
	fmt.Fprintln(bw, "| verdict | count |")
	fmt.Fprintln(bw, "| --- | ---: |")
	for _, v := range Verdicts {
		if v == XFail && s.XFail == 0 {
			continue
		}
		fmt.Fprintf(bw, "| %s | %d |\n", v, s.count(v))
	}
	fmt.Fprintf(bw, "| **overall** | **%s** |\n\n", mdCell(s.Verdict))

	for _, why := range r.Incomplete {
		fmt.Fprintf(bw, "> **Incomplete:** %s\n\n", mdText(firstLine(why)))
	}
	if r.Interrupted != "" {
		fmt.Fprintf(bw, "> **Interrupted:** %s\n\n", mdText(firstLine(r.Interrupted)))
	}
	if len(r.Stale) > 0 {
		fmt.Fprintf(bw, "**Stale baseline entries** (these checks pass now; remove them from the baseline):\n\n")
		for _, id := range r.Stale {
			fmt.Fprintf(bw, "- %s\n", mdCode(id))
		}
		fmt.Fprintln(bw)
	}

	mdTarget(bw, r)

	order := bySeverity(r.Results)
	// A result's details go in while they fit the file's budget; past it,
	// a line per result, and a note of what was left out.
	budget := &mdBudget{left: MarkdownMaxBytes - mdReserve}
	for _, sec := range []struct {
		verdict Verdict
		title   string
	}{{Fail, "Failures"}, {Error, "Errors"}, {Warn, "Warnings"}} {
		n := s.count(sec.verdict)
		if n == 0 {
			continue
		}
		fmt.Fprintf(bw, "## %s (%d)\n\n", sec.title, n)
		for _, i := range order {
			if r.Results[i].Verdict == sec.verdict {
				budget.result(bw, &r.Results[i])
			}
		}
	}
	if budget.cut > 0 {
		fmt.Fprintf(bw, "> **Cut:** the details of %d results (values, transcript excerpts) are left out to keep this file under %d KiB, the limit of a GitHub step summary; report.json and report.html have them.\n\n", budget.cut, MarkdownMaxBytes>>10)
	}

	var others []int
	for _, i := range order {
		switch r.Results[i].Verdict {
		case Fail, Error, Warn:
		default:
			others = append(others, i)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(bw, "<details><summary>Other results (%d)</summary>\n\n", len(others))
		fmt.Fprintln(bw, "| verdict | check | requirement | level | version | message |")
		fmt.Fprintln(bw, "| --- | --- | --- | --- | --- | --- |")
		for _, i := range others {
			res := &r.Results[i]
			budget.row(bw, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", mdCell(string(res.Verdict)), mdCell(res.ID),
				mdCell(res.Requirement), mdCell(res.Level), mdCell(res.ProtocolVersion), mdCell(truncate(firstLine(res.Message), mdMessageLetters))))
		}
		if budget.cutRows > 0 {
			fmt.Fprintf(bw, "\n%d more results are left out to keep this file under %d KiB; report.json has them.\n", budget.cutRows, MarkdownMaxBytes>>10)
		}
		fmt.Fprintf(bw, "\n</details>\n")
	}
	return bw.Flush()
}

func mdTarget(w io.Writer, r *Report) {
	fmt.Fprintf(w, "## Target\n\n")
	if len(r.Target.Command) > 0 {
		fmt.Fprintf(w, "- Command: %s\n", mdCode(truncateBytes(strings.Join(r.Target.Command, " "), docTranscriptBytes)))
	}
	if r.Target.URL != "" {
		fmt.Fprintf(w, "- URL: %s\n", mdCode(truncateBytes(r.Target.URL, docTranscriptBytes)))
	}
	if r.Target.Vectors != "" {
		fmt.Fprintf(w, "- Vectors: %s\n", mdText(truncateBytes(r.Target.Vectors, docTranscriptBytes)))
	}
	if si := serverInfoText(r.Target.ServerInfo); si != "" {
		fmt.Fprintf(w, "- Server: %s\n", mdText(truncateBytes(si, docTranscriptBytes)))
	}
	if r.Target.ProtocolVersion != "" {
		fmt.Fprintf(w, "- Protocol version: %s\n", mdCode(r.Target.ProtocolVersion))
	}
	if len(r.Target.Versions) > 0 {
		codes := make([]string, len(r.Target.Versions))
		for i, v := range r.Target.Versions {
			codes[i] = mdCode(v)
		}
		fmt.Fprintf(w, "- Versions judged: %s\n", strings.Join(codes, ", "))
	}
	if r.Target.Processes > 0 {
		fmt.Fprintf(w, "- Server processes started: %d\n", r.Target.Processes)
	}
	if s := r.Target.ToolCallsText(); s != "" {
		fmt.Fprintf(w, "- Tools: %s\n", mdText(truncateBytes(s, docTranscriptBytes)))
	}
	if s := r.Target.ReadonlyText(); s != "" {
		fmt.Fprintf(w, "- To call tools: %s\n", mdText(truncateBytes(s, docTranscriptBytes)))
	}
	tool := mdText(toolName(r))
	if r.Tool.Version != "" {
		tool += " " + mdText(r.Tool.Version)
	}
	run := "- Run: " + tool
	if !r.StartedAt.IsZero() {
		run += ", started " + r.StartedAt.UTC().Format(time.RFC3339)
	}
	if r.DurationMs > 0 {
		run += ", took " + seconds(r.DurationMs) + " s"
	}
	if spec := r.Spec.Text(); spec != "" {
		run += "; spec " + mdText(spec)
	}
	fmt.Fprintf(w, "%s\n\n", run)
	if len(r.Target.StderrTail) > 0 {
		fmt.Fprintf(w, "Last lines the server wrote to stderr:\n\n")
		mdFence(w, "text", truncateBytes(strings.Join(r.Target.StderrTail, "\n"), docValueBytes))
	}
}

// mdMessageLetters bounds a message in the table of other results.
const mdMessageLetters = 160

func mdResult(w io.Writer, res *Result) {
	fmt.Fprintf(w, "### %s\n\n", mdCode(res.ID))
	facts := []string{"**" + strings.ToUpper(mdText(string(res.Verdict))) + "**"}
	if res.Requirement != "" {
		facts = append(facts, "requirement "+mdCode(res.Requirement))
	}
	if res.Level != "" {
		facts = append(facts, "level "+mdText(res.Level))
	}
	if res.ProtocolVersion != "" {
		facts = append(facts, "protocol "+mdCode(res.ProtocolVersion))
	}
	if res.Spec != "" {
		facts = append(facts, mdLink("spec", res.Spec))
	}
	fmt.Fprintf(w, "%s\n\n", strings.Join(facts, " · "))
	mdFence(w, "text", truncateBytes(res.Message, docValueBytes))
	if res.Sent != "" {
		fmt.Fprintf(w, "**Sent**\n\n")
		mdFence(w, "json", truncateBytes(res.Sent, docValueBytes))
	}
	if res.Got != "" {
		fmt.Fprintf(w, "**Got**\n\n")
		mdFence(w, "text", truncateBytes(res.Got, docValueBytes))
	}
	if res.Requirement != "" && (res.Quote != "" || res.Level != "") {
		rule := "**Rule** " + mdCode(res.Requirement)
		if res.Level != "" {
			rule += " (" + mdText(res.Level)
			if res.ProtocolVersion != "" {
				rule += " in " + mdText(res.ProtocolVersion)
			}
			rule += ")"
		}
		if res.Spec != "" {
			rule += ", " + mdLink("spec", res.Spec)
		}
		fmt.Fprintf(w, "%s\n\n", rule)
		if res.Quote != "" {
			fmt.Fprintf(w, "> %s\n\n", mdText(truncateBytes(res.Quote, docValueBytes)))
		}
	}
	if res.Expect != "" {
		fmt.Fprintf(w, "**Expected:** %s\n\n", mdText(truncateBytes(res.Expect, docValueBytes)))
	}
	if len(res.Transcript) > 0 {
		var b strings.Builder
		for _, tl := range res.Transcript {
			fmt.Fprintf(&b, "%6dms %s %s\n", tl.AtMs, transcriptMark(tl.Dir), truncateBytes(tl.Text, docValueBytes/4))
		}
		fmt.Fprintf(w, "<details><summary>Transcript excerpt</summary>\n\n")
		mdFence(w, "text", truncateBytes(b.String(), docValueBytes))
		fmt.Fprintf(w, "</details>\n\n")
	}
	exp, okE := prettyJSON(res.Expected)
	act, okA := prettyJSON(res.Actual)
	if okE || okA {
		fmt.Fprintf(w, "<details><summary>Matcher and value judged</summary>\n\n")
		if okE {
			fmt.Fprintf(w, "Matcher:\n\n")
			mdFence(w, "json", truncateBytes(exp, docValueBytes))
		}
		if okA {
			fmt.Fprintf(w, "Value judged:\n\n")
			mdFence(w, "json", truncateBytes(act, docValueBytes))
		}
		fmt.Fprintf(w, "</details>\n\n")
	}
}

// MarkdownMaxBytes bounds report.md: GitHub refuses a step summary over
// 1 MiB.
const MarkdownMaxBytes = 1 << 20

// mdReserve is what the budget of the details leaves for the table of the
// other results and the notes.
const mdReserve = 256 << 10

// mdBudget spends the bytes of report.md on results' details, then rows.
type mdBudget struct {
	left         int
	cut, cutRows int
}

// result writes res's details when they fit what is left, else one line.
func (b *mdBudget) result(w io.Writer, res *Result) {
	var buf bytes.Buffer
	mdResult(&buf, res)
	if buf.Len() > b.left {
		b.cut++
		buf.Reset()
		fmt.Fprintf(&buf, "- %s **%s**: %s\n\n", mdCode(res.ID), strings.ToUpper(mdText(string(res.Verdict))), mdText(truncate(firstLine(res.Message), mdMessageLetters)))
	}
	b.left -= buf.Len()
	_, _ = w.Write(buf.Bytes())
}

// row writes a table row while the reserve allows.
func (b *mdBudget) row(w io.Writer, row string) {
	if len(row) > b.left+mdReserve-4096 {
		b.cutRows++
		return
	}
	b.left -= len(row)
	_, _ = io.WriteString(w, row)
}

// transcriptMark shows a transcript line's direction: > sent, < received,
// ! stderr, # a note of the harness.
func transcriptMark(dir string) string {
	switch dir {
	case "send":
		return ">"
	case "recv":
		return "<"
	case "stderr":
		return "!"
	}
	return "#"
}

// mdFence writes text as a fenced code block whose fence is longer than
// the longest run of backticks in the text, so no line can close it.
func mdFence(w io.Writer, lang, text string) {
	text = sanitize(text, multiLine)
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(text, "\n"), fence)
}

// mdCode writes s as one line of inline code, delimited by more backticks
// than any run inside it.
func mdCode(s string) string {
	s = sanitize(s, oneLine)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdLink renders an https URL as a link; anything else as inline code.
func mdLink(text, url string) string {
	if !isHTTPS(url) {
		return mdText(text) + " " + mdCode(url)
	}
	url = strings.NewReplacer("(", "%28", ")", "%29").Replace(url)
	return "[" + mdText(text) + "](" + url + ")"
}

// mdText escapes s for Markdown prose on one line: Markdown punctuation is
// backslash-escaped and HTML is written as entities, so server text can
// neither format nor link nor inject markup. A word GitHub would turn into
// a link or a mention (a URL, www., an @name or an address) becomes inline
// code, which it leaves alone: a report pasted into a pull request pings
// no one and links nowhere.
func mdText(s string) string {
	s = sanitize(s, oneLine)
	words := strings.Split(s, " ")
	for i, w := range words {
		if linkable(w) && !strings.ContainsAny(w, "|`") {
			words[i] = "`" + w + "`"
			continue
		}
		words[i] = mdEscape(w, linkable(w))
	}
	return strings.Join(words, " ")
}

// linkable reports whether GitHub's Markdown would make w, or part of it,
// a link or a mention.
func linkable(w string) bool {
	lw := strings.ToLower(w)
	return strings.Contains(lw, "://") || strings.Contains(lw, "www.") || strings.Contains(lw, "@")
}

// mdEscape backslash-escapes Markdown punctuation in w and writes HTML
// as entities; with link set, also the ":", "." and "@" that start a link.
func mdEscape(w string, link bool) string {
	var b strings.Builder
	for _, r := range w {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case ':', '.', '@':
			if link {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell escapes s for a table cell: like mdText, with line breaks as <br>.
func mdCell(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = mdText(l)
	}
	return strings.Join(lines, "<br>")
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
