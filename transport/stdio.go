package transport

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// Command is a server to start and speak stdio with: messages go to its
// stdin and come from its stdout, one per line; its stderr is recorded.
type Command struct {
	Argv []string
	Dir  string
	// Env is the server's whole environment; see Environment.
	Env []string
	// StderrLines is how many stderr lines to keep (50 when zero).
	StderrLines int
}

// stderrEntries is how many stderr lines go to the transcript; the rest
// are counted.
const stderrEntries = 200

// Dial starts the server. The error wraps ErrStart when the command
// cannot run.
func (c Command) Dial(_ context.Context, opts DialOptions) (Conn, error) {
	p, err := startProcess(c.Argv, c.Dir, c.Env)
	if err != nil {
		return nil, err
	}
	keep := c.StderrLines
	if keep == 0 {
		keep = 50
	}
	s := &Stdio{
		lines:     newLines(p.stdout, p.stdin, opts, "stdin", "stdout"),
		proc:      p,
		rec:       opts.Transcript,
		tail:      &stderrTail{max: keep},
		stderrEOF: make(chan struct{}),
	}
	go func() {
		defer close(s.stderrEOF)
		drainStderr(p.stderr, s.tail, s.rec, stderrEntries)
	}()
	return s, nil
}

// Stdio is a connection to a server process over its stdin and stdout.
type Stdio struct {
	*lines
	proc      *process
	rec       *transcript.Transcript
	tail      *stderrTail
	stderrEOF chan struct{}

	mu     sync.Mutex
	strays []Stray
}

// Transport is "stdio".
func (s *Stdio) Transport() string { return "stdio" }

// Pid returns the server's process id.
func (s *Stdio) Pid() int { return s.proc.cmd.Process.Pid }

// StderrTail returns the last lines the server wrote to stderr.
func (s *Stdio) StderrTail() []string { return s.tail.snapshot() }

// StderrBytes returns how many bytes the server wrote to stderr.
func (s *Stdio) StderrBytes() int64 { return s.tail.count() }

// Done is closed when the server process has exited.
func (s *Stdio) Done() <-chan struct{} { return s.proc.done }

// End says how the process ended, once its stderr is read to the end or
// wait has passed.
func (s *Stdio) End(wait time.Duration) ExitInfo {
	if wait > 0 {
		waitAll(wait, s.stderrEOF)
	}
	return s.proc.exitInfo()
}

// Stop kills the server's process group: the transcript passed its
// budget. Its end is the harness's doing, not the server's.
func (s *Stdio) Stop() {
	s.proc.setStage(string(transcript.Stopped))
	go s.proc.signalGroup(sigKill)
}

// Hurry cuts the shutdown's waits to hurryGrace.
func (s *Stdio) Hurry() { s.proc.hurry() }

// hurryGrace is each wait of a hurried shutdown: a user's Ctrl-C ends the
// run within about two seconds whatever the server ignores.
const hurryGrace = 200 * time.Millisecond

// postExitWait bounds each wait for the pipes to reach EOF once the
// server's process group is dead.
const postExitWait = 500 * time.Millisecond

// Close shuts the server down in the spec's order (see process.shutdown),
// reads what it wrote on its way out, then looks for strays (processes
// left in its group or holding its pipes: see Stray), kills and records
// them, and closes the pipes.
func (s *Stdio) Close(grace time.Duration) {
	// No write lock here: a write blocked on a full pipe holds it, and
	// closing stdin is what unblocks that write.
	strays := s.proc.stop(grace, s.rec, s.eof, s.stderrEOF)
	s.mu.Lock()
	s.strays = strays
	s.mu.Unlock()
}

// stop shuts the server down in the spec's order, then finds the
// processes it left behind (in its group or holding its pipes: see
// Stray), kills and records them, waiting at most postExitWait each time
// for its output pipes to reach EOF, which they do once the last process
// holding them is gone, and closes them.
func (p *process) stop(grace time.Duration, rec *transcript.Transcript, outputs ...chan struct{}) []Stray {
	wait := postExitWait
	if p.isHurried() {
		grace, wait = hurryGrace, hurryGrace
	}
	p.shutdown(grace)
	defer func() {
		// Unblocks the readers if something unseen still holds the pipes.
		p.stdout.Close()
		p.stderr.Close()
	}()
	eof := waitAll(wait, outputs...)
	strays := settle(findStrays(p.cmd.Process.Pid, p.group, p.pipes), wait)
	for i := range strays {
		strays[i].Killed = killStray(strays[i].Pid)
		ev := strays[i].event()
		rec.Event(transcript.Event{Stray: &ev})
	}
	if len(strays) > 0 && !eof {
		waitAll(wait, outputs...)
	}
	return strays
}

// Strays returns the processes Close found still running after the
// server's shutdown (nil before Close, and on systems without /proc).
func (s *Stdio) Strays() []Stray {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.strays)
}

// settle drops the members of the server's group that are only dying of
// the SIGKILL the group already got, waiting at most timeout for them.
func settle(strays []Stray, timeout time.Duration) []Stray {
	deadline := time.Now().Add(timeout)
	for {
		var dying bool
		kept := strays[:0:0]
		for _, s := range strays {
			if slices.Contains(s.Holds, "process group") && !alive(s.Pid) {
				continue
			}
			kept = append(kept, s)
			dying = dying || slices.Contains(s.Holds, "process group")
		}
		strays = kept
		if !dying || time.Now().After(deadline) {
			return strays
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitAll waits until every channel is closed or the timeout passes, and
// reports whether they all closed.
func waitAll(timeout time.Duration, chans ...chan struct{}) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, ch := range chans {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	return true
}
