package suite

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/vectors"
)

// maxRestarts bounds how often one shared session's process is replaced: a
// server that dies on every resources/read would otherwise be restarted
// once per vector.
const maxRestarts = 10

// relay runs the vectors of a shared session in order and keeps them
// running when the session's process dies: the test that was running gets
// its verdict ("server exited", with the status and the last stderr lines),
// and the tests after it run in a replacement process, started and
// initialized like the original and judged with the original's discovery.
// Without it one crash would fail every test after it with "server exited".
type relay struct {
	r        *Run
	s        *Session // the shared session, with its discovery
	cur      *Session // the session the next test runs in: s or a stand-in
	restarts int
	stopped  string // why no more replacements are started
}

func (r *Run) newRelay(s *Session) *relay { return &relay{r: r, s: s, cur: s} }

// runVector runs t in the shared session, in a replacement process if the
// session's process has died.
func (l *relay) runVector(ctx context.Context, t *vectors.Test) *VectorObs {
	return l.r.runVector(ctx, l.session(ctx), t)
}

// session returns the session the next test should run in.
func (l *relay) session(ctx context.Context) *Session {
	c := l.cur.Client
	if c == nil || !exitedOnItsOwn(c) || ctx.Err() != nil || l.stopped != "" {
		return l.cur
	}
	if l.restarts == maxRestarts {
		l.stopped = fmt.Sprintf("the server exited %d times; no more restarts", maxRestarts+1)
		c.Note("the server " + c.ExitInfo().String() + "; " + l.stopped)
		return l.cur
	}
	l.restarts++
	n, err := l.r.start()
	if err != nil {
		l.stopped = "restarting the server: " + err.Error()
		c.Note(l.stopped)
		return l.cur
	}
	l.r.setVersion(n, l.s.Version())
	n.Note(fmt.Sprintf("this process replaces the shared %s session's process %d, which %s (restart %d of at most %d)",
		l.s.Version(), c.Pid(), c.ExitInfo(), l.restarts, maxRestarts))
	stand := *l.s // capabilities, envelope and discovery of the original
	stand.Client = n
	if !l.s.Modern {
		fresh := &Session{Requested: l.s.Version(), Client: n, startTimeout: l.r.Config.StartTimeout}
		fresh.initialize(ctx)
		if fresh.InitErr != "" {
			// Later tests fail with the original's exit, as without a relay.
			l.stopped = "the replacement process never completed initialize: " + fresh.InitErr
			n.Note(l.stopped)
			c.Note(l.stopped)
			n.Close()
			return l.cur
		}
	}
	l.cur = &stand
	return l.cur
}

// exitedOnItsOwn reports whether the process ended before any shutdown.
func exitedOnItsOwn(c *mockclient.Client) bool {
	select {
	case <-c.Done():
		return c.ExitInfo().Stage == "before-shutdown"
	default:
		return false
	}
}
