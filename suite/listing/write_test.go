package listing

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/vectors"
)

// TestWritersKeepToTheirWidth: at any width from the narrowest up, every
// line of both listings fits, but a word alone on its line that is longer
// than a line (a link, never broken, so that a terminal can open it), and
// no check name is cut.
func TestWritersKeepToTheirWidth(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	checks := Checks(files)
	for _, width := range []int{minWidth, 80, 132} {
		for name, write := range map[string]func(*bytes.Buffer){
			"requirements": func(b *bytes.Buffer) { WriteRequirements(b, checks, width) },
			"checks":       func(b *bytes.Buffer) { WriteChecks(b, checks, width) },
		} {
			var b bytes.Buffer
			write(&b)
			for _, l := range strings.Split(b.String(), "\n") {
				if n := len([]rune(l)); n > width && len(strings.Fields(l)) > 1 {
					t.Errorf("%s at %d columns: a line of %d: %q", name, width, n, l)
				}
			}
			for _, c := range checks {
				if !strings.Contains(b.String(), c.ID) {
					t.Errorf("%s at %d columns: %s is not named whole", name, width, c.ID)
					break
				}
			}
		}
	}
}

// Each option writes its own listing, as its writer does.
func TestOptionsWrite(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	checks, clientChecks := Checks(files), ClientChecks()
	for _, tc := range []struct {
		o     Options
		write func(*bytes.Buffer)
	}{
		{Options{}, func(b *bytes.Buffer) { WriteRequirements(b, append(checks, clientChecks...), 80) }},
		{Options{Checks: true}, func(b *bytes.Buffer) { WriteChecks(b, checks, 80) }},
		{Options{Client: true}, func(b *bytes.Buffer) { WriteClientChecks(b, clientChecks, 80) }},
		{Options{JSON: true, Checks: true}, func(b *bytes.Buffer) { WriteJSON(b, checks, clientChecks) }},
	} {
		var got, want bytes.Buffer
		if err := tc.o.Write(&got, files, 80); err != nil {
			t.Fatal(err)
		}
		tc.write(&want)
		if got.String() != want.String() || got.Len() == 0 {
			t.Errorf("%+v: not the listing of its writer", tc.o)
		}
	}
}
