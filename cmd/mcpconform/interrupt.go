package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/runner"
)

// interrupts is what runner.CatchInterrupts returns: the context a signal
// cancels, and the function that stops catching signals.
type interrupts struct {
	ctx     context.Context
	release func()
}

// catchInterrupts catches the signals that cut a run short for as long as
// the command runs; a second signal ends the process at once, with
// exitIncomplete.
func catchInterrupts(stderr io.Writer) interrupts {
	ctx, release := runner.CatchInterrupts(stderr, func() { os.Exit(exitIncomplete) })
	return interrupts{ctx, release}
}
