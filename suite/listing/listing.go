// Package listing lists the checks of the suite, with the names --only and
// --skip select them by, and the requirements of the catalogue with the
// checks that test each: what `mcpconform list` prints.
package listing

import (
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// Check is a check a run can select: a procedural check or a vector test,
// with the names --only and --skip match (one line of `mcpconform list
// --checks`).
type Check struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Level       string `json:"level"`
	Area        string `json:"area"`
	Kind        string `json:"kind"` // "vector", "procedural" or "client"
	Spec        string `json:"spec"`
	Description string `json:"description"`
	// Labels are the labels its results carry (level:MUST, area:resources,
	// flags such as robustness), for --only and --skip.
	Labels []string `json:"labels"`
	// Needs is what the server must do on its own for the check to judge
	// anything, where the suite's traffic cannot make it.
	Needs string `json:"needs,omitempty"`
	// Scenarios are the scenarios of client mode a client check judges
	// (none: every one).
	Scenarios []string `json:"scenarios,omitempty"`
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

// Requirement is one row of the coverage listing: a catalogue
// requirement with the checks that test it, or why none does.
type Requirement struct {
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

// Requirements maps the catalogue to the checks that test each
// requirement.
func Requirements(entries []Check) []Requirement {
	by := map[string][]string{}
	for _, e := range entries {
		by[e.Requirement] = append(by[e.Requirement], e.ID)
		for _, l := range e.Labels {
			if r, ok := strings.CutPrefix(l, "requirement:"); ok && !slices.Contains(by[r], e.ID) {
				by[r] = append(by[r], e.ID)
			}
		}
	}
	var out []Requirement
	for _, r := range catalog.All() {
		out = append(out, Requirement{Requirement: r, Levels: levelsOf(&r), Checks: append([]string{}, by[r.ID]...)})
	}
	return out
}

// Checks lists every check of a run with the vector files files: the
// procedural checks and the vector tests, by requirement.
func Checks(files []*vectors.File) []Check {
	var out []Check
	for _, c := range checks.All() {
		level, levels, url := newestLevel(c.Requirement)
		out = append(out, Check{c.ID, c.Requirement, level, c.Area, "procedural", url, c.Description, labels(levels, c.Area, c.Flags, c.Also), c.Trigger, nil})
	}
	for _, f := range files {
		for _, t := range f.Tests {
			level, levels, url := newestLevel(t.Requirement)
			out = append(out, Check{t.ID, t.Requirement, level, f.Area, "vector", url, t.Description, labels(levels, f.Area, t.Flags, outcomeRequirements(t)), "", nil})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Requirement < out[j].Requirement })
	return out
}

// ClientChecks lists the checks of client mode (`mcpconform client`), by
// requirement: the rules a client keeps on the wire, judged in each
// scenario at the level of the version the client used.
func ClientChecks() []Check {
	var out []Check
	for _, c := range checks.ClientChecks() {
		level, levels, url := newestLevel(c.Requirement)
		out = append(out, Check{ID: c.ID, Requirement: c.Requirement, Level: level, Area: c.Area, Kind: "client", Spec: url,
			Description: c.Description, Labels: labels(levels, c.Area, c.Flags, nil), Scenarios: c.Scenarios})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Requirement < out[j].Requirement })
	return out
}
