package fleet

import (
	"slices"
	"sort"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// A Column is what a matrix shows of one target: its title, facts and
// introduction (see reports.MatrixColumn), and the verdict of every check
// under every version it was judged under.
type Column struct {
	Title string
	Facts []string
	Intro string
	Cells []Cell
}

// A Cell is one check's verdict under one protocol version, with a
// one-line reason for a verdict that is not a pass.
type Cell struct {
	Check, Version string
	Verdict        reports.Verdict
	Reason         string
}

// NewMatrix builds the matrix of the columns: a row per check any column
// holds, in the catalogue's order (by requirement, then as the suite lists
// its checks), each cell holding the verdicts under the versions the check
// applies to (out of its range the suite skips a check, which says nothing
// about a server).
func NewMatrix(columns []Column) (*reports.Matrix, error) {
	cat, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	m := &reports.Matrix{}
	rows := map[string]*reports.MatrixRow{}
	for i, col := range columns {
		vers := map[string]bool{}
		for _, c := range col.Cells {
			vers[c.Version] = true
			r := rows[c.Check]
			if r == nil {
				r = &reports.MatrixRow{Check: c.Check, Requirement: cat.requirementOf(c.Check),
					Cells: make([]map[string]reports.Verdict, len(columns)), Reasons: make([]map[string]string, len(columns))}
				rows[c.Check] = r
			}
			if r.Cells[i] == nil {
				r.Cells[i], r.Reasons[i] = map[string]reports.Verdict{}, map[string]string{}
			}
			if cat.applies(c.Check, c.Version) {
				r.Cells[i][c.Version] = c.Verdict
				if c.Verdict != reports.Pass {
					r.Reasons[i][c.Version] = c.Reason
				}
			}
		}
		mc := reports.MatrixColumn{Title: col.Title, Facts: col.Facts, Intro: col.Intro}
		for v := range vers {
			mc.Versions = append(mc.Versions, v)
		}
		sort.Strings(mc.Versions)
		m.Columns = append(m.Columns, mc)
	}
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return cat.less(ids[i], ids[j]) })
	for _, id := range ids {
		m.Rows = append(m.Rows, *rows[id])
	}
	return m, nil
}

// A checkInfo is what the catalogue says about one check id.
type checkInfo struct {
	requirement string
	order       int
	// versions are the protocol versions the check applies to (nil: all).
	versions []string
}

// catalogue maps every check id, procedural or vector, to its requirement,
// and every requirement id to its position in the catalogue.
type catalogue struct {
	checks   map[string]checkInfo
	reqOrder map[string]int
}

func loadCatalogue() (*catalogue, error) {
	c := &catalogue{checks: map[string]checkInfo{}, reqOrder: map[string]int{}}
	for i, r := range catalog.All() {
		c.reqOrder[r.ID] = i
	}
	n := 0
	add := func(id, req string, versions []string) {
		if _, ok := c.checks[id]; !ok {
			c.checks[id] = checkInfo{requirement: req, order: n, versions: versions}
			n++
		}
	}
	for _, ch := range checks.All() {
		var versions []string
		for _, v := range wire.AllVersions {
			if ch.Applies(v) == "" {
				versions = append(versions, v)
			}
		}
		add(ch.ID, ch.Requirement, versions)
	}
	files, err := vectors.Embedded()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		for _, t := range f.Tests {
			add(t.ID, t.Requirement, intersect(f.Requires.Versions, t.Requires.Versions))
		}
	}
	return c, nil
}

// intersect returns the versions in both lists, where an empty list means
// every version (as vector files and tests gate them).
func intersect(a, b []string) []string {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	var out []string
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []string{} // applies to no version at all
	}
	return out
}

// applies reports whether a check applies to a protocol version at all;
// out of its range the suite skips it, which says nothing about a server.
// A result judged across versions (no version) applies.
func (c *catalogue) applies(id, version string) bool {
	ci, ok := c.checks[id]
	return !ok || ci.versions == nil || version == "" || slices.Contains(ci.versions, version)
}

// requirementOf is a check's requirement id, "?" for a check the
// catalogue no longer has (a golden file older than a rename).
func (c *catalogue) requirementOf(id string) string {
	if ci, ok := c.checks[id]; ok && ci.requirement != "" {
		return ci.requirement
	}
	return "?"
}

// less orders checks by requirement in catalogue order, then as the suite
// lists them.
func (c *catalogue) less(a, b string) bool {
	ra, rb := c.requirementOf(a), c.requirementOf(b)
	if ra != rb {
		oa, okA := c.reqOrder[ra]
		ob, okB := c.reqOrder[rb]
		switch {
		case okA && okB:
			return oa < ob
		case okA != okB:
			return okA
		}
		return ra < rb
	}
	ca, okA := c.checks[a]
	cb, okB := c.checks[b]
	if okA && okB {
		return ca.order < cb.order
	}
	if okA != okB {
		return okA
	}
	return a < b
}
