package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating report directory: %w", err)
	}
	var errs []error
	for _, x := range []struct {
		name  string
		write func(io.Writer, *Fleet) error
	}{
		{FleetJSONFile, WriteFleetJSON},
		{FleetJUnitFile, WriteFleetJUnit},
		{FleetMarkdownFile, WriteFleetMarkdown},
		{FleetHTMLFile, WriteFleetHTML},
	} {
		if err := writeAtomic(filepath.Join(dir, x.name), func(w io.Writer) error { return x.write(w, f) }); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", x.name, err))
		}
	}
	return errors.Join(errs...)
}
