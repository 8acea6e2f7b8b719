package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/stdiotest"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// roleEnv makes the test binary play the harness instead: a process that
// starts servers through this package, for tests that need the harness in a
// process of its own (on a terminal, with an inherited descriptor, killed).
const roleEnv = "TRANSPORT_TEST_ROLE"

// hostile serves the modes that attack the harness itself, on the systems
// that have them: it returns done when the mode is all the process does.
// playRole plays the harness in the given role.
var (
	hostile  func(has func(string) bool) (code int, done bool)
	playRole func(role string) int
)

// The test binary doubles as the servers these tests start (see
// stdiotest) and as the harness that starts them.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SuperviseCommand {
		// The supervisor of a harness that called SuperviseWith: it
		// carries the server's environment, so it goes first.
		os.Exit(Supervise(os.Args[2:]))
	}
	if modes := os.Getenv(stdiotest.Env); modes != "" {
		if hostile != nil {
			// First: the list-fds mode looks at its descriptors before
			// anything opens one.
			if code, done := hostile(func(m string) bool { return stdiotest.Has(modes, m) }); done {
				os.Exit(code)
			}
		}
		os.Exit(stdiotest.Serve(modes))
	}
	if role := os.Getenv(roleEnv); role != "" && playRole != nil {
		os.Exit(playRole(role))
	}
	os.Exit(m.Run())
}

// supervise starts the servers of the test under a supervisor, as
// mcpconform does, until the test ends.
func supervise(t *testing.T) {
	SuperviseWith([]string{os.Args[0], SuperviseCommand})
	t.Cleanup(func() { SuperviseWith(nil) })
}

// runBoth runs f as the subtest name, then again with its servers under a
// supervisor as name/supervised: what is read of them must not differ.
func runBoth(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, f)
	t.Run(name+"/supervised", func(t *testing.T) {
		supervise(t)
		f(t)
	})
}

// server is a stdio connection to a test server, its output read as a
// client reads it.
type server struct {
	conn  *Stdio
	grace time.Duration

	mu      sync.Mutex
	nextID  int
	waiting map[string]chan struct{}
	once    sync.Once
}

// dialServer starts argv as a stdio server.
func dialServer(argv, env []string, grace time.Duration) (*server, error) {
	tr := transcript.New(time.Now(), transcript.Limits{})
	c, err := Command{Argv: argv, Env: env}.Dial(context.Background(), DialOptions{Transcript: tr, MaxFrame: 1 << 20})
	if err != nil {
		return nil, err
	}
	s := &server{conn: c.(*Stdio), grace: grace, waiting: map[string]chan struct{}{}}
	go s.read()
	return s, nil
}

// startServer starts the test binary as a server in the given modes.
func startServer(t testing.TB, modes string, grace time.Duration, extra ...string) *server {
	t.Helper()
	argv, env := stdiotest.Command(modes, extra...)
	s, err := dialServer(argv, env, grace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func (s *server) read() {
	for {
		f, err := s.conn.Read()
		if err != nil {
			return
		}
		if f.Value == nil {
			continue
		}
		for _, m := range wire.DecodeValidLine(f.Value) {
			s.mu.Lock()
			if ch, ok := s.waiting[wire.IDKey(m.ID)]; ok && m.Kind() == wire.KindResponse {
				close(ch)
				delete(s.waiting, wire.IDKey(m.ID))
			}
			s.mu.Unlock()
		}
	}
}

// ping sends a ping and waits for its answer, the server's end, or 20 s.
func (s *server) ping() error {
	s.mu.Lock()
	s.nextID++
	id := strconv.Itoa(s.nextID)
	ch := make(chan struct{})
	s.waiting[wire.IDKey(json.RawMessage(id))] = ch
	s.mu.Unlock()
	if err := s.conn.Write([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), 10*time.Second); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-s.conn.Done():
		return fmt.Errorf("no answer: the server ended (%s)", s.conn.End(time.Second))
	case <-time.After(20 * time.Second):
		return errors.New("no answer within 20 s")
	}
}

func (s *server) Pid() int             { return s.conn.Pid() }
func (s *server) StderrTail() []string { return s.conn.StderrTail() }
func (s *server) Strays() []Stray      { return s.conn.Strays() }
func (s *server) ExitInfo() ExitInfo   { return s.conn.End(0) }

// Close shuts the server down, once, and says how it ended.
func (s *server) Close() ExitInfo {
	s.once.Do(func() { s.conn.Close(s.grace) })
	return s.conn.End(0)
}

var childRE = regexp.MustCompile(`helper: child (\d+)`)

// childPid is the child the server names on stderr.
func childPid(t *testing.T, c *server) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range c.StderrTail() {
			if m := childRE.FindStringSubmatch(l); m != nil {
				pid, _ := strconv.Atoi(m[1])
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the helper never named its child")
	return 0
}
