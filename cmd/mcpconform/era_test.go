package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/testservers"
)

// TestServerWithoutTheEra: a server that runs and answers server/discover
// without serving 2026-07-28, judged with --spec-version 2026-07-28, is not
// one that did not start: server/discover is a MUST of that era, so
// discover-completes fails and the run is not conformant (exit 1); every
// other check is skipped with the reason. Only a server that answered
// nothing did not start (exit 3).
func TestServerWithoutTheEra(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) []string
	}{
		{"legacy-only mock", func(t *testing.T) []string {
			return []string{cliBinary(t), "mock", "--variant", "only-2025-11-25"}
		}},
		{"TypeScript SDK server", func(t *testing.T) []string { return testservers.TSServer(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := tc.server(t)
			dir := t.TempDir()
			r := runCLIIn(t, dir, append([]string{"--spec-version", "2026-07-28", "--json", "r.json", "--"}, server...)...)
			if r.code != exitNonconformant {
				t.Fatalf("got exit %d, want %d\n%v", r.code, exitNonconformant, r)
			}
			first, _, _ := strings.Cut(r.stderr, "\n")
			if want := "mcpconform: the server does not serve 2026-07-28: server/discover was refused: "; !strings.HasPrefix(first, want) {
				t.Errorf("stderr: got %q, want a first line starting with %q", r.stderr, want)
			}
			if strings.Contains(r.stderr, "did not start") {
				t.Errorf("stderr says the server did not start: %q", r.stderr)
			}
			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			validateReport(t, data)
			var rep struct {
				DidNotStart json.RawMessage
				Summary     struct{ Verdict string }
				Results     []struct{ ID, Verdict, Message, ProtocolVersion string }
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.DidNotStart != nil || rep.Summary.Verdict != "nonconformant" {
				t.Errorf("didNotStart %s, verdict %q; want none and nonconformant", rep.DidNotStart, rep.Summary.Verdict)
			}
			for _, res := range rep.Results {
				switch {
				case res.ProtocolVersion != "2026-07-28":
					t.Errorf("%s judged under %s", res.ID, res.ProtocolVersion)
				case res.ID == "discover-completes":
					if res.Verdict != "fail" || !strings.Contains(res.Message, "does not serve 2026-07-28") {
						t.Errorf("discover-completes: %s %q, want a fail saying the server does not serve 2026-07-28", res.Verdict, res.Message)
					}
				case res.Verdict != "skip":
					t.Errorf("%s: %s %q, want a skip", res.ID, res.Verdict, res.Message)
				case !strings.HasPrefix(res.Message, "the server does not serve 2026-07-28") && !strings.Contains(res.Message, "not a rule of 2026-07-28") && !strings.Contains(res.Message, "not 2026-07-28") && !strings.Contains(res.Message, "not in 2026-07-28"):
					// Only a check of another version may say so.
					t.Errorf("%s: skipped with %q, want the server does not serve 2026-07-28", res.ID, res.Message)
				}
			}
		})
	}
	t.Run("answers nothing", func(t *testing.T) {
		t.Parallel()
		r := runCLI(t, against(t, []string{"--spec-version", "2026-07-28"}, "crash-on-start")...)
		if r.code != exitTarget {
			t.Fatalf("got exit %d, want %d\n%v", r.code, exitTarget, r)
		}
		if first, _, _ := strings.Cut(r.stderr, "\n"); !strings.HasPrefix(first, "mcpconform: the server did not start: ") {
			t.Errorf("stderr: got %q, want it to say the server did not start", r.stderr)
		}
	})
}
