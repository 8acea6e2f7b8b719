package reports

import "io"

// The file names WriteFleetDir uses (contract: CI scripts and
// mcpconform merge pick them up by name).
const (
	FleetJSONFile     = "fleet.json"
	FleetJUnitFile    = "fleet-junit.xml"
	FleetMarkdownFile = "fleet.md"
	FleetHTMLFile     = "fleet.html"
)

// WriteFleetDir writes the fleet's JSON, JUnit, Markdown and HTML reports
// into dir, each written under a temporary name and renamed into place. A
// failure of one format does not stop the others; the errors are joined.
func WriteFleetDir(dir string, f *Fleet) error {
	return writeFiles(dir, []namedWriter{
		{FleetJSONFile, func(w io.Writer) error { return WriteFleetJSON(w, f) }},
		{FleetJUnitFile, func(w io.Writer) error { return WriteFleetJUnit(w, f) }},
		{FleetMarkdownFile, func(w io.Writer) error { return WriteFleetMarkdown(w, f) }},
		{FleetHTMLFile, func(w io.Writer) error { return WriteFleetHTML(w, f) }},
	})
}
