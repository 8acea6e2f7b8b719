package runner_test

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpconform/mcpconform/runner"
)

// lockedBuilder is a strings.Builder safe to write from the goroutine that
// catches signals while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A first signal cancels the context with its cause and says so; a second
// one quits; after release, the context is done without a cause of its
// own.
func TestCatchInterrupts(t *testing.T) {
	var w lockedBuilder
	quit := make(chan struct{})
	ctx, release := runner.CatchInterrupts(&w, func() { close(quit) })
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if got := context.Cause(ctx).Error(); got != "interrupted by hangup" {
		t.Errorf("cause: got %q", got)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	<-quit
	release()
	release() // twice is harmless
	want := "mcpconform: hangup: stopping; the report will be partial (again to quit at once)\nmcpconform: hangup again: quitting without a report\n"
	if got := w.String(); got != want {
		t.Errorf("told: got %q, want %q", got, want)
	}

	ctx, release = runner.CatchInterrupts(&w, func() { t.Error("quit without a signal") })
	release()
	if ctx.Err() == nil || context.Cause(ctx) != context.Canceled {
		t.Errorf("after release: got %v, %v; want a plain cancellation", ctx.Err(), context.Cause(ctx))
	}
}
