package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// Session kinds of vector tests: where the executor runs them.
const (
	// KindShared runs in the shared session of the version, in order.
	KindShared = "shared"
	// KindDisposable runs one after another in a probe process that is
	// replaced when it dies ("fresh" is its old name).
	KindDisposable = "disposable"
	// KindUninitialized runs before the probe process's initialize.
	KindUninitialized = "uninitialized"
	// KindFinal runs last in the version's process, after everything else
	// (a test that changes the process for good, such as a legacy
	// initialize sent after 2026-07-28 traffic).
	KindFinal = "final"
)

// SessionKind returns where a test runs.
func SessionKind(t *vectors.Test) string {
	s := t.Session
	if s == "" && t.File != nil {
		s = t.File.Session
	}
	switch s {
	case "", "shared":
		return KindShared
	case "fresh", "disposable":
		return KindDisposable
	}
	return s
}

// VersionGate returns why a test does not apply to version v at all, or "":
// what VectorGate asks before it looks at the session.
func VersionGate(t *vectors.Test, v string) string {
	if why := catalog.NotIn(t.Requirement, v); why != "" {
		return why
	}
	for _, req := range []vectors.Requires{fileRequires(t), t.Requires} {
		if len(req.Versions) > 0 && !slices.Contains(req.Versions, v) {
			return fmt.Sprintf("applies to protocol versions %s, not %s", strings.Join(req.Versions, ", "), v)
		}
	}
	return ""
}

// Provoking reports whether a test breaks the client's own rules on
// purpose: what it provokes is judged by the test alone.
func Provoking(t *vectors.Test) bool {
	return slices.Contains(t.Flags, "robustness") || SessionKind(t) == KindUninitialized && !slices.Contains(t.Flags, "in-spec")
}

// VectorGate returns why a test does not apply to version v of session s,
// or "". The executor and the judge ask the same question.
func VectorGate(t *vectors.Test, v string, s *evidence.Session) string {
	if why := VersionGate(t, v); why != "" {
		return why
	}
	for _, req := range []vectors.Requires{fileRequires(t), t.Requires} {
		if len(req.Capabilities) == 0 && len(req.Discovered) == 0 && len(req.Undeclared) == 0 {
			continue
		}
		if s == nil {
			return "no session was opened under " + v
		}
		for _, c := range req.Capabilities {
			if !s.Caps().Has(c) {
				return fmt.Sprintf("the server does not declare the %s capability", c)
			}
		}
		for _, c := range req.Undeclared {
			if s.Caps().Has(c) {
				return fmt.Sprintf("the server declares the %s capability", c)
			}
		}
		for _, d := range req.Discovered {
			switch d {
			case "resources":
				if len(s.Resources().Items) == 0 {
					return "the server lists no resources"
				}
			case "templates":
				if len(s.Templates().Items) == 0 {
					return "the server lists no resource templates"
				}
			case "prompt-arguments":
				if _, ok := BaseBindings(v, "", s)["prompt.name"]; !ok {
					return "the server lists no prompt that takes an argument"
				}
			case "template-variables":
				if _, ok := BaseBindings(v, "", s)["template.uriTemplate"]; !ok {
					return "the server lists no resource template with a variable"
				}
			}
		}
	}
	return ""
}

func fileRequires(t *vectors.Test) vectors.Requires {
	if t.File == nil {
		return vectors.Requires{}
	}
	return t.File.Requires
}

// BaseBindings are the values every item of a test may use.
func BaseBindings(v, nonce string, s *evidence.Session) map[string]string {
	b := map[string]string{"nonce": nonce, "version": v}
	if s == nil {
		return b
	}
	for _, it := range s.Resources().Items {
		u, ok := wire.String(wire.Member(it, "uri"))
		if !ok || u == "" {
			continue
		}
		b["resource.uri"] = u
		if i := strings.IndexByte(u, ':'); i > 0 {
			b["resource.scheme"] = u[:i]
		}
		break
	}
	for _, it := range s.Prompts().Items {
		m := wire.Object(it)
		name, ok := wire.String(m["name"])
		args, _ := wire.Array(m["arguments"])
		if !ok || len(args) == 0 {
			continue
		}
		if arg, ok := wire.String(wire.Object(args[0])["name"]); ok {
			b["prompt.name"], b["prompt.argument"] = name, arg
			break
		}
	}
	for _, it := range s.Templates().Items {
		tpl, ok := wire.String(wire.Member(it, "uriTemplate"))
		if vars := evidence.TemplateVars(tpl); ok && len(vars) > 0 {
			b["template.uriTemplate"], b["template.firstVar"] = tpl, vars[0]
			break
		}
	}
	return b
}

// Item is one execution of a test: its bindings, a label, and why it
// cannot run, if it cannot.
type Item struct {
	Label    string
	Bindings map[string]string
	Skip     string
}

// VectorItems returns the items a test runs with: one, or one per listed
// resource or template. resources is the current resource list (discovery
// may have been followed by a list change).
func VectorItems(t *vectors.Test, v, nonce string, s *evidence.Session, resources []json.RawMessage) []Item {
	base := BaseBindings(v, nonce, s)
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, x := range base {
			m[k] = x
		}
		for k, x := range extra {
			m[k] = x
		}
		return m
	}
	switch t.Foreach {
	case "resource":
		var out []Item
		for _, it := range resources[:min(len(resources), evidence.MaxReads)] {
			m := wire.Object(it)
			u, ok := wire.String(m["uri"])
			if !ok || u == "" {
				continue
			}
			name, _ := wire.String(m["name"])
			out = append(out, Item{Label: u, Bindings: with(map[string]string{"item.uri": u, "item.name": name})})
		}
		return out
	case "template":
		var out []Item
		if s == nil {
			return nil
		}
		tpls := s.Templates().Items
		for _, it := range tpls[:min(len(tpls), evidence.MaxReads)] {
			m := wire.Object(it)
			tpl, ok := wire.String(m["uriTemplate"])
			if !ok || tpl == "" {
				continue
			}
			name, _ := wire.String(m["name"])
			exp, first, err := evidence.ExpandSample(tpl)
			item := Item{Label: tpl, Bindings: with(map[string]string{"item.uriTemplate": tpl, "item.name": name, "item.expanded": exp, "item.firstVar": first})}
			if err != nil {
				item.Skip = fmt.Sprintf("template %q does not parse (resources-templates-fields judges it): %v", tpl, err)
			}
			out = append(out, item)
		}
		return out
	}
	return []Item{{Bindings: base}}
}
