package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/transport"
)

// setupTailLines is how much of a setup's output its record keeps, and
// setupLineBytes the most of one line.
const (
	setupTailLines = 20
	setupLineBytes = 2000
)

// runSetup runs a target's setup command in its environment, within its
// timeout, in a process group of its own that is killed whole when the
// timeout passes or ctx is cancelled. The whole output goes to log (when
// set); the record keeps its last lines.
func runSetup(ctx context.Context, p *prepared, log *os.File) *reports.SetupRun {
	timeout := DefaultSetupTimeout
	if p.t.Setup.Timeout > 0 {
		timeout = time.Duration(p.t.Setup.Timeout)
	}
	rec := &reports.SetupRun{Command: p.t.Setup.Command, ExitCode: -1}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.setup[0], p.setup[1:]...)
	cmd.Args[0] = p.t.Setup.Command[0]
	cmd.Dir = p.setupDir
	cmd.Env = transport.Environment(p.cfg.Env, p.cfg.InheritEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Children that keep the pipe open do not hold the fleet past this.
	cmd.WaitDelay = 2 * time.Second
	out := &tail{log: log}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	rec.DurationMs = time.Since(start).Milliseconds()
	rec.OutputTail = out.lines()
	var exit *exec.ExitError
	switch {
	case err == nil:
		rec.ExitCode = 0
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		rec.Error = fmt.Sprintf("the setup command did not finish within its timeout (%s) and was killed", timeout)
	case ctx.Err() != nil:
		rec.Error = "the setup command was interrupted"
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		rec.ExitCode = exit.ExitCode()
		rec.Error = fmt.Sprintf("the setup command exited with status %d", rec.ExitCode)
	case errors.As(err, &exit):
		rec.Error = "the setup command was killed by " + exit.String()
	default:
		rec.Error = "the setup command could not be started: " + err.Error()
	}
	return rec
}

// tail keeps the last lines written to it, and copies everything to log.
type tail struct {
	mu   sync.Mutex
	log  *os.File
	buf  []byte
	keep []string
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.log != nil {
		t.log.Write(b) // a log that cannot be written loses the log, not the setup
	}
	t.buf = append(t.buf, b...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.buf[:i]))
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 4<<10 {
		t.add(string(t.buf))
		t.buf = nil
	}
	return len(b), nil
}

func (t *tail) add(line string) {
	if len(line) > setupLineBytes {
		line = line[:setupLineBytes] + " …"
	}
	t.keep = append(t.keep, strings.TrimRight(line, "\r"))
	if len(t.keep) > setupTailLines {
		t.keep = t.keep[len(t.keep)-setupTailLines:]
	}
}

func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > 0 {
		t.add(string(t.buf))
		t.buf = nil
	}
	return t.keep
}
