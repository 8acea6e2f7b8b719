package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The file names WriteDir uses (contract: CI scripts pick them up by name).
const (
	JSONFile     = "report.json"
	JUnitFile    = "junit.xml"
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	SARIFFile    = "report.sarif"
)

// DirOptions shapes the reports WriteDirWith writes.
type DirOptions struct {
	SARIF SARIFOptions
}

// WriteDir writes the JSON, JUnit, Markdown, HTML and SARIF reports into
// dir, creating it if needed. Each file is written to a temporary name and
// renamed into place, so an interrupted run never leaves a half-written
// report behind. A failure of one format does not stop the others; the
// errors are joined.
func WriteDir(dir string, r *Report) error { return WriteDirWith(dir, r, DirOptions{}) }

// WriteDirWith is WriteDir with options.
func WriteDirWith(dir string, r *Report, o DirOptions) error {
	return writeFiles(dir, []namedWriter{
		{JSONFile, func(w io.Writer) error { return WriteJSON(w, r) }},
		{JUnitFile, func(w io.Writer) error { return WriteJUnit(w, r) }},
		{MarkdownFile, func(w io.Writer) error { return WriteMarkdown(w, r) }},
		{HTMLFile, func(w io.Writer) error { return WriteHTML(w, r) }},
		{SARIFFile, func(w io.Writer) error { return WriteSARIF(w, r, o.SARIF) }},
	})
}

// namedWriter writes one file of a report directory.
type namedWriter struct {
	name  string
	write func(io.Writer) error
}

// writeFiles writes files into dir, creating it if needed, each under a
// temporary name renamed into place. A failure of one does not stop the
// others; the errors are joined.
func writeFiles(dir string, files []namedWriter) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating report directory: %w", err)
	}
	var errs []error
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", f.name, err))
		}
	}
	return errors.Join(errs...)
}

// writeAtomic writes a file under a temporary name and renames it into
// place.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
