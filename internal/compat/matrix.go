package compat

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

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
func (c *catalogue) applies(id, version string) bool {
	ci, ok := c.checks[id]
	return !ok || ci.versions == nil || slices.Contains(ci.versions, version)
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

// shortVersion writes a protocol version the way the catalogue does:
// 2025-06-18 as 25-06.
func shortVersion(v string) string {
	if len(v) == len("2025-06-18") && strings.HasPrefix(v, "20") {
		return v[2:7]
	}
	return v
}

// severity orders verdicts for listings: the ones that need attention first.
var severity = map[reports.Verdict]int{
	reports.Fail: 0, reports.Error: 1, reports.Warn: 2, reports.XFail: 3,
	reports.Info: 4, reports.Skip: 5, reports.Pass: 6,
}

// versionsOf returns, for every check of a golden, the verdict per
// protocol version the check applies to.
func versionsOf(g *Golden, cat *catalogue) map[string]map[string]reports.Verdict {
	out := map[string]map[string]reports.Verdict{}
	for k, v := range g.Verdicts {
		id, ver := SplitKey(k)
		if out[id] == nil {
			out[id] = map[string]reports.Verdict{}
		}
		if cat.applies(id, ver) {
			out[id][ver] = v
		}
	}
	return out
}

// cell renders one check's verdicts against one server: the verdict alone
// when every version agrees, else each verdict with its versions.
func cell(byVersion map[string]reports.Verdict) string {
	if byVersion == nil {
		return "—"
	}
	if len(byVersion) == 0 {
		return "n/a"
	}
	groups := map[reports.Verdict][]string{}
	for ver, v := range byVersion {
		groups[v] = append(groups[v], ver)
	}
	show := func(v reports.Verdict) string {
		if v == reports.Fail || v == reports.Error {
			return "**" + string(v) + "**"
		}
		return string(v)
	}
	if len(groups) == 1 {
		for v := range groups {
			return show(v)
		}
	}
	var verdicts []reports.Verdict
	for v := range groups {
		verdicts = append(verdicts, v)
	}
	sort.Slice(verdicts, func(i, j int) bool { return severity[verdicts[i]] < severity[verdicts[j]] })
	var parts []string
	for _, v := range verdicts {
		vers := groups[v]
		sort.Strings(vers)
		for i := range vers {
			vers[i] = shortVersion(vers[i])
		}
		parts = append(parts, show(v)+" "+strings.Join(vers, ", "))
	}
	return strings.Join(parts, "; ")
}

// mdEscaper keeps server text from turning into Markdown structure inside
// a table cell.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`,
)

// Render writes the compatibility matrix of the golden records, in the
// order given, as Markdown.
func Render(w io.Writer, goldens []*Golden) error {
	cat, err := loadCatalogue()
	if err != nil {
		return err
	}
	title := map[string]Server{}
	for _, s := range Servers {
		title[s.Name] = s
	}
	serverTitle := func(g *Golden) string {
		if s, ok := title[g.Server]; ok {
			return s.Title
		}
		return g.Server
	}
	perServer := make([]map[string]map[string]reports.Verdict, len(goldens))
	ids := map[string]bool{}
	for i, g := range goldens {
		perServer[i] = versionsOf(g, cat)
		for k := range g.Verdicts {
			id, _ := SplitKey(k)
			ids[id] = true
		}
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Slice(sorted, func(i, j int) bool { return cat.less(sorted[i], sorted[j]) })

	var b strings.Builder
	b.WriteString("# Compatibility with real MCP servers\n\n")
	b.WriteString("<!-- Generated by `go run ./internal/compat/gencompat` from internal/compat/testdata/*.golden.json. Do not edit. -->\n\n")
	b.WriteString("What the whole suite (`--spec-version all`: every handshake version the server echoes, plus 2026-07-28 where the server speaks it; `--call-tools readonly`: the tools annotated `readOnlyHint: true` are called, these servers being the project's own) says about real servers built on the MCP SDKs. ")
	b.WriteString("The verdicts come from the golden files that `go test ./internal/compat` compares every run against; ")
	b.WriteString("[internal/testservers/README.md](../internal/testservers/README.md) records what each server does on the wire, and ")
	b.WriteString("`go test ./internal/compat -args -report DIR` writes the full JSON report of each run (with transcripts) for the evidence behind a verdict.\n\n")
	b.WriteString("To refresh after a change of the suite or of a server: `go test ./internal/compat -update`, review `git diff internal/compat/testdata`, then `go run ./internal/compat/gencompat`.\n\n")

	b.WriteString("## Servers\n\n| server | built on | transport | versions judged | pass | fail | warn | info | skip | error |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range goldens {
		count := map[reports.Verdict]int{}
		vers := map[string]bool{}
		for k, v := range g.Verdicts {
			id, ver := SplitKey(k)
			vers[ver] = true
			if cat.applies(id, ver) {
				count[v]++
			}
		}
		var vl []string
		for v := range vers {
			vl = append(vl, v)
		}
		sort.Strings(vl)
		builtOn, transport := title[g.Server].BuiltOn, cmp.Or(title[g.Server].Transport, "stdio")
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", serverTitle(g), anchor(serverTitle(g)), builtOn, transport,
			strings.Join(vl, ", "), count[reports.Pass], count[reports.Fail], count[reports.Warn], count[reports.Info], count[reports.Skip], count[reports.Error])
	}
	b.WriteString("\nThe counts leave out checks judged under a version they do not apply to (the suite skips those). ")
	b.WriteString("A cell gives the verdict under every judged version the check applies to, or each verdict with the versions it holds for (24-11 is 2024-11-05, 26-07 is 2026-07-28); ")
	b.WriteString("`n/a`: the check applies to none of the versions judged; `—`: not run against that server. ")
	b.WriteString("Whole-run checks (framing, envelopes, ids over every process) are judged once, under the oldest version. ")
	b.WriteString("`skip` always has a reason (a capability not declared, a version out of range, nothing to judge); see the per-server lists below.\n\n")

	b.WriteString("## Matrix\n\n| requirement | check |")
	for _, g := range goldens {
		b.WriteString(" " + serverTitle(g) + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(goldens)) + "\n")
	prevReq := ""
	for _, id := range sorted {
		req := cat.requirementOf(id)
		reqCell := ""
		if req != prevReq {
			reqCell = req
			prevReq = req
		}
		fmt.Fprintf(&b, "| %s | `%s` |", mdEscaper.Replace(reqCell), id)
		for i := range goldens {
			b.WriteString(" " + cell(perServer[i][id]) + " |")
		}
		b.WriteString("\n")
	}

	for _, g := range goldens {
		fmt.Fprintf(&b, "\n## %s\n\n", serverTitle(g))
		if s, ok := title[g.Server]; ok {
			fmt.Fprintf(&b, "Built on %s. Golden file: `internal/compat/testdata/%s.golden.json`.\n\n", s.BuiltOn, g.Server)
		}
		writeNonPass(&b, g, cat)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// writeNonPass lists every verdict of g that is not a pass, most severe
// first; a check with the same verdict and reason under several versions
// is one line.
func writeNonPass(b *strings.Builder, g *Golden, cat *catalogue) {
	type row struct {
		id       string
		verdict  reports.Verdict
		reason   string
		versions []string
	}
	rows := map[string]*row{}
	for k, v := range g.Verdicts {
		id, ver := SplitKey(k)
		if v == reports.Pass || !cat.applies(id, ver) {
			continue
		}
		key := id + "\x00" + string(v) + "\x00" + g.Reasons[k]
		r := rows[key]
		if r == nil {
			r = &row{id: id, verdict: v, reason: g.Reasons[k]}
			rows[key] = r
		}
		r.versions = append(r.versions, ver)
	}
	if len(rows) == 0 {
		b.WriteString("Every check passes.\n")
		return
	}
	list := make([]*row, 0, len(rows))
	for _, r := range rows {
		sort.Strings(r.versions)
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool {
		a, c := list[i], list[j]
		if a.verdict != c.verdict {
			return severity[a.verdict] < severity[c.verdict]
		}
		if a.id != c.id {
			return cat.less(a.id, c.id)
		}
		return slices.Compare(a.versions, c.versions) < 0
	})
	b.WriteString("| verdict | check | requirement | versions | reason |\n|---|---|---|---|---|\n")
	for _, r := range list {
		vers := make([]string, len(r.versions))
		for i, v := range r.versions {
			vers[i] = shortVersion(v)
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s |\n", r.verdict, r.id, cat.requirementOf(r.id), strings.Join(vers, ", "), mdEscaper.Replace(r.reason))
	}
}

// anchor is the fragment GitHub gives a heading.
func anchor(heading string) string {
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

// LoadAll reads the golden file of every server of Servers under dir, in
// the matrix's column order.
func LoadAll(dir string) ([]*Golden, error) {
	var out []*Golden
	for _, s := range Servers {
		g, err := Load(Path(dir, s.Name))
		if err != nil {
			return nil, err
		}
		if g.Server == "" {
			g.Server = s.Name
		}
		out = append(out, g)
	}
	return out, nil
}
