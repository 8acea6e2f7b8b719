package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/reports"
)

// progressTerminal returns where live progress is drawn: stderr when it is a
// terminal, else stdout when it is one (the report clears the line before it
// prints), else nil. Never with --quiet, and never on a dumb terminal, which
// cannot erase a line.
func progressTerminal(quiet bool, stdout, stderr io.Writer) *os.File {
	if quiet || os.Getenv("TERM") == "dumb" {
		return nil
	}
	for _, w := range []io.Writer{stderr, stdout} {
		if f, ok := w.(*os.File); ok && reports.IsTerminal(f) {
			return f
		}
	}
	return nil
}

// runningIndicator redraws "running against CMD … 1.2s" every 100 ms while
// the suite executes (suite.Execute reports nothing until it returns). The
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

// commandText is how the progress line names the target.
func commandText(command []string, builtIn bool) string {
	if builtIn {
		return "the built-in reference server"
	}
	return strings.Join(command, " ")
}
