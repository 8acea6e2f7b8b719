package reports

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
)

// The fleet's HTML report is one self-contained file, under the same
// Content-Security-Policy as a single run's: its own inline script only.
var (
	//go:embed fleet.html.tmpl
	fleetTemplateText string
	//go:embed fleet.css
	fleetCSS string
	//go:embed fleet.js
	fleetScript string

	fleetTemplate = template.Must(template.New("fleet").Parse(fleetTemplateText))
	fleetCSP      = policyFor(fleetScript)
)

// WriteFleetHTML writes the fleet report as one HTML page: the count of
// each class, a table of the targets (class, why, what was inferred
// labelled so, durations, a link to each one's own report), and the
// matrix of checks by targets, a row per check and protocol version, with
// the version filter of a single run's report, a filter of the rows where
// a target did not pass, and a search. Every row is in the page; the
// script only filters (the filters can be given in the URL, as in
// fleet.html#version=2025-11-25&problems=1&q=resources).
func WriteFleetHTML(w io.Writer, f *Fleet) error {
	var buf bytes.Buffer
	if err := fleetTemplate.Execute(&buf, newFleetView(f)); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	_, err := buf.WriteTo(w)
	return err
}

type fleetView struct {
	Title    string
	CSP      string
	CSS      template.CSS
	Script   template.JS
	Class    string
	Total    int
	Classes  []fleetClassCount
	RunInfo  string
	Alerts   []string
	Targets  []fleetTargetView
	Versions []htmlFacet
	Rows     []fleetRowView
}

type fleetClassCount struct {
	Class, Meaning string
	N, Exit        int
}

type fleetTargetView struct {
	ID, Class, Reason string
	Inferred, Notes   []string
	Run, Setup        string
	SetupTail         string
	Link              string
}

type fleetRowView struct {
	Requirement, Check, Version string
	Problem                     bool
	Cells                       []fleetCellView
}

type fleetCellView struct {
	Verdict, Reason string
}

func newFleetView(f *Fleet) *fleetView {
	s := f.Summary
	v := &fleetView{
		Title:  "mcpconform fleet report: " + string(s.Class),
		CSP:    fleetCSP,
		CSS:    template.CSS(htmlCSS + fleetCSS),
		Script: template.JS(fleetScript),
		Class:  string(s.Class),
		Total:  s.Targets,
	}
	for _, c := range []Class{ClassConformant, ClassNonconformant, ClassIncomplete, ClassSetupError} {
		v.Classes = append(v.Classes, fleetClassCount{Class: string(c), Meaning: classMeaning[c], N: s.count(c), Exit: c.ExitCode()})
	}
	info := fmt.Sprintf("Run by mcpconform %s, started %s, took %s s; exit code %d.", f.Tool.Version, f.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"), seconds(f.DurationMs), s.Class.ExitCode())
	if f.Shard != "" {
		info += " Shard " + f.Shard + " of the target list."
	}
	if len(f.Merged) > 0 {
		info += " Merged from shards " + strings.Join(f.Merged, ", ") + "."
	}
	v.RunInfo = htmlText(info)
	if len(f.Missing) > 0 {
		v.Alerts = append(v.Alerts, htmlText("Missing shards: "+strings.Join(f.Missing, ", ")+": their targets are not in this report, which is therefore incomplete."))
	}
	for _, n := range f.Notes {
		v.Alerts = append(v.Alerts, htmlText(n))
	}
	for _, t := range f.Targets {
		tv := fleetTargetView{ID: htmlText(t.ID), Class: string(t.Class), Reason: htmlText(truncateBytes(t.Reason, docValueBytes)),
			Inferred: htmlTexts(t.Inferred), Notes: htmlTexts(t.Notes)}
		if t.DurationMs > 0 {
			tv.Run = seconds(t.DurationMs) + " s"
		}
		if t.Setup != nil {
			tv.Setup = seconds(t.Setup.DurationMs) + " s"
			if t.Setup.Error != "" {
				tv.SetupTail = htmlText(truncateBytes(strings.Join(t.Setup.OutputTail, "\n"), docValueBytes))
			}
		}
		if t.Dir != "" {
			tv.Link = t.Dir + "/" + HTMLFile
		}
		v.Targets = append(v.Targets, tv)
	}
	if f.Matrix == nil {
		return v
	}
	counts := map[string]int{}
	for _, r := range f.Matrix.Rows {
		vers := map[string]bool{}
		for _, c := range r.Cells {
			for ver := range c {
				vers[ver] = true
			}
		}
		var list []string
		for ver := range vers {
			list = append(list, ver)
		}
		sort.Strings(list)
		for _, ver := range list {
			row := fleetRowView{Requirement: htmlText(r.Requirement), Check: htmlText(r.Check), Version: htmlText(versionName(ver))}
			for i := range f.Matrix.Columns {
				var cv fleetCellView
				if verdict, ok := r.Cells[i][ver]; ok {
					cv = fleetCellView{Verdict: string(verdict), Reason: htmlText(r.Reasons[i][ver])}
					row.Problem = row.Problem || verdict != Pass && verdict != Skip && verdict != Info
				}
				row.Cells = append(row.Cells, cv)
			}
			counts[row.Version]++
			v.Rows = append(v.Rows, row)
		}
	}
	var vers []string
	for ver := range counts {
		vers = append(vers, ver)
	}
	sort.Strings(vers)
	for _, ver := range vers {
		v.Versions = append(v.Versions, htmlFacet{Value: ver, N: counts[ver]})
	}
	return v
}

// versionName is how the matrix names a version: "any" for a result
// judged across versions.
func versionName(v string) string {
	if v == "" {
		return "any"
	}
	return v
}
