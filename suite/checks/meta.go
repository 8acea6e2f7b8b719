package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// metaChecks judge every _meta the server sends (META-*), and the
// progress notifications a progress token in a request's _meta asks for.
func metaChecks() []*Check {
	return append([]*Check{
		{
			ID: "meta-key-format", Requirement: "META-02", Area: "meta",
			Description: "every _meta key is an optional reverse-DNS prefix and a name in the spec's grammar",
			Judge:       func(j *J) Finding { return checkMeta(j, "format") },
		},
		{
			ID: "meta-reserved-prefix", Requirement: "META-03", Area: "meta",
			Description: "no _meta key uses a prefix reserved for the spec unless the spec defines it",
			Judge:       func(j *J) Finding { return checkMeta(j, "reserved") },
		},
		{
			ID: "meta-reverse-dns", Requirement: "META-04", Area: "meta",
			Description: "_meta prefixes use reverse DNS (com.example/), not a domain as written (example.com/)",
			Flags:       []string{"heuristic"},
			Judge:       func(j *J) Finding { return checkMeta(j, "reverse-dns") },
		},
		{
			ID: "trace-context-format", Requirement: "META-06", Area: "meta",
			Description: "traceparent, tracestate and baggage in _meta use the W3C formats",
			Needs:       []plan.Probe{plan.ProbeTrace},
			Trigger:     "a server that puts W3C trace context (traceparent, tracestate, baggage) in the _meta of what it sends; in 2026-07-28 the suite sends a traceparent on server/discover for it to carry on",
			Judge:       checkTraceContext,
		},
		{
			ID: "meta-object", Requirement: "META-07", Area: "meta",
			Description: "every _meta the server sends is an object",
			Judge:       func(j *J) Finding { return checkMeta(j, "object") },
		},
	}, progressChecks()...)
}

var (
	metaLabel = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	metaKeyRE = regexp.MustCompile(`^(?:` + metaLabel + `(?:\.` + metaLabel + `)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
)

// maxMetaDepth bounds how deep the walk looks for _meta: a value nested
// deeper is not searched (a hostile server could nest thousands deep).
const maxMetaDepth = 64

// freeForm names the members whose value the schema leaves to the sender
// (any JSON, a JSON Schema, a settings object): a "_meta" inside one is
// data that happens to have that name, not the protocol's _meta. Logging
// data, structured tool output, tool and elicitation schemas, sampling
// metadata, experimental and extension settings.
var freeForm = map[string]bool{
	"data": true, "structuredContent": true, "inputSchema": true, "outputSchema": true,
	"requestedSchema": true, "metadata": true, "experimental": true, "extensions": true,
}

// metaObjects yields every _meta member in the messages the server sent in
// well-formed traffic, with where it was.
func metaObjects(j *J, yield func(w *Where, where func() string, v json.RawMessage)) {
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		name := m.Method
		if name == "" {
			name = "response " + clipJSON(m.ID, 20)
		}
		var walk func(path []string, raw json.RawMessage)
		walk = func(path []string, raw json.RawMessage) {
			if len(path) > maxMetaDepth || !mayHoldMeta(raw) {
				return
			}
			switch wire.Type(raw) {
			case "object":
				obj := wire.Object(raw)
				for _, k := range sortedKeys(obj) {
					v := obj[k]
					switch {
					case k == "_meta":
						where := func() string { return name + " " + strings.Join(append(path, "_meta"), ".") }
						yield(At(p, e.Seq), where, v)
					case !freeForm[k]:
						walk(append(path, k), v)
					}
				}
			case "array":
				items, _ := wire.Array(raw)
				for i, it := range items {
					walk(append(path, fmt.Sprintf("[%d]", i)), it)
				}
			}
		}
		for _, member := range []string{"result", "params"} {
			if v, ok := m.Member(member); ok {
				walk([]string{member}, v)
			}
		}
	})
}

// mayHoldMeta reports whether raw could have a member named "_meta"
// anywhere in it: the name spelled out, or any escape (a name can be
// written "\u005fmeta"). A value without either is not walked, which
// keeps a list of 200,000 plain items one scan of its bytes.
func mayHoldMeta(raw json.RawMessage) bool {
	return bytes.Contains(raw, metaName) || bytes.IndexByte(raw, '\\') >= 0
}

var metaName = []byte(`"_meta"`)

// reservedPrefix reports whether a _meta prefix is reserved for the spec
// under the version's rule: from 2025-11-25 the second label is
// modelcontextprotocol or mcp; in 2025-06-18 any label is, when another
// label follows it.
func reservedPrefix(prefix, version string) bool {
	labels := strings.Split(prefix, ".")
	isMCP := func(l string) bool { l = strings.ToLower(l); return l == "modelcontextprotocol" || l == "mcp" }
	if wire.AtLeast(version, wire.V20251125) {
		return len(labels) >= 2 && isMCP(labels[1])
	}
	for i := 0; i+1 < len(labels); i++ {
		if isMCP(labels[i]) {
			return true
		}
	}
	return false
}

// definedMetaKeys are the reserved-prefix keys a version defines itself.
var definedMetaKeys = map[string]map[string]bool{
	wire.V20251125: {
		"io.modelcontextprotocol/related-task": true,
	},
	wire.Modern: {
		wire.MetaProtocolVersion: true, wire.MetaClientInfo: true, wire.MetaClientCapabilities: true,
		wire.MetaLogLevel: true, wire.MetaSubscriptionID: true, wire.MetaServerInfo: true,
		"io.modelcontextprotocol/related-task": true,
	},
}

// metaKeySince returns the first version that defines a reserved key, or
// "" when none does.
func metaKeySince(k string) string {
	for _, v := range wire.AllVersions {
		if definedMetaKeys[v][k] {
			return v
		}
	}
	return ""
}

// extensionOfPrefix returns an extension the session's server declares
// whose identifier has the prefix, or "".
func extensionOfPrefix(j *J, prefix string) string {
	if j.Session == nil {
		return ""
	}
	ext := wire.Object(wire.Object(j.Caps().Raw)["extensions"])
	for _, id := range sortedKeys(ext) {
		if p, _, ok := strings.Cut(id, "/"); ok && strings.EqualFold(p, prefix) {
			return id
		}
	}
	return ""
}

func checkMeta(j *J, rule string) Finding {
	t := &tally{}
	metaObjects(j, func(w *Where, where func() string, v json.RawMessage) {
		t.judged()
		if rule == "object" {
			if wire.Type(v) != "object" {
				t.violate(w, "%s is %s, want an object", where(), describeType(v))
			}
			return
		}
		for _, k := range sortedKeys(wire.Object(v)) {
			prefix, _, hasPrefix := strings.Cut(k, "/")
			switch rule {
			case "format":
				if !metaKeyRE.MatchString(k) {
					t.violate(w, "%s: key %q does not fit the _meta key grammar", where(), clipString(k, 60))
				}
			case "reverse-dns":
				if hasPrefix && looksForwardDNS(prefix) {
					t.violate(w, "%s: key %q: the prefix looks like a domain written forwards; use reverse DNS", where(), clipString(k, 60))
				}
			case "reserved":
				if !hasPrefix || !reservedPrefix(prefix, j.Version) || definedMetaKeys[j.Version][k] {
					break
				}
				if since := metaKeySince(k); since > j.Version {
					t.record(w, "%s: key %q is defined only from %s; the session negotiated %s (allowed: a newer member)", where(), clipString(k, 60), since, j.Version)
				} else if ext := extensionOfPrefix(j, prefix); ext != "" {
					// Official extensions define keys under the reserved
					// prefix; which ones, only their documentation says.
					t.record(w, "%s: key %q is not defined by the spec; it may be defined by %s, an extension the server declares", where(), clipString(k, 60), clipString(ext, 60))
				} else {
					t.violate(w, "%s: key %q uses a prefix reserved for the spec, which defines no such key in %s", where(), clipString(k, 60), j.Version)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("%d _meta object(s) comply", t.n), "the server sent no _meta")
}

// looksForwardDNS guesses that a prefix is a domain written forwards: its
// last label looks like a top-level domain and its first does not. Every
// two-letter label is taken for a country's domain, so that the reverse
// DNS of a country domain (de.example/, uk.co.example/) is never
// mistaken.
func looksForwardDNS(prefix string) bool {
	labels := strings.Split(strings.ToLower(prefix), ".")
	if len(labels) < 2 {
		return false
	}
	tld := func(l string) bool { return len(l) == 2 || genericTLDs[l] }
	return tld(labels[len(labels)-1]) && !tld(labels[0])
}

// genericTLDs are common generic top-level domains.
var genericTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "edu": true, "gov": true, "mil": true, "int": true,
	"info": true, "biz": true, "dev": true, "app": true, "xyz": true, "cloud": true, "tech": true,
}

var (
	traceparentRE = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$`)
	tracestateKey = regexp.MustCompile(`^(?:[a-z0-9][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$`)
	tracestateVal = regexp.MustCompile(`^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	baggageRE     = regexp.MustCompile(`^[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?(\s*,\s*[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?)*$`)
)

// traceparentProblem says what is wrong with a W3C traceparent, or "".
// A version above 00 may carry more fields after the four of 00.
func traceparentProblem(s string) string {
	m := traceparentRE.FindStringSubmatch(s)
	switch {
	case m == nil:
		return "is not version-traceid-parentid-flags in lowercase hex"
	case m[1] == "ff":
		return "has the invalid version ff"
	case m[1] == "00" && m[5] != "":
		return "has fields after the flags, which version 00 does not allow"
	case strings.Trim(m[2], "0") == "":
		return "has an all-zero trace-id"
	case strings.Trim(m[3], "0") == "":
		return "has an all-zero parent-id"
	}
	return ""
}

// tracestateProblem says what is wrong with a W3C tracestate, or "":
// up to 32 key=value members, separated by commas with optional spaces;
// empty members are allowed.
func tracestateProblem(s string) string {
	n := 0
	for _, member := range strings.Split(s, ",") {
		member = strings.Trim(member, " \t")
		if member == "" {
			continue
		}
		n++
		k, v, ok := strings.Cut(member, "=")
		if !ok || !tracestateKey.MatchString(k) || !tracestateVal.MatchString(v) {
			return fmt.Sprintf("has the member %q, not key=value in the W3C grammar", clipString(member, 40))
		}
	}
	if n > 32 {
		return fmt.Sprintf("has %d members; at most 32 are allowed", n)
	}
	return ""
}

func checkTraceContext(j *J) Finding {
	t := &tally{}
	metaObjects(j, func(w *Where, where func() string, v json.RawMessage) {
		obj := wire.Object(v)
		for _, k := range sortedKeys(obj) {
			val := obj[k]
			var problem func(string) string
			switch k {
			case "traceparent":
				problem = traceparentProblem
			case "tracestate":
				problem = tracestateProblem
			case "baggage":
				problem = func(s string) string {
					if baggageRE.MatchString(s) {
						return ""
					}
					return "is not a list of key=value members"
				}
			default:
				continue
			}
			t.judged()
			s, ok := wire.String(val)
			if !ok {
				t.violate(w, "%s: %s is %s, want a string in the W3C format", where(), k, describeType(val))
			} else if why := problem(s); why != "" {
				t.violate(w, "%s: %s %s %s", where(), k, clipJSON(val, 80), why)
			}
		}
	})
	return t.finding(fmt.Sprintf("%d trace context value(s) are well formed", t.n), "the server sent no trace context")
}
