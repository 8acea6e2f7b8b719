package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	f := &reports.StartFailure{Stage: run.Fatal.Stage, What: run.Fatal.Message, Spoke: spoke(run)}
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
		switch {
		case len(run.Command) > 0 && strings.ContainsAny(run.Command[0], " \t"):
			f.Hint = fmt.Sprintf("no program is named %q: did you mean to split it into words (mcpconform %s)?", run.Command[0], strings.Join(strings.Fields(run.Command[0]), " "))
		case len(run.Command) > 0 && cfg.Dir != "":
			f.Hint = cwdHint(run.Command[0], cfg.Dir)
		}
		return f
	case p.Echoes():
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
	if exit != nil && exit.Stage == transcript.BeforeShutdown {
		f.Hint = envHint(p, cfg)
	}
	return f
}

// cwdHint explains, for a relative command that could not be started,
// that it is found from mcpconform's own directory, not from --cwd, and
// names the one in --cwd when there is one.
func cwdHint(command, dir string) string {
	if filepath.IsAbs(command) || !strings.ContainsRune(command, filepath.Separator) {
		return ""
	}
	h := fmt.Sprintf("a relative command is found from mcpconform's own directory, not from --cwd %s", dir)
	if st, err := os.Stat(filepath.Join(dir, command)); err == nil && !st.IsDir() {
		h += fmt.Sprintf("; for the one in %s, write mcpconform --cwd %s -- %s", dir, dir, filepath.Join(dir, command))
	}
	return h
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

// spoke reports whether a process of the run wrote a JSON-RPC message of
// its own on stdout (not one of ours echoed back): whether the server got
// as far as speaking the protocol.
func spoke(run *evidence.Run) bool {
	for _, p := range run.Processes {
		if p.Echoes() {
			continue
		}
		for _, e := range p.Entries() {
			if e.Dir == transcript.Recv && len(e.Msgs) > 0 {
				return true
			}
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

// envHint is a hint about the environment, only when the server's stderr
// names a variable: one of mcpconform's own that the server did not get
// (it runs with a minimal environment unless --inherit-env), or one that
// stderr says is missing and that mcpconform has not got either. "" when
// stderr names none.
func envHint(p *evidence.Process, cfg Config) string {
	passed := map[string]bool{}
	for _, kv := range cfg.Env {
		k, _, _ := strings.Cut(kv, "=")
		passed[k] = true
	}
	minimal := transport.MinimalKeys()
	for _, k := range minimal {
		passed[k] = true
	}
	stderr := strings.Join(p.StderrTail, "\n")
	ours := map[string]bool{}
	var withheld []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "" {
			continue
		}
		ours[k] = true
		if !passed[k] && !cfg.InheritEnv && namesWord(stderr, k) {
			withheld = append(withheld, k)
		}
	}
	var unset []string
	for _, l := range p.StderrTail {
		if !missingWords.MatchString(l) {
			continue
		}
		for _, k := range envName.FindAllString(l, -1) {
			k = strings.TrimPrefix(k, "$")
			if !ours[k] && !passed[k] && !slices.Contains(unset, k) {
				unset = append(unset, k)
			}
		}
	}
	sort.Strings(withheld)
	withheld = slices.Compact(withheld)
	var hints []string
	if len(withheld) > 0 {
		hints = append(hints, fmt.Sprintf("its stderr names %s, which the server did not get: it runs with %s only; add %s with --env %s=VALUE, or pass everything with --inherit-env",
			strings.Join(withheld, ", "), strings.Join(minimal, ", "), them(len(withheld)), withheld[0]))
	}
	if len(unset) > 0 {
		hints = append(hints, fmt.Sprintf("its stderr names %s, which is not set here either; give the server %s with --env %s=VALUE",
			strings.Join(unset, ", "), them(len(unset)), unset[0]))
	}
	return strings.Join(hints, "; ")
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// A variable as stderr names it when it says one is missing: upper case
// with an underscore (API_KEY), or after a $; and the words that say so.
var (
	envName      = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b`)
	missingWords = regexp.MustCompile(`(?i)\b(not set|unset|missing|required|undefined|not defined|is empty|environment|env var|variable)\b`)
)

// ran reports whether a request of the process ended for reason.
func ran(p *evidence.Process, reason transcript.Reason) bool {
	for _, e := range p.Entries() {
		if nr := e.Event.NoResponse; nr != nil && nr.Reason == reason {
			return true
		}
	}
	return false
}
