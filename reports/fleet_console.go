package reports

import (
	"bufio"
	"fmt"
	"io"
	"sync"
)

// classColor are the ANSI SGR codes of the classes on the console.
var classColor = map[Class]string{
	ClassConformant:    "32",
	ClassNonconformant: "1;31",
	ClassIncomplete:    "1;35",
	ClassSetupError:    "33",
}

// classWidth pads the class column: "nonconformant" and "setup-error" are
// the longest.
const classWidth = 13

// FleetProgress returns a function that writes each target's lines as it
// ends (WriteFleetTarget) to w, one target at a time: it may be called
// from several goroutines, as fleet.Options.Done is.
func FleetProgress(w io.Writer, o ConsoleOptions) func(FleetTarget) {
	var mu sync.Mutex
	return func(t FleetTarget) {
		mu.Lock()
		defer mu.Unlock()
		WriteFleetTarget(w, &t, o)
	}
}

// WriteFleetTarget writes one line for a target that has ended, as a fleet
// prints it while the others run: its class, id, why, and how long it
// took; then a line per inferred statement, labelled so.
func WriteFleetTarget(w io.Writer, t *FleetTarget, o ConsoleOptions) error {
	c := console{color: o.Color}
	took := ""
	if t.DurationMs > 0 {
		took = " (" + seconds(t.DurationMs) + " s)"
	}
	indent := pad("", classWidth+2)
	text := line(t.ID+"  "+t.Reason, consoleWidth-classWidth-2-len(took))
	if _, err := fmt.Fprintf(w, "%s  %s%s\n", c.paint(classColor[t.Class], pad(string(t.Class), classWidth)), text, took); err != nil {
		return err
	}
	for _, inf := range t.Inferred {
		fmt.Fprintf(w, "%s%s\n", indent, line("inferred, not observed: "+inf, consoleWidth-classWidth-2))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s%s\n", indent, line("note: "+n, consoleWidth-classWidth-2))
	}
	return nil
}

// WriteFleetConsole writes the fleet's summary for a person at a
// terminal: every target that did not conform, one line each (every
// target with Verbose), then WriteFleetSummary's lines.
func WriteFleetConsole(w io.Writer, f *Fleet, o ConsoleOptions) error {
	return commandSafe(w, func(w io.Writer) error { return writeFleetConsole(w, f, o) })
}

func writeFleetConsole(w io.Writer, f *Fleet, o ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	for i := range f.Targets {
		t := &f.Targets[i]
		if t.Class != ClassConformant || o.Verbose {
			WriteFleetTarget(bw, t, o)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return WriteFleetSummary(w, f, o)
}

// WriteFleetSummary writes the fleet's notes, its missing shards, and the
// count of each class with the fleet's class, for a console that has shown
// each target as it ended.
func WriteFleetSummary(w io.Writer, f *Fleet, o ConsoleOptions) error {
	return commandSafe(w, func(w io.Writer) error { return writeFleetSummary(w, f, o) })
}

func writeFleetSummary(w io.Writer, f *Fleet, o ConsoleOptions) error {
	bw := bufio.NewWriter(w)
	c := console{color: o.Color}
	for _, n := range f.Notes {
		fmt.Fprintf(bw, "note: %s\n", line(n, consoleWidth-6))
	}
	if len(f.Missing) > 0 {
		fmt.Fprintf(bw, "%s shards %s were not given: their targets are not in this report\n", c.paint(classColor[ClassIncomplete], "missing:"), line(fmt.Sprint(f.Missing), 40))
	}
	fmt.Fprintln(bw, c.paint(classColor[f.Summary.Class], line(f.Summary.Text(), consoleWidth)))
	return bw.Flush()
}
