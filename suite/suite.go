// Package suite turns the evidence of a run into results: every
// procedural check (package checks) and every vector test, judged under
// each version the run judged, as Ginkgo specs.
//
// A run flows execute → evidence → judge → report: package execute drives
// the server and records evidence; this package judges it; package
// reports renders the results. See README.md in this folder.
package suite

import (
	"fmt"
	"io"
	"sort"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
)

// spec is one result waiting to be judged.
type spec struct {
	area    string
	id      string
	version string
	// base is the result before judging: the check or test, its
	// requirement, level and spec section in version.
	base  func() reports.Result
	judge func() reports.Result
	slot  int
}

// VectorFiles returns the vector files a run used: the ones it carries (a
// user's --vectors), or the embedded ones.
func VectorFiles(r *evidence.Run) ([]*vectors.File, error) {
	if len(r.Vectors) == 0 {
		return vectors.Embedded()
	}
	var files []*vectors.File
	for _, vf := range r.Vectors {
		f, err := vectors.Parse(vf.Name, vf.JSON)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, vectors.CheckUnique(files)
}

// Needs returns the probes the selected checks need (selected nil: every
// check): what the executor sends beyond discovery and the vector tests
// (execute.Config.Needs).
func Needs(selected func(id string) bool) plan.Set {
	s := plan.NewSet()
	for _, c := range checks.All() {
		if selected == nil || selected(c.ID) {
			for _, p := range c.Needs {
				s[p] = true
			}
		}
	}
	return s
}

// specsOf lists every spec of a run, in report order: per version, the
// procedural checks, then the vector tests.
func specsOf(r *evidence.Run, files []*vectors.File) []spec {
	var specs []spec
	for _, v := range checks.JudgedVersions(r) {
		j := checks.NewJ(r, v)
		for _, c := range checks.All() {
			specs = append(specs, spec{area: c.Area, id: c.ID, version: v,
				base:  func() reports.Result { return checks.BaseResult(c.ID, c.Requirement, c.Area, v, c.Flags) },
				judge: func() reports.Result { return c.Result(j) }})
		}
		for _, f := range files {
			for _, t := range f.Tests {
				specs = append(specs, spec{area: f.Area, id: t.ID, version: v,
					base:  func() reports.Result { return checks.BaseResult(t.ID, t.Requirement, f.Area, v, t.Flags) },
					judge: func() reports.Result { return checks.JudgeVector(t, r, v, j.Session) }})
			}
		}
	}
	return specs
}

// Planned returns the results a run yields before any are judged: every
// one an error saying it was not judged. A judging that stops early (an
// interrupt) leaves these in place, so a report can never hold fewer
// checks than were planned.
func Planned(r *evidence.Run, files []*vectors.File, why string) []reports.Result {
	var out []reports.Result
	for _, s := range specsOf(r, files) {
		// Named as a judged result would be (requirement, level, spec
		// section), so a cut report still says which rules went unjudged.
		res := s.base()
		res.Verdict, res.Message = reports.Error, "not judged: "+why
		out = append(out, res)
	}
	return out
}

// Judge judges every check of a run without Ginkgo (for tests and tools).
func Judge(r *evidence.Run, files []*vectors.File) []reports.Result {
	return JudgeEach(r, files, nil)
}

// JudgeEach is Judge calling onResult (when set) with each result as it
// is judged: the same results as RunInProcess, in a process that may
// judge more than once.
func JudgeEach(r *evidence.Run, files []*vectors.File, onResult func(reports.Result)) []reports.Result {
	var out []reports.Result
	for _, s := range specsOf(r, files) {
		res := s.judge()
		if onResult != nil {
			onResult(res)
		}
		out = append(out, res)
	}
	return out
}

// Define declares the Ginkgo specs of a run. Each spec writes its result
// into results (which must hold Planned's results); a fail or harness
// error fails the spec, a skip skips it with its reason. Call it before
// ginkgo.RunSpecs, once per process.
func Define(r *evidence.Run, files []*vectors.File, results []reports.Result, onResult func(reports.Result)) {
	specs := specsOf(r, files)
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
				ginkgo.It(s.id+" ["+s.version+"]", ginkgo.Label("version:"+s.version), func() {
					res := s.judge()
					results[s.slot] = res
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
// binary) and returns the results in plan order. Every planned result is
// there: one whose spec did not run (Ginkgo stopped by a signal) stays an
// error saying so. Ginkgo's own console output is discarded: the reports
// own stdout.
func RunInProcess(r *evidence.Run, files []*vectors.File, onResult func(reports.Result)) []reports.Result {
	results := Planned(r, files, "judging was interrupted before this check")
	Define(r, files, results, onResult)
	formatter.ColorableStdOut = io.Discard
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	reporterConfig.NoColor = true
	reporterConfig.Succinct = true
	ginkgo.RunSpecs(&quietT{}, "mcpconform", suiteConfig, reporterConfig)
	return results
}

// Areas lists the areas of the checks and vector files, sorted.
func Areas(files []*vectors.File) []string {
	seen := map[string]bool{}
	for _, c := range checks.All() {
		seen[c.Area] = true
	}
	for _, f := range files {
		seen[f.Area] = true
	}
	var out []string
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}
