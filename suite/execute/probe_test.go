package execute

import (
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/vectors"
)

// TestSplitChains: the two chains of disposable tests together hold every
// test once, each in its original order; the second holds only tests that
// await a reply with a null id, and every other one of them, so the
// windows they may wait out are shared between the chains.
func TestSplitChains(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var ts []*vectors.Test
	for _, f := range files {
		for _, x := range f.Tests {
			if checks.SessionKind(x) == checks.KindDisposable {
				ts = append(ts, x)
			}
		}
	}
	a, b := splitChains(ts)
	awaiting := 0
	for _, x := range ts {
		if awaitsNullID(x) {
			awaiting++
		}
	}
	if awaiting < 2 {
		t.Fatalf("%d disposable tests await a null-id reply; the split is not exercised", awaiting)
	}
	if len(b) != (awaiting+1)/2 {
		t.Errorf("the second chain has %d tests, want %d of the %d awaiting a null-id reply", len(b), (awaiting+1)/2, awaiting)
	}
	for _, x := range b {
		if !awaitsNullID(x) {
			t.Errorf("%s is in the second chain but awaits no null-id reply", x.ID)
		}
	}
	if len(a)+len(b) != len(ts) {
		t.Fatalf("%d + %d tests, want %d", len(a), len(b), len(ts))
	}
	for _, chain := range [][]*vectors.Test{a, b} {
		last := -1
		for _, x := range chain {
			i := slices.Index(ts, x)
			if i <= last {
				t.Errorf("%s is out of order or twice", x.ID)
			}
			last = i
		}
	}
}
