package runner

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/reports"
)

// runningIndicator redraws "running against CMD … 1.2s" every 100 ms while
// the suite executes (execute.Execute reports nothing until it returns). The
// returned function stops it and clears the line. With f nil it does
// nothing.
func runningIndicator(f *os.File, what string, executed *atomic.Int64, planned *atomic.Int64) (stop func()) {
	if f == nil {
		return func() {}
	}
	p := reports.NewProgress(f, 0)
	start := time.Now()
	draw := func() {
		counts := ""
		if t := planned.Load(); t > 0 {
			counts = fmt.Sprintf(" [%d/%d]", executed.Load(), t)
		}
		p.Status(fmt.Sprintf("running against %s%s … %.1fs", what, counts, time.Since(start).Seconds()))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		draw()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				draw()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		p.Done()
	}
}
