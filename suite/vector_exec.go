package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/yosida95/uritemplate/v3"
)

// VectorObs is what one vector test observed, ready to be judged.
type VectorObs struct {
	Test    *vectors.Test
	Version string
	// Skip is the reason the test did not apply.
	Skip  string
	Items []*ItemObs
	// Client and the transcript range [From, To) of the test.
	Client   *mockclient.Client
	From, To int
}

// ItemObs is one execution of a test's steps (one per foreach item).
type ItemObs struct {
	Label    string
	Bindings map[string]string
	// X is the exchange of the last request step, if there was one.
	X *mockclient.Exchange
	// Reply is a response that arrived for a raw or notification step.
	Reply *mockclient.Message
	// Alive is the outcome of the follow-up ping, when the test asked for one.
	Alive *bool
	// Err is a harness problem (a binding that could not be made, a write error).
	Err string
	// Skip is why this item could not be tried (another check judges it).
	Skip string
}

// skipReason returns why a test does not apply to a session, or "".
func skipReason(t *vectors.Test, s *Session) string {
	for _, req := range []vectors.Requires{t.File.Requires, t.Requires} {
		if len(req.Versions) > 0 && !slices.Contains(req.Versions, s.Version()) {
			return fmt.Sprintf("applies to protocol versions %s, not %s", strings.Join(req.Versions, ", "), s.Version())
		}
		for _, c := range req.Capabilities {
			if !s.Caps.Has(c) {
				return fmt.Sprintf("the server does not declare the %s capability", c)
			}
		}
		for _, d := range req.Discovered {
			switch d {
			case "resources":
				if len(s.Resources.Items) == 0 {
					return "the server lists no resources"
				}
			case "templates":
				if len(s.Templates.Items) == 0 {
					return "the server lists no resource templates"
				}
			}
		}
	}
	return ""
}

// baseBindings are the values every test may use.
func (r *Run) baseBindings(s *Session) map[string]string {
	b := map[string]string{"nonce": r.Nonce, "version": s.Version()}
	for _, it := range s.Resources.Items {
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(it, &res) == nil && res.URI != "" {
			b["resource.uri"] = res.URI
			if u, err := url.Parse(res.URI); err == nil && u.Scheme != "" {
				b["resource.scheme"] = u.Scheme
			} else if i := strings.Index(res.URI, ":"); i > 0 {
				b["resource.scheme"] = res.URI[:i]
			}
			break
		}
	}
	return b
}

// items returns the bindings for each execution of a test.
func (r *Run) items(t *vectors.Test, s *Session) []map[string]string {
	base := r.baseBindings(s)
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	switch t.Foreach {
	case "resource":
		var out []map[string]string
		items := s.Resources.Items
		if s.resourcesNow != nil {
			items = s.resourcesNow.Items
		}
		for _, it := range items {
			var res struct {
				URI  string `json:"uri"`
				Name string `json:"name"`
			}
			if json.Unmarshal(it, &res) == nil && res.URI != "" {
				out = append(out, with(map[string]string{"item.uri": res.URI, "item.name": res.Name}))
			}
		}
		return out
	case "template":
		var out []map[string]string
		for _, it := range s.Templates.Items {
			var tpl struct {
				URITemplate string `json:"uriTemplate"`
				Name        string `json:"name"`
			}
			if json.Unmarshal(it, &tpl) != nil || tpl.URITemplate == "" {
				continue
			}
			exp, first, err := expandSample(tpl.URITemplate)
			m := with(map[string]string{"item.uriTemplate": tpl.URITemplate, "item.name": tpl.Name, "item.expanded": exp, "item.firstVar": first})
			if err != nil {
				m["!skip"] = fmt.Sprintf("template %q does not parse (judged by RES-TPL-02): %v", tpl.URITemplate, err)
			}
			out = append(out, m)
		}
		return out
	}
	return []map[string]string{base}
}

// expandSample expands a URI template with plain sample values, one per
// variable, so a read can be attempted.
func expandSample(tpl string) (expanded, firstVar string, err error) {
	t, err := uritemplate.New(tpl)
	if err != nil {
		return "", "", err
	}
	vals := uritemplate.Values{}
	for _, name := range t.Varnames() {
		// "1" suits numeric ids and names alike, so typed templates
		// (user://{id}) accept it.
		vals.Set(name, uritemplate.String("1"))
	}
	if names := t.Varnames(); len(names) > 0 {
		firstVar = names[0]
	}
	expanded, err = t.Expand(vals)
	return expanded, firstVar, err
}

// refreshResources lists the resources again when the server announced a
// list change since they were last listed, so that a test run for each
// resource uses the current list, not the one discovery saw.
func (s *Session) refreshResources(ctx context.Context) {
	last := s.Resources
	if s.resourcesNow != nil {
		last = *s.resourcesNow
	}
	if len(last.Pages) == 0 {
		return
	}
	if s.Modern {
		// 2026-07-28 announces list changes only on listen streams, which
		// may not have been open: list again.
		now := s.list(ctx, "resources/list", "resources")
		s.resourcesNow = &now
		return
	}
	since := last.Pages[len(last.Pages)-1].RecvSeq
	for _, in := range listChanged(s) {
		if in.Seq > since {
			now := s.list(ctx, "resources/list", "resources")
			s.resourcesNow = &now
			return
		}
	}
}

// runVector executes a test in the shared session s.
func (r *Run) runVector(ctx context.Context, s *Session, t *vectors.Test) *VectorObs {
	if t.Foreach == "resource" {
		s.refreshResources(ctx)
	}
	o := &VectorObs{Test: t, Version: s.Version(), Client: s.Client}
	if o.Skip = skipReason(t, s); o.Skip != "" {
		return o
	}
	o.From = s.Client.Transcript().Len()
	for _, b := range r.items(t, s) {
		o.Items = append(o.Items, r.runSteps(ctx, s.Client, s, t, b))
	}
	if len(o.Items) == 0 && t.Foreach != "" {
		o.Skip = "the server lists no " + t.Foreach + "s"
	}
	o.To = s.Client.Transcript().Len()
	return o
}

// runFresh executes a test in a process of its own: initialized with the
// session's version ("fresh") or never initialized ("uninitialized").
func (r *Run) runFresh(ctx context.Context, s *Session, t *vectors.Test, kind string) *VectorObs {
	o := &VectorObs{Test: t, Version: s.Version()}
	if o.Skip = skipReason(t, s); o.Skip != "" {
		return o
	}
	if err := ctx.Err(); err != nil {
		o.Items = []*ItemObs{{Err: fmt.Sprintf("not run: %v (%v)", mockclient.ErrStopped, err)}}
		return o
	}
	c, err := r.start()
	if err != nil {
		o.Items = []*ItemObs{{Err: err.Error()}}
		return o
	}
	defer c.Close()
	o.Client = c
	r.setVersion(c, s.Version())
	if kind == "fresh" && s.Modern {
		// No handshake in 2026-07-28, but wait for the process to start so
		// that listening windows do not count its start-up time.
		params, _ := s.Envelope.Wrap(nil)
		if x := c.CallWithin(ctx, r.Config.StartTimeout, "server/discover", params); !x.OK() {
			o.Items = []*ItemObs{{Err: "server/discover in a fresh process failed: " + shortActual(x.Response, x.Err)}}
			o.To = c.Transcript().Len()
			return o
		}
	}
	if kind == "fresh" && !s.Modern {
		fs := &Session{Requested: s.Version(), Client: c, startTimeout: r.Config.StartTimeout}
		fs.initialize(ctx)
		if fs.InitErr != "" {
			o.Items = []*ItemObs{{Err: "initialize in a fresh process failed: " + fs.InitErr}}
			o.To = c.Transcript().Len()
			return o
		}
	}
	o.From = c.Transcript().Len()
	// Discovery comes from the shared session: fresh processes serve the same lists.
	for _, b := range r.items(t, s) {
		o.Items = append(o.Items, r.runSteps(ctx, c, s, t, b))
	}
	o.To = c.Transcript().Len()
	return o
}

// runSteps sends a test's steps with the given bindings. In a 2026-07-28
// session s, requests carry the per-request envelope unless a step says
// otherwise.
func (r *Run) runSteps(ctx context.Context, c *mockclient.Client, s *Session, t *vectors.Test, b map[string]string) *ItemObs {
	it := &ItemObs{Bindings: b, Label: b["item.uri"] + b["item.uriTemplate"]}
	if e := b["!skip"]; e != "" {
		it.Skip = e
		return it
	}
	replyFrom := -1
	for i, st := range t.Steps {
		from := c.Transcript().Len()
		switch {
		case st.Request != nil:
			p, err := expandParams(st.Request.Params, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			if s.Modern && (st.Request.Envelope == nil || *st.Request.Envelope) {
				if p, err = s.Envelope.Wrap(p); err != nil {
					it.Err = err.Error()
					return it
				}
			}
			id := st.Request.ID
			if id != nil {
				if id, err = vectors.Expand(id, b); err != nil {
					it.Err = err.Error()
					return it
				}
			} else {
				id = c.NewID()
			}
			timeout := c.Timeout()
			if !heardFrom(c) {
				// Nothing has come from this process yet: the request also
				// waits for it to start (a never-initialized probe).
				timeout = max(timeout, r.Config.StartTimeout)
			}
			if st.Request.TimeoutMs > 0 {
				timeout = min(timeout, time.Duration(st.Request.TimeoutMs)*time.Millisecond)
			}
			method, err := vectors.ExpandString(st.Request.Method, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			it.X = c.CallIDWithin(ctx, timeout, id, method, p)
		case st.Notify != nil:
			p, err := expandParams(st.Notify.Params, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			method, err := vectors.ExpandString(st.Notify.Method, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			if err := c.Notify(method, p); err != nil {
				it.Err = "writing notification: " + err.Error()
				return it
			}
		case st.Raw != nil:
			line, err := vectors.ExpandString(*st.Raw, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			if err := c.SendRaw([]byte(line)); err != nil {
				it.Err = "writing raw line: " + err.Error()
				return it
			}
		}
		if st.SilenceMs > 0 && t.CheckAlive && i == len(t.Steps)-1 {
			// The follow-up ping bounds the wait instead: a server answers in
			// order, so a reply to this step comes before the ping's.
			replyFrom = from
			continue
		}
		if st.SilenceMs > 0 {
			it.Reply = r.listen(ctx, c, s, from, time.Duration(st.SilenceMs)*time.Millisecond)
		}
	}
	if t.CheckAlive {
		x := r.probeAlive(ctx, c, s)
		if errors.Is(x.Err, mockclient.ErrStopped) {
			it.Err = "not judged: " + x.Err.Error()
			return it
		}
		alive := x.OK()
		it.Alive = &alive
		if replyFrom >= 0 {
			grace := 50 * time.Millisecond
			if !alive {
				grace = time.Duration(t.Steps[len(t.Steps)-1].SilenceMs) * time.Millisecond
			}
			in := c.WaitInbound(replyFrom, grace, func(m *mockclient.Message) bool {
				return m.Kind() == mockclient.KindResponse
			})
			if in != nil {
				it.Reply = in.Msg
			}
		}
	}
	return it
}

// heardFrom reports whether the process has written anything to stdout.
func heardFrom(c *mockclient.Client) bool {
	for _, e := range c.Transcript().Entries() {
		if e.Dir == mockclient.Recv {
			return true
		}
	}
	return false
}

// probeAlive sends the request every live server answers: ping, or
// server/discover in the 2026-07-28 era, where ping no longer exists.
//
// A live server answers at once, so the wait is at most aliveDeadline (or
// the request deadline, if shorter): a server wedged by a probe should not
// cost a full request deadline to recognise.
func (r *Run) probeAlive(ctx context.Context, c *mockclient.Client, s *Session) *mockclient.Exchange {
	timeout := min(c.Timeout(), aliveDeadline)
	if s.Modern {
		params, _ := s.Envelope.Wrap(nil)
		return c.CallWithin(ctx, timeout, "server/discover", params)
	}
	return c.CallWithin(ctx, timeout, "ping", nil)
}

// aliveDeadline bounds the liveness probe after a robustness probe.
const aliveDeadline = 3 * time.Second

// listen returns a response that answers no pending request and arrived
// after transcript position from: a reply to a notification or raw line.
// It waits at most window, but a server that answers a follow-up ping has
// shown it handled what came before, so the wait ends a short grace after
// that answer: correct servers are not made to wait out the window.
func (r *Run) listen(ctx context.Context, c *mockclient.Client, s *Session, from int, window time.Duration) *mockclient.Message {
	isReply := func(m *mockclient.Message) bool { return m.Kind() == mockclient.KindResponse }
	deadline := time.Now().Add(window)
	if heardFrom(c) {
		if r.probeAlive(ctx, c, s).OK() {
			grace := max(min(25*time.Millisecond, time.Until(deadline)), 0)
			if in := c.WaitInbound(from, grace, isReply); in != nil {
				return in.Msg
			}
			return nil
		}
	}
	if in := c.WaitInbound(from, max(time.Until(deadline), 0), isReply); in != nil {
		return in.Msg
	}
	return nil
}

// expandParams fills the bindings of a step's params. Absent params stay
// absent (a nil any, so no params member is sent).
func expandParams(raw json.RawMessage, b map[string]string) (any, error) {
	params, err := vectors.Expand(raw, b)
	if err != nil || params == nil {
		return nil, err
	}
	return params, nil
}
