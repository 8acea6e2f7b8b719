package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "reports")
	if err := WriteDir(dir, sampleReport()); err != nil {
		t.Fatal(err)
	}
	// Twice: an existing directory and existing files are fine.
	if err := WriteDir(dir, hostileReport()); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{HTMLFile, JSONFile, MarkdownFile, JUnitFile, SARIFFile}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("got files %v, want %v (no temporary files left)", names, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != len(hostileReport().Results) {
		t.Errorf("report.json holds %d results, want the second run's %d", len(r.Results), len(hostileReport().Results))
	}
}

func TestWriteDirError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(file, sampleReport()); err == nil {
		t.Error("WriteDir into a regular file: got no error")
	}
}
