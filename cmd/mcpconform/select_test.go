package main

import (
	"strings"
	"testing"
)

// TestOnlySkipEndToEnd filters a real run.
func TestOnlySkipEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		keep  func(id, req, level, area string, labels []string) bool
	}{
		{"glob", []string{"--only", "resources-read-*"}, func(id, _, _, _ string, _ []string) bool { return strings.HasPrefix(id, "resources-read-") }},
		{"level, any case", []string{"--only", "should"}, func(_, _, level, _ string, _ []string) bool { return level == "SHOULD" }},
		{"area label and requirement", []string{"--only", "area:stdio,PING-01"}, func(_, req, _, area string, _ []string) bool { return area == "stdio" || req == "PING-01" }},
		{"skip level label", []string{"--skip", "level:MUST", "--skip", "area:resources"}, func(_, _, level, area string, _ []string) bool {
			return level != "MUST" && area != "resources"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runCLIIn(t, dir, append(tc.flags, "--json", "r.json")...)
			if r.code != exitConformant {
				t.Fatalf("got exit %d\n%v", r.code, r)
			}
			rep := readJSONReport(t, dir+"/r.json")
			if len(rep.Results) == 0 {
				t.Fatal("no results")
			}
			for _, res := range rep.Results {
				if !tc.keep(res.ID, res.Requirement, res.Level, res.Area, res.Labels) {
					t.Errorf("%s (%s, %s, %s) should have been filtered out", res.ID, res.Requirement, res.Level, res.Area)
				}
			}
		})
	}
	t.Run("filter keeps a failure out", func(t *testing.T) {
		t.Parallel()
		if r := runCLI(t, against(t, []string{"--skip", "area:ping,META-01"}, failingFault)...); r.code != exitConformant {
			t.Errorf("skipping the failing checks: got exit %d, want 0\n%v", r.code, r)
		}
	})
}
