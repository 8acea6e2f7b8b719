package reports

import (
	"encoding/json"
	"sort"
	"strings"
)

// summarize returns the summary every writer prints. The counts always come
// from the results, so no format can disagree with another. The overall
// verdict is the more severe of the one the caller recorded (it may have
// raised it, e.g. to "error" when the target never started) and the one the
// results imply: a writer never hides a failure.
func summarize(r *Report) Summary {
	c := Report{Results: r.Results, Stale: r.Stale, Interrupted: r.Interrupted, Incomplete: r.Incomplete, DidNotStart: r.DidNotStart}
	c.Count()
	s := c.Summary
	if overallRank(r.Summary.Verdict) > overallRank(s.Verdict) && c.DidNotStart == nil {
		s.Verdict = r.Summary.Verdict
	}
	return s
}

// The overall verdicts, least severe first.
const (
	Conformant    = "conformant"
	Nonconformant = "nonconformant"
	ErrorVerdict  = "error"
)

func overallRank(v string) int {
	switch v {
	case Conformant:
		return 1
	case ErrorVerdict:
		return 2
	case Nonconformant:
		return 3
	}
	return 0
}

// count returns the number of results with verdict v in s.
func (s Summary) count(v Verdict) int {
	switch v {
	case Pass:
		return s.Pass
	case Fail:
		return s.Fail
	case Warn:
		return s.Warn
	case Info:
		return s.Info
	case Skip:
		return s.Skip
	case Error:
		return s.Error
	case XFail:
		return s.XFail
	}
	return 0
}

// severity orders verdicts for reading: what needs action first.
func severity(v Verdict) int {
	switch v {
	case Fail:
		return 0
	case Error:
		return 1
	case Warn:
		return 2
	case XFail:
		return 3
	case Info:
		return 4
	case Skip:
		return 5
	case Pass:
		return 6
	}
	return 7
}

// bySeverity returns the indexes of r.Results, most severe verdict first,
// in report order within one verdict.
func bySeverity(results []Result) []int {
	idx := make([]int, len(results))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return severity(results[idx[a]].Verdict) < severity(results[idx[b]].Verdict)
	})
	return idx
}

// areaOf returns the area a result is grouped under.
func areaOf(res *Result) string {
	if res.Area == "" {
		return "general"
	}
	return res.Area
}

// serverInfoText renders the target's self-description as "name version"
// (with its title, when it has one), or "" when it gave none.
func serverInfoText(raw []byte) string {
	var si struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &si) != nil {
		return ""
	}
	s := strings.TrimSpace(si.Name + " " + si.Version)
	if si.Title != "" && si.Title != si.Name {
		s += " (" + si.Title + ")"
	}
	return s
}
