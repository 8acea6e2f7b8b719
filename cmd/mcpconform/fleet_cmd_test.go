package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fleet"
)

// writeTargets writes a target list whose servers are the built binary's
// mock, in dir.
func writeTargets(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "targets.yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "BIN", fmt.Sprintf("%q", cliBinary(t)))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFleetCommand: the command's exit code is the most severe class's,
// its reports land in --report-dir, each class is on the console, and a
// list with a mistake is a usage error before anything runs.
func TestFleetCommand(t *testing.T) {
	dir := t.TempDir()
	writeTargets(t, dir, `
targets:
  - {id: conforms, command: [BIN, mock], only: [area:ping]}
  - {id: needs-key, command: [BIN, mock], requires: [MCPCONFORM_FLEET_CLI_KEY]}
  - {id: does-not-start, command: [./nothing-here]}
`)
	r := runCLIIn(t, dir, "fleet", "--report-dir", "out", "targets.yaml")
	if r.code != exitTarget {
		t.Fatalf("conformant and setup errors: want exit %d (setup-error)\n%s", exitTarget, r)
	}
	for _, want := range []string{"conformant     conforms", "setup-error    needs-key", "setup-error    does-not-start", "fleet setup-error: 3 targets: 1 conformant, 0 nonconformant, 0 incomplete, 2 setup-error"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q\n%s", want, r)
		}
	}
	for _, f := range []string{"fleet.json", "fleet-junit.xml", "fleet.md", "fleet.html", "targets/conforms/report.json", "targets/needs-key/report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("--report-dir: %v", err)
		}
	}

	writeTargets(t, dir, `
targets:
  - {id: breaks, command: [BIN, mock, --fault, ping-not-empty], only: [area:ping]}
  - {id: conforms, command: [BIN, mock], only: [area:ping]}
`)
	r = runCLIIn(t, dir, "fleet", "--quiet", "--json", "-", "targets.yaml")
	if r.code != exitNonconformant {
		t.Fatalf("a nonconformant target: want exit %d\n%s", exitNonconformant, r)
	}
	var fl struct {
		Summary struct{ Class string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &fl); err != nil || fl.Summary.Class != "nonconformant" {
		t.Errorf("--json - gives %q (%v)", fl.Summary.Class, err)
	}
	if !strings.Contains(r.stderr, "nonconformant  breaks") || strings.Contains(r.stderr, "conformant     conforms") {
		t.Errorf("--quiet with the JSON on stdout: the console on stderr lists only what did not conform\n%s", r)
	}

	for _, tc := range []struct {
		name, list string
		args       []string
		want       string
	}{
		{"a misspelt field", "targets: [{id: a, comand: [x]}]", nil, "did you mean command?"},
		{"a selector that names no check", "targets: [{id: a, command: [x], only: [area:pingg]}]", nil, "target a: --only \"area:pingg\" matches no check"},
		{"a bad shard", "targets: [{id: a, command: [x]}]", []string{"--shard", "3/2"}, "--shard \"3/2\""},
		{"a split without shard", "targets: [{id: a, command: [x]}]", []string{"--split", "s.json"}, "--split needs --shard"},
	} {
		writeTargets(t, dir, tc.list)
		r := runCLIIn(t, dir, append(append([]string{"fleet"}, tc.args...), "targets.yaml")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: want exit %d with %q\n%s", tc.name, exitUsage, tc.want, r)
		}
	}
}

// TestMergeCommand: shards merge into the fleet's report and exit code; a
// conflict is refused; --balance prints a split that fleet --split takes.
func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	writeTargets(t, dir, `
targets:
  - {id: a, command: [BIN, mock], only: [area:ping]}
  - {id: b, command: [BIN, mock, --fault, ping-not-empty], only: [area:ping]}
  - {id: c, command: [BIN, mock], only: [area:ping]}
`)
	for i := 1; i <= 2; i++ {
		r := runCLIIn(t, dir, "fleet", "--quiet", "--shard", fmt.Sprintf("%d/2", i), "--report-dir", fmt.Sprintf("s%d", i), "targets.yaml")
		if r.code != exitConformant && r.code != exitNonconformant {
			t.Fatalf("shard %d/2: %s", i, r)
		}
	}
	r := runCLIIn(t, dir, "merge", "--targets", "targets.yaml", "--report-dir", "merged", "s1", "s2")
	if r.code != exitNonconformant || !strings.Contains(r.stdout, "fleet nonconformant: 3 targets") {
		t.Fatalf("merge: want exit %d and the three targets\n%s", exitNonconformant, r)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged", "targets", "b", "report.json")); err != nil {
		t.Errorf("the merged report directory lacks a shard's target reports: %v", err)
	}
	r = runCLIIn(t, dir, "merge", "--targets", "targets.yaml", "s1")
	if r.code != exitIncomplete || !strings.Contains(r.stdout, "missing:") {
		t.Errorf("one shard of two: want exit %d and the missing shard named\n%s", exitIncomplete, r)
	}

	// The same shard run again against a server that now fails conflicts.
	writeTargets(t, dir, `
targets:
  - {id: a, command: [BIN, mock, --fault, ping-not-empty], only: [area:ping]}
  - {id: b, command: [BIN, mock, --fault, ping-not-empty], only: [area:ping]}
  - {id: c, command: [BIN, mock], only: [area:ping]}
`)
	runCLIIn(t, dir, "fleet", "--quiet", "--shard", "1/2", "--report-dir", "again", "targets.yaml")
	r = runCLIIn(t, dir, "merge", "s1", "s2", "again")
	if r.code != exitUsage || !strings.Contains(r.stderr, "conflict") {
		t.Errorf("conflicting duplicates: want exit %d\n%s", exitUsage, r)
	}

	r = runCLIIn(t, dir, "merge", "--balance", "2", "--targets", "targets.yaml", "merged")
	if r.code != exitConformant {
		t.Fatalf("--balance: %s", r)
	}
	var split fleet.Split
	if err := json.Unmarshal([]byte(r.stdout), &split); err != nil || len(split.Shards) != 2 {
		t.Fatalf("--balance 2 printed %q (%v)", r.stdout, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "split.json"), []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLIIn(t, dir, "fleet", "--quiet", "--json", "-", "--shard", "1/2", "--split", "split.json", "targets.yaml")
	var fl struct{ Targets []struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &fl); err != nil {
		t.Fatalf("fleet --split: %v\n%s", err, r)
	}
	var got []string
	for _, t := range fl.Targets {
		got = append(got, t.ID)
	}
	if strings.Join(got, ",") != strings.Join(split.Shards[0].Targets, ",") {
		t.Errorf("fleet --shard 1/2 --split ran %v, the split says %v", got, split.Shards[0].Targets)
	}
}
