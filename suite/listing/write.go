package listing

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
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

// WriteClientChecks writes a table of the checks of client mode: id,
// requirement, level and spec section, and the scenarios a check is
// limited to, then the levels' legend.
func WriteClientChecks(w io.Writer, entries []Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT CHECK\tREQUIREMENT\tLEVEL\tSPEC")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Requirement, e.Level, e.Spec)
		if len(e.Scenarios) > 0 {
			fmt.Fprintf(tw, "  judged in the scenarios %s only\n", strings.Join(e.Scenarios, ", "))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d client checks, judged in every scenario of mcpconform client at the level of the version the client used\n\n", len(entries))
	fmt.Fprint(w, levelLegend)
}

// WriteChecks writes a table of the checks: id, requirement, level and
// spec section, then the levels' legend. A listing goes to a terminal or
// a pipe: write errors are not reported.
func WriteChecks(w io.Writer, entries []Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tREQUIREMENT\tLEVEL\tSPEC")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Requirement, e.Level, e.Spec)
		if e.Needs != "" {
			// One cell: it does not widen the columns.
			fmt.Fprintf(tw, "  judges only when it sees %s\n", e.Needs)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d checks (mcpconform list shows the requirements they test)\n\n", len(entries))
	fmt.Fprint(w, levelLegend)
}

// WriteRequirements writes a table of the catalogue's requirements, each
// with its level per version, what it says and the checks that test it
// (or why none does), then the levels' legend.
func WriteRequirements(w io.Writer, entries []Check) {
	reqs := Requirements(entries)
	// One row per requirement, its summary on the line below: aligned by
	// hand, since tabwriter would realign the columns at every summary.
	needs := map[string][]string{}
	for _, e := range entries {
		if e.Needs != "" {
			needs[e.Requirement] = append(needs[e.Requirement], e.ID+" judges only when it sees "+e.Needs)
		}
	}
	rows := [][]string{{"REQUIREMENT", "ROLE", "LEVEL PER VERSION", "TESTED BY"}}
	var summaries []string
	var notes [][]string
	tested := 0
	for _, r := range reqs {
		by := strings.Join(r.Checks, ", ")
		if len(r.Checks) == 0 {
			by = "not tested: " + r.Untested
		} else {
			tested++
		}
		rows = append(rows, []string{r.ID, clip(r.Role, 12), clip(r.Levels, 60), by})
		summaries = append(summaries, strings.ReplaceAll(r.Summary, "`", ""))
		notes = append(notes, needs[r.ID])
	}
	widths := make([]int, 3)
	for _, row := range rows {
		for i := range widths {
			widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
		}
	}
	for i, row := range rows {
		var b strings.Builder
		for j, cell := range row[:3] {
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(cell)+2))
		}
		b.WriteString(row[3])
		fmt.Fprintln(w, b.String())
		if i > 0 && summaries[i-1] != "" {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", widths[0]+2), summaries[i-1])
		}
		if i > 0 {
			for _, n := range notes[i-1] {
				fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", widths[0]+2), n)
			}
		}
	}
	fmt.Fprintf(w, "\n%d requirements, %d tested by %d checks, %d with a reason they are not (mcpconform list --checks lists the checks, --client those of client mode)\n\n", len(reqs), tested, len(entries), len(reqs)-tested)
	fmt.Fprint(w, levelLegend)
}

// levelLegend explains the levels `mcpconform list` shows. The README has
// the same table.
const levelLegend = `Levels (each version's own; a result is judged at the level of the version its session negotiated):
  MUST, MUST NOT      a requirement of the spec: breaking it is a fail
  SHOULD, SHOULD NOT  a recommendation: breaking it is a warn (which fails the run only with --strict)
  MAY                 allowed, not required: recorded (info), never a fail
  schema              a required member or a type of the version's schema, with no keyword in prose: breaking it is a fail
  schema-should       a lower-case "should" in a doc comment of the schema: breaking it is a warn
  derived             not written as a rule, but follows from rules that are: breaking it is a fail
  unspecified         the spec does not say: the behaviour is recorded (info), never judged
Roles: server (the server's obligation), client (the client's), both (binds whichever party sends or receives),
  transport (framing every sender keeps), definition, unspecified. A run judges one party: server mode a server,
  client mode a client; the other party's obligation is kept by mcpconform and recorded at most.
`

// clip shortens a catalogue cell for the table; --json has it whole.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
