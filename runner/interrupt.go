package runner

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

// CatchInterrupts turns SIGINT, SIGTERM and SIGHUP (a closed terminal, a
// CI runner cancelling a job) into the cancellation of the context it
// returns, until release is called: a run given that context stops
// recording, judges what it gathered and says why it was cut short (the
// cause is "interrupted by SIGNAL"). Each signal is told on w; a second
// one calls quit, for the command to end at once without a report.
func CatchInterrupts(w io.Writer, quit func()) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs, done := make(chan os.Signal, 2), make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for n := 1; ; n++ {
			select {
			case s := <-sigs:
				if n == 1 {
					fmt.Fprintf(w, "mcpconform: %s: stopping; the report will be partial (again to quit at once)\n", s)
					cancel(errors.New("interrupted by " + s.String()))
					continue
				}
				fmt.Fprintf(w, "mcpconform: %s again: quitting without a report\n", s)
				quit()
				return
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel(nil)
		})
	}
}
