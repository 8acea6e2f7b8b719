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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating report directory: %w", err)
	}
	var errs []error
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Report) error
	}{
		{JSONFile, WriteJSON},
		{JUnitFile, WriteJUnit},
		{MarkdownFile, WriteMarkdown},
		{HTMLFile, WriteHTML},
		{SARIFFile, func(w io.Writer, r *Report) error { return WriteSARIF(w, r, o.SARIF) }},
	} {
		if err := writeFile(filepath.Join(dir, f.name), r, f.write); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", f.name, err))
		}
	}
	return errors.Join(errs...)
}

func writeFile(path string, r *Report, write func(io.Writer, *Report) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := write(tmp, r); err != nil {
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
