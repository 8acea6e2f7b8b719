package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// PortPlaceholder is what is replaced, in a launched server's arguments
// and environment values, by the port it is to listen on.
const PortPlaceholder = "{port}"

// Launched is a server process the harness started that carries no
// messages on its stdio: a server spoken to over HTTP. What it writes on
// stdout and stderr is recorded as lines of its own transcript, and it is
// shut down in the order the spec gives for stdio servers (stdin closed,
// SIGTERM, SIGKILL), with the same search for processes left behind.
type Launched struct {
	proc       *process
	rec        *transcript.Transcript
	tail, out  *stderrTail
	stdoutEOF  chan struct{}
	stderrEOF  chan struct{}
	output     chan struct{} // a token whenever a line was written
	mu         sync.Mutex
	strays     []Stray
	closeOnce  sync.Once
	closedInfo ExitInfo
}

// Launch starts the command as an HTTP server: its stdout and stderr are
// recorded in rec (their first lines) and their last lines kept.
func (c Command) Launch(rec *transcript.Transcript) (*Launched, error) {
	p, err := startProcess(c.Argv, c.Dir, c.Env)
	if err != nil {
		return nil, err
	}
	keep := c.StderrLines
	if keep == 0 {
		keep = 50
	}
	l := &Launched{proc: p, rec: rec, tail: &stderrTail{max: keep}, out: &stderrTail{max: keep}, stdoutEOF: make(chan struct{}), stderrEOF: make(chan struct{}), output: make(chan struct{}, 1)}
	signal := func() {
		select {
		case l.output <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(l.stdoutEOF)
		drainLines(p.stdout, l.out, rec, stderrEntries, transcript.Stdout, signal)
	}()
	go func() {
		defer close(l.stderrEOF)
		drainLines(p.stderr, l.tail, rec, stderrEntries, transcript.Stderr, signal)
	}()
	return l, nil
}

// Pid returns the server's process id.
func (l *Launched) Pid() int { return l.proc.cmd.Process.Pid }

// Transcript is where its output and its end are recorded.
func (l *Launched) Transcript() *transcript.Transcript { return l.rec }

// StderrTail returns the last lines the server wrote to stderr.
func (l *Launched) StderrTail() []string { return l.tail.snapshot() }

// StdoutTail returns the last lines the server wrote to stdout.
func (l *Launched) StdoutTail() []string { return l.out.snapshot() }

// StderrBytes returns how many bytes the server wrote to stderr.
func (l *Launched) StderrBytes() int64 { return l.tail.count() }

// Done is closed when the server process has exited.
func (l *Launched) Done() <-chan struct{} { return l.proc.done }

// End says how the process ended, once its output is read to the end or
// wait has passed.
func (l *Launched) End(wait time.Duration) ExitInfo {
	if wait > 0 {
		waitAll(wait, l.stdoutEOF, l.stderrEOF)
	}
	return l.proc.exitInfo()
}

// Hurry cuts the shutdown's waits to hurryGrace.
func (l *Launched) Hurry() { l.proc.hurry() }

// Close shuts the server down as a stdio server is, records its end and
// the processes it left behind, and returns how it ended. It may be
// called more than once.
func (l *Launched) Close(grace time.Duration) ExitInfo {
	l.closeOnce.Do(func() {
		strays := l.proc.stop(grace, l.rec, l.stdoutEOF, l.stderrEOF)
		l.mu.Lock()
		l.strays = strays
		l.mu.Unlock()
		l.closedInfo = l.proc.exitInfo()
		ev := l.closedInfo.Event()
		l.rec.Event(transcript.Event{Exit: &ev})
	})
	return l.closedInfo
}

// Strays returns the processes Close found after the server's shutdown.
func (l *Launched) Strays() []Stray {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.strays)
}

// ErrNotListening is a launched server that did not start listening: it
// exited first, or the start-up deadline passed.
var ErrNotListening = errors.New("the server did not start")

// WaitListening waits until one of addrs accepts a connection, and
// returns it. It tries again each time the server writes a line (servers
// say when they listen) and otherwise after a backoff that grows to a
// quarter of a second; the server's exit, or ctx, ends the wait.
func (l *Launched) WaitListening(ctx context.Context, network string, addrs []string) (string, error) {
	backoff := 5 * time.Millisecond
	for {
		for _, a := range addrs {
			d := net.Dialer{Timeout: time.Second}
			if nc, err := d.DialContext(ctx, network, a); err == nil {
				nc.Close()
				return a, nil
			}
		}
		t := time.NewTimer(backoff)
		select {
		case <-l.Done():
			t.Stop()
			return "", fmt.Errorf("%w: it %s before it listened on %s", ErrNotListening, exitText(l.End(postExitWait)), strings.Join(addrs, " or "))
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("%w: nothing listened on %s within the start-up deadline (--start-timeout)", ErrNotListening, strings.Join(addrs, " or "))
		case <-l.output:
		case <-t.C:
		}
		t.Stop()
		backoff = min(backoff*2, 250*time.Millisecond)
	}
}

func exitText(e ExitInfo) string {
	if e.Signal != "" {
		return "was killed by " + e.Signal
	}
	return fmt.Sprintf("exited with status %d", e.Code)
}

// FreePort returns a TCP port nothing listens on at host: the first free
// one from `from` on (at most 100 tried), or, with from 0, one the system
// picks.
func FreePort(host string, from int) (int, error) {
	try := func(port int) (int, bool) {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return 0, false
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port, true
	}
	if from <= 0 {
		if p, ok := try(0); ok {
			return p, nil
		}
		return 0, fmt.Errorf("no free port on %s", host)
	}
	for p := from; p < from+100 && p < 65536; p++ {
		if got, ok := try(p); ok {
			return got, nil
		}
	}
	return 0, fmt.Errorf("no free port on %s from %d to %d", host, from, min(from+99, 65535))
}

// WithPort replaces PortPlaceholder with port in every argument and in
// every environment value.
func WithPort(argv, env []string, port int) ([]string, []string) {
	p := strconv.Itoa(port)
	a := make([]string, len(argv))
	for i, s := range argv {
		a[i] = strings.ReplaceAll(s, PortPlaceholder, p)
	}
	e := make([]string, len(env))
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[i] = k + "=" + strings.ReplaceAll(v, PortPlaceholder, p)
	}
	return a, e
}
