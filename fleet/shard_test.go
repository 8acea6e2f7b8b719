package fleet_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want fleet.Shard
		err  string
	}{
		{"1/1", fleet.Shard{Index: 1, Count: 1}, ""},
		{" 3/4 ", fleet.Shard{Index: 3, Count: 4}, ""},
		{"0/4", fleet.Shard{}, "i counts from 1 to n"},
		{"5/4", fleet.Shard{}, "i counts from 1 to n"},
		{"1/0", fleet.Shard{}, "n must be at least 1"},
		{"2", fleet.Shard{}, "want i/n"},
		{"a/b", fleet.Shard{}, "want i/n"},
	} {
		got, err := fleet.ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want an error holding %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("%q: got %v (%s), %v; want %v", tc.in, got, got, err, tc.want)
		}
	}
}

// TestSelectPartitions: whatever n, the shards hold every id exactly once,
// in an order that does not depend on the list's, with or without a split.
func TestSelectPartitions(t *testing.T) {
	var ids []string
	for i := 0; i < 23; i++ {
		ids = append(ids, fmt.Sprintf("t%02d", (i*7)%23))
	}
	split := fleet.Balance([]string{"t01", "t02", "t03", "gone"}, map[string]int64{"t01": 9, "t02": 1, "t03": 1, "gone": 5}, 3)
	for n := 1; n <= 6; n++ {
		for _, sp := range []*fleet.Split{nil, split} {
			if sp != nil && n != 3 {
				continue
			}
			seen := map[string]int{}
			for i := 1; i <= n; i++ {
				got, _, err := fleet.Select(ids, fleet.Shard{Index: i, Count: n}, sp)
				if err != nil {
					t.Fatal(err)
				}
				reversed := slices.Clone(ids)
				slices.Reverse(reversed)
				again, _, _ := fleet.Select(reversed, fleet.Shard{Index: i, Count: n}, sp)
				if !slices.Equal(got, again) || !slices.IsSorted(got) {
					t.Errorf("n=%d, shard %d: %v, then %v for the list reversed", n, i, got, again)
				}
				for _, id := range got {
					seen[id]++
				}
			}
			for _, id := range ids {
				if seen[id] != 1 {
					t.Errorf("n=%d, split %v: %s is in %d shards", n, sp != nil, id, seen[id])
				}
			}
		}
	}
	// A split's shard takes its listed targets, and the ids the split does
	// not know are dealt round.
	got, _, err := fleet.Select(ids, fleet.Shard{Index: 1, Count: 3}, split)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "t01") || slices.Contains(got, "t02") {
		t.Errorf("shard 1 of the split: %v, want t01 (alone in its shard by duration) and not t02", got)
	}
	if _, _, err := fleet.Select(ids, fleet.Shard{Index: 1, Count: 2}, split); err == nil {
		t.Error("a split of 3 followed by --shard 1/2 is not refused")
	}
}

// TestBalance: the longest targets go first, each to the least loaded
// shard; a target with no previous duration gets the median, labelled as
// estimated.
func TestBalance(t *testing.T) {
	d := map[string]int64{"a": 10_000, "b": 6_000, "c": 5_000, "d": 4_000, "e": 1_000}
	split := fleet.Balance([]string{"a", "b", "c", "d", "e", "new"}, d, 2)
	want := &fleet.Split{
		Shards: []fleet.SplitShard{
			{Shard: "1/2", Targets: []string{"a", "e", "new"}, EstimatedMs: 16_000},
			{Shard: "2/2", Targets: []string{"b", "c", "d"}, EstimatedMs: 15_000},
		},
		Estimated: []string{"new"},
	}
	if diff := cmp.Diff(want, split); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func target(id string, class reports.Class, verdicts ...string) reports.FleetTarget {
	r := &reports.Report{Results: []reports.Result{}}
	for _, v := range verdicts {
		check, verdict, _ := strings.Cut(v, "=")
		r.Results = append(r.Results, reports.Result{ID: check, ProtocolVersion: "2025-11-25", Verdict: reports.Verdict(verdict)})
	}
	return reports.FleetTarget{ID: id, Class: class, Report: r}
}

func part(dir, shard, tool string, targets ...reports.FleetTarget) fleet.Part {
	return fleet.Part{Dir: dir, Fleet: &reports.Fleet{Kind: "fleet", Tool: reports.Tool{Name: "mcpconform", Version: tool}, Shard: shard, Targets: targets}}
}

// TestMergeRefusesConflicts: a target in two parts must say the same in
// both, under the same tool version.
func TestMergeRefusesConflicts(t *testing.T) {
	a := target("a", reports.ClassConformant, "ping-empty-result=pass")
	for _, tc := range []struct {
		name  string
		other fleet.Part
		want  string
	}{
		{"another verdict", part("d2", "2/2", "v1", target("a", reports.ClassConformant, "ping-empty-result=fail")), "ping-empty-result under 2025-11-25 is pass in one and fail in the other"},
		{"another class", part("d2", "2/2", "v1", target("a", reports.ClassIncomplete, "ping-empty-result=pass")), "one is conformant, the other incomplete"},
		{"another set of results", part("d2", "2/2", "v1", target("a", reports.ClassConformant)), "judged in one and not in the other"},
		{"another tool", part("d2", "2/2", "v2", target("b", reports.ClassConformant)), `written by mcpconform "v1" and d2 by "v2"`},
		{"another split", part("d2", "2/3", "v1", target("b", reports.ClassConformant)), "different splits"},
	} {
		_, err := fleet.Merge([]fleet.Part{part("d1", "1/2", "v1", a), tc.other})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error holding %q", tc.name, err, tc.want)
		}
	}
	m, err := fleet.Merge([]fleet.Part{part("d1", "1/2", "v1", a), part("d2", "2/2", "v1", target("a", reports.ClassConformant, "ping-empty-result=pass"), target("b", reports.ClassSetupError))})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 || m.Summary.Class != reports.ClassSetupError || len(m.Missing) != 0 {
		t.Errorf("got %d targets, class %s, missing %v", len(m.Targets), m.Summary.Class, m.Missing)
	}
}

func TestSetShard(t *testing.T) {
	split := filepath.Join(t.TempDir(), "split.json")
	if err := os.WriteFile(split, []byte(`{"shards": [{"shard": "1/2", "targets": ["a"]}, {"shard": "2/2", "targets": ["b"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var o fleet.Options
	if err := o.SetShard("", ""); err != nil || o.Shard != (fleet.Shard{}) || o.Split != nil {
		t.Errorf("no shard: got %v, %+v", err, o)
	}
	if err := o.SetShard("2/2", split); err != nil || o.Shard != (fleet.Shard{Index: 2, Count: 2}) || o.Split == nil || len(o.Split.Shards) != 2 {
		t.Errorf("a shard and its split: got %v, %+v", err, o)
	}
	for _, tc := range []struct{ shard, split, want string }{
		{"", split, "--split needs --shard i/n"},
		{"3/2", "", "i counts from 1 to n"},
		{"1/2", split + ".none", "split.json.none"},
	} {
		if err := (&fleet.Options{}).SetShard(tc.shard, tc.split); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetShard(%q, %q): got %v, want %q", tc.shard, tc.split, err, tc.want)
		}
	}
}

// What Split.Write writes, LoadSplit reads back the same.
func TestSplitWriteRoundTrip(t *testing.T) {
	want := &fleet.Split{Shards: []fleet.SplitShard{{Shard: "1/2", Targets: []string{"a", "c"}}, {Shard: "2/2", Targets: []string{"b"}}}, Estimated: []string{"c"}}
	path := filepath.Join(t.TempDir(), "split.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := fleet.LoadSplit(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("split (-want +got):\n%s", diff)
	}
}
