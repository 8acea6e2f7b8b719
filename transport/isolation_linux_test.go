//go:build linux

package transport

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpconform/mcpconform/internal/ptytest"
	"github.com/mcpconform/mcpconform/internal/stdiotest"
	"golang.org/x/sys/unix"
)

// The tests of this file reproduce a hostile server's attacks on the
// harness: reaching the user's terminal, leaving processes that outlive
// Close, outliving a killed harness, reading the harness's descriptors.

// markEnv marks every process of one test: servers, their children and
// their children's children inherit it, so afterwards none may carry it.
// dirEnv is a directory the hostile modes write to.
const (
	markEnv = "MOCKCLIENT_TEST_MARK"
	dirEnv  = "MOCKCLIENT_TEST_DIR"
)

func init() {
	hostile = serveHostile
	playRole = playHarness
}

// serveHostile runs the hostile modes:
//
//	list-fds        names its open descriptors on stderr ("fds: 0=… 1=…"), then serves
//	tty-attack      writes to /dev/tty, makes itself the terminal's foreground group and
//	                pushes input with TIOCSTI, reporting each result on stderr ("attack: …")
//	escape-session  starts a child in a session of its own, with /dev/null for stdio
//	escape-group    starts a child in a process group of its own, with /dev/null for stdio
//	daemon          double-forks: a child in a session of its own starts the grandchild
//	                (/dev/null for stdio) and exits at once
//	reforker        starts a hop, which starts the next hop in a session of its own and
//	                exits, for ever; each hop leaves a file named by its pid in dirEnv
//
// The modes that start children name the one to look for on stderr
// ("helper: child N").
func serveHostile(has func(string) bool) (int, bool) {
	child := func(mode string, attr *syscall.SysProcAttr) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), stdiotest.Env+"="+mode)
		cmd.SysProcAttr = attr
		return cmd
	}
	start := func(cmd *exec.Cmd) bool {
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return false
		}
		fmt.Fprintf(os.Stderr, "helper: child %d\n", cmd.Process.Pid)
		return true
	}
	switch {
	case has("list-fds"):
		fmt.Fprintln(os.Stderr, "fds: "+openFDs())
	case has("tty-attack"):
		attackTerminal()
	case has("escape-session"):
		if !start(child("sleeper", &syscall.SysProcAttr{Setsid: true})) {
			return 1, true
		}
	case has("escape-group"):
		if !start(child("sleeper", &syscall.SysProcAttr{Setpgid: true})) {
			return 1, true
		}
	case has("daemon"):
		out, err := child("daemon-middle", &syscall.SysProcAttr{Setsid: true}).Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1, true
		}
		fmt.Fprintf(os.Stderr, "helper: child %s\n", bytes.TrimSpace(out))
	case has("daemon-middle"):
		leaf := child("sleeper", nil)
		if err := leaf.Start(); err != nil {
			return 1, true
		}
		fmt.Println(leaf.Process.Pid)
		return 0, true
	case has("reforker"):
		if !start(child("hop", &syscall.SysProcAttr{Setsid: true})) {
			return 1, true
		}
	case has("hop"):
		_ = os.WriteFile(filepath.Join(os.Getenv(dirEnv), strconv.Itoa(os.Getpid())), nil, 0o600)
		if err := child("hop", &syscall.SysProcAttr{Setsid: true}).Start(); err != nil {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// openFDs names the open descriptors with what they point to, read with
// raw system calls so that the listing opens nothing but its own directory.
func openFDs() string {
	dir, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "error " + err.Error()
	}
	defer syscall.Close(dir)
	buf := make([]byte, 64<<10)
	var names []string
	for {
		n, err := syscall.ReadDirent(dir, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
	var out []string
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err != nil || fd == dir {
			continue
		}
		link, _ := os.Readlink("/proc/self/fd/" + name)
		out = append(out, name+"="+link)
	}
	return strings.Join(out, " ")
}

// attackTerminal tries what a server in the harness's session could do to
// the user's terminal, reporting each result on stderr.
func attackTerminal() {
	// Otherwise the kernel stops a background process that tries.
	signal.Ignore(syscall.SIGTTOU, syscall.SIGTTIN)
	say := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "attack: "+format+"\n", a...) }
	say("tty_nr %d", ttyNr())
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		say("open /dev/tty: %v", err)
	} else {
		fd := int(tty.Fd())
		_, err := tty.WriteString("\x1b]0;HOSTILE-TITLE\x07HOSTILE-WRITE\r\n")
		say("write: %v", err)
		say("tcsetpgrp: %v", unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, syscall.Getpgrp()))
		say("TIOCSTI: %v", pushInput(fd, "HOSTILE-INPUT"))
		tty.Close()
	}
	for fd := 0; fd <= 2; fd++ {
		say("fd %d tcsetpgrp: %v", fd, unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, syscall.Getpgrp()))
		say("fd %d TIOCSTI: %v", fd, pushInput(fd, "HOSTILE-INPUT"))
	}
}

// pushInput types s into the terminal fd as if the user had.
func pushInput(fd int, s string) error {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&b))); errno != 0 {
			return errno
		}
	}
	return nil
}

// ttyNr is the controlling terminal of this process, 0 for none.
func ttyNr() int {
	b, _ := os.ReadFile("/proc/self/stat")
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 5 {
		return -1
	}
	n, _ := strconv.Atoi(f[4])
	return n
}

// playHarness plays the harness in a process of its own:
//
//	tty   on a terminal it controls, runs a tty-attack server, then shows what
//	      reached the terminal; it reports on fd 3
//	fds   with fd 3 inherited, runs a list-fds server and prints its listing
//	hold  runs a server deaf to stdin EOF and SIGTERM, prints its pid, and
//	      waits for stdin to end
//	supervised-stopped, supervised-exited
//	      under a supervisor, runs a server that leaves a child in a session
//	      of its own; stops the server (kills its group, as a budget does)
//	      or has it exit on its own; prints "server PID child PID" once it
//	      is dead, and waits for stdin to end before its Close
func playHarness(role string) int {
	serverEnv := func(mode string) []string {
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, roleEnv+"=") })
		return append(env, stdiotest.Env+"="+mode)
	}
	start := func(mode string, env ...string) (*server, error) {
		return dialServer([]string{os.Args[0], "-test.run=^$"}, append(serverEnv(mode), env...), 2*time.Second)
	}
	switch role {
	case "tty":
		return playOnTerminal(start)
	case "fds":
		link, err := os.Readlink("/proc/self/fd/3")
		fmt.Printf("harness fd 3: %s %v\n", link, err)
		// Go keeps two cgroup files open to follow its CPU quota: with the
		// quota ignored, the runtime opens no descriptor of its own.
		c, err := start("list-fds", "GODEBUG=containermaxprocs=0")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		c.ping()
		c.Close()
		for _, l := range c.StderrTail() {
			fmt.Println(l)
		}
		return 0
	case "hold":
		// A server that outlives its stdin: only a signal ends it.
		c, err := start("ignore-eof,ignore-sigterm")
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("server %d\n", c.Pid())
		io.Copy(io.Discard, os.Stdin)
		c.Close()
		return 0
	case "supervised-stopped", "supervised-exited":
		SuperviseWith([]string{os.Args[0], SuperviseCommand})
		mode := "escape-session,ignore-eof,ignore-sigterm"
		if role == "supervised-exited" {
			mode = "escape-session,crash"
		}
		c, err := start(mode)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		child := 0
		for child == 0 {
			select {
			case <-c.conn.Done():
				fmt.Println("the server ended before naming its child")
				return 1
			case <-time.After(10 * time.Millisecond):
			}
			for _, l := range c.StderrTail() {
				if m := childRE.FindStringSubmatch(l); m != nil {
					child, _ = strconv.Atoi(m[1])
				}
			}
		}
		if role == "supervised-stopped" {
			c.conn.Stop()
		} else {
			_ = c.ping() // answered by its exit
		}
		<-c.conn.Done()
		fmt.Printf("server %d child %d\n", c.Pid(), child)
		io.Copy(io.Discard, os.Stdin)
		c.Close()
		return 0
	}
	return 2
}

func playOnTerminal(start func(string, ...string) (*server, error)) int {
	signal.Ignore(syscall.SIGTTIN, syscall.SIGTTOU)
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt)
	report := os.NewFile(3, "report")
	say := func(format string, a ...any) { fmt.Fprintf(report, format+"\n", a...) }
	// The attack is possible: this process has the terminal.
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		say("harness tty: %v", err)
	} else {
		f.Close()
		say("harness tty: ok")
	}
	c, err := start("tty-attack")
	if err != nil {
		say("start: %v", err)
		return 1
	}
	if err := c.ping(); err != nil {
		say("ping: %v", err)
	}
	c.Close()
	for _, l := range c.StderrTail() {
		say("%s", l)
	}
	// Whatever the server wrote to the terminal is ahead of this line.
	fmt.Print("END-OF-SERVER\n")
	say("end")
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	say("input %q %v", line, err)
	select {
	case <-intr:
		say("interrupted")
	case <-time.After(20 * time.Second):
		say("no interrupt")
	}
	return 0
}

// harness returns a command that runs the test binary in a harness role.
func harness(role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	return cmd
}

// startHarness starts the harness in role, marked, with its stdin held
// open until the test ends, and scans the first line it prints into vars
// by format.
func startHarness(t *testing.T, role, mark, format string, vars ...any) *exec.Cmd {
	t.Helper()
	cmd := harness(role, markEnv+"="+mark)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if _, serr := fmt.Sscanf(line, format, vars...); err != nil || serr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the harness said %q (%v)", line, err)
	}
	return cmd
}

// screen collects what a terminal shows.
type screen struct {
	mu      sync.Mutex
	text    bytes.Buffer
	changed chan struct{}
}

func (s *screen) read(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		s.mu.Lock()
		s.text.Write(buf[:n])
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor returns what the terminal showed up to the first want.
func (s *screen) waitFor(t *testing.T, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		text, ch := s.text.String(), s.changed
		s.mu.Unlock()
		if i := strings.Index(text, want); i >= 0 {
			return text[:i]
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the terminal never showed %q; it showed %q", want, text)
		}
	}
}

// expectLine reads lines until one starts with prefix, returning it and
// those before it.
func expectLine(t *testing.T, lines <-chan string, prefix string, timeout time.Duration) (string, []string) {
	t.Helper()
	deadline := time.After(timeout)
	var before []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the harness ended without %q; it said %q", prefix, before)
			}
			if strings.HasPrefix(l, prefix) {
				return l, before
			}
			before = append(before, l)
		case <-deadline:
			t.Fatalf("no %q from the harness within %s; it said %q", prefix, timeout, before)
		}
	}
}

// A server must not reach the user's terminal: the harness runs on a
// terminal it controls, as mcpconform does from a shell, and starts a
// server that writes to /dev/tty, makes itself the foreground group and
// pushes input. Nothing may reach the terminal, the harness must stay in
// the foreground (Ctrl-C reaches it), and no input may appear.
func TestServerCannotReachTheTerminal(t *testing.T) {
	master, tty := ptytest.Open(t, 0)
	// Without echo the terminal shows only what is written to it.
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	rr, rw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	cmd := harness("tty", markEnv+"="+newMark(t))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.ExtraFiles = []*os.File{rw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	rw.Close()
	tty.Close()
	scr := &screen{changed: make(chan struct{})}
	go scr.read(master)
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(rr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	_, said := expectLine(t, lines, "end", 60*time.Second)
	if !slices.Contains(said, "harness tty: ok") {
		t.Fatalf("the harness has no terminal, so the test proves nothing: %q", said)
	}
	attacks := strings.Join(said, "\n")
	if !strings.Contains(attacks, "attack: tty_nr 0") {
		t.Errorf("the server has a controlling terminal:\n%s", attacks)
	}
	if !strings.Contains(attacks, "attack: open /dev/tty: ") {
		t.Errorf("the server could open /dev/tty:\n%s", attacks)
	}
	if shown := scr.waitFor(t, "END-OF-SERVER", 30*time.Second); shown != "" {
		t.Errorf("the server wrote to the terminal: %q", shown)
	}
	if pgrp, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP); err != nil || pgrp != cmd.Process.Pid {
		t.Errorf("the terminal's foreground group is %d (%v), want the harness's, %d", pgrp, err, cmd.Process.Pid)
	}
	if _, err := master.WriteString("MARK\n"); err != nil {
		t.Fatal(err)
	}
	if l, _ := expectLine(t, lines, "input ", 30*time.Second); l != `input "MARK\n" <nil>` {
		t.Errorf("the harness read %s, want only what was typed (MARK)", l)
	}
	if _, err := master.WriteString("\x03"); err != nil {
		t.Fatal(err)
	}
	if l, _ := expectLine(t, lines, "", 30*time.Second); l != "interrupted" {
		t.Errorf("Ctrl-C on the terminal: the harness says %q, want interrupted", l)
	}
}

// When the harness is killed outright, its servers die with it.
func TestServerDiesWithTheHarness(t *testing.T) {
	mark := newMark(t)
	var server int
	cmd := startHarness(t, "hold", mark, "server %d", &server)
	if !alive(server) {
		t.Fatalf("server %d is not running", server)
	}
	killHarness(t, cmd, server, mark)
}

// killHarness kills the harness outright, then waits for pid, and every
// process that carries the mark, to be gone.
func killHarness(t *testing.T, cmd *exec.Cmd, pid int, mark string) {
	t.Helper()
	cmd.Process.Kill()
	cmd.Wait()
	// Generous for a busy machine, and half the life of a sleeper.
	waitGoneWithin(t, pid, 30*time.Second)
	waitNoMarked(t, mark)
}

// When the harness is killed outright between a server's end and the sweep
// of its leftovers (the harness stopped it, or it exited on its own), the
// supervisor still takes them with it: a child in a session of its own,
// without a parent-death signal, is gone too.
func TestLeftoversDieWithTheHarnessDuringShutdown(t *testing.T) {
	for _, role := range []string{"supervised-stopped", "supervised-exited"} {
		t.Run(role, func(t *testing.T) {
			mark := newMark(t)
			var server, child int
			cmd := startHarness(t, role, mark, "server %d child %d", &server, &child)
			if !alive(child) {
				t.Fatalf("the server's child %d is not running", child)
			}
			killHarness(t, cmd, child, mark)
		})
	}
}

// The parent-death signal fires when the thread that started the server
// exits: Start from a goroutine that ends locked to its thread (so Go ends
// the thread) must not kill the server.
func TestServerOutlivesTheThreadThatStartedIt(t *testing.T) {
	type started struct {
		c   *server
		err error
		tid int
	}
	ch := make(chan started)
	onEndingThread(func() {
		argv, env := stdiotest.Command("plain")
		c, err := dialServer(argv, env, 2*time.Second)
		ch <- started{c, err, unix.Gettid()}
	})
	s := <-ch
	if s.err != nil {
		t.Fatal(s.err)
	}
	defer s.c.Close()
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d never ended", s.tid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Had the thread's end sent SIGKILL, the server could answer nothing.
	if err := s.c.ping(); err != nil {
		t.Fatalf("the server died with the thread that started it: %v (%s)", err, s.c.ExitInfo())
	}
}

// onEndingThread runs f in a goroutine locked to a thread that ends with
// it. Go ends the thread of a goroutine that returns locked, unless it is
// the main thread, which it keeps: from there, f runs one goroutine further,
// on another thread since the main one is held meanwhile.
func onEndingThread(f func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			f()
			return // still locked
		}
		done := make(chan struct{})
		onEndingThread(func() {
			defer close(done)
			f()
		})
		<-done
		runtime.UnlockOSThread()
	}()
}

// A server gets stdin, stdout and stderr, and none of the harness's other
// descriptors, even those it inherited without close-on-exec.
func TestServerGetsOnlyItsStdio(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := harness("fds", markEnv+"="+newMark(t))
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "harness fd 3: "+f.Name()+" <nil>") {
		t.Fatalf("the harness did not inherit fd 3, so the test proves nothing:\n%s", text)
	}
	i := strings.Index(text, "fds: ")
	if i < 0 {
		t.Fatalf("the server listed no descriptors:\n%s", text)
	}
	listing := strings.TrimSpace(strings.SplitN(text[i+len("fds: "):], "\n", 2)[0])
	var fds []string
	for _, kv := range strings.Fields(listing) {
		fds = append(fds, strings.SplitN(kv, "=", 2)[0])
	}
	if !slices.Equal(fds, []string{"0", "1", "2"}) {
		t.Errorf("the server has descriptors %s, want 0, 1 and 2 only", listing)
	}
}

// Processes that leave the server's group, or its session, or lose their
// parent altogether, are still found, killed, reaped and recorded, and
// recorded the same under a supervisor, which adopts and reaps them.
func TestEscapedDescendantsAreKilled(t *testing.T) {
	for _, tc := range []struct{ mode, tie string }{
		{"escape-session", "descendant"},
		{"escape-group", "session"},
		{"daemon", "descendant"},
	} {
		runBoth(t, tc.mode, func(t *testing.T) {
			c, mark := startMarked(t, tc.mode)
			if err := c.ping(); err != nil {
				t.Fatal(err)
			}
			child := childPid(t, c)
			c.Close()
			strays := c.Strays()
			i := slices.IndexFunc(strays, func(s Stray) bool { return s.Pid == child })
			if i < 0 {
				t.Fatalf("got strays %+v, want pid %d", strays, child)
			}
			s := strays[i]
			if !s.Killed || !s.Reaped || !slices.Contains(s.Holds, tc.tie) || s.OtherServers != nil || s.Coverage == "" {
				t.Errorf("got %+v, want pid %d killed and reaped, tied by %q, from this server only, with its coverage", s, child, tc.tie)
			}
			waitNoMarked(t, mark)
			if st, ok := readStat(child); ok && st.ppid == os.Getpid() {
				t.Errorf("pid %d is left a zombie (%c) of this process", child, st.state)
			}
		})
	}
}

// A process that forks anew as fast as it can, each copy in a session of
// its own, is caught over the rounds of the sweep.
func TestReforkingDescendantIsKilled(t *testing.T) {
	dir := t.TempDir()
	c, mark := startMarked(t, "reforker", dirEnv+"="+dir)
	if err := c.ping(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		hops, _ := os.ReadDir(dir)
		if len(hops) >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d hops", len(hops))
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Close()
	strays := c.Strays()
	if len(strays) == 0 {
		var what []string
		for _, pid := range marked(mark) {
			st, _ := readStat(pid)
			what = append(what, fmt.Sprintf("%+v", st))
		}
		srv, _ := readStat(c.Pid())
		t.Fatalf("no strays recorded; server %d %+v; marked: %s; self %d; transcript %v", c.Pid(), srv, strings.Join(what, ", "), os.Getpid(), c.StderrTail())
	}
	for _, s := range strays {
		if !s.Killed || !slices.Contains(s.Holds, "descendant") {
			t.Errorf("got %+v, want a killed descendant", s)
		}
	}
	waitNoMarked(t, mark)
}

// Closing one server kills its own descendants, not those of another
// server still running.
func TestConcurrentServersKeepTheirDescendants(t *testing.T) {
	a, markA := startMarked(t, "escape-session")
	b, markB := startMarked(t, "escape-session")
	for _, c := range []*server{a, b} {
		if err := c.ping(); err != nil {
			t.Fatal(err)
		}
	}
	childA, childB := childPid(t, a), childPid(t, b)
	a.Close()
	if got := strayPids(a.Strays()); !slices.Equal(got, []int{childA}) {
		t.Errorf("server A: got strays %v, want its child %d only", got, childA)
	}
	waitNoMarked(t, markA)
	if !alive(childB) {
		t.Fatalf("closing server A killed server B's child %d", childB)
	}
	b.Close()
	if got := strayPids(b.Strays()); !slices.Equal(got, []int{childB}) {
		t.Errorf("server B: got strays %v, want its child %d only", got, childB)
	}
	waitNoMarked(t, markB)
}

// Servers closed at once under supervisors leave nothing: a supervisor
// let go by one sweep, still exiting, is no orphan to another's.
func TestSupervisorsAreNoStraysOfOtherServers(t *testing.T) {
	supervise(t)
	for range 5 {
		var servers []*server
		for range 4 {
			c, _ := startMarked(t, "plain")
			if err := c.ping(); err != nil {
				t.Fatal(err)
			}
			servers = append(servers, c)
		}
		var wg sync.WaitGroup
		for _, c := range servers {
			wg.Go(func() { c.Close() })
		}
		wg.Wait()
		for _, c := range servers {
			if s := c.Strays(); len(s) != 0 {
				t.Fatalf("server %d: got strays %v, want none", c.Pid(), s)
			}
		}
	}
}

// A daemon's grandchild, reparented at once, can only be put down to the
// servers that ran when it started. One started before the other server is
// its own server's; one started while both ran is left alone until the
// last of them closes, and recorded as maybe the other's.
func TestOrphanOfUncertainOriginWaitsForTheLastServer(t *testing.T) {
	a, markA := startMarked(t, "daemon")
	if err := a.ping(); err != nil {
		t.Fatal(err)
	}
	leafA := childPid(t, a)
	// Start B only once the clock (in ticks, as /proc counts start times)
	// has moved past A's grandchild's start.
	st, ok := readStat(leafA)
	if !ok {
		t.Fatalf("pid %d is gone", leafA)
	}
	waitTicksPast(t, st.start)
	b, markB := startMarked(t, "daemon")
	if err := b.ping(); err != nil {
		t.Fatal(err)
	}
	leafB := childPid(t, b)
	a.Close()
	if got := strayPids(a.Strays()); !slices.Equal(got, []int{leafA}) {
		t.Errorf("server A: got strays %v, want its grandchild %d only", got, leafA)
	}
	waitNoMarked(t, markA)
	if !alive(leafB) {
		t.Fatalf("closing server A killed %d, which may be server B's", leafB)
	}
	b.Close()
	strays := b.Strays()
	if len(strays) != 1 || strays[0].Pid != leafB || !slices.Equal(strays[0].OtherServers, []int{a.Pid()}) || !strays[0].Killed {
		t.Errorf("server B: got strays %+v, want %d killed, maybe from server %d", strays, leafB, a.Pid())
	} else if !strings.Contains(strays[0].String(), fmt.Sprintf("may have come from server pid %d instead", a.Pid())) {
		t.Errorf("the record does not say where else it may have come from: %s", strays[0])
	}
	waitNoMarked(t, markB)
}

func strayPids(strays []Stray) []int {
	var pids []int
	for _, s := range strays {
		pids = append(pids, s.Pid)
	}
	return pids
}

// waitTicksPast waits until the boot clock, in the clock ticks of
// /proc/PID/stat, is past ticks.
func waitTicksPast(t *testing.T, ticks uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
			t.Fatal(err)
		}
		// USER_HZ is 100 on every Linux.
		if uint64(ts.Nano()/(int64(time.Second)/100)) > ticks {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the clock does not move")
		}
		time.Sleep(time.Millisecond)
	}
}

func newMark(t *testing.T) string {
	b := make([]byte, 8)
	rand.Read(b)
	mark := hex.EncodeToString(b)
	// Whatever the test's outcome, nothing it started may outlive it.
	t.Cleanup(func() { killMarked(mark) })
	return mark
}

// startMarked starts the test binary as a helper server in the given modes,
// marking it and everything it starts.
func startMarked(t *testing.T, modes string, env ...string) (*server, string) {
	t.Helper()
	mark := newMark(t)
	return startServer(t, modes, time.Second, append([]string{markEnv + "=" + mark}, env...)...), mark
}

// marked lists the live processes carrying the mark.
func marked(mark string) []int {
	want := []byte(markEnv + "=" + mark + "\x00")
	var pids []int
	dir, _ := os.ReadDir("/proc")
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err == nil && bytes.Contains(env, want) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killMarked(mark string) {
	for range 1000 {
		pids := marked(mark)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitNoMarked fails unless every process carrying the mark is gone within
// a generous deadline.
func waitNoMarked(t *testing.T, mark string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := marked(mark)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var what []string
			for _, pid := range left {
				st, _ := readStat(pid)
				what = append(what, fmt.Sprintf("%d (%s, session %d, parent %d)", pid, st.comm, st.sid, st.ppid))
			}
			t.Fatalf("processes survived: %s", strings.Join(what, ", "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitGoneWithin(t *testing.T, pid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("pid %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Reparented here (this process became a subreaper in an earlier test)
	// it is a zombie of this process: collect it.
	if st, ok := readStat(pid); ok && st.ppid == os.Getpid() {
		reap(pid)
	}
}
