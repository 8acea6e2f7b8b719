package runner

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcpconform/mcpconform/internal/spelling"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/listing"
)

// A selector is one value of --only or --skip. It names a check id
// (resources-read-unknown-uri), a requirement id (RES-READ-05), a level
// (MUST, "MUST NOT" or must-not), an area (resources) or a label as results
// carry them (level:MUST, area:resources, robustness). Matching ignores
// case, and a selector holding *, ? or [ is a glob (path.Match):
// resources-read-*, RES-LIST-0?, area:res*.
type selector struct {
	text    string // as given, for messages
	pattern string // lower-cased
	glob    bool
}

func parseSelectors(flagName string, values []string) ([]selector, error) {
	var out []selector
	for _, v := range values {
		s := selector{text: v, pattern: strings.ToLower(v), glob: strings.ContainsAny(v, "*?[")}
		if s.glob {
			if _, err := path.Match(s.pattern, ""); err != nil {
				return nil, fmt.Errorf("--%s %q: bad glob pattern", flagName, v)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// checkNames is what a selector is matched against: the identity of a check,
// from the catalogue or from a result.
type checkNames struct {
	ID, Requirement, Level, Area string
	Labels                       []string
}

func namesOf(c listing.Check) checkNames {
	return checkNames{c.ID, c.Requirement, c.Level, c.Area, c.Labels}
}

func resultNames(r *reports.Result) checkNames {
	return checkNames{r.ID, r.Requirement, r.Level, r.Area, r.Labels}
}

// candidates lists every name a check answers to, lower-cased.
func (c checkNames) candidates() []string {
	level := strings.ToLower(c.Level)
	dashed := strings.ReplaceAll(level, " ", "-") // "must-not" for "MUST NOT"
	out := []string{
		strings.ToLower(c.ID), strings.ToLower(c.Requirement), level, dashed, strings.ToLower(c.Area),
		"id:" + strings.ToLower(c.ID), "requirement:" + strings.ToLower(c.Requirement),
		"level:" + level, "level:" + dashed, "area:" + strings.ToLower(c.Area),
	}
	for _, l := range c.Labels {
		out = append(out, strings.ToLower(l))
		if r, ok := strings.CutPrefix(l, "requirement:"); ok {
			// Another requirement the check's results may be reported
			// under, or the one it is filed under: a bare id selects it.
			out = append(out, strings.ToLower(r))
		}
	}
	return out
}

func (s selector) matches(c checkNames) bool {
	for _, name := range c.candidates() {
		if name == "" || strings.HasSuffix(name, ":") {
			continue
		}
		if s.glob {
			if ok, _ := path.Match(s.pattern, name); ok {
				return true
			}
		} else if s.pattern == name {
			return true
		}
	}
	return false
}

func anyMatches(sel []selector, c checkNames) bool {
	for _, s := range sel {
		if s.matches(c) {
			return true
		}
	}
	return false
}

// unmatchedSelector returns the first selector that matches no check of the
// catalogue, so a typo in --only fails fast instead of running nothing.
func unmatchedSelector(sel []selector, catalogue []listing.Check) (selector, bool) {
	for _, s := range sel {
		found := false
		for _, e := range catalogue {
			if s.matches(namesOf(e)) {
				found = true
				break
			}
		}
		if !found {
			return s, true
		}
	}
	return selector{}, false
}

// filterResults keeps the results selected by only (all when empty) and not
// by skip.
func filterResults(in []reports.Result, only, skip []selector) []reports.Result {
	var out []reports.Result
	for i := range in {
		c := resultNames(&in[i])
		if len(only) > 0 && !anyMatches(only, c) {
			continue
		}
		if anyMatches(skip, c) {
			continue
		}
		out = append(out, in[i])
	}
	return out
}

// nearestSelector returns the name a check answers to that is closest to
// the selector s (by edit distance, ignoring case), as the catalogue spells
// it, or "" when nothing is close enough to be a likely typo.
func nearestSelector(s selector, catalogue []listing.Check) string {
	best, bestDist := "", -1
	seen := map[string]bool{}
	consider := func(name string) {
		lower := strings.ToLower(name)
		if name == "" || seen[lower] {
			return
		}
		seen[lower] = true
		d := spelling.Distance(s.pattern, lower)
		if bestDist < 0 || d < bestDist || (d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	for _, e := range catalogue {
		consider(e.ID)
		consider(e.Requirement)
		consider(e.Level)
		consider(e.Area)
		consider("area:" + e.Area)
		consider("level:" + e.Level)
		for _, l := range e.Labels {
			consider(l)
		}
	}
	if bestDist >= 0 && bestDist <= max(2, len([]rune(s.pattern))/3) {
		return best
	}
	// Not a typo but the start of names, which only a glob matches.
	if !s.glob && len(s.pattern) >= 3 {
		for name := range seen {
			if strings.HasPrefix(name, s.pattern) {
				return s.text + "*"
			}
		}
	}
	return ""
}

// wanted turns --only and --skip into the executor's selection, so that
// a narrow run starts only what its checks need. It errs on the side of
// running: a test runs when --only could select it in some version or
// outcome (a level selector matches any level its requirements have), and
// --skip leaves it out only by a name that is the same in every version
// and outcome (id, its own requirement, area, flag). Results are then
// filtered exactly, result by result.
func wanted(onlySel, skipSel []selector, catalogue []listing.Check) func(id string) bool {
	if len(onlySel) == 0 && len(skipSel) == 0 {
		return nil
	}
	only, skip := map[string]bool{}, map[string]bool{}
	for _, e := range catalogue {
		n := namesOf(e)
		if len(onlySel) == 0 || anyMatches(onlySel, n) || anyMatches(onlySel, levelNames(n)) {
			only[e.ID] = true
		}
		fixed := n
		fixed.Level = ""
		fixed.Labels = nil
		for _, l := range n.Labels {
			// Levels vary by version, and the other requirements a
			// result may be reported under by outcome: neither leaves
			// a test out before it ran.
			if !strings.HasPrefix(l, "level:") && !strings.HasPrefix(l, "requirement:") {
				fixed.Labels = append(fixed.Labels, l)
			}
		}
		if anyMatches(skipSel, fixed) {
			skip[e.ID] = true
		}
	}
	return func(id string) bool { return only[id] && !skip[id] }
}

// levelNames is n answering to each level its requirement has in some
// version, as a bare level (MUST) and not only as a label (level:MUST).
func levelNames(n checkNames) checkNames {
	out := checkNames{ID: n.ID}
	for _, l := range n.Labels {
		if lv, ok := strings.CutPrefix(l, "level:"); ok {
			out.Labels = append(out.Labels, lv, strings.ReplaceAll(lv, " ", "-"))
		}
	}
	return out
}
