package listing

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// WriteJSON writes the requirements (as Requirements lists them, tested
// by the checks of either mode), the checks of server mode and those of
// client mode as one JSON object: {"requirements": [...], "checks":
// [...], "clientChecks": [...]}.
func WriteJSON(w io.Writer, checks, clientChecks []Check) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"requirements": Requirements(append(slices.Clone(checks), clientChecks...)), "checks": checks, "clientChecks": clientChecks})
}

// WriteClientChecks writes the checks of client mode as WriteChecks
// writes those of server mode, with the scenarios a check is limited to.
func WriteClientChecks(w io.Writer, entries []Check, width int) {
	writeCheckList(w, "CLIENT CHECK", entries, width, func(e Check) string {
		if len(e.Scenarios) > 0 {
			return "judged in the scenarios " + strings.Join(e.Scenarios, ", ") + " only"
		}
		return ""
	}, fmt.Sprintf("%d client checks, judged in every scenario of mcpconform client at the level of the version the client used", len(entries)))
}

// WriteChecks writes the checks, a line each: id, requirement and level,
// the spec section on the line below (whole, so that a terminal can open
// it), then the levels' legend; every line but a link within width
// columns. A listing goes to a terminal or a pipe: write errors are not
// reported.
func WriteChecks(w io.Writer, entries []Check, width int) {
	writeCheckList(w, "CHECK", entries, width, func(e Check) string {
		if e.Needs != "" {
			return "judges only when it sees " + e.Needs
		}
		return ""
	}, fmt.Sprintf("%d checks (mcpconform list shows the requirements they test)", len(entries)))
}

// writeCheckList writes checks a line each (id, requirement, level), the
// spec link whole on the line below and what note says of the check, then
// the footer and the levels' legend, within width columns.
func writeCheckList(w io.Writer, heading string, entries []Check, width int, note func(Check) string, footer string) {
	width = max(width, minWidth)
	idw, reqw := len(heading), len("REQUIREMENT")
	for _, e := range entries {
		idw = max(idw, utf8.RuneCountInString(e.ID))
		reqw = max(reqw, utf8.RuneCountInString(e.Requirement))
	}
	row := func(id, req, level string) {
		fmt.Fprintln(w, strings.TrimRight(clip(pad(id, idw)+"  "+pad(req, reqw)+"  "+level, width), " "))
	}
	row(heading, "REQUIREMENT", "LEVEL")
	for _, e := range entries {
		row(e.ID, e.Requirement, e.Level)
		if e.Spec != "" {
			fmt.Fprintf(w, "%s%s\n", indent, e.Spec)
		}
		if n := note(e); n != "" {
			wrapTo(w, n, indent, width)
		}
	}
	fmt.Fprintln(w)
	wrapTo(w, footer, "", width)
	fmt.Fprintln(w)
	writeLegend(w, width)
}

// WriteRequirements writes the catalogue's requirements, each with its
// role and level per version on one line, then what it says and the
// checks that test it (or why none does), wrapped within width columns,
// and then the levels' legend.
func WriteRequirements(w io.Writer, entries []Check, width int) {
	width = max(width, minWidth)
	reqs := Requirements(entries)
	needs := map[string][]string{}
	for _, e := range entries {
		if e.Needs != "" {
			needs[e.Requirement] = append(needs[e.Requirement], e.ID+" judges only when it sees "+e.Needs)
		}
	}
	idw, rolew := len("REQUIREMENT"), len("ROLE")
	for _, r := range reqs {
		idw = max(idw, utf8.RuneCountInString(r.ID))
		rolew = max(rolew, utf8.RuneCountInString(clip(r.Role, 12)))
	}
	row := func(id, role, levels string) {
		fmt.Fprintln(w, strings.TrimRight(clip(pad(id, idw)+"  "+pad(role, rolew)+"  "+levels, width), " "))
	}
	lead := strings.Repeat(" ", idw+2)
	row("REQUIREMENT", "ROLE", "LEVEL PER VERSION")
	tested := 0
	for _, r := range reqs {
		row(r.ID, clip(r.Role, 12), r.Levels)
		if s := strings.ReplaceAll(r.Summary, "`", ""); s != "" {
			wrapTo(w, s, lead, width)
		}
		if len(r.Checks) == 0 {
			wrapTo(w, "not tested: "+r.Untested, lead, width)
		} else {
			tested++
			wrapTo(w, "tested by "+strings.Join(r.Checks, ", "), lead, width)
		}
		for _, n := range needs[r.ID] {
			wrapTo(w, n, lead, width)
		}
	}
	fmt.Fprintln(w)
	wrapTo(w, fmt.Sprintf("%d requirements, %d tested by %d checks, %d with a reason they are not (mcpconform list --checks lists the checks, --client those of client mode)", len(reqs), tested, len(entries), len(reqs)-tested), "", width)
	fmt.Fprintln(w)
	writeLegend(w, width)
}

// minWidth is the narrowest listing: below it nothing is legible anyway.
const minWidth = 60

// indent leads the lines that belong to the row above.
const indent = "    "

func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

// wrapTo writes text wrapped at word boundaries within width columns,
// every line led by lead. A word longer than a line (a URL) stays whole.
func wrapTo(w io.Writer, text, lead string, width int) {
	room := max(width-utf8.RuneCountInString(lead), 20)
	cur := ""
	for _, word := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = word
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= room:
			cur += " " + word
		default:
			fmt.Fprintln(w, lead+cur)
			cur = word
		}
	}
	if cur != "" {
		fmt.Fprintln(w, lead+cur)
	}
}

// writeLegend writes the levels' legend, each entry's words wrapped under
// its own column.
func writeLegend(w io.Writer, width int) {
	wrapTo(w, "Levels (each version's own; a result is judged at the level of the version its session negotiated):", "", width)
	for _, l := range legendLevels {
		var b strings.Builder
		wrapTo(&b, l[1], strings.Repeat(" ", 22), width)
		fmt.Fprint(w, "  "+pad(l[0], 20)+strings.TrimPrefix(b.String(), strings.Repeat(" ", 22)))
	}
	wrapTo(w, legendRoles, "  ", width)
}

// legendLevels explain the levels `mcpconform list` shows. The README
// has the same table.
var legendLevels = [][2]string{
	{"MUST, MUST NOT", "a requirement of the spec: breaking it is a fail"},
	{"SHOULD, SHOULD NOT", "a recommendation: breaking it is a warn (which fails the run only with --strict)"},
	{"MAY", "allowed, not required: recorded (info), never a fail"},
	{"schema", "a required member or a type of the version's schema, with no keyword in prose: breaking it is a fail"},
	{"schema-should", `a lower-case "should" in a doc comment of the schema: breaking it is a warn`},
	{"derived", "not written as a rule, but follows from rules that are: breaking it is a fail"},
	{"unspecified", "the spec does not say: the behaviour is recorded (info), never judged"},
}

const legendRoles = "Roles: server (the server's obligation), client (the client's), both (binds whichever party sends or receives), transport (framing every sender keeps), definition, unspecified. A run judges one party: server mode a server, client mode a client; the other party's obligation is kept by mcpconform and recorded at most."

// clip shortens a catalogue cell for the table; --json has it whole.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
