package suite

import (
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
)

// Verdict is one judged spec waiting to be run: its description and the
// pure function that judges it.
type spec struct {
	area  string
	id    string
	judge func() reports.Result
	slot  int
}

// plan lists every spec of a run, in report order: per judged version, the
// procedural checks then the vectors.
func plan(r *Run) []spec {
	var specs []spec
	if r.Fatal != "" {
		// No session to judge, but what every process wrote can still say
		// why (a banner, a message spread over lines, a wrong id).
		s := &Session{Requested: Newest}
		for _, c := range Checks() {
			if c.Run != nil {
				specs = append(specs, spec{area: c.Area, id: c.ID, judge: func() reports.Result { return JudgeCheck(c, r, s) }})
			}
		}
		return specs
	}
	for i, v := range r.Versions {
		s := r.Sessions[v]
		for _, c := range Checks() {
			if c.Run != nil {
				// Whole-run checks are judged once: under the first judged
				// version they apply to.
				if runVersion(r, c) != v {
					continue
				}
			}
			specs = append(specs, spec{area: c.Area, id: c.ID, judge: func() reports.Result { return JudgeCheck(c, r, s) }})
		}
		_ = i
		for _, o := range r.Vectors {
			if o.Version == v {
				specs = append(specs, spec{area: o.Test.File.Area, id: o.Test.ID, judge: func() reports.Result { return JudgeVector(o) }})
			}
		}
	}
	return specs
}

// Planned returns how many results judging r yields before any filtering.
func Planned(r *Run) int { return len(plan(r)) }

// Judge evaluates every check of a run without Ginkgo (for tests and tools).
func Judge(r *Run) []reports.Result {
	var out []reports.Result
	for _, s := range plan(r) {
		out = append(out, s.judge())
	}
	return out
}

// Define declares the Ginkgo specs of a run. Each spec appends its result to
// *results; a fail or harness error fails the spec, a skip skips it with
// its reason. Call it before ginkgo.RunSpecs, once per process.
func Define(r *Run, results *[]reports.Result, onResult func(reports.Result)) {
	specs := plan(r)
	// Ginkgo shuffles top-level containers; each spec writes its own slot so
	// the report keeps plan order.
	*results = make([]reports.Result, len(specs))
	byArea := map[string][]spec{}
	var areas []string
	for i := range specs {
		specs[i].slot = i
		s := specs[i]
		if _, ok := byArea[s.area]; !ok {
			areas = append(areas, s.area)
		}
		byArea[s.area] = append(byArea[s.area], s)
	}
	for _, area := range areas {
		ginkgo.Describe(area, ginkgo.Label(area), func() {
			for _, s := range byArea[area] {
				ginkgo.It(s.id, func() {
					res := s.judge()
					(*results)[s.slot] = res
					if onResult != nil {
						onResult(res)
					}
					switch res.Verdict {
					case reports.Fail, reports.Error:
						ginkgo.Fail(fmt.Sprintf("%s [%s %s]: %s", res.Verdict, res.Requirement, res.Level, res.Message))
					case reports.Skip:
						ginkgo.Skip(res.Message)
					}
				})
			}
		})
	}
}

// quietT satisfies ginkgo.GinkgoTestingT for an in-process run.
type quietT struct{ failed bool }

func (t *quietT) Fail() { t.failed = true }

// RunInProcess runs the Ginkgo specs of r from a program (not a test
// binary) and returns the results in spec order. Ginkgo's own console
// output is discarded: mcpconform's reports own stdout.
func RunInProcess(r *Run, onResult func(reports.Result)) []reports.Result {
	var results []reports.Result
	Define(r, &results, onResult)
	formatter.ColorableStdOut = io.Discard
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	reporterConfig.NoColor = true
	reporterConfig.Succinct = true
	ginkgo.RunSpecs(&quietT{}, "mcpconform", suiteConfig, reporterConfig)
	return compactResults(results)
}

// compactResults drops the slots of specs that did not run.
func compactResults(in []reports.Result) []reports.Result {
	out := in[:0]
	for _, r := range in {
		if r.ID != "" {
			out = append(out, r)
		}
	}
	return out
}

// runVersion is the version a whole-run check is judged under: the first
// judged version it applies to, or the first judged version (where it
// will be skipped, with the reason) when it applies to none.
func runVersion(r *Run, c *Check) string {
	for _, v := range r.Versions {
		if len(c.Versions) == 0 || contains(c.Versions, v) {
			return v
		}
	}
	return r.Versions[0]
}
