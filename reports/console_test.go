package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestWriteConsoleGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts ConsoleOptions
	}{
		{"console.golden", ConsoleOptions{}},
		{"console-verbose.golden", ConsoleOptions{Verbose: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteConsole(&b, sampleReport(), tc.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

// sgr matches the colour sequences the writer itself emits.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestWriteConsoleHostile(t *testing.T) {
	for _, color := range []bool{false, true} {
		for _, verbose := range []bool{false, true} {
			var b bytes.Buffer
			if err := WriteConsole(&b, hostileReport(), ConsoleOptions{Color: color, Verbose: verbose}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if color && !sgr.MatchString(out) {
				t.Errorf("color=true: no colour in the output")
			}
			// Only the writer's own SGR codes may carry an ESC.
			clean := sgr.ReplaceAllString(out, "")
			for i, c := range []byte(clean) {
				if (c < 0x20 && c != '\n') || c == 0x7f {
					t.Fatalf("color=%v verbose=%v: control byte %#x at %d: %q", color, verbose, c, i, around(clean, i))
				}
			}
			for _, bad := range []string{"\u0085", "\u009b", "\u202e", "\u2028", "\ufffe", "\xff"} {
				if strings.Contains(clean, bad) {
					t.Errorf("color=%v: output contains %q", color, bad)
				}
			}
			if !strings.Contains(clean, `\x1b[31mred`) || !strings.Contains(clean, `\x1b]0;title\x07`) {
				t.Errorf("escape sequences are not shown as text:\n%s", clean)
			}
			for _, l := range strings.Split(clean, "\n") {
				if n := len([]rune(l)); n > 400 {
					t.Errorf("line of %d characters: %.80q…", n, l)
				}
			}
			// The hostile report was interrupted after a failure: a
			// failure observed before a cut is never hidden.
			if !strings.Contains(clean, "— NONCONFORMANT") && !strings.HasPrefix(clean, "NONCONFORMANT ") {
				t.Errorf("no overall verdict in:\n%s", clean)
			}
		}
	}
}

// TestWriteConsoleNoControlBytes is the minimal proof asked for: ANSI CSI,
// OSC title, OSC 8 hyperlink and carriage return in every field never reach
// the terminal as bytes.
func TestWriteConsoleNoControlBytes(t *testing.T) {
	evil := "a\x1b[31mb\x1b]0;title\x07c\x1b]8;;http://x\x07d\re"
	r := &Report{
		Tool:        Tool{Name: evil, Version: evil},
		Target:      Target{Command: []string{evil}, ProtocolVersion: evil},
		Stale:       []string{evil},
		Interrupted: evil,
		Results: []Result{{ID: evil, Requirement: evil, Level: evil, Verdict: Fail, Message: evil, Spec: evil,
			Expected: evil, Actual: map[string]string{evil: evil}}},
	}
	var b bytes.Buffer
	if err := WriteConsole(&b, r, ConsoleOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []byte{0x1b, 0x07, '\r'} {
		if i := bytes.IndexByte(b.Bytes(), c); i >= 0 {
			t.Errorf("output contains byte %#x at %d: %q", c, i, around(b.String(), i))
		}
	}
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}

func TestWriteStartFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    StartFailure
		want string
	}{
		{"what alone", StartFailure{What: "exec ./srv: no such file"}, "mcpconform: the server did not start: exec ./srv: no such file\n"},
		{"stderr and hint, escaped", StartFailure{What: "no initialize result", StderrTail: []string{"boom\x1b[2J", "bye"}, Hint: "run it by hand"},
			"mcpconform: the server did not start: no initialize result\n  its stderr ended with:\n    boom" + Escape("\x1b") + "[2J\n    bye\n  hint: run it by hand\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteStartFailure(&b, &tc.f)
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if strings.Contains(b.String(), "\x1b") {
				t.Error("an escape sequence of the server reached the terminal")
			}
		})
	}
}
