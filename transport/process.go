package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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
	// one): closed once the server's leftovers are swept, or with this
	// process, which tells the supervisor to kill the server's tree.
	watch *os.File
	// status is where the supervisor reports how the server ended (nil
	// without one, or if it never said the server started).
	status *os.File
	// group is the process group the server leads: its pid, which under
	// a supervisor is not cmd's.
	group int
	// reaped is closed once cmd has been waited for.
	reaped chan struct{}
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
	p := &process{cmd: cmd, watch: watch, stdin: inW, stdout: outR, stderr: errR, done: make(chan struct{}), reaped: make(chan struct{}), hurryCh: make(chan struct{}), pipes: map[uint64]string{}}
	for name, f := range map[string]*os.File{"stdin": inW, "stdout": outR, "stderr": errR} {
		if ino, ok := pipeInode(f); ok {
			p.pipes[ino] = name
		}
	}
	p.tracked, err = launch(cmd, p.pipes)
	for _, f := range supervisorEnds {
		f.Close()
	}
	if err == nil {
		p.group = cmd.Process.Pid
		if status != nil {
			err = p.supervisorStarted(status)
		}
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
	go p.reap()
	go p.wait()
	return p, nil
}

// supervisorStarted reads what the supervisor says of the server's start:
// its pid once it started, or why it could not, in which case the
// supervisor, which exits at once, is waited for and its registration
// swept away. A supervisor that ends without a word leaves its own exit
// to stand for the server's.
func (p *process) supervisorStarted(status *os.File) error {
	line := readLine(status, 4096)
	if pid, ok := strings.CutPrefix(line, "started "); ok {
		if n, err := strconv.Atoi(strings.TrimSuffix(pid, "\n")); err == nil && n > 0 {
			p.group, p.status = n, status
			regroup(p.tracked, n)
			return nil
		}
	}
	rest, _ := io.ReadAll(io.LimitReader(status, 4096))
	status.Close()
	msg := line + string(rest)
	if msg == "" {
		return nil
	}
	_ = p.cmd.Wait()
	sweep(p.tracked)
	return errors.New(msg)
}

// readLine reads from f up to a newline (kept), its end or max bytes, one
// byte at a time: what follows is read later, by another.
func readLine(f *os.File, max int) string {
	var line []byte
	b := make([]byte, 1)
	for len(line) < max {
		if n, _ := f.Read(b); n == 0 {
			break
		}
		line = append(line, b[0])
		if b[0] == '\n' {
			break
		}
	}
	return string(line)
}

// serverExit reads the server's wait status from the supervisor's report;
// ok is false if the supervisor ended without one.
func serverExit(status *os.File) (ws syscall.WaitStatus, ok bool) {
	line := readLine(status, 64)
	v, found := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "exited ")
	if !found {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	return syscall.WaitStatus(n), err == nil
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

// reap waits for cmd: the server, or its supervisor, which ends once the
// shutdown lets it go (see release).
func (p *process) reap() {
	_ = p.cmd.Wait()
	if p.status == nil && p.watch != nil {
		// A supervisor that never said the server started: its exit was
		// the server's.
		p.watch.Close()
	}
	close(p.reaped)
}

// wait waits for the server's exit and records it: as the supervisor
// reports it, or as cmd's own.
func (p *process) wait() {
	ws, ok := syscall.WaitStatus(0), false
	if p.status != nil {
		ws, ok = serverExit(p.status)
		p.status.Close()
	}
	code := 0
	if !ok {
		<-p.reaped
		code = -1
		if ps := p.cmd.ProcessState; ps != nil {
			code = ps.ExitCode()
			ws, ok = ps.Sys().(syscall.WaitStatus)
		}
	} else {
		code = ws.ExitStatus()
	}
	p.mu.Lock()
	e := ExitInfo{Exited: true, Code: code}
	if ok && ws.Signaled() {
		e.Signal = signalName(ws.Signal())
		e.Code = -1
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
	_ = syscall.Kill(-p.group, sig)
}

// release lets the server's supervisor go, once the server's leftovers
// are swept, and waits for it (at most killWait): it kills what is left of
// the server's tree, which it adopted, and exits. Until then no orphan of
// the server is left to init, should this process be killed outright.
// The server stays registered until the supervisor is waited for.
func (p *process) release() {
	if p.watch == nil {
		return
	}
	p.watch.Close()
	select {
	case <-p.reaped:
		forget(p.tracked)
	case <-time.After(killWait):
		go func() {
			<-p.reaped
			forget(p.tracked)
		}()
	}
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
	// or the session, daemons reparented to this process or to the
	// supervisor, re-forking ones.
	sweep(p.tracked)
	p.release()
	return p.exitInfo()
}
