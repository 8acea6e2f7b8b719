package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts turns SIGINT, SIGTERM and SIGHUP (a closed terminal, a CI
// runner cancelling a job) into a cancelled context for as long as the
// command runs: recording stops, what was gathered is judged and the
// reports are written. A second signal ends the process at once, with
// exitIncomplete.
type interrupts struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	sigs   chan os.Signal
	done   chan struct{}
	once   sync.Once
}

func catchInterrupts(stderr io.Writer) *interrupts {
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &interrupts{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(in.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		n := 0
		for {
			select {
			case s := <-in.sigs:
				n++
				if n == 1 {
					fmt.Fprintf(stderr, "mcpconform: %s: stopping; the report will be partial (again to quit at once)\n", s)
					cancel(errors.New("interrupted by " + s.String()))
					continue
				}
				fmt.Fprintf(stderr, "mcpconform: %s again: quitting without a report\n", s)
				os.Exit(exitIncomplete)
			case <-in.done:
				return
			}
		}
	}()
	return in
}

// why returns the interruption, or "".
func (in *interrupts) why() string {
	if in == nil {
		return ""
	}
	if c := context.Cause(in.ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return ""
}

// release stops catching signals.
func (in *interrupts) release() {
	if in == nil {
		return
	}
	in.once.Do(func() {
		signal.Stop(in.sigs)
		close(in.done)
		in.cancel(nil)
	})
}
