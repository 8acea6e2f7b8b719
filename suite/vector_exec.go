package suite

import (
	"context"
	"encoding/json"
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
		for _, it := range s.Resources.Items {
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
			exp, err := expandSample(tpl.URITemplate)
			m := with(map[string]string{"item.uriTemplate": tpl.URITemplate, "item.name": tpl.Name, "item.expanded": exp})
			if err != nil {
				m["!error"] = fmt.Sprintf("template %q does not parse: %v", tpl.URITemplate, err)
			}
			out = append(out, m)
		}
		return out
	}
	return []map[string]string{base}
}

// expandSample expands a URI template with plain sample values, one per
// variable, so a read can be attempted.
func expandSample(tpl string) (string, error) {
	t, err := uritemplate.New(tpl)
	if err != nil {
		return "", err
	}
	vals := uritemplate.Values{}
	for _, name := range t.Varnames() {
		vals.Set(name, uritemplate.String("mcpconform-sample"))
	}
	return t.Expand(vals)
}

// runVector executes a test in the shared session s.
func (r *Run) runVector(ctx context.Context, s *Session, t *vectors.Test) *VectorObs {
	o := &VectorObs{Test: t, Version: s.Version(), Client: s.Client}
	if o.Skip = skipReason(t, s); o.Skip != "" {
		return o
	}
	o.From = s.Client.Transcript().Len()
	for _, b := range r.items(t, s) {
		o.Items = append(o.Items, r.runSteps(ctx, s.Client, t, b))
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
	c, err := r.start()
	if err != nil {
		o.Items = []*ItemObs{{Err: err.Error()}}
		return o
	}
	defer c.Close()
	o.Client = c
	if kind == "fresh" {
		fs := &Session{Requested: s.Version(), Client: c}
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
		o.Items = append(o.Items, r.runSteps(ctx, c, t, b))
	}
	o.To = c.Transcript().Len()
	return o
}

// runSteps sends a test's steps with the given bindings.
func (r *Run) runSteps(ctx context.Context, c *mockclient.Client, t *vectors.Test, b map[string]string) *ItemObs {
	it := &ItemObs{Bindings: b, Label: b["item.uri"] + b["item.uriTemplate"]}
	if e := b["!error"]; e != "" {
		it.Err = e
		return it
	}
	for _, st := range t.Steps {
		from := c.Transcript().Len()
		switch {
		case st.Request != nil:
			params, err := vectors.Expand(st.Request.Params, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			var p any
			if params != nil {
				p = params
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
			it.X = c.CallID(ctx, id, st.Request.Method, p)
		case st.Notify != nil:
			params, err := vectors.Expand(st.Notify.Params, b)
			if err != nil {
				it.Err = err.Error()
				return it
			}
			var p any
			if params != nil {
				p = params
			}
			if err := c.Notify(st.Notify.Method, p); err != nil {
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
		if st.SilenceMs > 0 {
			// Any response that does not answer a pending request is a reply to
			// this step (a notification or a raw line).
			in := c.WaitInbound(from, time.Duration(st.SilenceMs)*time.Millisecond, func(m *mockclient.Message) bool {
				return m.Kind() == mockclient.KindResponse
			})
			if in != nil {
				it.Reply = in.Msg
			}
		}
	}
	if t.CheckAlive {
		x := c.Call(ctx, "ping", nil)
		alive := x.OK()
		it.Alive = &alive
	}
	return it
}
