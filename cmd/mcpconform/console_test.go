package main

import (
	"strings"
	"testing"
)

// TestConsoleLayouts: by default the console gives each problem a block
// (its message, what was sent, and for a failure the sentence broken and
// its link); -v lists passes too, with Sent, Got, Rule, Expected and the
// matcher, then a recap; -q prints the counts and one line per problem.
// Every line fits 100 columns, links aside.
func TestConsoleLayouts(t *testing.T) {
	t.Parallel()
	run := func(flags ...string) string {
		r := runCLIIn(t, "", against(t, flags, failingFault)...)
		if r.code != exitNonconformant {
			t.Fatalf("%v: got exit %d, want 1\n%s", flags, r.code, tail(r.stdout, 800))
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if n := len([]rune(l)); n > 100 && !strings.Contains(l, "https://") {
				t.Errorf("%v: a line of %d columns: %q", flags, n, l)
			}
		}
		return r.stdout
	}

	out := run()
	for _, want := range []string{"FAIL  ", "PING-01 MUST", "ping-empty-result", "sent {\"jsonrpc\":\"2.0\"", "      “", "      https://modelcontextprotocol.io/specification/", "— NONCONFORMANT"} {
		if !strings.Contains(out, want) {
			t.Errorf("default: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "PASS ") || strings.Contains(out, "Matcher:") || strings.Contains(out, "to look at:") {
		t.Errorf("default: passes, matchers or a recap listed:\n%s", out)
	}

	out = run("-v")
	for _, want := range []string{"PASS ", "Matcher:", "      Sent:     {\"jsonrpc\":\"2.0\"", "      Rule:     PING-01 (MUST in ", "      Expected: ", "to look at:"} {
		if !strings.Contains(out, want) {
			t.Errorf("-v: no %q in\n%s", want, tail(out, 2000))
		}
	}

	out = run("-q")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "nonconformant: ") || len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "FAIL  ") {
		t.Errorf("-q: want the counts, then one line per problem; got\n%s", out)
	}
}
