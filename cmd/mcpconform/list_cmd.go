package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/suite"
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
}

func (e checkEntry) names() checkNames {
	return checkNames{e.ID, e.Requirement, e.Level, e.Area, e.Labels}
}

// labels mirrors the labels suite gives each result.
func labels(level, area string, flags []string) []string {
	return append([]string{"level:" + level, "area:" + area}, flags...)
}

// requirementEntry is one row of the coverage listing: a catalogue
// requirement with the checks that test it, or why none does.
type requirementEntry struct {
	suite.Requirement
	Checks []string `json:"checks"`
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpconform list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON: {requirements: [...], checks: [...]}")
	byCheck := fs.Bool("checks", false, "list checks (id, requirement, level, spec) instead of requirements")
	if err := fs.Parse(args); err != nil {
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
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if *byCheck {
		fmt.Fprintln(tw, "CHECK\tREQUIREMENT\tLEVEL\tSPEC")
		for _, e := range entries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, e.Requirement, e.Level, e.Spec)
		}
		tw.Flush()
		return exitConformant
	}
	tested := 0
	fmt.Fprintln(tw, "REQUIREMENT\tLEVEL\tVERSIONS\tTESTED BY")
	for _, r := range reqs {
		by := strings.Join(r.Checks, ", ")
		if len(r.Checks) == 0 {
			by = "not tested: " + r.Untested
		} else {
			tested++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, clip(r.Level, 20), clip(r.Versions, 24), by)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%d requirements, %d tested by %d checks, %d with a reason they are not (mcpconform list --checks lists the checks)\n", len(reqs), tested, len(entries), len(reqs)-tested)
	return exitConformant
}

// coverage maps the catalogue to the checks that test each requirement.
func coverage(entries []checkEntry) []requirementEntry {
	by := map[string][]string{}
	for _, e := range entries {
		by[e.Requirement] = append(by[e.Requirement], e.ID)
	}
	var out []requirementEntry
	for _, r := range suite.Requirements() {
		out = append(out, requirementEntry{Requirement: r, Checks: append([]string{}, by[r.ID]...)})
	}
	return out
}

func listChecks(files []*vectors.File) []checkEntry {
	var out []checkEntry
	for _, c := range suite.Checks() {
		out = append(out, checkEntry{c.ID, c.Requirement, c.Level, c.Area, "procedural", suite.SpecURL("", c.Spec), c.Description, labels(c.Level, c.Area, c.Flags)})
	}
	for _, f := range files {
		for _, t := range f.Tests {
			out = append(out, checkEntry{t.ID, t.Requirement, t.Level, f.Area, "vector", suite.SpecURL("", t.Spec), t.Description, labels(t.Level, f.Area, t.Flags)})
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
