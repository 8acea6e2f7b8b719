package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/listing"
	"github.com/mcpconform/mcpconform/vectors"
)

func TestSelectorMatches(t *testing.T) {
	check := checkNames{
		ID: "resources-read-unknown-uri", Requirement: "RES-READ-05", Level: "MUST NOT", Area: "resources",
		Labels: []string{"level:MUST NOT", "area:resources", "sdk-divergence"},
	}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"resources-read-unknown-uri", true},
		{"RESOURCES-READ-UNKNOWN-URI", true},
		{"resources-read", false}, // no prefix matching without a glob
		{"resources-read-*", true},
		{"*-uri", true},
		{"RES-READ-05", true},
		{"res-read-0?", true},
		{"RES-READ-5", false},
		{"must not", true},
		{"MUST-NOT", true},
		{"must", false}, // levels match whole
		{"level:must not", true},
		{"level:MUST-NOT", true},
		{"level:must", false},
		{"resources", true},
		{"area:resources", true},
		{"area:res*", true},
		{"area:stdio", false},
		{"sdk-divergence", true},
		{"SDK-Divergence", true},
		{"robustness", false},
		{"id:resources-read-unknown-uri", true},
		{"requirement:res-read-05", true},
		{"*", true},
		{"area:", false},
	} {
		sel, err := parseSelectors("only", []string{tc.sel})
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		if got := sel[0].matches(check); got != tc.want {
			t.Errorf("%q matches %s: got %v, want %v", tc.sel, check.ID, got, tc.want)
		}
	}
	if _, err := parseSelectors("skip", []string{"ok", "bad["}); err == nil || !strings.Contains(err.Error(), `--skip "bad["`) {
		t.Errorf("bad glob: got %v", err)
	}
}

func TestFilterResults(t *testing.T) {
	results := []reports.Result{
		{ID: "a-one", Requirement: "A-01", Level: "MUST", Area: "a", Labels: []string{"level:MUST", "area:a"}},
		{ID: "a-two", Requirement: "A-02", Level: "SHOULD", Area: "a", Labels: []string{"level:SHOULD", "area:a", "robustness"}},
		{ID: "b-one", Requirement: "B-01", Level: "MUST", Area: "b", Labels: []string{"level:MUST", "area:b"}},
		// A result of a test filed under B-02 whose verdict rests on C-01.
		{ID: "b-two", Requirement: "C-01", Level: "SHOULD", Area: "b", Labels: []string{"level:SHOULD", "area:b", "requirement:B-02"}},
	}
	for _, tc := range []struct {
		only, skip []string
		want       []string
	}{
		{nil, nil, []string{"a-one", "a-two", "b-one", "b-two"}},
		{[]string{"area:a"}, nil, []string{"a-one", "a-two"}},
		{[]string{"must"}, nil, []string{"a-one", "b-one"}},
		{nil, []string{"robustness"}, []string{"a-one", "b-one", "b-two"}},
		{[]string{"a-*"}, []string{"level:should"}, []string{"a-one"}},
		{[]string{"B-01", "A-02"}, nil, []string{"a-two", "b-one"}},
		{[]string{"B-02"}, nil, []string{"b-two"}},
		{[]string{"C-01"}, nil, []string{"b-two"}},
		{[]string{"requirement:b-02"}, nil, []string{"b-two"}},
		{nil, []string{"B-02"}, []string{"a-one", "a-two", "b-one"}},
		{nil, []string{"*"}, nil},
	} {
		only, _ := parseSelectors("only", tc.only)
		skip, _ := parseSelectors("skip", tc.skip)
		var got []string
		for _, r := range filterResults(results, only, skip) {
			got = append(got, r.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("--only %v --skip %v (-want +got):\n%s", tc.only, tc.skip, diff)
		}
	}
}

// TestCatalogueSelectors: the catalogue that --only is checked
// against must carry the labels results carry, or a valid selector would be
// refused before the run.
func TestCatalogueSelectors(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	checks := listing.Checks(files)
	// ERR-15 is only ever an outcome's requirement: results of tests filed
	// under ERR-04 and others may be reported under it.
	for _, sel := range []string{"level:MUST", "area:resources", "robustness", "resources-read-*", "RES-READ-05", "must not", "LIFE-01", "ERR-15"} {
		s, _ := parseSelectors("only", []string{sel})
		if bad, ok := unmatchedSelector(s, checks); ok {
			t.Errorf("%q matches no check of the catalogue", bad.text)
		}
	}
	s, _ := parseSelectors("only", []string{"resources", "no-such-check"})
	if bad, ok := unmatchedSelector(s, checks); !ok || bad.text != "no-such-check" {
		t.Errorf("got %v %v, want no-such-check reported", bad, ok)
	}
}

// TestWantedByOutcomeRequirement: a test whose outcomes may rest on
// another requirement (a wrong error code graded under ERR-15) runs when
// --only names that requirement, and is not left out by --skip naming it,
// since its other results are reported under its own.
func TestWantedByOutcomeRequirement(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const id = "resources-read-missing-uri-param" // filed under ERR-04
	for _, tc := range []struct {
		only, skip []string
		want       bool
	}{
		{[]string{"ERR-15"}, nil, true},
		{[]string{"ERR-04"}, nil, true},
		{[]string{"level:SHOULD"}, nil, true},
		{nil, []string{"ERR-15"}, true},
		{nil, []string{"ERR-04"}, false},
		{[]string{"ERR-13"}, nil, false},
	} {
		only, _ := parseSelectors("only", tc.only)
		skip, _ := parseSelectors("skip", tc.skip)
		if got := wanted(only, skip, listing.Checks(files))(id); got != tc.want {
			t.Errorf("--only %v --skip %v: %s runs: got %v, want %v", tc.only, tc.skip, id, got, tc.want)
		}
	}
}

func TestNearestSelector(t *testing.T) {
	catalogue := []listing.Check{
		{ID: "resources-read-unknown-uri", Requirement: "RES-READ-05", Level: "MUST NOT", Area: "resources", Labels: []string{"level:MUST NOT", "area:resources", "sdk-divergence"}},
		{ID: "ping-empty-result", Requirement: "PING-01", Level: "MUST", Area: "ping", Labels: []string{"level:MUST", "area:ping"}},
	}
	for sel, want := range map[string]string{
		"area:resource":  "area:resources",
		"AREA:RESOURCE":  "area:resources",
		"resource":       "resources",
		"ping-empty":     "ping-empty*",
		"sdk-divergance": "sdk-divergence",
		"res-read-5":     "RES-READ-05",
		"level:MUTS":     "level:MUST",
		"zzzzzzzzzzzzzz": "",
	} {
		s, _ := parseSelectors("only", []string{sel})
		if got := nearestSelector(s[0], catalogue); got != want {
			t.Errorf("%q: got %q, want %q", sel, got, want)
		}
	}
}
