package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// lifecycleChecks judge initialization, version negotiation, capabilities
// and, in 2026-07-28, discovery and the per-request model (LIFE-*).
func lifecycleChecks() []*Check {
	return []*Check{
		{
			ID: "initialize-completes", Requirement: "LIFE-01", Area: "lifecycle",
			Description: "the initialize exchange completes first on a connection, and the session is judged under the negotiated version",
			Opening:     true,
			Judge:       checkInitializeCompletes,
		},
		{
			ID: "initialize-result-shape", Requirement: "LIFE-03", Area: "lifecycle",
			Description: "the initialize result has protocolVersion, capabilities and serverInfo {name, version} of the right types",
			Judge:       checkInitShape,
		},
		{
			ID: "initialize-echoes-version", Requirement: "LIFE-04", Area: "lifecycle",
			Description: "offered a version it supports, the server answers with that version",
			Judge:       checkVersionEcho,
		},
		{
			ID: "initialize-counter-offer", Requirement: "LIFE-05", Area: "lifecycle",
			Description: "offered an unknown version, the server answers with a version it supports (preferably its newest)",
			Needs:       []plan.Probe{plan.ProbeCounterOffer},
			Flags:       []string{"disputed"},
			Judge:       checkCounterOffer,
		},
		{
			ID: "no-requests-before-initialized", Requirement: "LIFE-09", Area: "lifecycle",
			Description: "until notifications/initialized arrives, the server sends no requests other than ping",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
			Judge:       checkNoEarlyRequests,
		},
		{
			ID: "no-unnegotiated-server-requests", Requirement: "LIFE-10", Area: "lifecycle",
			Description: "the server sends sampling, roots and elicitation requests only to a client that declared those capabilities, and log notifications only when it declared logging",
			Needs:       []plan.Probe{plan.ProbeServerRequests},
			Judge:       checkNegotiatedRequests,
		},
		{
			ID: "initialize-unknown-client-capabilities", Requirement: "LIFE-13", Area: "lifecycle",
			Versions:    legacyOnly,
			Description: "initialize succeeds when the client declares capabilities the server does not know",
			Judge:       checkUnknownClientCaps,
		},
		{
			ID: "capabilities-shape", Requirement: "LIFE-14", Area: "lifecycle",
			Description: "each declared server capability is an object, and its flags are booleans",
			Judge:       checkCapsShape,
		},
		{
			ID: "discover-completes", Requirement: "LIFE-23", Area: "lifecycle",
			Description: "a server of the 2026-07-28 era answers server/discover in the per-request envelope",
			Opening:     true,
			Judge:       checkDiscoverCompletes,
		},
		{
			ID: "discover-result-shape", Requirement: "LIFE-23", Area: "lifecycle",
			Description: "server/discover returns supportedVersions, capabilities and the cache hints resultType, ttlMs and cacheScope",
			Judge:       checkDiscoverShape,
		},
		{
			ID: "no-undeclared-client-capabilities", Requirement: "LIFE-25", Area: "lifecycle",
			Description: "with clientCapabilities {} the server never asks for sampling, elicitation or roots",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Judge:       checkInputRequests,
		},
		{
			ID: "server-info-on-every-result", Requirement: "LIFE-26", Area: "lifecycle",
			Description: "every result's _meta names the server (io.modelcontextprotocol/serverInfo)",
			Judge:       checkServerInfoMeta,
		},
		{
			ID: "extension-keys", Requirement: "LIFE-29", Area: "lifecycle",
			Description: "capabilities.extensions keys have a prefix and follow the _meta key grammar; values are objects",
			Judge:       checkExtensions,
		},
		{
			ID: "no-log-without-level", Requirement: "LIFE-30", Area: "lifecycle",
			Description: "no notifications/message for 2026-07-28 requests that set no log level, and none on a listen stream",
			Needs:       []plan.Probe{plan.ProbeLogLevelMeta},
			Judge:       checkNoLogWithoutLevel,
		},
	}
}

// handshake is one initialize the run sent and what it answered.
type handshake struct {
	x        *evidence.Exchange
	offered  string
	answered string // "" when it was refused or never answered
	unknown  bool   // the request declared client capabilities no version defines
}

// handshakes returns every initialize of the run, in process order.
func handshakes(r *evidence.Run) []handshake {
	var out []handshake
	for _, p := range r.AllProcesses() {
		for _, x := range p.Exchanges() {
			if x.Method != "initialize" || x.Request == nil {
				continue
			}
			params := wire.Object(x.Request.Params)
			h := handshake{x: x}
			h.offered, _ = wire.String(params["protocolVersion"])
			caps := wire.Object(params["capabilities"])
			_, h.unknown = caps["x-mcpconform-unknown"]
			if res := x.Result(); res != nil {
				h.answered, _ = wire.String(res["protocolVersion"])
			}
			out = append(out, h)
		}
	}
	return out
}

// echoed returns the versions the server answered with when offered
// exactly that version.
func echoed(hs []handshake) []string {
	var e []string
	for _, h := range hs {
		if wire.IsLegacy(h.offered) && h.answered == h.offered && !slices.Contains(e, h.offered) {
			e = append(e, h.offered)
		}
	}
	slices.Sort(e)
	return e
}

// supported returns the handshake-era versions the server answered any
// initialize with: whatever was offered, an answer is a version the server
// supports (a counter-offer MUST be one, LIFE-05).
func supported(hs []handshake) []string {
	var s []string
	for _, h := range hs {
		if wire.IsLegacy(h.answered) && !slices.Contains(s, h.answered) {
			s = append(s, h.answered)
		}
	}
	slices.Sort(s)
	return s
}

func checkInitializeCompletes(j *J) Finding {
	r := j.Run
	switch {
	case j.Session != nil:
		return passed(fmt.Sprintf("initialize completed: offered %s, answered %s", j.Session.Requested, j.Session.Negotiated))
	case r.Fatal == nil:
		return skipped("no session was opened under " + j.Version)
	case r.Fatal.Stage == "start":
		return harness(r.Fatal.Message)
	case r.Fatal.Stage == "version":
		// The handshake completed, on another version: not serving the
		// one asked for is legal (LIFE-05), and LIFE-01 was kept.
		return skipped(r.Fatal.Message)
	}
	// The session's own initialize decides; one the run stopped before it
	// was answered judges nothing (a harness window, never the server).
	var opening []handshake
	for _, h := range handshakes(r) {
		if h.x.Tag == evidence.TagInit {
			opening = append(opening, h)
			if h.x.Stopped() {
				return harness("not judged: " + h.x.NoResponse.String())
			}
			if g := garbled(h.x.Process, h.x); g != "" {
				return skipped("initialize got no response it could read: the server wrote " + g + " in its stead (the framing and id checks judge it)")
			}
			if nr := h.x.NoResponse; nr != nil && nr.Reason == transcript.ReasonTimeout {
				// Silence within the start-up deadline breaks no rule: a
				// slow server may answer later.
				return harness(fmt.Sprintf("not judged: the server did not answer initialize within %s (--start-timeout)", nr.Deadline))
			}
		}
	}
	if len(opening) == 0 && r.Interrupted != "" {
		return harness("not judged: the run was interrupted (" + r.Interrupted + ") before initialize was sent")
	}
	f := broken(r.Fatal.Message)
	for _, h := range opening {
		return exchangeFinding(f, h.x)
	}
	return f
}

func checkInitShape(j *J) Finding {
	if j.Session == nil || j.Session.Modern {
		return skipped("no initialize result under " + j.Version)
	}
	x := j.Session.Init()
	m := j.Session.InitResult()
	if m == nil {
		return skipped("the initialize result is not an object (jsonrpc-result-object judges it)")
	}
	t := &tally{actual: toAny(x.Response.Result)}
	t.judged()
	w := At(x.Process, x.RecvSeq)
	if _, ok := wire.String(m["protocolVersion"]); !ok {
		t.violate(w, "protocolVersion is %s, want a string", describeType(m["protocolVersion"]))
	}
	if wire.Type(m["capabilities"]) != "object" {
		t.violate(w, "capabilities is %s, want an object", describeType(m["capabilities"]))
	}
	si := wire.Object(m["serverInfo"])
	if si == nil {
		t.violate(w, "serverInfo is %s, want an object", describeType(m["serverInfo"]))
	} else {
		for _, k := range []string{"name", "version"} {
			if _, ok := wire.String(si[k]); !ok {
				t.violate(w, "serverInfo.%s is %s, want a string", k, describeType(si[k]))
			}
		}
		implementationFields(t, w, "serverInfo", si, j.Version)
	}
	if v, ok := m["instructions"]; ok && wire.Type(v) != "string" {
		t.violate(w, "instructions is %s, want a string", describeType(v))
	}
	if v, ok := m["_meta"]; ok && wire.Type(v) != "object" {
		t.violate(w, "_meta is %s, want an object", describeType(v))
	}
	return t.finding("protocolVersion, capabilities and serverInfo are well formed", "")
}

// implementationFields judges the optional members of an Implementation:
// a wrong type is a violation; a member newer than the version judged is
// recorded (objects are open).
func implementationFields(t *tally, w *Where, where string, m map[string]json.RawMessage, version string) {
	for _, f := range []struct{ name, typ, since string }{
		{"title", "string", wire.V20250618},
		{"description", "string", wire.V20251125},
		{"websiteUrl", "string", wire.V20251125},
		{"icons", "array", wire.V20251125},
	} {
		v, ok := m[f.name]
		if !ok {
			continue
		}
		switch {
		case !wire.AtLeast(version, f.since):
			// Unknown to the version judged: any value is legal there.
			t.record(w, "%s.%s exists only from %s; the session negotiated %s (allowed: objects are open)", where, f.name, f.since, version)
		case wire.Type(v) != f.typ:
			t.violate(w, "%s.%s is %s, want %s", where, f.name, describeType(v), article(f.typ))
		}
	}
}

func checkVersionEcho(j *J) Finding {
	hs := handshakes(j.Run)
	e := echoed(hs)
	sup := supported(hs)
	t := &tally{}
	answers := map[string]string{}
	for _, h := range hs {
		if !wire.IsLegacy(h.offered) || (h.answered != j.Version && h.offered != j.Version) {
			continue
		}
		if h.x.Stopped() || h.x.NotSent() || h.answered == "" {
			continue // no version answered: nothing echoed or not
		}
		t.judged()
		answers[h.offered] = h.answered
		w := At(h.x.Process, max(h.x.RecvSeq, h.x.SentSeq))
		switch {
		case h.answered == h.offered:
		case slices.Contains(e, h.offered):
			t.violate(w, "offered %s, the server answered %q, though it answers %s when offered it elsewhere", h.offered, h.answered, h.offered)
		case slices.Contains(sup, h.offered):
			t.violate(w, "offered %s, the server answered %q, though it answered another initialize with %s, a version it therefore supports", h.offered, h.answered, h.offered)
		}
	}
	if len(answers) > 0 {
		t.actual = answers
	}
	ok := "every offered version the server is seen to support is echoed"
	if len(e) > 0 {
		ok = "echoes " + strings.Join(e, ", ") + " when offered it"
	}
	return t.finding(ok, "no initialize offered or answered "+j.Version)
}

// anyAnswered reports whether any initialize of the run got a response.
func anyAnswered(hs []handshake) bool {
	for _, h := range hs {
		if h.x.Response != nil {
			return true
		}
	}
	return false
}

func checkCounterOffer(j *J) Finding {
	hs := handshakes(j.Run)
	e := echoed(hs)
	t := &tally{}
	nothing := "no initialize offered an unknown version under " + j.Version
	answers := map[string]any{}
	for _, h := range hs {
		if wire.KnownVersion(h.offered) {
			continue
		}
		if h.x.Stopped() && j.Run.Interrupted != "" {
			// Cut short by the run (a signal, --run-timeout): not judged,
			// and the report says so, as for every probe a cut leaves open.
			t.undecide(At(h.x.Process, h.x.SentSeq), "the initialize offering %s: %s", h.offered, h.x.NoResponse)
			continue
		}
		if h.x.Stopped() || h.x.NotSent() {
			// Never written (the process was gone), or stopped because the
			// run ended on a server that did not start or initialize: the
			// server's answer was never seen, and the run's fatal says why.
			nothing = "the initialize offering " + h.offered + " was not answered for a reason of the harness: " + h.x.NoResponse.String()
			continue
		}
		if owner := counterOfferVersion(j.Run, h); owner != "" && owner != j.Version {
			continue
		}
		if h.x.Response == nil && !anyAnswered(hs) && h.x.NoResponse != nil &&
			(h.x.NoResponse.Reason == transcript.ReasonExited || h.x.NoResponse.Reason == transcript.ReasonWriteFailed) {
			// It exited unanswered (before the request could even be
			// written, at times) whatever version it was offered: that says
			// nothing of unknown versions (the start-up checks judge it).
			nothing = "the server answered no initialize, whatever version it was offered"
			continue
		}
		if g := garbled(h.x.Process, h.x); h.x.Response == nil && g != "" {
			// An answer may be in there, unreadable: the framing and id
			// checks judge the line, and nothing is known of the version.
			nothing = "the initialize offering " + h.offered + " got no response it could read: the server wrote " + g + " in its stead (the framing and id checks judge it)"
			continue
		}
		if why, died := dropped(j.Run, h.x); why != "" && !died {
			// A dropped initialize is every-request-answered's finding, and
			// says nothing of unknown versions.
			t.unexercise("offered %s, the server dropped initialize: %s (every-request-answered judges it)", h.offered, why)
			continue
		}
		t.judged()
		x := h.x
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		switch {
		case x.Response == nil:
			answers[h.offered] = gotOf(x)
			if why, ok := timedOut(x); ok {
				t.undecide(w, "offered %s: %s", h.offered, strings.TrimPrefix(why, "not judged: "))
			} else {
				t.violate(w, "offered %s, the server did not answer initialize: %s", h.offered, gotOf(x))
			}
		case x.Response.Has("error"):
			answers[h.offered] = toAny(x.Response.Error)
			t.dispute(w, "offered %s, the server answered with an error instead of counter-offering a version (the spec's own example does so)", h.offered)
		case h.answered == "":
			answers[h.offered] = toAny(x.Response.Raw)
			t.violate(w, "offered %s, the initialize result has no protocolVersion string", h.offered)
		default:
			answers[h.offered] = h.answered
			refused := false
			for _, o := range hs {
				if o.offered == h.answered && o.answered != "" && o.answered != h.answered {
					refused = true
				}
			}
			switch {
			case h.answered == h.offered:
				t.violate(w, "offered the unknown version %s, the server echoed it back", h.offered)
			case !wire.KnownVersion(h.answered):
				t.violate(w, "offered %s, the server counter-offered %q, a version no spec defines", h.offered, h.answered)
			case refused:
				t.violate(w, "offered %s, the server counter-offered %s, which it does not accept when offered it", h.offered, h.answered)
			case len(e) > 0 && h.answered < e[len(e)-1]:
				t.dispute(w, "offered %s, the server counter-offered %s, not its newest version %s (the spec prefers the newest)", h.offered, h.answered, e[len(e)-1])
			}
		}
	}
	if len(answers) > 0 {
		t.actual = answers
	}
	return t.finding("an unknown version gets a counter-offer of a version the server supports", nothing)
}

// counterOfferVersion is the version an initialize offering an unknown
// version is judged under, so that it is judged once: the version it
// landed on when the run judges that one, else the version of its process
// when the run judges that, else the first the run judges ("" when the run
// judges none: judge it under any).
func counterOfferVersion(r *evidence.Run, h handshake) string {
	switch {
	case slices.Contains(r.Versions, h.answered):
		return h.answered
	case h.x.Process != nil && slices.Contains(r.Versions, h.x.Process.Version):
		return h.x.Process.Version
	case len(r.Versions) > 0:
		return r.Versions[0]
	}
	return ""
}

// declared returns the client capabilities a process's initialize
// declared, as top-level names.
func declared(p *evidence.Process) map[string]bool {
	out := map[string]bool{}
	for _, x := range p.Exchanges() {
		if x.Method == "initialize" && x.Request != nil {
			for k := range wire.Object(wire.Object(x.Request.Params)["capabilities"]) {
				out[k] = true
			}
		}
	}
	return out
}

// clientCapabilityOf names the client capability a server request needs.
func clientCapabilityOf(method string) string {
	switch {
	case method == "sampling/createMessage":
		return "sampling"
	case method == "roots/list":
		return "roots"
	case strings.HasPrefix(method, "elicitation/"):
		return "elicitation"
	}
	return ""
}

func checkNoEarlyRequests(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		initialized := false
		for _, e := range p.Entries() {
			if p.InProvocation(e.Seq) {
				continue
			}
			for _, m := range e.Msgs {
				switch {
				case e.Dir == transcript.Send && m.Method == "notifications/initialized":
					initialized = true
				case e.Dir == transcript.Recv && m.Kind() == wire.KindRequest:
					t.judged()
					if era, _ := p.EraAt(e.Seq); !initialized && m.Method != "ping" && era != wire.EraModern {
						t.violate(At(p, e.Seq), "a %s request before notifications/initialized", clipString(m.Method, 40))
					}
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d server request(s), none before initialized but ping", t.n), noServerRequest(j))
}

// serverLogging reports whether the process completed an initialize whose
// result declared the logging capability, and whether it completed one.
func serverLogging(p *evidence.Process) (logging, initialized bool) {
	for _, x := range p.Exchanges() {
		if res := x.Result(); x.Method == "initialize" && res != nil {
			initialized = true
			if _, ok := wire.Object(res["capabilities"])["logging"]; ok {
				logging = true
			}
		}
	}
	return logging, initialized
}

func checkNegotiatedRequests(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		caps := declared(p)
		logging, initialized := serverLogging(p)
		eachMessage(&J{Processes: []*evidence.Process{p}}, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
			switch {
			case m.Kind() == wire.KindRequest:
				t.judged()
				if c := clientCapabilityOf(m.Method); c != "" && !caps[c] {
					t.violate(At(p, e.Seq), "the server sent %s request, but the client declared no %s capability", article(m.Method), c)
				}
			case m.Method == "notifications/message" && initialized:
				// A log notification uses the server's own logging
				// capability, which it must have declared (LIFE-10, and
				// server/utilities/logging). The 2026-07-28 era has none.
				if era, _ := p.EraAt(e.Seq); era == wire.EraModern {
					return
				}
				t.judged()
				if !logging {
					t.violate(At(p, e.Seq), "the server sent notifications/message, but its initialize result declared no logging capability")
				}
			}
		})
	}
	return t.finding(fmt.Sprintf("%d server request(s) and log notification(s), each within the negotiated capabilities", t.n), noServerRequest(j)+", and no log notification")
}

func checkUnknownClientCaps(j *J) Finding {
	hs := handshakes(j.Run)
	for _, h := range hs {
		if !h.unknown || h.x.Stopped() || h.x.NotSent() {
			continue
		}
		// Judged under the version it landed on; a failed one under the
		// version of its retry without the unknown capabilities, or else
		// the version it offered.
		landing := h.answered
		var retry *handshake
		if landing == "" {
			for i, o := range hs {
				if !o.unknown && o.offered == h.offered && o.answered != "" {
					retry, landing = &hs[i], o.answered
					break
				}
			}
		}
		if landing == "" {
			landing = h.offered
		}
		if landing != j.Version {
			continue
		}
		switch {
		case h.answered != "":
			return passed("initialize succeeded although the client declared capabilities the server cannot know")
		case retry != nil:
			return exchangeFinding(broken(fmt.Sprintf("initialize with unknown client capabilities failed (%s), and the same initialize without them succeeded", shortGot(h.x))), h.x)
		}
		return skipped("initialize failed with and without unknown client capabilities (initialize-completes judges it)")
	}
	return skipped("no initialize under " + j.Version + " declared unknown client capabilities")
}

// serverCapability is a ServerCapabilities member and the versions whose
// schema defines it.
type serverCapability struct{ since, until string }

// serverCapabilities are the members ServerCapabilities defines, each
// from (and, for tasks, until) a version. Any other member is one the
// server defines itself: the set is open, and its value any JSON.
var serverCapabilities = map[string]serverCapability{
	"experimental": {since: wire.V20241105},
	"logging":      {since: wire.V20241105},
	"prompts":      {since: wire.V20241105},
	"resources":    {since: wire.V20241105},
	"tools":        {since: wire.V20241105},
	"completions":  {since: wire.V20250326},
	"tasks":        {since: wire.V20251125, until: wire.V20251125},
	"extensions":   {since: wire.V20260728},
}

func checkCapsShape(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	raw := j.Session.InitResult()["capabilities"]
	caps := wire.Object(raw)
	x := j.Session.Init()
	w := At(x.Process, x.RecvSeq)
	t := &tally{actual: toAny(raw)}
	if caps == nil {
		return skipped("capabilities is not an object (the result shape checks judge it)")
	}
	t.judged()
	flags := map[string][]string{"resources": {"subscribe", "listChanged"}, "prompts": {"listChanged"}, "tools": {"listChanged"}}
	for _, name := range sortedKeys(caps) {
		v := caps[name]
		known, ok := serverCapabilities[name]
		switch {
		case !ok || known.until != "" && j.Version > known.until:
			continue // a capability of the server's own: any value
		case !wire.AtLeast(j.Version, known.since):
			t.record(w, "capabilities.%s exists only from %s; the session negotiated %s (allowed: capability sets are open)", name, known.since, j.Version)
			continue
		case wire.Type(v) != "object":
			t.violate(w, "capabilities.%s is %s, want an object", name, describeType(v))
			continue
		}
		inner := wire.Object(v)
		for _, f := range flags[name] {
			if fv, ok := inner[f]; ok && wire.Type(fv) != "boolean" {
				t.violate(w, "capabilities.%s.%s is %s, want a boolean", name, f, describeType(fv))
			}
		}
		if name == "experimental" {
			for _, k := range sortedKeys(inner) {
				if ev := inner[k]; wire.Type(ev) != "object" {
					t.violate(w, "capabilities.experimental[%q] is %s, want an object", k, describeType(ev))
				}
			}
		}
	}
	return t.finding("every declared capability is an object with boolean flags", "")
}

// eraProbes returns the server/discover exchanges of the run: the era
// probe and the modern sessions' opening ones.
func eraProbes(r *evidence.Run) []*evidence.Exchange {
	var out []*evidence.Exchange
	for _, p := range r.AllProcesses() {
		out = append(out, p.Tagged(evidence.TagEraProbe)...)
	}
	return out
}

func checkDiscoverCompletes(j *J) Finding {
	if j.Session != nil && j.Session.Modern {
		return passed("server/discover lists " + wire.Modern)
	}
	for _, x := range eraProbes(j.Run) {
		if x.Stopped() {
			return harness("not judged: " + x.NoResponse.String())
		}
		if why, ok := timedOut(x); ok && j.Run.SpecVersion == wire.Modern {
			return harness(why)
		}
		res := x.Result()
		var versions []string
		_ = json.Unmarshal(res["supportedVersions"], &versions)
		if slices.Contains(versions, wire.Modern) {
			return passed("server/discover lists " + wire.Modern)
		}
		if j.Run.SpecVersion == wire.Modern {
			return exchangeFinding(broken("server/discover did not list "+wire.Modern), x)
		}
		return skipped("the server does not serve " + wire.Modern + " (" + shortGot(x) + ")")
	}
	if r := j.Run; r.SpecVersion == wire.Modern && r.Fatal != nil {
		if r.Fatal.Stage == "start" {
			return harness(r.Fatal.Message)
		}
		// The server/discover that was to open the session: one the run
		// stopped before it was answered judges nothing.
		for _, p := range r.AllProcesses() {
			for _, x := range p.Tagged(evidence.TagInit) {
				if x.Method != "server/discover" {
					continue
				}
				if x.Stopped() {
					return harness("not judged: " + x.NoResponse.String())
				}
				if why, ok := timedOut(x); ok {
					return harness(why)
				}
				return exchangeFinding(broken(r.Fatal.Message), x)
			}
		}
		if r.Interrupted != "" {
			return harness("not judged: the run was interrupted (" + r.Interrupted + ") before server/discover was sent")
		}
		return broken(r.Fatal.Message)
	}
	return skipped("no server/discover was sent")
}

func checkDiscoverShape(j *J) Finding {
	if j.Session == nil || !j.Session.Modern {
		return skipped("no 2026-07-28 session")
	}
	x := j.Session.Init()
	m := j.Session.InitResult()
	if m == nil {
		return skipped("no server/discover result")
	}
	w := At(x.Process, x.RecvSeq)
	t := &tally{actual: toAny(x.Response.Result)}
	t.judged()
	if v, ok := wire.Array(m["supportedVersions"]); !ok || len(v) == 0 {
		t.violate(w, "supportedVersions is %s, want a non-empty array of strings", describeType(m["supportedVersions"]))
	} else {
		for _, s := range v {
			if _, ok := wire.String(s); !ok {
				t.violate(w, "supportedVersions holds %s", describeType(s))
			}
		}
	}
	if wire.Type(m["capabilities"]) != "object" {
		t.violate(w, "capabilities is %s, want an object", describeType(m["capabilities"]))
	}
	if v, ok := m["instructions"]; ok && wire.Type(v) != "string" {
		t.violate(w, "instructions is %s, want a string", describeType(v))
	}
	cacheHints(t, w, "server/discover", m)
	return t.finding("a well-formed DiscoverResult", "")
}

func checkServerInfoMeta(j *J) Finding {
	t := &tally{}
	modernResults(j, func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage) {
		t.judged()
		si := wire.Object(wire.Object(res["_meta"])[wire.MetaServerInfo])
		switch {
		case si == nil:
			t.violate(At(p, x.RecvSeq), "a %s result whose _meta does not name the server", x.Method)
		default:
			// The field is an Implementation: name and version both.
			for _, k := range []string{"name", "version"} {
				if _, ok := wire.String(si[k]); !ok {
					t.violate(At(p, x.RecvSeq), "a %s result whose serverInfo has no %s string", x.Method, k)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("%d result(s) name the server", t.n), "no result of a 2026-07-28 request")
}

func checkExtensions(j *J) Finding {
	if j.Session == nil || !j.Session.Modern {
		return skipped("no 2026-07-28 session")
	}
	ext, ok := wire.Object(j.Session.Caps().Raw)["extensions"]
	if !ok {
		return skipped("the server declares no extensions")
	}
	x := j.Session.Init()
	w := At(x.Process, x.RecvSeq)
	m := wire.Object(ext)
	if m == nil {
		return Finding{Outcome: Violation, Message: "capabilities.extensions is " + describeType(ext) + ", want an object", Where: w}
	}
	t := &tally{}
	for _, k := range sortedKeys(m) {
		v := m[k]
		t.judged()
		switch {
		case !metaKeyRE.MatchString(k):
			t.violate(w, "extension key %q does not follow the _meta key grammar", clipString(k, 60))
		case !strings.Contains(k, "/"):
			t.violate(w, "extension key %q has no prefix, which extension identifiers must have", clipString(k, 60))
		}
		if wire.Type(v) != "object" {
			t.violate(w, "extension %q is %s, want an object", clipString(k, 60), describeType(v))
		}
	}
	return t.finding(fmt.Sprintf("%d extension(s) are well named", len(m)), "the extensions object is empty")
}

func checkNoLogWithoutLevel(j *J) Finding {
	t := &tally{}
	asked := 0
	eachModernMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		t.judged()
		if m.Method != "notifications/message" {
			return
		}
		switch {
		case wire.SubscriptionID(m) != nil:
			t.violate(At(p, e.Seq), "notifications/message on a subscriptions/listen stream (it carries a subscriptionId), where log messages are never delivered")
		case levelInFlight(p, e.Seq) != nil:
			asked++
		default:
			t.violate(At(p, e.Seq), "notifications/message although no request in flight set io.modelcontextprotocol/logLevel")
		}
	})
	ok := fmt.Sprintf("%d messages, no log notification", t.n)
	if asked > 0 {
		ok = fmt.Sprintf("%d messages; %d log notification(s), each while a request that set io.modelcontextprotocol/logLevel was in flight", t.n, asked)
	}
	return t.finding(ok, "no message of the 2026-07-28 era")
}

// levelInFlight returns a request of the process that set
// io.modelcontextprotocol/logLevel and was in flight at seq (sent before,
// not answered yet), or nil: a log notification may be for that request.
// A listen stream is no such request: logs never go on one.
func levelInFlight(p *evidence.Process, seq int) *evidence.Exchange {
	for _, x := range p.Exchanges() {
		if x.Request == nil || x.SentSeq > seq || x.RecvSeq >= 0 && x.RecvSeq < seq || x.Method == "subscriptions/listen" {
			continue
		}
		if _, ok := wire.Object(wire.Object(x.Request.Params)["_meta"])[wire.MetaLogLevel]; ok {
			return x
		}
	}
	return nil
}

// checkInputRequests judges what input_required results ask of the
// client: nothing of a client capability the request did not declare.
// Their shape is judged by input-required-shape and
// input-required-result-shape.
func checkInputRequests(j *J) Finding {
	t := &tally{}
	modernResults(j, func(p *evidence.Process, x *evidence.Exchange, res map[string]json.RawMessage) {
		if kind, _ := evidence.KindOf(j.Version, x); kind != evidence.ResultInputRequired {
			return
		}
		t.judged()
		w := At(p, x.RecvSeq)
		reqs := wire.Object(res["inputRequests"])
		declaredCaps := wire.Object(wire.Object(wire.Object(x.Request.Params)["_meta"])[wire.MetaClientCapabilities])
		for _, key := range sortedKeys(reqs) {
			method, _ := wire.String(wire.Object(reqs[key])["method"])
			if c := clientCapabilityOf(method); c != "" {
				if _, ok := declaredCaps[c]; !ok {
					t.violate(w, "%s: inputRequests[%q] asks for %s, a client capability the request did not declare", x.Method, key, c)
				}
			}
		}
	})
	return t.finding(fmt.Sprintf("%d input_required result(s) ask only for client capabilities their request declared", t.n), "no result asked for input")
}
