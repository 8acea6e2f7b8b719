package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// process owns the OS process of a server: its group, its pipes, its exit.
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	stderr  *os.File
	done    chan struct{}
	mu      sync.Mutex
	exit    ExitInfo
	stopped time.Time // when shutdown began
	stage   string
	// pipes names the inodes of the server's stdio pipes, to find strays.
	pipes map[uint64]string
	// tracked is the server's entry among the servers whose descendants
	// are told apart (nil where that is not done).
	tracked *tracked
	hurried bool          // the shutdown's waits were cut short
	hurryCh chan struct{} // closed by hurry
	grace   time.Duration // the wait after closing stdin
	// watch is the pipe the server's supervisor watches (nil without
	// one): closed only once the supervisor has exited, or with this
	// process, which tells the supervisor to kill the server's tree.
	watch *os.File
}

// notFound says in plain words why the command typed as typed could not
// be found as name.
func notFound(typed, name string, err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Sprintf("%s: no such program on PATH", typed)
	case errors.Is(err, os.ErrNotExist) && name != typed:
		return fmt.Sprintf("%s: no such file (%s)", typed, name)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("%s: no such file", typed)
	case errors.Is(err, os.ErrPermission):
		return fmt.Sprintf("%s: not executable (permission denied)", typed)
	}
	return err.Error()
}

// ErrStart wraps every failure to start the server command.
var ErrStart = errors.New("starting the server")

func startProcess(argv []string, dir string, env []string) (*process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: empty command", ErrStart)
	}
	name := argv[0]
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) {
		// A relative path is the caller's, as the user typed it, even
		// with another working directory for the server (exec would take
		// it relative to that directory once it has found it here).
		if abs, err := filepath.Abs(name); err == nil {
			name = abs
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrStart, notFound(argv[0], name, err))
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = env
	// Plain *os.File ends mean Wait does not wait for pipe copying, so a
	// grandchild that keeps stdout open cannot stall the harness.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = isolation()
	cmd, watch, supervisorEnds, status, err := supervised(cmd)
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	p := &process{cmd: cmd, watch: watch, stdin: inW, stdout: outR, stderr: errR, done: make(chan struct{}), hurryCh: make(chan struct{}), pipes: map[uint64]string{}}
	for name, f := range map[string]*os.File{"stdin": inW, "stdout": outR, "stderr": errR} {
		if ino, ok := pipeInode(f); ok {
			p.pipes[ino] = name
		}
	}
	p.tracked, err = launch(cmd, p.pipes)
	for _, f := range supervisorEnds {
		f.Close()
	}
	if err == nil && status != nil {
		err = p.supervisorStarted(status)
	}
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW, watch} {
			if f != nil {
				f.Close()
			}
		}
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	go p.wait()
	return p, nil
}

// supervisorStarted reads what the supervisor says of the server's start:
// nothing once it started, or why it could not, in which case the
// supervisor, which exits at once, is waited for and its registration
// swept away.
func (p *process) supervisorStarted(status *os.File) error {
	msg, _ := io.ReadAll(io.LimitReader(status, 4096))
	status.Close()
	if len(msg) == 0 {
		return nil
	}
	_ = p.cmd.Wait()
	sweep(p.tracked)
	return errors.New(string(msg))
}

// spawner is one goroutine locked for good to its OS thread, on which every
// server starts. The server's parent-death signal (see isolation) fires when
// the thread that forked it exits, not the process: Go ends a thread when a
// goroutine locked to it returns, so a server started from a caller's
// locked goroutine, or from a pooled thread that such a goroutine later
// takes, would be killed long before Close. This thread never exits.
var spawner struct {
	once sync.Once
	jobs chan func()
}

// onSpawner runs f on the spawner's thread and waits for it.
func onSpawner(f func()) {
	spawner.once.Do(func() {
		spawner.jobs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every server
			for job := range spawner.jobs {
				job()
			}
		}()
	})
	done := make(chan struct{})
	spawner.jobs <- func() {
		defer close(done)
		f()
	}
	<-done
}

// launch starts cmd on the spawner's thread, with no descriptor but its
// stdio, and registers it so that its descendants can be told from those of
// other servers.
func launch(cmd *exec.Cmd, pipes map[uint64]string) (t *tracked, err error) {
	onSpawner(func() {
		prepareSpawn()
		// A look at the other servers' processes while their parents live;
		// taken before the fork, it cannot mistake this server's own first
		// children for anything.
		observe()
		// Registered under the same lock as the fork: a sweep must never see
		// a new server as an unexplained child of this process.
		lockRegistry()
		defer unlockRegistry()
		if err = cmd.Start(); err == nil {
			t = registerLocked(cmd.Process.Pid, pipes)
		}
	})
	return t, err
}

func (p *process) wait() {
	err := p.cmd.Wait()
	if p.watch != nil {
		p.watch.Close()
	}
	p.mu.Lock()
	e := ExitInfo{Exited: true, Code: p.cmd.ProcessState.ExitCode()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = signalName(ws.Signal())
			e.Code = -1
		}
	}
	if p.stopped.IsZero() {
		e.Stage = "before-shutdown"
	} else {
		e.Stage = p.stage
		e.AfterShutdown = time.Since(p.stopped)
		e.Hurried = p.hurried
		e.Grace = p.grace
	}
	p.exit = e
	p.mu.Unlock()
	close(p.done)
}

func (p *process) exitInfo() ExitInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

func (p *process) setStage(s string) {
	p.mu.Lock()
	if p.stopped.IsZero() {
		p.stopped = time.Now()
	}
	if p.stage != string(transcript.Stopped) {
		// Stopped mid-run by the harness stays the reason.
		p.stage = s
	}
	p.mu.Unlock()
}

// sigKill is SIGKILL, named for callers outside this file.
const sigKill = syscall.SIGKILL

func (p *process) signalGroup(sig syscall.Signal) {
	// The negative pid names the whole process group the server leads.
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// killWait bounds the wait for a process to die after SIGKILL.
const killWait = 5 * time.Second

// hurry cuts the waits of a shutdown, under way or to come, to hurryGrace:
// the run was interrupted.
func (p *process) hurry() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hurried {
		p.hurried = true
		close(p.hurryCh)
	}
}

// isHurried reports whether the shutdown's waits are cut short.
func (p *process) isHurried() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hurried
}

// waitExit waits for the process to exit, at most grace, or hurryGrace
// once the shutdown is hurried; it reports whether the process exited.
func (p *process) waitExit(grace time.Duration) bool {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	case <-p.hurryCh:
	}
	select {
	case <-p.done:
		return true
	case <-time.After(hurryGrace):
		return false
	}
}

// shutdown follows the spec's stdio order: "the client SHOULD initiate
// shutdown by first closing the input stream to the child process, waiting
// for the server to exit, sending SIGTERM if it does not exit within a
// reasonable time, and SIGKILL if it does not exit after SIGTERM".
func (p *process) shutdown(grace time.Duration) ExitInfo {
	// While the server still runs its children are its own: note who they
	// are before they lose their parent and are reparented to this process.
	observe()
	select {
	case <-p.done:
	default:
		p.mu.Lock()
		p.grace = grace
		p.mu.Unlock()
		p.setStage("stdin-eof")
		p.stdin.Close()
		if !p.waitExit(grace) {
			p.setStage("sigterm")
			p.signalGroup(syscall.SIGTERM)
			if !p.waitExit(grace) {
				p.setStage("sigkill")
				p.signalGroup(syscall.SIGKILL)
				// SIGKILL cannot be caught, but a process stuck in the kernel
				// (a dead network mount) may still not die: give up waiting
				// rather than hang the harness.
				select {
				case <-p.done:
				case <-time.After(max(grace, killWait)):
				case <-p.hurryCh:
					select {
					case <-p.done:
					case <-time.After(hurryGrace):
					}
				}
			}
		}
	}
	p.stdin.Close()
	// Children left in the group die with it even when the leader exited cleanly.
	p.signalGroup(syscall.SIGKILL)
	// Then everything else that came from it: children that left the group
	// or the session, daemons reparented to this process, re-forking ones.
	sweep(p.tracked)
	return p.exitInfo()
}
