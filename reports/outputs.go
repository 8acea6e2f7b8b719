package reports

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Outputs says where the reports of a run go: a file per format ("-" for
// stdout, which then carries that report alone), and a directory that
// gets every format under its fixed names.
type Outputs struct {
	JSON, JUnit, Markdown, HTML, SARIF string
	// SARIFArtifact is the repository file (relative to its root) every
	// SARIF result is put on.
	SARIFArtifact string
	Dir           string
}

// RegisterFlags defines the flags of the report formats on fs: --json,
// --junit, --markdown, --html, --sarif, --sarif-artifact and
// --report-dir.
func (o *Outputs) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.JSON, "json", "", "write the JSON report to `FILE` (- for stdout)")
	fs.StringVar(&o.JUnit, "junit", "", "write a JUnit XML report to `FILE` (- for stdout)")
	fs.StringVar(&o.Markdown, "markdown", "", "write a Markdown report to `FILE` (for a CI job summary; - for stdout)")
	fs.StringVar(&o.HTML, "html", "", "write a self-contained HTML report to `FILE` (- for stdout)")
	fs.StringVar(&o.SARIF, "sarif", "", "write a SARIF 2.1.0 log to `FILE`, for code scanning (- for stdout)")
	fs.StringVar(&o.SARIFArtifact, "sarif-artifact", "", "put every SARIF result on the first line of this repository `FILE` (relative to the repository's root, e.g. the server's main source file): GitHub code scanning shows only results located in a file")
	fs.StringVar(&o.Dir, "report-dir", "", "write every report format into `DIR` with fixed names (report.json, junit.xml, report.md, report.html, report.sarif)")
}

// Check refuses outputs that cannot all be written: an absolute
// --sarif-artifact, a directory on stdout, two reports on stdout.
func (o *Outputs) Check() error {
	if o.SARIFArtifact != "" && filepath.IsAbs(o.SARIFArtifact) {
		return fmt.Errorf("--sarif-artifact %s: a path relative to the repository's root, as code scanning matches it; write e.g. --sarif-artifact cmd/server/main.go", o.SARIFArtifact)
	}
	if o.Dir == "-" {
		return errors.New("--report-dir -: a directory cannot go to stdout; write e.g. --json - for one report on stdout, or --report-dir out")
	}
	if toStdout := ToStdout(o.formats()); len(toStdout) > 1 {
		return fmt.Errorf("%s: only one report can go to stdout; write the others to files, e.g. --junit junit.xml", strings.Join(toStdout, " and "))
	}
	return nil
}

// CheckPaths checks, before a run, that every report file (and each of
// extra, other files the run writes) is in a directory that exists, and
// creates the report directory: a typo does not cost a whole run.
func (o *Outputs) CheckPaths(extra ...string) error {
	for _, p := range append([]string{o.JSON, o.JUnit, o.Markdown, o.HTML, o.SARIF}, extra...) {
		if p == "" || p == "-" {
			continue
		}
		if dir := filepath.Dir(p); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return fmt.Errorf("cannot write %s: no directory %s", p, dir)
			}
		}
	}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return fmt.Errorf("--report-dir: %v", err)
		}
	}
	return nil
}

// Console is where the console of a command goes (ConsoleOf).
func (o *Outputs) Console(stdout, stderr io.Writer) io.Writer {
	return ConsoleOf(o.formats(), stdout, stderr)
}

// ToStdout reports whether a report goes to stdout.
func (o *Outputs) ToStdout() bool {
	return len(ToStdout(o.formats())) > 0
}

// Files names where the reports are written, the directory with a
// trailing separator; stdout is left out.
func (o *Outputs) Files() []string {
	var where []string
	for _, f := range o.formats() {
		if f.Path != "" && f.Path != "-" {
			where = append(where, f.Path)
		}
	}
	if o.Dir != "" {
		where = append(where, o.Dir+string(filepath.Separator))
	}
	return where
}

// Write writes rep in every format given: to its file, to stdout for
// "-", and into the report directory.
func (o *Outputs) Write(rep *Report, stdout io.Writer) error {
	if f, err := WriteFormats(o.formats(), rep, stdout); err != nil {
		where := f.Path
		if where == "-" {
			where = "stdout"
		}
		return fmt.Errorf("writing the %s report to %s: %v", f.Name, where, err)
	}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return err
		}
		return WriteDirWith(o.Dir, rep, DirOptions{SARIF: o.sarifOptions()})
	}
	return nil
}

// Format is one report format of a set of outputs: the name of its flag,
// the file it goes to ("-" for stdout, "" for none) and its writer.
type Format[T any] struct {
	Name, Path string
	Write      func(io.Writer, T) error
}

// ToStdout names the formats that go to stdout, as their flags are
// written ("--json -").
func ToStdout[T any](formats []Format[T]) []string {
	var names []string
	for _, f := range formats {
		if f.Path == "-" {
			names = append(names, "--"+f.Name+" -")
		}
	}
	return names
}

// ConsoleOf is where the console of a command goes when its reports go
// to formats: stdout, unless one of them does; then stderr, so that the
// report on stdout stays parseable and the person at the terminal still
// sees the verdicts.
func ConsoleOf[T any](formats []Format[T], stdout, stderr io.Writer) io.Writer {
	if len(ToStdout(formats)) > 0 {
		return stderr
	}
	return stdout
}

// WriteFormats writes v in every format that has a path: to its file, or
// to stdout for "-". It stops at the first that fails, and returns it
// with the error.
func WriteFormats[T any](formats []Format[T], v T, stdout io.Writer) (Format[T], error) {
	for _, f := range formats {
		if f.Path == "" {
			continue
		}
		if err := WriteTo(f.Path, stdout, func(w io.Writer) error { return f.Write(w, v) }); err != nil {
			return f, err
		}
	}
	return Format[T]{}, nil
}

func (o *Outputs) formats() []Format[*Report] {
	return []Format[*Report]{
		{"json", o.JSON, WriteJSON},
		{"junit", o.JUnit, WriteJUnit},
		{"markdown", o.Markdown, WriteMarkdown},
		{"html", o.HTML, WriteHTML},
		{"sarif", o.SARIF, func(w io.Writer, r *Report) error { return WriteSARIF(w, r, o.sarifOptions()) }},
	}
}

// sarifOptions are the options of the SARIF log: the artifact as a
// relative URI reference, as SARIF wants it.
func (o *Outputs) sarifOptions() SARIFOptions {
	return SARIFOptions{Artifact: strings.TrimPrefix(filepath.ToSlash(filepath.Clean(o.SARIFArtifact)), "./")}
}

// WriteTo writes to the file at path, or to stdout for "-".
func WriteTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ColorMode is when a console is coloured: auto, always or never. It is a
// flag.Value that takes any case.
type ColorMode string

// The colour modes.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

func (m *ColorMode) String() string {
	if m == nil {
		return ""
	}
	return string(*m)
}

// Set takes auto, always or never, in any case.
func (m *ColorMode) Set(v string) error {
	switch c := ColorMode(strings.ToLower(strings.TrimSpace(v))); c {
	case ColorAuto, ColorAlways, ColorNever:
		*m = c
		return nil
	}
	return errors.New("want auto, always or never; write e.g. --color=never")
}

// Enabled decides whether the console written to w is coloured: always
// and never are obeyed as given (an explicit always wins over NO_COLOR);
// auto colours only a terminal, and honours NO_COLOR and TERM=dumb
// (ColorEnabled).
func (m ColorMode) Enabled(w io.Writer) bool {
	switch m {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	f, ok := w.(*os.File)
	return ok && ColorEnabled(f)
}
