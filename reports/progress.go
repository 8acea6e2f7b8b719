package reports

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Progress is a live one-line progress indicator for a terminal:
//
//	[ 42/180] resources-read-unknown-uri
//
// redrawn in place after each step and cleared by Done. On anything that is
// not a terminal it writes nothing, so it never ends up in a log or a pipe.
// A nil *Progress is valid and does nothing. Its methods are safe for
// concurrent use.
type Progress struct {
	mu    sync.Mutex
	f     *os.File
	total int
	done  int
	shown bool
}

// NewProgress returns a progress indicator for total steps drawn on f, or a
// silent one when f is not a terminal.
func NewProgress(f *os.File, total int) *Progress {
	if f == nil || !isTerminal(f) {
		return &Progress{}
	}
	return &Progress{f: f, total: total}
}

// Step counts one step done and shows id as the latest one.
func (p *Progress) Step(id string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.f == nil {
		return
	}
	head := fmt.Sprintf("[%*d/%d] ", len(fmt.Sprint(p.total)), p.done, p.total)
	// Stay within one row, or the carriage return no longer reaches the
	// start of what was drawn.
	width := terminalWidth(p.f) - 1
	text := head + sanitize(truncate(id, max(width, 20)), oneLine)
	text = truncate(text, max(width, len(head)+1))
	fmt.Fprintf(p.f, "\r\x1b[K%s", text)
	p.shown = true
}

// Status draws text in place of the progress line without counting a step:
// what is going on before the steps start (e.g. "running against ./server
// … 1.2s").
func (p *Progress) Status(text string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return
	}
	width := max(terminalWidth(p.f)-1, 20)
	fmt.Fprintf(p.f, "\r\x1b[K%s", truncate(sanitize(text, oneLine), width))
	p.shown = true
}

// Done clears the progress line, leaving the cursor at the start of an
// empty line for the report that follows.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil && p.shown {
		fmt.Fprint(p.f, "\r\x1b[K")
		p.shown = false
	}
}

// ProgressTerminal returns where live progress is drawn for a command
// whose output goes to stdout and stderr: stderr when it is a terminal,
// else stdout when it is one (the report clears the line before it
// prints), else nil; never on a dumb terminal, which cannot erase a line.
func ProgressTerminal(stdout, stderr io.Writer) *os.File {
	if os.Getenv("TERM") == "dumb" {
		return nil
	}
	for _, w := range []io.Writer{stderr, stdout} {
		if f, ok := w.(*os.File); ok && IsTerminal(f) {
			return f
		}
	}
	return nil
}
