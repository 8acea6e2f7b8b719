package execute

import (
	"iter"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// disposableTests returns the embedded vectors' disposable tests.
func disposableTests(t *testing.T) []*vectors.Test {
	t.Helper()
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var ts []*vectors.Test
	for _, f := range files {
		for _, x := range f.Tests {
			if plan.SessionKind(x) == plan.KindDisposable {
				ts = append(ts, x)
			}
		}
	}
	return ts
}

// TestChainOrderAlone: a chain with no other chain taking from the queue
// runs every test once, in the order it runs them with no queue.
func TestChainOrderAlone(t *testing.T) {
	ts := disposableTests(t)
	alone := slices.Collect(chainOrder(ts, newNullIDQueue(ts)))
	if want := wedgingFirst(ts); !slices.Equal(alone, want) {
		t.Errorf("alone, the chain runs %v, want %v", ids(alone), ids(want))
	}
	if without := slices.Collect(chainOrder(ts, nil)); !slices.Equal(without, wedgingFirst(ts)) {
		t.Errorf("with no queue, the chain runs %v, want %v", ids(without), ids(wedgingFirst(ts)))
	}
}

// TestChainsShareNullIDTests drives the two chains as a run does, one
// test at a time in an order that plays the timing, for every way of
// giving the first k steps to the second chain: together they run every
// test once; the second runs only tests that await a reply with a null
// id; the first runs the others in its order; and each takes the waiting
// tests in the queue's order.
func TestChainsShareNullIDTests(t *testing.T) {
	ts := disposableTests(t)
	queue := newNullIDQueue(ts)
	if len(queue.ts) < 2 {
		t.Fatalf("%d disposable tests await a null-id reply; the sharing is not exercised", len(queue.ts))
	}
	for k := 0; k <= len(queue.ts); k++ {
		queue := newNullIDQueue(ts)
		first, stopFirst := iter.Pull(chainOrder(ts, queue))
		second, stopSecond := iter.Pull(chainOrder(slices.Clone(queue.ts), queue))
		var a, b []*vectors.Test
		// The second chain takes k tests first (the first chain is slow
		// to start), then the two alternate.
		for range k {
			if x, ok := second(); ok {
				b = append(b, x)
			}
		}
		for more := true; more; {
			more = false
			if x, ok := first(); ok {
				a, more = append(a, x), true
			}
			if x, ok := second(); ok {
				b, more = append(b, x), true
			}
		}
		stopFirst()
		stopSecond()
		all := append(slices.Clone(a), b...)
		if len(all) != len(ts) {
			t.Errorf("k=%d: %d + %d tests, want %d", k, len(a), len(b), len(ts))
		}
		for _, x := range ts {
			if n := slices.Index(all, x); n < 0 || slices.Index(all[n+1:], x) >= 0 {
				t.Errorf("k=%d: %s is run %s", k, x.ID, map[bool]string{true: "never", false: "twice"}[n < 0])
			}
		}
		for _, x := range b {
			if !awaitsNullID(x) {
				t.Errorf("k=%d: %s is in the second chain but awaits no null-id reply", k, x.ID)
			}
		}
		order := wedgingFirst(ts)
		inOrder := func(name string, chain []*vectors.Test, keep func(*vectors.Test) bool) {
			last := -1
			for _, x := range chain {
				if !keep(x) {
					continue
				}
				i := slices.Index(order, x)
				if i <= last {
					t.Errorf("k=%d: %s is out of order in the %s chain", k, x.ID, name)
				}
				last = i
			}
		}
		others := func(x *vectors.Test) bool { return !awaitsNullID(x) }
		inOrder("first", a, others)
		inOrder("first", a, awaitsNullID)
		inOrder("second", b, awaitsNullID)
		if k > 0 && (len(b) == 0 || b[0] != queue.ts[0]) {
			t.Errorf("k=%d: the second chain, first to take, did not take the queue's first test", k)
		}
	}
}

func ids(ts []*vectors.Test) []string {
	var out []string
	for _, x := range ts {
		out = append(out, x.ID)
	}
	return out
}
