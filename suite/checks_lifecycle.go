package suite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

func lifecycleChecks() []*Check {
	return []*Check{
		{
			ID: "initialize-result-shape", Requirement: "LIFE-03", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#initialization",
			Description: "the initialize result has protocolVersion, capabilities and serverInfo {name, version} of the right types",
			Versions:    LegacyVersions,
			Session:     checkInitShape,
		},
		{
			ID: "capabilities-shape", Requirement: "LIFE-14", Level: "schema", Area: "lifecycle",
			Spec:        "basic/lifecycle#capability-negotiation",
			Description: "each declared server capability is an object, and its flags are booleans",
			Session:     checkCapsShape,
		},
		{
			ID: "initialize-echoes-version", Requirement: "LIFE-04", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#version-negotiation",
			Description: "offered a version it supports, the server answers with that version; its counter-offers are versions it supports",
			Versions:    LegacyVersions,
			Run:         checkVersionEcho,
		},
		{
			ID: "initialize-counter-offer", Requirement: "LIFE-05", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#version-negotiation",
			Description: "offered an unknown version, the server answers with a version it supports (preferably its newest)",
			Versions:    LegacyVersions,
			Flags:       []string{"disputed"},
			Run:         checkCounterOffer,
		},
		{
			ID: "no-unnegotiated-server-requests", Requirement: "LIFE-10", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#operation",
			Description: "the server sends no sampling, roots or elicitation requests to a client that declared no capabilities, and no log messages without the logging capability",
			Versions:    LegacyVersions,
			Session:     checkNegotiatedTraffic,
		},
	}
}

func checkInitShape(s *Session) Finding {
	p := &problems{actual: toAny(s.Init.Response.Result)}
	m := s.InitResult
	if _, ok := str(m["protocolVersion"]); !ok {
		p.fail("protocolVersion is %s, want a string", describeType(m["protocolVersion"]))
	}
	if jtype(m["capabilities"]) != "object" {
		p.fail("capabilities is %s, want an object", describeType(m["capabilities"]))
	}
	si := obj(m["serverInfo"])
	if si == nil {
		p.fail("serverInfo is %s, want an object", describeType(m["serverInfo"]))
	} else {
		for _, k := range []string{"name", "version"} {
			if _, ok := str(si[k]); !ok {
				p.fail("serverInfo.%s is %s, want a string", k, describeType(si[k]))
			}
		}
		checkImplementationFields(p, "serverInfo", si, s.Version())
	}
	if v, ok := m["instructions"]; ok && jtype(v) != "string" {
		p.fail("instructions is %s, want a string", describeType(v))
	}
	if v, ok := m["_meta"]; ok && jtype(v) != "object" {
		p.fail("_meta is %s, want an object", describeType(v))
	}
	return p.finding("protocolVersion, capabilities and serverInfo are well formed")
}

// checkImplementationFields judges the optional members of an Implementation
// against the negotiated version: newer fields are warnings, wrong types fail.
func checkImplementationFields(p *problems, where string, m map[string]json.RawMessage, version string) {
	typed := []struct{ name, typ, since string }{
		{"title", "string", "2025-06-18"},
		{"description", "string", "2025-11-25"},
		{"websiteUrl", "string", "2025-11-25"},
		{"icons", "array", "2025-11-25"},
	}
	for _, f := range typed {
		v, ok := m[f.name]
		if !ok {
			continue
		}
		if jtype(v) != f.typ {
			p.fail("%s.%s is %s, want %s", where, f.name, describeType(v), article(f.typ))
		} else if !atLeast(version, f.since) {
			p.warn("%s.%s exists only from %s, but the session negotiated %s", where, f.name, f.since, version)
		}
	}
}

func article(t string) string {
	if strings.ContainsAny(t[:1], "aeiou") {
		return "an " + t
	}
	return "a " + t
}

func describeType(raw json.RawMessage) string {
	t := jtype(raw)
	if t == "" {
		return "missing"
	}
	return fmt.Sprintf("%s %s", article(t), clipJSON(raw, 60))
}

func checkCapsShape(s *Session) Finding {
	caps := obj(s.InitResult["capabilities"])
	p := &problems{actual: toAny(s.InitResult["capabilities"])}
	if caps == nil {
		p.fail("capabilities is not an object")
		return p.finding("")
	}
	flags := map[string][]string{
		"resources": {"subscribe", "listChanged"},
		"prompts":   {"listChanged"},
		"tools":     {"listChanged"},
	}
	for name, v := range caps {
		if jtype(v) != "object" {
			p.fail("capabilities.%s is %s, want an object", name, describeType(v))
			continue
		}
		inner := obj(v)
		for _, f := range flags[name] {
			if fv, ok := inner[f]; ok && jtype(fv) != "boolean" {
				p.fail("capabilities.%s.%s is %s, want a boolean", name, f, describeType(fv))
			}
		}
		if name == "experimental" {
			for k, ev := range inner {
				if jtype(ev) != "object" {
					p.fail("capabilities.experimental[%q] is %s, want an object", k, describeType(ev))
				}
			}
		}
	}
	return p.finding("every declared capability is an object with boolean flags")
}

// echoed returns the known versions the server answered with when offered
// exactly that version.
func echoed(r *Run) []string {
	var e []string
	for _, n := range r.Negotiation {
		if IsLegacy(n.Offered) && !n.ExtraCapabilities && n.Session.InitErr == "" && n.Session.Negotiated == n.Offered {
			e = append(e, n.Offered)
		}
	}
	return e
}

func checkVersionEcho(r *Run) Finding {
	e := echoed(r)
	p := &problems{}
	answers := map[string]string{}
	for _, n := range r.Negotiation {
		if !IsLegacy(n.Offered) || n.ExtraCapabilities {
			continue
		}
		s := n.Session
		switch {
		case s.Client == nil:
			answers[n.Offered] = "not started"
		case s.InitErr != "":
			answers[n.Offered] = "refused: " + s.InitErr
		default:
			answers[n.Offered] = s.Negotiated
			if s.Negotiated != n.Offered && !slices.Contains(e, s.Negotiated) {
				p.fail("offered %s, the server answered %q, a version it does not accept when offered", n.Offered, s.Negotiated)
			}
		}
	}
	p.actual = answers
	if len(e) == 0 {
		p.fail("the server echoed none of the offered versions %s", strings.Join(LegacyVersions, ", "))
	}
	return p.finding("echoes " + strings.Join(e, ", ") + "; every counter-offer is one of those")
}

func checkCounterOffer(r *Run) Finding {
	e := echoed(r)
	p := &problems{}
	answers := map[string]any{}
	for _, n := range r.Negotiation {
		if KnownVersion(n.Offered) || n.ExtraCapabilities {
			continue
		}
		s := n.Session
		switch {
		case s.Client == nil:
			return Finding{Verdict: reports.Error, Message: "the probe process did not start: " + s.InitErr}
		case s.Init == nil || s.Init.Response == nil:
			answers[n.Offered] = s.InitErr
			p.fail("offered %s, the server did not answer initialize: %s", n.Offered, s.InitErr)
		case s.Init.Response.Has("error"):
			answers[n.Offered] = toAny(s.Init.Response.Error)
			p.warn("offered %s, the server answered with an error instead of counter-offering a version (the spec's own example does this, catalogue A-1)", n.Offered)
		case s.InitErr != "":
			answers[n.Offered] = toAny(s.Init.Response.Raw)
			p.fail("offered %s: %s", n.Offered, s.InitErr)
		default:
			answers[n.Offered] = s.Negotiated
			switch {
			case s.Negotiated == n.Offered:
				p.fail("offered the unknown version %s, the server echoed it back", n.Offered)
			case !slices.Contains(e, s.Negotiated):
				p.fail("offered %s, the server counter-offered %q, which it does not accept when offered", n.Offered, s.Negotiated)
			case len(e) > 0 && s.Negotiated != e[len(e)-1]:
				p.warn("offered %s, the server counter-offered %s, not its newest version %s", n.Offered, s.Negotiated, e[len(e)-1])
			}
		}
	}
	p.actual = answers
	return p.finding("unknown versions get a counter-offer of the newest supported version")
}

func checkNegotiatedTraffic(s *Session) Finding {
	p := &problems{}
	for _, in := range s.Client.Inbound() {
		m := in.Msg
		switch {
		case m.Kind() == "request" && (m.Method == "sampling/createMessage" || m.Method == "roots/list" || strings.HasPrefix(m.Method, "elicitation/")):
			p.fail("the server sent a %s request, but the client declared no such capability", m.Method)
		case m.Kind() == "notification" && m.Method == "notifications/message" && !s.Caps.Logging:
			if atLeast(s.Version(), "2025-06-18") {
				p.fail("the server sent notifications/message without declaring the logging capability")
			} else {
				p.warn("the server sent notifications/message without declaring the logging capability")
			}
		}
	}
	return p.finding("no traffic outside the negotiated capabilities")
}
