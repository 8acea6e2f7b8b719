package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors"
)

func listFlags() (*flag.FlagSet, *bool, *bool, *bool) {
	fs := flag.NewFlagSet("mcpconform list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	asJSON := fs.Bool("json", false, "print JSON: {requirements: [...], checks: [...]}")
	byCheck := fs.Bool("checks", false, "list checks (id, requirement, level, spec) instead of requirements")
	help := fs.Bool("help", false, "show this help")
	return fs, asJSON, byCheck, help
}

func listUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform list [--checks] [--json]

Lists every requirement of the catalogue: its level, the protocol versions it
applies to, what it says, and the checks that test it or the reason none can.
--checks lists the checks instead, with their spec links. The ids, levels and
areas shown are what --only, --skip and baselines select.

Flags:
`)
	fs, _, _, _ := listFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs, asJSON, byCheck, help := listFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			listUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform list: %v (mcpconform list --help lists the flags)\n", err)
		return exitUsage
	}
	if *help {
		listUsage(stdout)
		return exitConformant
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpconform list: unexpected argument %q; list takes flags only, e.g. mcpconform list --checks\n", fs.Arg(0))
		return exitUsage
	}
	files, err := vectors.Embedded()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform: %v\n", err)
		return exitUsage
	}
	entries := runner.Checks(files)
	reqs := runner.Requirements(entries)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"requirements": reqs, "checks": entries}); err != nil {
			return exitUsage
		}
		return exitConformant
	}
	if *byCheck {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CHECK\tREQUIREMENT\tLEVEL\tSPEC")
		for _, e := range entries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Requirement, e.Level, e.Spec)
			if e.Needs != "" {
				// One cell: it does not widen the columns.
				fmt.Fprintf(tw, "  judges only when it sees %s\n", e.Needs)
			}
		}
		tw.Flush()
		fmt.Fprintf(stdout, "\n%d checks (mcpconform list shows the requirements they test)\n\n", len(entries))
		fmt.Fprint(stdout, levelLegend)
		return exitConformant
	}
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
		fmt.Fprintln(stdout, b.String())
		if i > 0 && summaries[i-1] != "" {
			fmt.Fprintf(stdout, "%s%s\n", strings.Repeat(" ", widths[0]+2), summaries[i-1])
		}
		if i > 0 {
			for _, n := range notes[i-1] {
				fmt.Fprintf(stdout, "%s%s\n", strings.Repeat(" ", widths[0]+2), n)
			}
		}
	}
	fmt.Fprintf(stdout, "\n%d requirements, %d tested by %d checks, %d with a reason they are not (mcpconform list --checks lists the checks)\n\n", len(reqs), tested, len(entries), len(reqs)-tested)
	fmt.Fprint(stdout, levelLegend)
	return exitConformant
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
Roles: server (the server's obligation), transport (framing the server keeps as a sender), client (the client's
  obligation, which mcpconform keeps: recorded at most), definition, unspecified.
`

// clip shortens a catalogue cell for the table; --json has it whole.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
