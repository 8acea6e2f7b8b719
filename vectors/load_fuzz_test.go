package vectors

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the vector loader: it must never
// panic, every error must name the file, and every file it accepts must
// have expectations that compile. The seeds are the embedded vector files
// (added here) and the corpus in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := fs.ReadFile(Files, p); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		for _, tt := range file.Tests {
			if tt.File != file {
				t.Fatalf("test %q does not point back to its file", tt.ID)
			}
		}
	})
}
