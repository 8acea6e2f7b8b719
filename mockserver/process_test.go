package mockserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a mock server process: with
// MOCKSERVER_TEST_SERVE=1 it serves stdio, with the faults named in
// MOCKSERVER_TEST_FAULTS, the way `mcpconform mock` would.
func TestMain(m *testing.M) {
	if os.Getenv("MOCKSERVER_TEST_SERVE") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		var faults []string
		if f := os.Getenv("MOCKSERVER_TEST_FAULTS"); f != "" {
			faults = strings.Split(f, ",")
		}
		err := Serve(ctx, os.Stdin, os.Stdout, os.Stderr, Options{Faults: faults})
		stop()
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// proc is the test binary running as a server.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout chan string
	stderr chan string
	exited chan error
}

func spawn(t *testing.T, faults ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MOCKSERVER_TEST_SERVE=1", "MOCKSERVER_TEST_FAULTS="+strings.Join(faults, ","))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Plain pipes, so that Wait does not wait for a child holding them.
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	p := &proc{t: t, cmd: cmd, stdin: stdin, stdout: lines(outR), stderr: lines(errR), exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		stdin.Close()
		<-p.exitedOnce()
	})
	return p
}

func lines(r io.ReadCloser) chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// exitedOnce returns a channel that yields the exit error once, then
// keeps it for later callers.
func (p *proc) exitedOnce() chan error {
	ch := make(chan error, 1)
	go func() {
		err := <-p.exited
		p.exited <- err
		ch <- err
	}()
	return ch
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the next line of ch; ok is false at its end.
func (p *proc) next(ch chan string) (line string, ok bool) {
	p.t.Helper()
	select {
	case l, ok := <-ch:
		return l, ok
	case <-time.After(wait):
		p.t.Fatalf("no output from the server within %v", wait)
	}
	return "", false
}

// wait returns the exit status.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case err := <-p.exitedOnce():
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatalf("waiting for the server: %v", err)
		}
		return 0
	case <-time.After(wait):
		p.t.Fatalf("the server did not exit within %v", wait)
	}
	return -1
}

func (p *proc) initialize() {
	p.t.Helper()
	p.send(request("1", "initialize", initParams("2025-06-18")))
	if l, ok := p.next(p.stdout); !ok || !strings.Contains(l, `"protocolVersion":"2025-06-18"`) {
		p.t.Fatalf("initialize answered %q", l)
	}
	p.send(notification("notifications/initialized", nil))
}

func TestProcessCorrectServerExitsOnEOF(t *testing.T) {
	t.Parallel()
	p := spawn(t)
	p.initialize()
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}

func TestProcessCrashOnStart(t *testing.T) {
	t.Parallel()
	p := spawn(t, "crash-on-start")
	if code := p.wait(); code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	if l, ok := p.next(p.stdout); ok {
		t.Errorf("stdout got %q, want nothing", l)
	}
	if l, _ := p.next(p.stderr); !strings.Contains(l, "crash-on-start") {
		t.Errorf("stderr got %q", l)
	}
}

func TestProcessCrashOnRead(t *testing.T) {
	t.Parallel()
	p := spawn(t, "crash-on-read")
	p.initialize()
	p.send(request("2", "ping", nil))
	if l, _ := p.next(p.stdout); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping answered %q", l)
	}
	p.send(request("3", "resources/read", map[string]any{"uri": "test://static/hello.txt"}))
	if code := p.wait(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if l, ok := p.next(p.stdout); ok {
		t.Errorf("stdout got %q after the crash", l)
	}
}

func TestProcessCrashOnParseError(t *testing.T) {
	t.Parallel()
	p := spawn(t, "crash-on-parse-error")
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if code := p.wait(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

func TestProcessExitAfterInitialize(t *testing.T) {
	t.Parallel()
	p := spawn(t, "exit-after-initialize")
	p.send(request("1", "initialize", initParams("2025-06-18")))
	if l, _ := p.next(p.stdout); !strings.Contains(l, `"protocolVersion"`) {
		t.Errorf("initialize answered %q", l)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}

func TestProcessSIGTERM(t *testing.T) {
	t.Parallel()
	// The correct server stops on SIGTERM.
	p := spawn(t)
	p.initialize()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit status after SIGTERM %d, want 0", code)
	}

	// ignore-sigterm keeps serving.
	p = spawn(t, "ignore-sigterm")
	p.initialize()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.send(request("2", "ping", nil))
	if l, _ := p.next(p.stdout); l != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("ping after SIGTERM answered %q", l)
	}
	select {
	case err := <-p.exitedOnce():
		t.Errorf("the server exited after SIGTERM: %v", err)
	default:
	}
}
