package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/runner"
)

// catchInterrupts catches the signals that cut a run short for as long as
// the command runs (runner.CatchInterrupts); a second signal ends the
// process at once, with exitIncomplete.
func catchInterrupts(stderr io.Writer) (context.Context, func()) {
	return runner.CatchInterrupts(stderr, func() { os.Exit(exitIncomplete) })
}
