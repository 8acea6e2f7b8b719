package reports

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestProgressSilentWhenNotATerminal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewProgress(f, 10)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { p.Step("check-" + string(rune('a'+i))) })
	}
	wg.Wait()
	p.Done()
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("progress wrote %q to a regular file", b)
	}
	if ColorEnabled(f) {
		t.Error("ColorEnabled is true for a regular file")
	}

	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if ColorEnabled(devnull) || isTerminal(devnull) {
		t.Errorf("%s counts as a terminal", os.DevNull)
	}
}

func TestProgressNil(t *testing.T) {
	var p *Progress
	p.Step("x")
	p.Done()
	NewProgress(nil, 3).Step("y")
}
