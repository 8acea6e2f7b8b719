package execute

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// reach prepares the sessions of an HTTP run: the endpoint of a URL
// target, or a server launched on a free port and waited for until it
// listens. A launched server that does not start is the run's fatal
// "start"; an error is a configuration the run cannot use.
func (x *executor) reach(ctx context.Context) error {
	t := x.cfg.HTTP
	path := t.Path
	if path == "" {
		path = "/mcp"
	}
	if t.URL != "" {
		u, err := url.Parse(t.URL)
		if err != nil {
			return err
		}
		h := transport.HTTP{URL: t.URL, Header: t.Header, ListenTag: x.listenTag()}
		network, addr := "tcp", u.Host
		if u.Port() == "" {
			port := "80"
			if u.Scheme == "https" {
				port = "443"
			}
			addr = net.JoinHostPort(u.Hostname(), port)
		}
		if u.Scheme == "unix" {
			if u.Path == "" {
				return fmt.Errorf("%q names no socket: write unix:///path/to.sock", t.URL)
			}
			h.URL, h.DialContext = "http://localhost"+path, transport.UnixSocket(u.Path)
			network, addr = "unix", u.Path
		}
		x.run.URL = t.URL
		x.dial = h.Dial
		// A URL names a server already running: nothing listening there
		// is a target that is not up, not a server that dropped its
		// first request.
		d := net.Dialer{Timeout: x.cfg.StartTimeout}
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			x.fatal("start", fmt.Sprintf("nothing answers at %s (%v)", t.URL, err))
			return nil
		}
		nc.Close()
		return nil
	}
	hosts := []string{"127.0.0.1", "::1"}
	if t.Host != "" {
		hosts = []string{strings.Trim(t.Host, "[]")}
	}
	port, err := transport.FreePort(hosts[0], t.PortFrom)
	if err != nil && t.Host == "" {
		port, err = transport.FreePort(hosts[1], t.PortFrom)
	}
	if err != nil {
		return err
	}
	argv, env := transport.WithPort(x.cfg.Command, x.cfg.Env, port)
	rec := transcript.New(time.Now(), transcript.Limits{Pool: x.pool})
	ev := &evidence.Process{Role: evidence.RoleServer, Why: fmt.Sprintf("the server, launched to listen on port %d", port), Transport: evidence.TransportHTTP, Transcript: rec}
	x.run.Server = ev
	srv, err := transport.Command{Argv: argv, Dir: x.cfg.Dir, Env: env}.Launch(rec)
	if err != nil {
		ev.StartError = err.Error()
		x.fatal("start", "the server could not be started: "+err.Error())
		return nil
	}
	x.server, ev.Pid = srv, srv.Pid()
	addrs := make([]string, len(hosts))
	for i, h := range hosts {
		addrs[i] = net.JoinHostPort(h, strconv.Itoa(port))
	}
	wctx, cancel := context.WithTimeout(ctx, x.cfg.StartTimeout)
	defer cancel()
	addr, err := srv.WaitListening(wctx, "tcp", addrs)
	if err != nil {
		x.fatal("start", strings.TrimPrefix(err.Error(), transport.ErrNotListening.Error()+": "))
		return nil
	}
	x.run.URL = "http://" + addr + path
	x.dial = transport.HTTP{URL: x.run.URL, Header: t.Header, Server: srv, ListenTag: x.listenTag()}.Dial
	return nil
}

// stopServer shuts the launched server down, as a stdio server is, once
// every session has ended, and records how it ended.
func (x *executor) stopServer(ctx context.Context) {
	if x.server == nil {
		return
	}
	if ctx.Err() != nil {
		x.server.Hurry()
	}
	grace := x.cfg.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	x.server.Close(grace)
	x.run.Server.StderrTail = x.server.StderrTail()
	x.run.Server.StderrBytes = x.server.StderrBytes()
}

// listenTag tags the GET stream each handshake-era session opens when a
// selected check needs it (plan.ProbeHTTPGet): that stream is the probe.
func (x *executor) listenTag() string {
	if x.needs(plan.ProbeHTTPGet) {
		return plan.ProbeHTTPGet.Tag()
	}
	return ""
}
