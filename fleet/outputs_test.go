package fleet_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
)

func TestOutputsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    fleet.Outputs
		want string // "" for no error
	}{
		{"files and a directory", fleet.Outputs{JSON: "f.json", JUnit: "f.xml", Markdown: "f.md", HTML: "f.html", Dir: "out"}, ""},
		{"one report on stdout", fleet.Outputs{JSON: "-", HTML: "f.html"}, ""},
		{"a directory on stdout", fleet.Outputs{Dir: "-"}, "--report-dir -: a directory cannot go to stdout"},
		{"two reports on stdout", fleet.Outputs{JSON: "-", HTML: "-"}, "only one report can go to stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if got, want := tc.o.ToStdout(), tc.o.JSON == "-" || tc.o.HTML == "-"; got != want {
				t.Errorf("ToStdout: got %v, want %v", got, want)
			}
			var stdout, stderr bytes.Buffer
			if got, toStderr := tc.o.Console(&stdout, &stderr), tc.o.ToStdout(); got != map[bool]io.Writer{false: &stdout, true: &stderr}[toStderr] {
				t.Errorf("Console: not on stderr exactly when a report is on stdout")
			}
		})
	}
}

func TestOutputsWrite(t *testing.T) {
	dir := t.TempDir()
	fl := &reports.Fleet{Kind: "fleet", Tool: reports.Tool{Name: "mcpconform", Version: "T1"}}
	o := fleet.Outputs{JSON: "-", Markdown: filepath.Join(dir, "f.md"), Dir: filepath.Join(dir, "out")}
	var stdout bytes.Buffer
	if err := o.Write(fl, &stdout); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := reports.WriteFleetJSON(&want, fl); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != want.String() {
		t.Errorf("stdout: got %q, want the fleet's JSON %q", stdout.String(), want.String())
	}
	for _, path := range []string{o.Markdown, filepath.Join(o.Dir, reports.FleetJSONFile), filepath.Join(o.Dir, reports.FleetHTMLFile)} {
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
	}
	bad := fleet.Outputs{JUnit: filepath.Join(dir, "none", "f.xml")}
	if err := bad.Write(fl, &stdout); err == nil || !strings.HasPrefix(err.Error(), "writing the junit report: ") {
		t.Errorf("a report that cannot be written: got %v", err)
	}
}
