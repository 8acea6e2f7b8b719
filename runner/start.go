package runner

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// diagnoseStart says, in plain words, why no session could be established:
// what the first process did, the end of its stderr, and what to try.
func diagnoseStart(run *evidence.Run, cfg Config) *reports.StartFailure {
	f := &reports.StartFailure{Stage: run.Fatal.Stage, What: run.Fatal.Message}
	if run.Transport == evidence.TransportHTTP {
		diagnoseHTTP(run, f)
		return f
	}
	var p *evidence.Process
	for _, q := range run.Processes {
		if p == nil || q.StartError != "" || q.Exit() != nil && p.Exit() == nil {
			p = q
		}
		if q.StartError != "" {
			break
		}
	}
	if p == nil {
		return f
	}
	f.StderrTail = lastLines(p.StderrTail, 8)
	switch {
	case p.StartError != "":
		f.What = "the command could not be started: " + strings.TrimPrefix(p.StartError, transport.ErrStart.Error()+": ")
		if len(run.Command) > 0 && strings.ContainsAny(run.Command[0], " \t") {
			f.Hint = fmt.Sprintf("no program is named %q: did you mean to split it into words (mcpconform %s)?", run.Command[0], strings.Join(strings.Fields(run.Command[0]), " "))
		}
		return f
	case echoed(p):
		f.What = "the server echoed our own request back on stdout instead of answering it (is it cat?)"
		return f
	}
	exit := p.Exit()
	switch {
	case exit != nil && exit.Stage == transcript.BeforeShutdown && !heard(p):
		if read(p) {
			f.What = fmt.Sprintf("it %s before answering initialize", exitWords(exit))
		} else {
			f.What = fmt.Sprintf("it read none of its input and %s", exitWords(exit))
		}
	case exit != nil && exit.Stage == transcript.BeforeShutdown:
		f.What = fmt.Sprintf("it %s after writing something other than an answer to initialize (%s)", exitWords(exit), run.Fatal.Message)
	case !heard(p) && exit == nil && ran(p, transcript.ReasonTimeout):
		f.What = fmt.Sprintf("it started but wrote nothing on stdout within the start-up deadline (--start-timeout %s)", cfg.StartTimeout)
	case !heard(p):
		f.What = "it started but wrote nothing on stdout: " + run.Fatal.Message
	}
	if exit != nil && exit.Stage == transcript.BeforeShutdown && !cfg.InheritEnv {
		f.Hint = envHint(p, cfg)
	}
	return f
}

func exitWords(e *transcript.Exit) string {
	if e.Signal != "" {
		return "was killed by " + e.Signal
	}
	return fmt.Sprintf("exited with status %d", e.Code)
}

func lastLines(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// heard reports whether the process wrote anything on stdout.
func heard(p *evidence.Process) bool {
	for _, e := range p.Entries() {
		if e.Dir == transcript.Recv {
			return true
		}
	}
	return false
}

// read reports whether the server took any of its input: a write failed
// only when it read none.
func read(p *evidence.Process) bool {
	for _, e := range p.Entries() {
		if e.Event != nil && e.Event.NoResponse != nil && e.Event.NoResponse.Reason == transcript.ReasonWriteFailed {
			return false
		}
	}
	return true
}

// echoed reports whether the first line the server wrote is the first
// line it was sent.
func echoed(p *evidence.Process) bool {
	var sent, got []byte
	for _, e := range p.Entries() {
		if e.Dir == transcript.Send && sent == nil {
			sent = e.Data
		}
		if e.Dir == transcript.Recv && got == nil {
			got = e.Data
		}
	}
	return sent != nil && bytes.Equal(sent, got)
}

// namesWord reports whether text holds name as a word of its own, not
// inside a longer identifier ("_" is no mention in "Module._load").
func namesWord(text, name string) bool {
	word := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
	}
	for i := 0; ; {
		k := strings.Index(text[i:], name)
		if k < 0 {
			return false
		}
		start, end := i+k, i+k+len(name)
		if (start == 0 || !word(text[start-1])) && (end == len(text) || !word(text[end])) {
			return true
		}
		i = start + 1
	}
}

// envHint tells that the server ran with a minimal environment and names
// the variables of mcpconform's own environment that it did not get,
// those its stderr mentions first.
func envHint(p *evidence.Process, cfg Config) string {
	passed := map[string]bool{}
	for _, kv := range cfg.Env {
		k, _, _ := strings.Cut(kv, "=")
		passed[k] = true
	}
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR"} {
		passed[k] = true
	}
	stderr := strings.Join(p.StderrTail, "\n")
	var mentioned, others []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if passed[k] || k == "" {
			continue
		}
		if namesWord(stderr, k) {
			mentioned = append(mentioned, k)
		} else {
			others = append(others, k)
		}
	}
	sort.Strings(mentioned)
	sort.Strings(others)
	names := append(mentioned, others...)
	names = slices.Compact(names)
	if len(names) == 0 {
		return ""
	}
	shown := names
	more := ""
	if len(shown) > 8 {
		shown, more = shown[:8], fmt.Sprintf(" and %d more", len(names)-8)
	}
	h := fmt.Sprintf("the server ran with a minimal environment; it did not get %s%s. Pass one with --env KEY=VALUE, or all with --inherit-env.", strings.Join(shown, ", "), more)
	if len(mentioned) > 0 {
		h = fmt.Sprintf("its stderr names %s, which it did not get: ", strings.Join(mentioned, ", ")) + h
	}
	return h
}

// ran reports whether a request of the process ended for reason.
func ran(p *evidence.Process, reason transcript.Reason) bool {
	for _, e := range p.Entries() {
		if nr := e.Event.NoResponse; nr != nil && nr.Reason == reason {
			return true
		}
	}
	return false
}
