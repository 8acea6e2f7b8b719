package reports

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hostileFleet has a target whose reason, notes and inferred statements
// carry text a server chose: markup, Markdown and control characters.
func hostileFleet() *Fleet {
	const evil = "<script>alert(1)</script> | **bold** [x](javascript:y) \x1b[31m"
	f := &Fleet{Kind: "fleet", Targets: []FleetTarget{{
		ID: "evil", Class: ClassSetupError, Reason: "the server did not start: " + evil,
		Inferred: []string{"its stderr names " + evil}, Notes: []string{evil},
		Report: &Report{Results: []Result{}},
	}}}
	f.Count()
	f.Matrix = &Matrix{Columns: []MatrixColumn{{Title: "evil"}}, Rows: []MatrixRow{{
		Requirement: "LIFE-01", Check: "c", Cells: []map[string]Verdict{{"2025-11-25": Fail}}, Reasons: []map[string]string{{"2025-11-25": evil}},
	}}}
	return f
}

func TestFleetWritersEscapeServerText(t *testing.T) {
	f := hostileFleet()
	for name, write := range map[string]func(*bytes.Buffer) error{
		"html":     func(b *bytes.Buffer) error { return WriteFleetHTML(b, f) },
		"markdown": func(b *bytes.Buffer) error { return WriteFleetMarkdown(b, f) },
		"junit":    func(b *bytes.Buffer) error { return WriteFleetJUnit(b, f) },
		"console":  func(b *bytes.Buffer) error { return WriteFleetConsole(b, f, ConsoleOptions{Verbose: true}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		if name != "console" && strings.Contains(out, "<script>alert") || strings.Contains(out, "\x1b[31m") {
			t.Errorf("%s lets server text through as markup or an escape sequence:\n%s", name, out)
		}
		if name == "markdown" && (strings.Contains(out, "**bold**") || strings.Contains(out, "[x](javascript")) {
			t.Errorf("markdown formats server text:\n%s", out)
		}
	}
}

func TestFleetSummaryAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		classes []Class
		missing []string
		want    Class
	}{
		{[]Class{ClassConformant, ClassConformant}, nil, ClassConformant},
		{[]Class{ClassConformant, ClassSetupError}, nil, ClassSetupError},
		{[]Class{ClassSetupError, ClassIncomplete}, nil, ClassIncomplete},
		{[]Class{ClassIncomplete, ClassNonconformant, ClassSetupError}, nil, ClassNonconformant},
		{[]Class{ClassConformant}, []string{"2/2"}, ClassIncomplete},
	} {
		f := &Fleet{Missing: tc.missing}
		for i, c := range tc.classes {
			f.Targets = append(f.Targets, FleetTarget{ID: string(rune('z' - i)), Class: c})
		}
		f.Count()
		if f.Summary.Class != tc.want {
			t.Errorf("%v, missing %v: got %s, want %s", tc.classes, tc.missing, f.Summary.Class, tc.want)
		}
		if f.Targets[0].ID > f.Targets[len(f.Targets)-1].ID {
			t.Error("targets are not ordered by id")
		}
	}
	for c, code := range map[Class]int{ClassConformant: 0, ClassNonconformant: 1, ClassSetupError: 3, ClassIncomplete: 4} {
		if c.ExitCode() != code {
			t.Errorf("%s: exit code %d, want %d", c, c.ExitCode(), code)
		}
	}
}

// FleetProgress writes each target's lines whole, whichever goroutine it
// is called from, as WriteFleetTarget writes them.
func TestFleetProgress(t *testing.T) {
	fl := hostileFleet()
	var got, want bytes.Buffer
	done := FleetProgress(&got, ConsoleOptions{})
	var wg sync.WaitGroup
	for _, tg := range fl.Targets {
		wg.Add(1)
		go func() { defer wg.Done(); done(tg) }()
		WriteFleetTarget(&want, &tg, ConsoleOptions{})
	}
	wg.Wait()
	gotLines, wantLines := strings.SplitAfter(got.String(), "\n"), strings.SplitAfter(want.String(), "\n")
	slices.Sort(gotLines)
	slices.Sort(wantLines)
	if !slices.Equal(gotLines, wantLines) || got.Len() == 0 {
		t.Errorf("got %q, want the lines %q in any order of targets", got.String(), want.String())
	}
}
