package transcript

import (
	"testing"
	"time"
)

// TestViewsCannotBeWrittenThrough: Entries is a view of the transcript,
// but an append to it reallocates (its capacity is its length), and
// Slice is a copy, so neither lets a caller write over recorded entries.
func TestViewsCannotBeWrittenThrough(t *testing.T) {
	tr := New(time.Now(), Limits{})
	for _, s := range []string{"a", "b", "c", "d"} {
		tr.Add(Entry{Dir: Recv, Data: []byte(s)})
	}
	all := tr.Entries()
	if cap(all) != len(all) {
		t.Fatalf("Entries has spare capacity %d > %d", cap(all), len(all))
	}
	_ = append(all, Entry{Data: []byte("x")})
	part := tr.Slice(0, 2)
	_ = append(part[:1], Entry{Data: []byte("y")})
	for i, want := range []string{"a", "b", "c", "d"} {
		if got := string(tr.Entries()[i].Data); got != want {
			t.Errorf("entry %d is %q, want %q", i, got, want)
		}
	}
}
