package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// clientModernChecks judge a 2026-07-28 client's requests: the probe, the
// per-request envelope, and the retry after an unsupported version
// (LIFE-*).
func clientModernChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-discover-first", Requirement: "LIFE-32", Area: "lifecycle",
			Description: "a 2026-07-28 client on stdio probes with server/discover before any other request",
			Judge:       checkClientDiscoverFirst,
		},
		{
			ID: "client-request-meta", Requirement: "LIFE-34", Area: "lifecycle",
			Description: `every 2026-07-28 request carries _meta "io.modelcontextprotocol/protocolVersion" (a string) and "io.modelcontextprotocol/clientCapabilities" (an object)`,
			Judge:       checkClientRequestMeta,
		},
		{
			ID: "client-info-on-every-request", Requirement: "LIFE-21", Area: "lifecycle",
			Description: `every 2026-07-28 request carries _meta "io.modelcontextprotocol/clientInfo" with a string name and version`,
			Judge:       checkClientInfoMeta,
		},
		{
			ID: "client-retries-supported-version", Requirement: "LIFE-33", Area: "lifecycle",
			Description: "after an UnsupportedProtocolVersionError the client retries with a version the error listed as supported, or gives up",
			Judge:       checkClientVersionRetry,
		},
	}
}

func checkClientDiscoverFirst(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		if len(v.requests) == 0 {
			return
		}
		first := v.requests[0]
		if first.msg.Method == "initialize" {
			t.unexercise("spawn %d: the client opened with initialize, as a handshake-era client", v.sp.ID)
			return
		}
		t.judged()
		if first.msg.Method != "server/discover" {
			t.violate(v.at(first.seq), "spawn %d: the first request was %s, not the server/discover probe", v.sp.ID, first.msg.Method)
		}
	})
	return t.finding("the first request was server/discover", "the client sent no request")
}

// modernRequests calls f with every request of the spawns judged that is
// not a handshake-era one (the initialize of a client that fell back).
func modernRequests(j *ClientJ, t *tally, f func(v *spawnView, r *sentMsg)) {
	j.each(func(v *spawnView) {
		for _, r := range v.requests {
			if r.msg.Method == "initialize" || r.msg.Method == "ping" && v.legacy() {
				continue
			}
			t.judged()
			f(v, r)
		}
	})
}

func checkClientRequestMeta(j *ClientJ) Finding {
	t := &tally{}
	modernRequests(j, t, func(v *spawnView, r *sentMsg) {
		m := meta(r.msg)
		var bad []string
		if _, ok := wire.String(m[wire.MetaProtocolVersion]); !ok {
			bad = append(bad, wire.MetaProtocolVersion+" is "+describeType(m[wire.MetaProtocolVersion])+", want a string")
		}
		if wire.Type(m[wire.MetaClientCapabilities]) != "object" {
			bad = append(bad, wire.MetaClientCapabilities+" is "+describeType(m[wire.MetaClientCapabilities])+", want an object")
		}
		if len(bad) > 0 {
			t.violate(v.at(r.seq), "%s (id %s): %s", r.msg.Method, clipJSON(r.msg.ID, 40), strings.Join(bad, "; "))
		}
	})
	return t.finding(fmt.Sprintf("every request carries protocolVersion and clientCapabilities in _meta (%d requests)", t.n), "the client sent no 2026-07-28 request")
}

func checkClientInfoMeta(j *ClientJ) Finding {
	t := &tally{}
	modernRequests(j, t, func(v *spawnView, r *sentMsg) {
		raw, ok := meta(r.msg)[wire.MetaClientInfo]
		if !ok {
			t.violate(v.at(r.seq), "%s (id %s) carries no %s", r.msg.Method, clipJSON(r.msg.ID, 40), wire.MetaClientInfo)
			return
		}
		info := wire.Object(raw)
		_, name := wire.String(info["name"])
		_, version := wire.String(info["version"])
		if !name || !version {
			t.violate(v.at(r.seq), "%s (id %s): %s is %s, want an Implementation with a string name and version", r.msg.Method, clipJSON(r.msg.ID, 40), wire.MetaClientInfo, clipJSON(raw, 80))
		}
	})
	return t.finding(fmt.Sprintf("every request carries clientInfo (%d requests)", t.n), "the client sent no 2026-07-28 request")
}

// requestVersion is the version a request asks for: its envelope's, or an
// initialize's protocolVersion.
func requestVersion(m *wire.Message) (string, bool) {
	if m.Method == "initialize" {
		return wire.String(params(m)["protocolVersion"])
	}
	return wire.EnvelopeVersion(m)
}

func checkClientVersionRetry(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, r := range v.requests {
			if !isVersionError(r.resp) {
				continue
			}
			data := wire.Object(wire.Object(r.resp.Error)["data"])
			items, _ := wire.Array(data["supported"])
			var supported []string
			for _, it := range items {
				if s, ok := wire.String(it); ok {
					supported = append(supported, s)
				}
			}
			if len(supported) == 0 {
				t.unexercise("spawn %d: the error to %s listed no supported version", v.sp.ID, r.msg.Method)
				continue
			}
			var next *sentMsg
			for _, n := range v.requests {
				if n.seq > r.respSeq {
					next = n
					break
				}
			}
			if next == nil {
				t.unexercise("spawn %d: the client did not retry %s (it may speak none of %s)", v.sp.ID, r.msg.Method, strings.Join(supported, ", "))
				continue
			}
			t.judged()
			asked, _ := requestVersion(next.msg)
			if !slices.Contains(supported, asked) {
				t.violate(v.at(next.seq), "spawn %d: after -32022 listing %s, the client's next request (%s) asked for %q", v.sp.ID, strings.Join(supported, ", "), next.msg.Method, clipString(asked, 40))
			}
		}
	})
	return t.finding("every retry asked for a version the server listed", "no request got an UnsupportedProtocolVersionError")
}
