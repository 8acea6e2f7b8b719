package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// metaChecks judge every _meta the server sends (META-*).
func metaChecks() []*Check {
	return []*Check{
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
			Judge:       checkTraceContext,
		},
		{
			ID: "meta-object", Requirement: "META-07", Area: "meta",
			Description: "every _meta the server sends is an object",
			Judge:       func(j *J) Finding { return checkMeta(j, "object") },
		},
	}
}

var (
	metaLabel = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	metaKeyRE = regexp.MustCompile(`^(?:` + metaLabel + `(?:\.` + metaLabel + `)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
)

// maxMetaDepth bounds how deep the walk looks for _meta: a value nested
// deeper is not searched (a hostile server could nest thousands deep).
const maxMetaDepth = 64

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
			if len(path) > maxMetaDepth {
				return
			}
			switch wire.Type(raw) {
			case "object":
				for k, v := range wire.Object(raw) {
					if k == "_meta" {
						where := func() string { return name + " " + strings.Join(append(path, "_meta"), ".") }
						yield(At(p, e.Seq), where, v)
						continue
					}
					walk(append(path, k), v)
				}
			case "array":
				items, _ := wire.Array(raw)
				for i, it := range items {
					walk(append(path, fmt.Sprintf("[%d]", i)), it)
				}
			}
		}
		for _, member := range []string{"result", "params"} {
			if v, ok := m.Members[member]; ok {
				walk([]string{member}, v)
			}
		}
	})
}

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
		for k := range wire.Object(v) {
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
				if hasPrefix && reservedPrefix(prefix, j.Version) && !definedMetaKeys[j.Version][k] {
					t.violate(w, "%s: key %q uses a prefix reserved for the spec, which defines no such key in %s", where(), clipString(k, 60), j.Version)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("%d _meta object(s) comply", t.n), "the server sent no _meta")
}

// looksForwardDNS guesses that a prefix is a domain written forwards: its
// last label is a common top-level domain and its first is not.
func looksForwardDNS(prefix string) bool {
	labels := strings.Split(strings.ToLower(prefix), ".")
	if len(labels) < 2 {
		return false
	}
	tld := map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "ai": true, "app": true, "co": true}
	return tld[labels[len(labels)-1]] && !tld[labels[0]]
}

var (
	traceparentRE = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	tracestateRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}(\s*,\s*[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255})*$`)
	baggageRE     = regexp.MustCompile(`^[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?(\s*,\s*[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?)*$`)
)

func checkTraceContext(j *J) Finding {
	t := &tally{}
	metaObjects(j, func(w *Where, where func() string, v json.RawMessage) {
		for k, val := range wire.Object(v) {
			var re *regexp.Regexp
			switch k {
			case "traceparent":
				re = traceparentRE
			case "tracestate":
				re = tracestateRE
			case "baggage":
				re = baggageRE
			default:
				continue
			}
			t.judged()
			if s, ok := wire.String(val); !ok || !re.MatchString(s) {
				t.violate(w, "%s: %s %s is not in the W3C format", where(), k, clipJSON(val, 80))
			}
		}
	})
	return t.finding(fmt.Sprintf("%d trace context value(s) are well formed", t.n), "the server sent no trace context")
}
