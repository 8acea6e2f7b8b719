package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Matrix is a table of checks by targets: for every check, its verdict
// under every protocol version it was judged under, per target. The
// compatibility matrix of docs/compat.md and the matrix of a fleet report
// are both one.
type Matrix struct {
	// ColumnHeading says what a column is ("server", "target") in the
	// summary table; FactHeadings name the columns of facts that follow it
	// there, each column's Facts in the same order.
	ColumnHeading string
	FactHeadings  []string
	// SummaryHeading heads the summary table ("Servers"); Legend is
	// Markdown written after it.
	SummaryHeading string
	Legend         string
	Columns        []MatrixColumn
	// Rows are the checks in the order to show them.
	Rows []MatrixRow
}

// MatrixColumn is one target of a matrix.
type MatrixColumn struct {
	Title string
	// Facts are Markdown, under the matrix's FactHeadings.
	Facts []string
	// Intro is Markdown written under the column's own heading, before the
	// list of its results that are not a pass.
	Intro string
	// Versions are the protocol versions the target was judged under,
	// sorted.
	Versions []string
}

// MatrixRow is one check of a matrix.
type MatrixRow struct {
	// Requirement is the check's requirement id ("?" when unknown).
	Requirement string
	Check       string
	// Cells holds, per column, the check's verdict under each version it
	// was judged under and applies to: nil when it was not run against
	// that target, empty when it applies to none of the versions judged.
	Cells []map[string]Verdict
	// Reasons holds, per column, a one-line reason for each verdict that
	// is not a pass, by version.
	Reasons []map[string]string
}

// ShortVersion writes a protocol version the way the catalogue does:
// 2025-06-18 as 25-06.
func ShortVersion(v string) string {
	if len(v) == len("2025-06-18") && strings.HasPrefix(v, "20") {
		return v[2:7]
	}
	return v
}

// matrixCell renders one check's verdicts against one target: the verdict
// alone when every version agrees, else each verdict with its versions.
func matrixCell(byVersion map[string]Verdict) string {
	if byVersion == nil {
		return "—"
	}
	if len(byVersion) == 0 {
		return "n/a"
	}
	groups := map[Verdict][]string{}
	for ver, v := range byVersion {
		groups[v] = append(groups[v], ver)
	}
	show := func(v Verdict) string {
		if v == Fail || v == Error {
			return "**" + string(v) + "**"
		}
		return string(v)
	}
	if len(groups) == 1 {
		for v := range groups {
			return show(v)
		}
	}
	var verdicts []Verdict
	for v := range groups {
		verdicts = append(verdicts, v)
	}
	sort.Slice(verdicts, func(i, j int) bool { return severity(verdicts[i]) < severity(verdicts[j]) })
	var parts []string
	for _, v := range verdicts {
		vers := groups[v]
		sort.Strings(vers)
		for i := range vers {
			vers[i] = ShortVersion(vers[i])
		}
		parts = append(parts, show(v)+" "+strings.Join(vers, ", "))
	}
	return strings.Join(parts, "; ")
}

// matrixEscaper keeps server text from turning into Markdown structure
// inside a table cell.
var matrixEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
)

// Anchor is the fragment GitHub gives a heading.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// counts returns the verdicts of column c, over the versions each check
// applies to.
func (m *Matrix) counts(c int) map[Verdict]int {
	out := map[Verdict]int{}
	for _, r := range m.Rows {
		for _, v := range r.Cells[c] {
			out[v]++
		}
	}
	return out
}

// WriteMatrixMarkdown writes the matrix as Markdown: the summary table
// (a row per column: its facts, the versions judged, its counts), the
// legend, the matrix itself, then a section per column listing every
// verdict that is not a pass with its reason, most severe first.
func WriteMatrixMarkdown(w io.Writer, m *Matrix) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n| %s |", m.SummaryHeading, m.ColumnHeading)
	for _, h := range m.FactHeadings {
		b.WriteString(" " + h + " |")
	}
	b.WriteString(" versions judged | pass | fail | warn | info | skip | error |\n|---|")
	b.WriteString(strings.Repeat("---|", len(m.FactHeadings)) + "---|---|---|---|---|---|---|\n")
	for i, c := range m.Columns {
		n := m.counts(i)
		fmt.Fprintf(&b, "| [%s](#%s) |", c.Title, Anchor(c.Title))
		for _, f := range c.Facts {
			b.WriteString(" " + f + " |")
		}
		fmt.Fprintf(&b, " %s | %d | %d | %d | %d | %d | %d |\n", strings.Join(c.Versions, ", "),
			n[Pass], n[Fail], n[Warn], n[Info], n[Skip], n[Error])
	}
	if m.Legend != "" {
		b.WriteString("\n" + m.Legend + "\n\n")
	} else {
		b.WriteString("\n")
	}

	b.WriteString("## Matrix\n\n| requirement | check |")
	for _, c := range m.Columns {
		b.WriteString(" " + c.Title + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(m.Columns)) + "\n")
	prevReq := ""
	for _, r := range m.Rows {
		reqCell := ""
		if r.Requirement != prevReq {
			reqCell = r.Requirement
			prevReq = r.Requirement
		}
		fmt.Fprintf(&b, "| %s | `%s` |", matrixEscaper.Replace(reqCell), r.Check)
		for i := range m.Columns {
			b.WriteString(" " + matrixCell(r.Cells[i]) + " |")
		}
		b.WriteString("\n")
	}

	for i, c := range m.Columns {
		fmt.Fprintf(&b, "\n## %s\n\n", c.Title)
		b.WriteString(c.Intro)
		m.writeNonPass(&b, i)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeNonPass lists every verdict of column c that is not a pass, most
// severe first, then in row order; a check with the same verdict and
// reason under several versions is one line.
func (m *Matrix) writeNonPass(b *strings.Builder, c int) {
	type line struct {
		row      int
		verdict  Verdict
		reason   string
		versions []string
	}
	lines := map[string]*line{}
	for ri, r := range m.Rows {
		for ver, v := range r.Cells[c] {
			if v == Pass {
				continue
			}
			reason := r.Reasons[c][ver]
			key := fmt.Sprintf("%d\x00%s\x00%s", ri, v, reason)
			l := lines[key]
			if l == nil {
				l = &line{row: ri, verdict: v, reason: reason}
				lines[key] = l
			}
			l.versions = append(l.versions, ver)
		}
	}
	if len(lines) == 0 {
		b.WriteString("Every check passes.\n")
		return
	}
	list := make([]*line, 0, len(lines))
	for _, l := range lines {
		sort.Strings(l.versions)
		list = append(list, l)
	}
	sort.Slice(list, func(i, j int) bool {
		a, o := list[i], list[j]
		if a.verdict != o.verdict {
			return severity(a.verdict) < severity(o.verdict)
		}
		if a.row != o.row {
			return a.row < o.row
		}
		return slices.Compare(a.versions, o.versions) < 0
	})
	b.WriteString("| verdict | check | requirement | versions | reason |\n|---|---|---|---|---|\n")
	for _, l := range list {
		vers := make([]string, len(l.versions))
		for i, v := range l.versions {
			vers[i] = ShortVersion(v)
		}
		r := m.Rows[l.row]
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s |\n", l.verdict, r.Check, r.Requirement, strings.Join(vers, ", "), matrixEscaper.Replace(l.reason))
	}
}
