package wire

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/mcpconform/mcpconform/internal/memtest"
)

// residentKB returns a field of /proc/self/status in KiB (VmRSS, VmHWM).
func residentKB(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte(field+":")); ok {
			n, err := strconv.Atoi(string(bytes.Fields(v)[0]))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// A long line kept whole costs its size once while it arrives and is
// joined: the bytes allocated for it and the memory the process holds at
// its peak stay near the line's size (pieces joined into a new buffer
// cost twice the line, a buffer grown by append more).
func TestLongLineCostsItsSizeOnce(t *testing.T) {
	const size = 48 << 20
	r := &patternLine{size: size, term: "\n"}
	lr := NewLineReader(r, 64<<20)
	runtime.GC()
	debug.FreeOSMemory()
	// Writing 5 to clear_refs starts the peak (VmHWM) again from the
	// process's memory now.
	peakKnown := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	before := residentKB(t, "VmRSS")
	var l *Line
	var err error
	allocated := memtest.Allocated(func() { l, err = lr.Next() })
	peak := residentKB(t, "VmHWM") - before
	if err != nil || !r.same(l.Raw) || l.Value == nil {
		t.Fatalf("got %v, %d bytes; want the line whole", err, len(l.Raw))
	}
	t.Logf("a %d MiB line: %.1f MiB allocated, peak memory %.1f MiB over the start", size>>20, float64(allocated)/(1<<20), float64(peak)/1024)
	if float64(allocated) > 1.2*size {
		t.Errorf("reading the line allocated %.2f× its size, want at most 1.2×", float64(allocated)/size)
	}
	switch {
	case !peakKnown:
		t.Log("the peak memory cannot be reset here: not judged")
	case raceEnabled:
		t.Log("the race detector's shadow memory counts in the process's: the peak is not judged")
	case float64(peak)*1024 > 1.5*size:
		t.Errorf("the process's memory rose by %.2f× the line at its peak, want at most 1.5×", float64(peak)*1024/size)
	}
	if n := spillsOpen.Load(); n != 0 {
		t.Errorf("%d spills still mapped", n)
	}
	runtime.KeepAlive(l)
}

// heldWatcher notes the most SpillHeld said while its reader was read.
type heldWatcher struct {
	r    io.Reader
	most int64
}

func (w *heldWatcher) Read(p []byte) (int, error) {
	w.most = max(w.most, SpillHeld())
	return w.r.Read(p)
}

// What a long line holds outside the heap while it arrives is what
// SpillHeld says, for a program's memory limit to count it, and nothing
// is held once the line is handed on.
func TestSpillHeldFollowsALine(t *testing.T) {
	const size = 8 << 20
	r := &patternLine{size: size, term: "\n"}
	w := &heldWatcher{r: r}
	l, err := NewLineReader(w, 16<<20).Next()
	if err != nil || !r.same(l.Raw) {
		t.Fatalf("got %v; want the line whole", err)
	}
	if w.most < size-(1<<20) || w.most > size {
		t.Errorf("SpillHeld said at most %d while the line arrived, want about %d", w.most, size)
	}
	if n := SpillHeld(); n != 0 {
		t.Errorf("SpillHeld says %d once the line was handed on, want 0", n)
	}
}
