//go:build linux

package transport

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// SuperviseCommand is the hidden subcommand under which a program that
// calls SuperviseWith runs Supervise.
const SuperviseCommand = "__supervise-server"

// supervisor is the command (this program and SuperviseCommand) that
// starts each server under a supervisor; empty, servers are started
// directly. Set once, by main, before any server starts.
var supervisor struct {
	mu   sync.Mutex
	argv []string
}

// SuperviseWith makes every server start under a supervisor: argv (this
// program and its hidden subcommand, which calls Supervise) is run in the
// server's place and starts it. The parent-death signal a server gets
// fires when this process is killed outright, but the server may clear
// it and its children never have it: the supervisor outlives this process
// and kills the server's whole tree when its pipe from this process
// closes, which happens however this process ends. It lives on after the
// server's end until the shutdown has swept the server's leftovers, so
// that there is no moment in which they could outlive this process.
func SuperviseWith(argv []string) {
	supervisor.mu.Lock()
	defer supervisor.mu.Unlock()
	supervisor.argv = append([]string(nil), argv...)
}

func supervisorArgv() []string {
	supervisor.mu.Lock()
	defer supervisor.mu.Unlock()
	return supervisor.argv
}

// supervised returns the command that starts cmd under the supervisor;
// the write end of the pipe the supervisor watches (its descriptor 3),
// which this process keeps and closes once the server's leftovers are
// swept; the supervisor's ends of its pipes, to close once it has
// started; and the read end of the pipe on which the supervisor reports
// the server (its descriptor 4): why it could not start, or its pid and
// then how it ended (see Supervise). Without a supervisor, cmd itself and
// nothing else.
func supervised(cmd *exec.Cmd) (s *exec.Cmd, keep *os.File, closeAfter []*os.File, status *os.File, err error) {
	sv := supervisorArgv()
	if len(sv) == 0 {
		return cmd, nil, nil, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, nil, nil, err
	}
	args := append(append(sv[1:len(sv):len(sv)], cmd.Path), cmd.Args...)
	s = exec.Command(sv[0], args...)
	s.Dir, s.Env = cmd.Dir, cmd.Env
	s.Stdin, s.Stdout, s.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	s.ExtraFiles = []*os.File{r, sw}
	// Its own session, as a server gets (see isolation), which the server
	// shares in a process group of its own: the shutdown's group signals
	// reach the server, never the supervisor. No parent-death signal: the
	// supervisor must live on to clean up after this process.
	s.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return s, w, []*os.File{r, sw}, sr, nil
}

// Supervise is the body of SuperviseCommand: args are the server's path
// and its argv. It starts the server on its own stdio (the descriptors
// themselves: not a byte passes through the supervisor), in a process
// group of its own, and becomes the subreaper of the server's
// descendants. On descriptor 4 it writes why the server could not start
// and exits, or "started PID" and, once the server has exited, "exited
// STATUS" (its raw wait status). It then lives on, reaping the orphans it
// inherits, until descriptor 3 reaches end of file (the harness has swept
// the server's leftovers, or is gone, killed outright or crashed): then it
// kills every descendant and every process of its session and exits.
func Supervise(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: "+SuperviseCommand+" PATH ARGV0 [ARGS...]")
		return 2
	}
	// The server's parent-death signal fires when the thread that forked
	// it exits: this one, kept for good.
	runtime.LockOSThread()
	// Its pipes to the harness are its own: the server must not hold them
	// (status would never reach end of file, and the server gets its
	// stdio and nothing else).
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	watch := os.NewFile(3, "harness")
	status := os.NewFile(4, "status")
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	// A signal to the supervisor's group (a process of the session may
	// name it) must not end it before the harness has swept. Caught, not
	// ignored: an ignored signal would stay ignored in the server.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGQUIT)
	go func() {
		for range sigs {
		}
	}()
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	cmd := exec.Command(args[0], args[2:]...)
	cmd.Args[0] = args[1]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		// Said to the harness, which reports it as it would its own.
		fmt.Fprint(status, err)
		return 127
	}
	server := cmd.Process.Pid
	fmt.Fprintf(status, "started %d\n", server)
	// The server's pipes must reach end of file when it and its children
	// close them, not when the supervisor does.
	releaseStdio()
	go func() {
		_, _ = io.Copy(io.Discard, watch)
		killTree()
		os.Exit(1)
	}()
	// Every child is reaped here, the server by the same wait4 as the
	// orphans: none is left to os/exec.
	for {
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			if pid == server {
				fmt.Fprintf(status, "exited %d\n", uint32(ws))
				status.Close()
			}
		}
		<-children
	}
}

// releaseStdio points descriptors 0 to 2 at /dev/null.
func releaseStdio() {
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		_ = unix.Dup3(null, fd, 0)
	}
	_ = unix.Close(null)
}

// maxKillRounds bounds the rounds of killTree against a tree that keeps
// forking.
const maxKillRounds = 100

// killTree kills, until none is left, every descendant of this process
// (its orphans come to it: it is their subreaper) and every process of its
// session, then its whole group with itself.
func killTree() {
	self := os.Getpid()
	for range maxKillRounds {
		victims := treeOf(self, scanProcs())
		if len(victims) == 0 {
			break
		}
		for _, pid := range victims {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		for {
			if pid, err := unix.Wait4(-1, nil, unix.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
	_ = unix.Kill(-self, unix.SIGKILL)
}

// treeOf returns the live processes of snap that descend from root or
// belong to its session, root excepted.
func treeOf(root int, snap map[int]procStat) []int {
	children := map[int][]int{}
	for pid, st := range snap {
		children[st.ppid] = append(children[st.ppid], pid)
	}
	in := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	for pid, st := range snap {
		if st.sid == root {
			in[pid] = true
		}
	}
	var out []int
	for pid := range in {
		if pid != root && !snap[pid].dead() {
			out = append(out, pid)
		}
	}
	return out
}
