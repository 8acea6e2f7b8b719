package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
)

var onlyModern = []string{Modern}

// modernChecks judge the 2026-07-28 era: no handshake, per-request _meta,
// cache hints on results, listen streams instead of subscribe.
func modernChecks() []*Check {
	return []*Check{
		{
			ID: "discover-result-shape", Requirement: "LIFE-23", Level: "MUST", Area: "lifecycle",
			Spec:        "server/discover",
			Description: "server/discover returns supportedVersions, capabilities and the cache hints resultType, ttlMs and cacheScope",
			Versions:    onlyModern,
			Session:     checkDiscoverShape,
		},
		{
			ID: "result-type-on-every-result", Requirement: "JSONRPC-15", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#result-responses",
			Description: "every result has resultType \"complete\" or \"input_required\"",
			Versions:    onlyModern,
			Run:         func(r *Run) Finding { return scanModernResults(r, resultTypeRule) },
		},
		{
			ID: "server-info-on-every-result", Requirement: "LIFE-26", Level: "SHOULD", Area: "lifecycle",
			Spec:        "basic#meta",
			Description: "every result's _meta names the server (io.modelcontextprotocol/serverInfo)",
			Versions:    onlyModern,
			Run:         func(r *Run) Finding { return scanModernResults(r, serverInfoRule) },
		},
		{
			ID: "extension-keys", Requirement: "LIFE-29", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/versioning#extension-negotiation",
			Description: "capabilities.extensions keys have a prefix and follow the _meta key grammar; values are objects",
			Versions:    onlyModern,
			Session:     checkExtensions,
		},
		{
			ID: "no-log-without-level", Requirement: "LIFE-30", Level: "MUST NOT", Area: "lifecycle",
			Spec:        "server/utilities/logging",
			Description: "no notifications/message for requests that set no log level",
			Versions:    onlyModern,
			Run: func(r *Run) Finding {
				return scanModernMessages(r, func(m *mockclient.Message) (string, bool) {
					if m.Method == "notifications/message" {
						return "notifications/message although no request set io.modelcontextprotocol/logLevel", false
					}
					return "", false
				})
			},
		},
		{
			ID: "no-server-requests", Requirement: "JSONRPC-14", Level: "MUST NOT", Area: "jsonrpc",
			Spec:        "basic/patterns",
			Description: "the server sends no JSON-RPC requests in the 2026-07-28 era",
			Versions:    onlyModern,
			Run:         func(r *Run) Finding { return scanModernMessages(r, serverRequestRule) },
		},
		{
			ID: "stdio-no-server-requests", Requirement: "STDIO-10", Level: "MUST NOT", Area: "stdio",
			Spec:        "basic/transports/stdio#sending-messages",
			Description: "over stdio the server writes responses and notifications only, never requests",
			Versions:    onlyModern,
			Run:         func(r *Run) Finding { return scanModernMessages(r, serverRequestRule) },
		},
		{
			ID: "list-cache-hints", Requirement: "RES-LIST-09", Level: "MUST", Area: "resources",
			Spec:        "server/utilities/caching#cacheable-results",
			Description: "every resources/list page has resultType \"complete\", an integer ttlMs of at least 0 and cacheScope public or private",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkCacheHints(s.Resources.Pages, "resources/list") },
		},
		{
			ID: "templates-cache-hints", Requirement: "RES-TPL-07", Level: "MUST", Area: "templates",
			Spec:        "server/utilities/caching#cacheable-results",
			Description: "every resources/templates/list page carries resultType, ttlMs and cacheScope",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkCacheHints(s.Templates.Pages, "resources/templates/list") },
		},
		{
			ID: "read-cache-hints", Requirement: "RES-READ-14", Level: "MUST", Area: "resources",
			Spec:        "server/utilities/caching#cacheable-results",
			Description: "every complete resources/read result carries resultType, ttlMs and cacheScope",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session: func(s *Session) Finding {
				var xs []*mockclient.Exchange
				for _, rd := range s.Reads {
					xs = append(xs, rd.X)
				}
				return checkCacheHints(xs, "resources/read")
			},
		},
		{
			ID: "pagination-cache-scope", Requirement: "PAG-08", Level: "MUST", Area: "pagination",
			Spec:        "server/utilities/caching#interaction-with-pagination",
			Description: "each page of a list has its own ttlMs, and all pages of one list share one cacheScope",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session:     checkPageScopes,
		},
		{
			ID: "input-required-shape", Requirement: "RES-READ-13", Level: "MAY", Area: "resources",
			Spec:        "basic/patterns/mrtr",
			Description: "an input_required read result has inputRequests or requestState (at least one), and asks only for declared client capabilities",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkInputRequired(s, false) },
		},
		{
			ID: "no-undeclared-client-capabilities", Requirement: "LIFE-25", Level: "MUST NOT", Area: "lifecycle",
			Spec:        "basic#meta",
			Description: "with clientCapabilities {} the server never asks for sampling, elicitation or roots",
			Versions:    onlyModern,
			Session:     func(s *Session) Finding { return checkInputRequired(s, true) },
		},
		{
			ID: "list-stable-across-traffic", Requirement: "RES-CAP-03", Level: "MUST", Area: "resources",
			Spec:        "server/resources#capabilities",
			Description: "resources/list gives the same set after reads, template reads and listen streams (no list_changed in between)",
			Versions:    onlyModern,
			Requires:    []string{"resources"},
			Session:     checkListStable,
		},
		{
			ID: "listen-acknowledged-first", Requirement: "RES-SUB-07", Level: "MUST", Area: "subscriptions",
			Spec:        "basic/patterns/subscriptions#acknowledgment",
			Description: "each listen stream starts with notifications/subscriptions/acknowledged carrying the agreed subset of the filter",
			Versions:    onlyModern,
			Session:     checkListenAck,
		},
		{
			ID: "listen-only-requested-types", Requirement: "RES-SUB-08", Level: "MUST NOT", Area: "subscriptions",
			Spec:        "basic/patterns/subscriptions#opening-a-stream",
			Description: "a stream carries only the notification types it asked for",
			Versions:    onlyModern,
			Session:     checkListenTypes,
		},
		{
			ID: "listen-subscription-id-echo", Requirement: "RES-SUB-09", Level: "MUST", Area: "subscriptions",
			Spec:        "basic/patterns/subscriptions#receiving-notifications",
			Description: "stream notifications carry _meta subscriptionId equal in type and value to the listen request's id",
			Versions:    onlyModern,
			Session:     checkListenIDs,
		},
		{
			ID: "listen-cancel-stops", Requirement: "STDIO-11", Level: "MUST NOT", Area: "subscriptions",
			Spec:        "basic/transports/stdio#cancellation",
			Description: "after notifications/cancelled for a listen id, nothing more comes for that stream",
			Versions:    onlyModern,
			Session:     checkListenCancel,
		},
		{
			ID: "cancelled-only-for-listen", Requirement: "RES-SUB-12", Level: "MUST NOT", Area: "subscriptions",
			Spec:        "basic/patterns/cancellation",
			Description: "the server sends notifications/cancelled only to end a listen stream it has open",
			Versions:    onlyModern,
			Session:     checkServerCancelled,
		},
		{
			ID: "list-changed-only-on-streams", Requirement: "RES-LC-02", Level: "MUST NOT", Area: "subscriptions",
			Spec:        "server/resources#list-changed-notification",
			Description: "notifications/resources/list_changed come only on streams that asked for resourcesListChanged",
			Versions:    onlyModern,
			Session:     checkListChangedStreams,
		},
		{
			ID: "no-stream-messages-before-listen", Requirement: "RES-SUB-11", Level: "MUST", Area: "subscriptions",
			Spec:        "basic/patterns/subscriptions#graceful-closure",
			Description: "a new process sends no stream notifications before a listen request opens a stream",
			Versions:    onlyModern,
			Run:         checkNoStreamBeforeListen,
		},
		{
			ID: "error-code-allocation", Requirement: "ERR-07", Level: "MUST NOT", Area: "errors",
			Spec:        "basic#error-codes",
			Description: "no retired codes (-32002, -32042) and no undefined codes from the spec's range -32020…-32099; the legacy range -32000…-32019 is discouraged",
			Versions:    onlyModern,
			Run:         checkCodeAllocation,
		},
		{
			ID: "no-header-mismatch-on-stdio", Requirement: "ERR-10", Level: "MUST NOT", Area: "errors",
			Spec:        "basic#error-codes",
			Description: "-32020 (HTTP header mismatch) never appears on stdio",
			Versions:    onlyModern,
			Run: func(r *Run) Finding {
				var vs []violation
				n := 0
				modernCodes(r, func(c *mockclient.Client, seq int, method string, code int64) {
					n++
					if code == -32020 {
						vs = append(vs, violation{c, seq, "-32020 answered " + clipString(method, 40) + " on stdio", false})
					}
				})
				return findingOf(vs, "no -32020 on stdio", n)
			},
		},
		{
			ID: "trace-context-format", Requirement: "META-06", Level: "MUST", Area: "meta",
			Spec:        "basic#meta",
			Description: "traceparent, tracestate and baggage in _meta use the W3C formats",
			Versions:    onlyModern,
			Session:     checkTraceContext,
		},
	}
}

// modernClients are the processes judged under 2026-07-28.
func modernClients(r *Run) []*mockclient.Client {
	var out []*mockclient.Client
	for _, c := range r.Clients() {
		if r.ClientVersion(c) == Modern {
			out = append(out, c)
		}
	}
	return out
}

func scanModernMessages(r *Run, rule func(*mockclient.Message) (string, bool)) Finding {
	var vs []violation
	n := 0
	for _, c := range modernClients(r) {
		for _, e := range c.Transcript().Entries() {
			if e.Dir != mockclient.Recv {
				continue
			}
			for _, m := range e.Msgs {
				n++
				if msg, warn := rule(m); msg != "" {
					vs = append(vs, violation{c, e.Seq, msg + ": " + clipString(string(m.Raw), 120), warn})
				}
			}
		}
	}
	return findingOf(vs, "every message complies", n)
}

// scanModernResults applies rule to the results of requests that carried
// the 2026-07-28 envelope (a dual-era server may answer the probes that
// leave it out as legacy traffic).
func scanModernResults(r *Run, rule func(res map[string]json.RawMessage) (string, bool)) Finding {
	var vs []violation
	n := 0
	for _, c := range modernClients(r) {
		enveloped := map[string]bool{}
		for _, e := range c.Transcript().Entries() {
			for _, m := range e.Msgs {
				if e.Dir == mockclient.Send && m.Kind() == mockclient.KindRequest {
					v, _ := str(obj(obj(m.Params)["_meta"])[mockclient.MetaProtocolVersion])
					enveloped[string(m.ID)] = v == Modern
				}
				if e.Dir != mockclient.Recv || m.Kind() != mockclient.KindResponse || !m.Has("result") || !enveloped[string(m.ID)] {
					continue
				}
				res := obj(m.Result)
				if res == nil {
					continue // judged by jsonrpc-result-object
				}
				n++
				if msg, warn := rule(res); msg != "" {
					vs = append(vs, violation{c, e.Seq, msg + ": " + clipString(string(m.Raw), 120), warn})
				}
			}
		}
	}
	return findingOf(vs, "every result complies", n)
}

func resultTypeRule(res map[string]json.RawMessage) (string, bool) {
	rt, ok := str(res["resultType"])
	switch {
	case !ok:
		return "a result without a string resultType", false
	case rt != "complete" && rt != "input_required":
		return fmt.Sprintf("resultType %q, which no advertised extension defines", clipString(rt, 30)), false
	}
	return "", false
}

func serverInfoRule(res map[string]json.RawMessage) (string, bool) {
	si := obj(obj(res["_meta"])[mockclient.MetaServerInfo])
	if si == nil {
		return "a result whose _meta does not name the server", true
	}
	if _, ok := str(si["name"]); !ok {
		return "serverInfo without a name", true
	}
	return "", false
}

func serverRequestRule(m *mockclient.Message) (string, bool) {
	if m.Kind() == mockclient.KindRequest {
		return "a request from the server (" + clipString(m.Method, 40) + ")", false
	}
	return "", false
}

func checkDiscoverShape(s *Session) Finding {
	m := s.InitResult
	p := &problems{actual: toAny(s.Init.Response.Result)}
	if v, ok := arr(m["supportedVersions"]); !ok || len(v) == 0 {
		p.fail("supportedVersions is %s, want a non-empty array of strings", describeType(m["supportedVersions"]))
	} else {
		for _, x := range v {
			if _, ok := str(x); !ok {
				p.fail("supportedVersions holds %s", describeType(x))
			}
		}
	}
	if jtype(m["capabilities"]) != "object" {
		p.fail("capabilities is %s, want an object", describeType(m["capabilities"]))
	}
	if v, ok := m["instructions"]; ok && jtype(v) != "string" {
		p.fail("instructions is %s, want a string", describeType(v))
	}
	cacheHints(p, "server/discover", m)
	if obj(obj(m["_meta"])[mockclient.MetaServerInfo]) == nil {
		p.warn("_meta has no io.modelcontextprotocol/serverInfo")
	}
	return p.finding("a well-formed DiscoverResult")
}

// cacheHints judges resultType, ttlMs and cacheScope of a complete result.
func cacheHints(p *problems, what string, res map[string]json.RawMessage) {
	if rt, _ := str(res["resultType"]); rt != "complete" {
		if rt == "input_required" {
			return
		}
		p.fail("%s: resultType is %s, want \"complete\"", what, describeType(res["resultType"]))
	}
	var ttl int64
	if jtype(res["ttlMs"]) != "integer" || json.Unmarshal(res["ttlMs"], &ttl) != nil || ttl < 0 {
		p.fail("%s: ttlMs is %s, want an integer of at least 0", what, describeType(res["ttlMs"]))
	}
	if cs, _ := str(res["cacheScope"]); cs != "public" && cs != "private" {
		p.fail("%s: cacheScope is %s, want \"public\" or \"private\"", what, describeType(res["cacheScope"]))
	}
}

func checkCacheHints(xs []*mockclient.Exchange, what string) Finding {
	p := &problems{}
	n := 0
	for i, x := range xs {
		if x == nil || x.Response == nil {
			continue
		}
		if res := obj(x.Response.Result); res != nil {
			n++
			cacheHints(p, fmt.Sprintf("%s #%d", what, i+1), res)
		}
	}
	if n == 0 {
		return skip("no " + what + " result to judge")
	}
	return p.finding(fmt.Sprintf("%d %s result(s) carry the cache hints", n, what))
}

func checkPageScopes(s *Session) Finding {
	p := &problems{}
	for _, l := range []ListObs{s.Resources, s.Templates} {
		scopes := map[string]bool{}
		for _, x := range l.Pages {
			if x.Response == nil {
				continue
			}
			res := obj(x.Response.Result)
			if res == nil {
				continue
			}
			if jtype(res["ttlMs"]) != "integer" {
				p.fail("%s: a page without an integer ttlMs", x.Method)
			}
			cs, _ := str(res["cacheScope"])
			scopes[cs] = true
		}
		if len(scopes) > 1 {
			var l []string
			for k := range scopes {
				l = append(l, fmt.Sprintf("%q", k))
			}
			slices.Sort(l)
			p.fail("the pages of one list disagree on cacheScope: %s", strings.Join(l, ", "))
		}
	}
	return p.finding("every page has a ttlMs and each list one cacheScope")
}

var clientCapabilityMethods = map[string]string{
	"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots",
}

func checkInputRequired(s *Session, capsOnly bool) Finding {
	p := &problems{}
	n := 0
	for _, rd := range append(append([]*ReadObs(nil), s.Reads...), s.TemplateReads...) {
		if rd.X.Response == nil {
			continue
		}
		res := obj(rd.X.Response.Result)
		if rt, _ := str(res["resultType"]); rt != "input_required" {
			continue
		}
		n++
		reqs := obj(res["inputRequests"])
		_, hasState := str(res["requestState"])
		if !capsOnly && reqs == nil && !hasState {
			p.fail("reading %q: input_required without inputRequests or requestState", clipString(rd.URI, 60))
		}
		for key, v := range reqs {
			method, _ := str(obj(v)["method"])
			if c, ok := clientCapabilityMethods[method]; ok {
				p.fail("reading %q: inputRequests[%q] asks for %s, a client capability that was not declared", clipString(rd.URI, 60), key, c)
			}
		}
	}
	if n == 0 {
		return skip("no read returned input_required")
	}
	return p.finding(fmt.Sprintf("%d input_required result(s) are well formed", n))
}

func checkListStable(s *Session) Finding {
	if s.ModernObs == nil || s.ModernObs.ListAfter == nil || len(s.Resources.Pages) == 0 {
		return skip("resources/list was not repeated")
	}
	a, okA := resultItems(s.Resources.Pages[0], "resources")
	b, okB := resultItems(s.ModernObs.ListAfter, "resources")
	if !okA || !okB {
		return Finding{Verdict: reports.Fail, Message: "resources/list did not answer both times: " + shortActual(s.ModernObs.ListAfter.Response, s.ModernObs.ListAfter.Err)}
	}
	if len(listChanged(s)) > 0 {
		return skip("the server announced a list change, so the list may differ")
	}
	if a != b {
		return Finding{Verdict: reports.Fail, Message: "resources/list changed as a side effect of other requests, with no list_changed", Expected: toAny(json.RawMessage(a)), Actual: toAny(json.RawMessage(b))}
	}
	return pass("the same first page before and after all other traffic")
}

func listenObs(s *Session) (*ListenObs, string) {
	if s.ModernObs == nil || s.ModernObs.Listen == nil || s.ModernObs.Listen.Streams[0] == nil || s.ModernObs.Listen.Streams[1] == nil {
		return nil, "no listen streams were opened"
	}
	return s.ModernObs.Listen, ""
}

// filterKeys are the members of a SubscriptionFilter that were requested.
func filterKeys(f map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range f {
		out[k] = true
	}
	return out
}

func checkListenAck(s *Session) Finding {
	l, why := listenObs(s)
	if l == nil {
		return Finding{Verdict: reports.Error, Message: why}
	}
	p := &problems{}
	for i, st := range l.Streams {
		notes, resp := st.Messages()
		if len(notes) == 0 {
			if resp != nil && resp.Msg.Has("error") {
				p.fail("listen %s was refused: %s", st.ID, clipJSON(resp.Msg.Error, 120))
			} else {
				p.fail("listen %s: no notifications/subscriptions/acknowledged", st.ID)
			}
			continue
		}
		if notes[0].Msg.Method != "notifications/subscriptions/acknowledged" {
			p.fail("listen %s: the first stream message is %s, not the acknowledgement", st.ID, clipString(notes[0].Msg.Method, 60))
			continue
		}
		ack := obj(obj(notes[0].Msg.Params)["notifications"])
		if ack == nil {
			p.fail("listen %s: the acknowledgement has no notifications filter", st.ID)
			continue
		}
		asked := filterKeys(l.Filters[i])
		for k := range ack {
			if !asked[k] {
				p.fail("listen %s: the acknowledgement grants %q, which was not asked for", st.ID, k)
			}
		}
		if _, ok := ack["resourceSubscriptions"]; ok && !s.Caps.Subscribe {
			p.fail("listen %s: resourceSubscriptions acknowledged, but the server does not declare resources.subscribe", st.ID)
		}
		if _, ok := ack["resourcesListChanged"]; ok && !s.Caps.ListChanged {
			p.fail("listen %s: resourcesListChanged acknowledged, but the server does not declare resources.listChanged", st.ID)
		}
	}
	return p.finding("both streams were acknowledged first, with a subset of their filters")
}

func checkListenTypes(s *Session) Finding {
	l, why := listenObs(s)
	if l == nil {
		return Finding{Verdict: reports.Error, Message: why}
	}
	p := &problems{}
	allowed := []map[string]bool{
		{"notifications/subscriptions/acknowledged": true, "notifications/resources/updated": true},
		{"notifications/subscriptions/acknowledged": true, "notifications/resources/list_changed": true},
	}
	for i, st := range l.Streams {
		notes, _ := st.Messages()
		for _, in := range notes {
			if !allowed[i][in.Msg.Method] {
				p.fail("stream %s (filter %v) carried %s", st.ID, l.Filters[i], clipString(in.Msg.Method, 60))
			}
		}
	}
	return p.finding("each stream carried only what it asked for")
}

func checkListenIDs(s *Session) Finding {
	l, why := listenObs(s)
	if l == nil {
		return Finding{Verdict: reports.Error, Message: why}
	}
	p := &problems{}
	n := 0
	for _, in := range s.Client.Inbound() {
		if in.Seq < l.Streams[0].Seq || in.Msg.Kind() != mockclient.KindNotification {
			continue
		}
		id := mockclient.SubscriptionID(in.Msg)
		if id == nil {
			continue
		}
		n++
		if !l.Streams[0].Belongs(in.Msg) && !l.Streams[1].Belongs(in.Msg) {
			p.fail("%s carries subscriptionId %s, which matches no listen request id in type and value (%s, %s)", clipString(in.Msg.Method, 50), clipJSON(id, 40), l.Streams[0].ID, l.Streams[1].ID)
		}
	}
	if n == 0 {
		return Finding{Verdict: reports.Fail, Message: "no stream notification carried _meta subscriptionId"}
	}
	return p.finding(fmt.Sprintf("%d stream notification(s) echo their listen id exactly", n))
}

func checkListenCancel(s *Session) Finding {
	l, why := listenObs(s)
	if l == nil {
		return Finding{Verdict: reports.Error, Message: why}
	}
	p := &problems{}
	// The cancel notification's own position: what the server wrote after
	// it, it wrote knowing the stream was cancelled.
	cancelAt := l.CancelSeq
	for _, e := range s.Client.Transcript().Slice(l.CancelSeq, -1) {
		if e.Dir == mockclient.Send && len(e.Msgs) == 1 && e.Msgs[0].Method == "notifications/cancelled" {
			cancelAt = e.Seq
			break
		}
	}
	notes, resp := l.Streams[0].Messages()
	for _, in := range notes {
		if in.Seq > cancelAt {
			p.fail("%s for the cancelled stream %s arrived after the cancellation", clipString(in.Msg.Method, 50), l.Streams[0].ID)
		}
	}
	if resp != nil && resp.Seq > cancelAt {
		p.fail("a response to the cancelled listen request %s arrived after the cancellation", l.Streams[0].ID)
	}
	return p.finding("nothing more for the stream after notifications/cancelled")
}

func checkServerCancelled(s *Session) Finding {
	l, _ := listenObs(s)
	p := &problems{}
	n := 0
	for _, in := range s.Client.Inbound() {
		if in.Msg.Method != "notifications/cancelled" {
			continue
		}
		n++
		id := obj(in.Msg.Params)["requestId"]
		if l == nil || (!sameID(id, l.Streams[0].ID) && !sameID(id, l.Streams[1].ID)) {
			p.fail("notifications/cancelled names %s, which is not an open listen stream", clipJSON(id, 40))
		}
	}
	if n == 0 {
		return skip("the server sent no notifications/cancelled")
	}
	return p.finding("every notifications/cancelled ends a listen stream")
}

func sameID(a, b json.RawMessage) bool {
	return a != nil && b != nil && strings.TrimSpace(string(a)) == strings.TrimSpace(string(b))
}

func checkListChangedStreams(s *Session) Finding {
	l, _ := listenObs(s)
	p := &problems{}
	lc := listChanged(s)
	for _, in := range lc {
		if l == nil || !l.Streams[1].Belongs(in.Msg) {
			p.fail("notifications/resources/list_changed outside a stream that asked for resourcesListChanged")
		}
	}
	return p.finding(fmt.Sprintf("%d list_changed notification(s), each on a stream that asked", len(lc)))
}

func checkNoStreamBeforeListen(r *Run) Finding {
	var vs []violation
	n := 0
	for _, c := range modernClients(r) {
		listened := false
		for _, e := range c.Transcript().Entries() {
			for _, m := range e.Msgs {
				if e.Dir == mockclient.Send && m.Method == "subscriptions/listen" {
					listened = true
				}
				if e.Dir == mockclient.Recv && m.Kind() == mockclient.KindNotification {
					n++
					if !listened && mockclient.SubscriptionID(m) != nil {
						vs = append(vs, violation{c, e.Seq, "a stream notification (" + clipString(m.Method, 40) + ") before any listen request in this process", false})
					}
				}
			}
		}
	}
	return findingOf(vs, "no stream notifications before a listen", n)
}

// modernCodes yields the error codes of every 2026-07-28 process.
func modernCodes(r *Run, yield func(c *mockclient.Client, seq int, method string, code int64)) {
	for _, c := range modernClients(r) {
		codesOf(c, func(seq int, method string, code int64) { yield(c, seq, method, code) })
	}
}

func checkCodeAllocation(r *Run) Finding {
	var vs []violation
	n := 0
	modernCodes(r, func(c *mockclient.Client, seq int, method string, code int64) {
		n++
		switch {
		case code == -32002 || code == -32042:
			vs = append(vs, violation{c, seq, fmt.Sprintf("the retired code %d answered %s", code, clipString(method, 40)), false})
		case code <= -32020 && code >= -32099 && code != -32021 && code != -32022 && code != -32020:
			vs = append(vs, violation{c, seq, fmt.Sprintf("%d, from the range the spec keeps for itself, answered %s", code, clipString(method, 40)), false})
		case code <= -32000 && code >= -32019:
			vs = append(vs, violation{c, seq, fmt.Sprintf("%d, from the legacy implementation-defined range, answered %s", code, clipString(method, 40)), true})
		}
	})
	return findingOf(vs, "every error code is allocated correctly", n)
}

var (
	traceparentRE = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	tracestateRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}(\s*,\s*[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255})*$`)
	baggageRE     = regexp.MustCompile(`^[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?(\s*,\s*[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*[^,;\s]*(\s*;[^,]*)?)*$`)
)

func checkTraceContext(s *Session) Finding {
	p := &problems{}
	n := 0
	metaObjects(s, func(where string, v json.RawMessage) {
		for k, val := range obj(v) {
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
			n++
			if t, ok := str(val); !ok || !re.MatchString(t) {
				p.fail("%s: %s %s is not in the W3C format", where, k, clipJSON(val, 80))
			}
		}
	})
	if n == 0 {
		return skip("the server sent no trace context")
	}
	return p.finding(fmt.Sprintf("%d trace context value(s) are well formed", n))
}

func checkExtensions(s *Session) Finding {
	ext, ok := obj(s.Caps.Raw)["extensions"]
	if !ok {
		return skip("the server declares no extensions")
	}
	m := obj(ext)
	if m == nil {
		return Finding{Verdict: reports.Fail, Message: "capabilities.extensions is " + describeType(ext) + ", want an object"}
	}
	p := &problems{}
	for k, v := range m {
		if !strings.Contains(k, "/") || !metaKeyRE.MatchString(k) {
			p.fail("extension key %q needs a prefix and must follow the _meta key grammar", clipString(k, 60))
		}
		if jtype(v) != "object" {
			p.fail("extension %q is %s, want an object", clipString(k, 60), describeType(v))
		}
	}
	return p.finding(fmt.Sprintf("%d extension(s) are well named", len(m)))
}
