package compat_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/testservers"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// httpServer is a real server over Streamable HTTP: its argv and extra
// environment, {port} standing for the port it is to listen on.
type httpServer struct {
	name string
	argv func(testing.TB) []string
	env  []string
}

// httpServers are the real HTTP servers the harness must reach.
var httpServers = []httpServer{
	{"gosdk", func(tb testing.TB) []string {
		return append(testservers.GoServer(tb, "gosdk"), "--http", "127.0.0.1:{port}")
	}, nil},
	{"gosdk-stateless", func(tb testing.TB) []string {
		return append(testservers.GoServer(tb, "gosdk"), "--stateless", "--http", "127.0.0.1:{port}")
	}, nil},
	{"mcpgo", func(tb testing.TB) []string {
		return append(testservers.GoServer(tb, "mcpgo"), "--http", "127.0.0.1:{port}")
	}, nil},
	{"ts", func(tb testing.TB) []string { return append(testservers.TSServer(tb), "--port", "{port}") }, nil},
	{"everything", func(tb testing.TB) []string {
		argv := testservers.Everything(tb)
		if argv == nil {
			return nil
		}
		return append(argv[:len(argv)-1], "streamableHttp")
	}, []string{"PORT={port}"}},
}

// TestHTTPTargetsJudged: every real HTTP server, launched by the run on a
// port and judged in every protocol version, and reached at its URL (the
// server started beforehand, as a user runs one) and judged in the
// version it agrees to, starts and is judged with no harness error: each
// check judges, or skips saying why.
func TestHTTPTargetsJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite against five real HTTP servers, twice each")
	}
	for _, s := range httpServers {
		t.Run(s.name, func(t *testing.T) {
			argv := s.argv(t)
			if argv == nil {
				return
			}
			env := transport.Environment(s.env, false)
			t.Run("launched", func(t *testing.T) {
				judgeHTTP(t, execute.Config{Command: argv, Env: env, HTTP: &execute.HTTPTarget{}, SpecVersion: "all"})
			})
			t.Run("url", func(t *testing.T) {
				url := startHTTP(t, argv, env)
				judgeHTTP(t, execute.Config{HTTP: &execute.HTTPTarget{URL: url}})
			})
		})
	}
}

// startHTTP starts a server on a free port, waits until it listens, and
// returns its endpoint; the test's end stops it.
func startHTTP(t *testing.T, argv, env []string) string {
	t.Helper()
	port, err := transport.FreePort("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	argv, env = transport.WithPort(argv, env, port)
	srv, err := transport.Command{Argv: argv, Env: env}.Launch(transcript.New(time.Now(), transcript.Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, err := srv.WaitListening(ctx, "tcp", []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(port))})
	if err != nil {
		t.Fatalf("%v; stderr: %q", err, srv.StderrTail())
	}
	return "http://" + addr + "/mcp"
}

// judgeHTTP runs the suite with cfg and fails on a target that did not
// start, a harness error, a skip without a reason, or a version judged in
// which nothing was.
func judgeHTTP(t *testing.T, cfg execute.Config) {
	t.Helper()
	cfg.Timeout, cfg.StartTimeout, cfg.RequestWindow = 5*time.Second, time.Minute, 5*time.Second
	cfg.CallTools = plan.ToolPolicy{Mode: plan.CallReadOnly}
	run, err := execute.Execute(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Fatal != nil {
		t.Fatalf("did not start: %s", run.Fatal.Message)
	}
	if run.Transport != evidence.TransportHTTP || run.URL == "" {
		t.Errorf("got transport %q at %q, want http at a URL", run.Transport, run.URL)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]int{}
	for _, r := range suite.Judge(run, files) {
		switch {
		case r.Verdict == reports.Error:
			t.Errorf("harness error: %s@%s: %s", r.ID, r.ProtocolVersion, r.Message)
		case r.Verdict == reports.Skip && r.Message == "":
			t.Errorf("%s@%s skipped without a reason", r.ID, r.ProtocolVersion)
		case r.Verdict != reports.Skip:
			judged[r.ProtocolVersion]++
		}
	}
	for _, v := range run.Versions {
		if judged[v] == 0 {
			t.Errorf("nothing judged under %s", v)
		}
	}
	t.Logf("versions %v, judged %v", run.Versions, judged)
}
