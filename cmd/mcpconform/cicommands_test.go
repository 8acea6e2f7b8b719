package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// workflowCommand matches what GitHub's runner executes in a job's log: a
// line that starts with "::" after white space, or holds "##[" anywhere.
var workflowCommand = regexp.MustCompile(`(?m)^[\p{Z}\s]*::|##\[`)

// TestServerTextRunsNoWorkflowCommand runs the binary against a server
// whose serverInfo, tool and resource names, error messages and stderr
// carry workflow commands, and reads every text it prints or writes for a
// job log or a CI page: none may hold a command.
func TestServerTextRunsNoWorkflowCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  []string
		faults []string
		code   int
	}{
		{"verbose", []string{"--verbose", "--call-tools", "all"}, []string{"ci-commands"}, exitConformant},
		{"quiet", []string{"--quiet"}, []string{"ci-commands"}, exitConformant},
		{"default", nil, []string{"ci-commands"}, exitConformant},
		{"did not start", nil, []string{"ci-commands", "crash-on-start"}, exitTarget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			flags := append([]string{"--report-dir", "out"}, tc.flags...)
			r := runCLIIn(t, dir, against(t, flags, tc.faults...)...)
			if r.code != tc.code {
				t.Fatalf("got exit %d, want %d\n%v", r.code, tc.code, r)
			}
			texts := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
			for _, name := range []string{"report.md", "junit.xml"} {
				b, err := os.ReadFile(filepath.Join(dir, "out", name))
				if err != nil {
					t.Fatal(err)
				}
				texts[name] = string(b)
			}
			if !strings.Contains(r.stdout+r.stderr+texts["report.md"], "add-mask") {
				t.Fatalf("the server's text shows nowhere, so nothing was tested\n%v", r)
			}
			for name, text := range texts {
				for _, l := range strings.Split(text, "\n") {
					if workflowCommand.MatchString(l) {
						t.Errorf("%s holds a workflow command: %q", name, l)
					}
				}
			}
		})
	}
}
