package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOutputsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Outputs
		want string // "" for no error
	}{
		{"every format to a file", Outputs{JSON: "r.json", JUnit: "j.xml", Markdown: "r.md", HTML: "r.html", SARIF: "r.sarif", SARIFArtifact: "cmd/main.go", Dir: "out"}, ""},
		{"one report on stdout", Outputs{Markdown: "-", JSON: "r.json"}, ""},
		{"an absolute artifact", Outputs{SARIFArtifact: "/src/main.go"}, "--sarif-artifact /src/main.go: a path relative to the repository's root"},
		{"a directory on stdout", Outputs{Dir: "-"}, "--report-dir -: a directory cannot go to stdout"},
		{"two reports on stdout", Outputs{JSON: "-", SARIF: "-"}, "--json - and --sarif -: only one report can go to stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// A path in a missing directory is found before the run, extra paths
// too, and the report directory is created.
func TestOutputsCheckPaths(t *testing.T) {
	dir := t.TempDir()
	o := Outputs{JSON: filepath.Join(dir, "r.json"), Markdown: "-", Dir: filepath.Join(dir, "a", "b")}
	if err := o.CheckPaths(filepath.Join(dir, "run.json")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
		t.Errorf("the report directory was not created: %v", err)
	}
	missing := filepath.Join(dir, "none", "run.json")
	err := o.CheckPaths(missing)
	if want := "cannot write " + missing + ": no directory " + filepath.Dir(missing); err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	o.HTML = filepath.Join(dir, "none", "r.html")
	if err := o.CheckPaths(); err == nil || !strings.Contains(err.Error(), "r.html") {
		t.Errorf("an HTML report in a missing directory: got %v", err)
	}
}

// Each format goes where it is asked to, with what its writer writes; the
// directory gets every format; Files names the places.
func TestOutputsWrite(t *testing.T) {
	dir := t.TempDir()
	rep := sampleReport()
	o := Outputs{JSON: filepath.Join(dir, "r.json"), Markdown: "-", Dir: filepath.Join(dir, "out")}
	var stdout bytes.Buffer
	if err := o.Write(rep, &stdout); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteMarkdown(&want, rep); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	want.Reset()
	if err := WriteJSON(&want, rep); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{o.JSON, filepath.Join(o.Dir, JSONFile)} {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: not the JSON report (%v)", path, err)
		}
	}
	for _, name := range []string{JUnitFile, MarkdownFile, HTMLFile, SARIFFile} {
		if _, err := os.Stat(filepath.Join(o.Dir, name)); err != nil {
			t.Error(err)
		}
	}
	if !o.ToStdout() || (&Outputs{JSON: "r.json"}).ToStdout() {
		t.Error("ToStdout is not whether a report goes to stdout")
	}
	var out, errOut bytes.Buffer
	if o.Console(&out, &errOut) != &errOut || (&Outputs{JSON: "r.json"}).Console(&out, &errOut) != &out {
		t.Error("the console is not on stderr exactly when a report is on stdout")
	}
	if diff := cmp.Diff([]string{o.JSON, o.Dir + string(filepath.Separator)}, o.Files()); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	bad := Outputs{HTML: filepath.Join(dir, "none", "r.html")}
	if err := bad.Write(rep, &stdout); err == nil || !strings.HasPrefix(err.Error(), "writing the html report to "+bad.HTML+": ") {
		t.Errorf("a report that cannot be written: got %v", err)
	}
}

func TestColorMode(t *testing.T) {
	var m ColorMode
	if err := m.Set(" ALWAYS "); err != nil || m != ColorAlways {
		t.Errorf("Set(ALWAYS): got %q, %v", m, err)
	}
	if err := m.Set("purple"); err == nil || m != ColorAlways {
		t.Errorf("Set(purple): got %q, %v; want an error and no change", m, err)
	}
	var b bytes.Buffer
	for mode, want := range map[ColorMode]bool{ColorAlways: true, ColorNever: false, ColorAuto: false} {
		if got := mode.Enabled(&b); got != want {
			t.Errorf("%s into a buffer: got %v, want %v", mode, got, want)
		}
	}
}
