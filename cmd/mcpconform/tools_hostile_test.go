package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadonlyCallsNoToolListedAlsoAsDestructive: a server lists its echo
// tool twice, read-only and then destructive. A call names a tool, not a
// listing, so --call-tools readonly must not call echo; it still calls the
// other read-only tools.
func TestReadonlyCallsNoToolListedAlsoAsDestructive(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "record.jsonl")
	args := append([]string{"--call-tools", "readonly", "--json", "report.json", "--"}, mockArgs(t, "duplicate-tool-names")...)
	r := runCLIIn(t, dir, append(args, "--record", record)...)
	if r.code != exitNonconformant && r.code != exitConformant {
		t.Fatalf("exit %d\n%v", r.code, r)
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, `tools/call`) {
			continue
		}
		calls++
		if strings.Contains(l, `\"name\":\"echo\"`) || strings.Contains(l, `"name":"echo"`) {
			t.Errorf("echo, listed also as destructive, was called: %s", l)
		}
	}
	if calls == 0 {
		t.Errorf("no tool was called, so nothing was tested")
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "listed more than once, not every time with readOnlyHint: true") {
		t.Errorf("the report does not say why echo was not called")
	}
}
