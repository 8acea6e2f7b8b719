package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// checkEntry is one line of `mcpconform list`.
type checkEntry struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Level       string `json:"level"`
	Area        string `json:"area"`
	Kind        string `json:"kind"` // "vector" or "procedural"
	Spec        string `json:"spec"`
	Description string `json:"description"`
	// Labels are the labels its results carry (level:MUST, area:resources,
	// flags such as robustness), for --only and --skip.
	Labels []string `json:"labels"`
	// Needs is what the server must do on its own for the check to judge
	// anything, where the suite's traffic cannot make it.
	Needs string `json:"needs,omitempty"`
}

func (e checkEntry) names() checkNames {
	return checkNames{e.ID, e.Requirement, e.Level, e.Area, e.Labels}
}

// labels mirrors the labels results carry: the levels the requirement
// has across versions, the area, the flags; and, for each other
// requirement a result may be reported under (also), its levels and
// "requirement:" with its id.
func labels(levels []string, area string, flags []string, also []string) []string {
	out := append(append(append([]string{}, levels...), "area:"+area), flags...)
	for _, r := range also {
		_, more, _ := newestLevel(r)
		for _, l := range more {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
		out = append(out, "requirement:"+r)
	}
	return out
}

// outcomeRequirements lists the requirements a vector test's results may
// be reported under besides its own: those its outcomes name, and the
// id-echo requirements when it writes lines on purpose (a robustness
// probe), whose replies the judge checks for a changed id.
func outcomeRequirements(t *vectors.Test) []string {
	var out []string
	add := func(r string) {
		if r != "" && r != t.Requirement && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, o := range t.Expect {
		add(o.Requirement)
	}
	if plan.Provoking(t) {
		add("JSONRPC-05")
		add("JSONRPC-16")
	}
	return out
}

// requirementEntry is one row of the coverage listing: a catalogue
// requirement with the checks that test it, or why none does.
type requirementEntry struct {
	catalog.Requirement
	// Levels says the level per version, compactly.
	Levels string   `json:"levels"`
	Checks []string `json:"checks"`
}

// levelsOf writes a requirement's levels per version compactly: runs of
// versions with the same level as one range ("SHOULD 2024-11-05…2025-03-26,
// MUST 2025-06-18…2025-11-25").
func levelsOf(r *catalog.Requirement) string {
	var parts []string
	vs := r.VersionList()
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && r.Versions[vs[j+1]].Level == r.Versions[vs[i]].Level {
			j++
		}
		span := vs[i]
		if j > i {
			span += "…" + vs[j]
		}
		parts = append(parts, r.Versions[vs[i]].Level+" "+span)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// newestLevel is a requirement's level in the newest version that has it.
func newestLevel(id string) (string, []string, string) {
	r, ok := catalog.Get(id)
	if !ok {
		return "", nil, ""
	}
	vs := r.VersionList()
	if len(vs) == 0 {
		return "", nil, ""
	}
	var all []string
	for _, v := range vs {
		if l := "level:" + r.Versions[v].Level; !slices.Contains(all, l) {
			all = append(all, l)
		}
	}
	v := vs[len(vs)-1]
	return r.Versions[v].Level, all, catalog.URL(v, r.Versions[v])
}

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
	entries := listChecks(files)
	reqs := coverage(entries)
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

// coverage maps the catalogue to the checks that test each requirement.
func coverage(entries []checkEntry) []requirementEntry {
	by := map[string][]string{}
	for _, e := range entries {
		by[e.Requirement] = append(by[e.Requirement], e.ID)
		for _, l := range e.Labels {
			if r, ok := strings.CutPrefix(l, "requirement:"); ok && !slices.Contains(by[r], e.ID) {
				by[r] = append(by[r], e.ID)
			}
		}
	}
	var out []requirementEntry
	for _, r := range catalog.All() {
		out = append(out, requirementEntry{Requirement: r, Levels: levelsOf(&r), Checks: append([]string{}, by[r.ID]...)})
	}
	return out
}

func listChecks(files []*vectors.File) []checkEntry {
	var out []checkEntry
	for _, c := range checks.All() {
		level, levels, url := newestLevel(c.Requirement)
		out = append(out, checkEntry{c.ID, c.Requirement, level, c.Area, "procedural", url, c.Description, labels(levels, c.Area, c.Flags, c.Also), c.Trigger})
	}
	for _, f := range files {
		for _, t := range f.Tests {
			level, levels, url := newestLevel(t.Requirement)
			out = append(out, checkEntry{t.ID, t.Requirement, level, f.Area, "vector", url, t.Description, labels(levels, f.Area, t.Flags, outcomeRequirements(t)), ""})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Requirement < out[j].Requirement })
	return out
}

// clip shortens a catalogue cell for the table; --json has it whole.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
