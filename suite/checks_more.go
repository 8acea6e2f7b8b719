package suite

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
)

func moreChecks() []*Check {
	return []*Check{
		{
			ID: "initialize-unknown-client-capabilities", Requirement: "LIFE-13", Level: "schema", Area: "lifecycle",
			Spec:        "basic/lifecycle#capability-negotiation",
			Description: "initialize succeeds when the client declares capabilities the server does not know",
			Versions:    LegacyVersions,
			Run:         checkUnknownClientCaps,
		},
		{
			ID: "batch-accepted", Requirement: "JSONRPC-11", Level: "MUST", Area: "jsonrpc",
			Spec:        "basic#batching",
			Description: "in a 2025-03-26 session, a batch line of two requests and a notification gets one array with the two responses",
			Flags:       []string{"disputed", "sdk-divergence"},
			Versions:    []string{"2025-03-26"},
			Session:     checkBatch,
		},
		{
			ID: "pagination-params-optional", Requirement: "PAG-09", Level: "schema", Area: "pagination",
			Spec:        "server/utilities/pagination",
			Description: "resources/list without params and with params {} return the same first page",
			Requires:    []string{"resources"},
			Session:     checkParamsOptional,
		},
		{
			ID: "pagination-cursor-stable", Requirement: "PAG-04", Level: "SHOULD", Area: "pagination",
			Spec:        "server/utilities/pagination#implementation-guidelines",
			Description: "asking again with the same cursor returns the same page",
			Requires:    []string{"resources"},
			Session:     checkCursorStable,
		},
		{
			ID: "annotations-audience", Requirement: "RES-ANN-01", Level: "schema", Area: "resources",
			Spec:        "server/resources#annotations",
			Description: "annotations.audience is an array of \"user\" and \"assistant\"",
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkAnnotations(s, "audience") },
		},
		{
			ID: "annotations-priority", Requirement: "RES-ANN-02", Level: "schema", Area: "resources",
			Spec:        "server/resources#annotations",
			Description: "annotations.priority is a number from 0 to 1",
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkAnnotations(s, "priority") },
		},
		{
			ID: "annotations-last-modified", Requirement: "RES-ANN-03", Level: "schema", Area: "resources",
			Spec:        "server/resources#annotations",
			Description: "annotations.lastModified is an ISO 8601 timestamp string",
			Versions:    since("2025-06-18"),
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkAnnotations(s, "lastModified") },
		},
		{
			ID: "icons-shape", Requirement: "RES-ICON-01", Level: "schema", Area: "resources",
			Spec:        "basic#icons",
			Description: "icons on resources, templates and serverInfo have a src string and well-typed mimeType, sizes and theme",
			Versions:    since("2025-11-25"),
			Session:     func(s *Session) Finding { return checkIcons(s, false) },
		},
		{
			ID: "icons-safe-scheme", Requirement: "RES-ICON-02", Level: "SHOULD", Area: "resources",
			Spec:        "basic#icons",
			Description: "icon sources use https: or data: URIs, the only schemes clients accept",
			Versions:    since("2025-11-25"),
			Session:     func(s *Session) Finding { return checkIcons(s, true) },
		},
		{
			ID: "resources-size-matches", Requirement: "RES-LIST-08", Level: "schema", Area: "resources",
			Spec:        "server/resources#resource",
			Description: "a listed size equals the bytes a read returns (decoded blob, or UTF-8 text)",
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Session:     checkSizes,
		},
		{
			ID: "resources-text-is-text", Requirement: "RES-READ-04", Level: "schema", Area: "resources",
			Spec:        "server/resources#text-content",
			Description: "text contents are really text: not an image or octet-stream type, no NUL or replacement characters",
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Session:     checkTextIsText,
		},
		{
			ID: "meta-object", Requirement: "META-07", Level: "schema", Area: "meta",
			Spec:        "basic#meta",
			Description: "every _meta the server sends is an object",
			Session:     func(s *Session) Finding { return checkMeta(s, "object") },
		},
		{
			ID: "meta-key-format", Requirement: "META-02", Level: "MUST", Area: "meta",
			Spec:        "basic#meta",
			Description: "every _meta key is an optional reverse-DNS prefix and a name in the spec's grammar",
			Versions:    since("2025-06-18"),
			Session:     func(s *Session) Finding { return checkMeta(s, "format") },
		},
		{
			ID: "meta-reserved-prefix", Requirement: "META-03", Level: "SHOULD NOT", Area: "meta",
			Spec:        "basic#meta",
			Description: "no _meta key uses a prefix reserved for the spec unless the spec defines it",
			Versions:    since("2025-06-18"),
			Session:     func(s *Session) Finding { return checkMeta(s, "reserved") },
		},
		{
			ID: "contents-meta-object", Requirement: "RES-READ-15", Level: "schema", Area: "resources",
			Spec:        "server/resources#reading-resources",
			Description: "_meta on contents items is an object",
			Versions:    since("2025-06-18"),
			Requires:    []string{"resources"},
			Session:     checkContentsMeta,
		},
		{
			ID: "resources-subscribe-result", Requirement: "RES-SUB-01", Level: "schema", Area: "subscriptions",
			Spec:        "server/resources#subscriptions",
			Description: "resources/subscribe to a listed resource succeeds with an empty result",
			Versions:    LegacyVersions,
			Requires:    []string{"resources.subscribe"},
			Session:     func(s *Session) Finding { return checkSubResult(s, true) },
		},
		{
			ID: "resources-unsubscribe-result", Requirement: "RES-SUB-02", Level: "schema", Area: "subscriptions",
			Spec:        "server/resources#subscriptions",
			Description: "resources/unsubscribe after a subscribe succeeds with an empty result",
			Versions:    LegacyVersions,
			Requires:    []string{"resources.subscribe"},
			Session:     func(s *Session) Finding { return checkSubResult(s, false) },
		},
		{
			ID: "resources-updated-only-while-subscribed", Requirement: "RES-SUB-03", Level: "schema", Area: "subscriptions",
			Spec:        "server/resources#subscriptions",
			Description: "notifications/resources/updated carry a uri and stop after unsubscribe",
			Versions:    LegacyVersions,
			Session:     checkUpdatesAfterUnsubscribe,
		},
		{
			ID: "resources-updated-needs-subscription", Requirement: "RES-SUB-04", Level: "MUST", Area: "subscriptions",
			Spec:        "basic/lifecycle#operation",
			Description: "no notifications/resources/updated without the subscribe capability and a subscription to that URI",
			Versions:    LegacyVersions,
			Session:     checkUpdatesNeedSubscription,
		},
		{
			ID: "list-changed-only-if-declared", Requirement: "RES-LC-02", Level: "MUST", Area: "subscriptions",
			Spec:        "basic/lifecycle#operation",
			Description: "no notifications/resources/list_changed unless listChanged is declared",
			Versions:    LegacyVersions,
			Session:     checkListChangedDeclared,
		},
		{
			ID: "list-changed-params", Requirement: "RES-LC-03", Level: "schema", Area: "subscriptions",
			Spec:        "server/resources#list-changed-notification",
			Description: "notifications/resources/list_changed has no params, or params holding only _meta",
			Session:     checkListChangedParams,
		},
	}
}

func checkUnknownClientCaps(r *Run) Finding {
	for _, n := range r.Negotiation {
		if !n.ExtraCapabilities {
			continue
		}
		s := n.Session
		switch {
		case s.Client == nil:
			return Finding{Verdict: reports.Error, Message: "the probe process did not start: " + s.InitErr}
		case s.InitErr != "":
			f := Finding{Verdict: reports.Fail, Message: "initialize with unknown client capabilities failed: " + s.InitErr, Client: s.Client, From: 0, To: -1}
			if s.Init != nil && s.Init.Response != nil {
				f.Actual = toAny(s.Init.Response.Raw)
			}
			return f
		}
		return pass("initialize succeeded although the client declared capabilities the server cannot know")
	}
	return Finding{Verdict: reports.Error, Message: "no probe with unknown capabilities was run"}
}

func resultItems(x *mockclient.Exchange, member string) (string, bool) {
	if x == nil || x.Response == nil || !x.Response.Has("result") {
		return "", false
	}
	res := obj(x.Response.Result)
	if res == nil {
		return "", false
	}
	var v any
	_ = json.Unmarshal(res[member], &v)
	b, _ := json.Marshal(v)
	return string(b), true
}

func checkParamsOptional(s *Session) Finding {
	if s.ListNoParams == nil || len(s.Resources.Pages) == 0 {
		return skip("resources/list was not called")
	}
	a, okA := resultItems(s.Resources.Pages[0], "resources")
	b, okB := resultItems(s.ListNoParams, "resources")
	switch {
	case !okA && !okB:
		return skip("resources/list does not succeed either way")
	case okA != okB:
		which := "with params {}"
		if !okA {
			which = "without params"
		}
		return Finding{Verdict: reports.Fail, Message: "resources/list fails " + which + " but not the other way; params are optional in list requests",
			Actual: map[string]any{"withoutParams": describe(s.Resources.Pages[0].Response, s.Resources.Pages[0].Err), "withEmptyParams": describe(s.ListNoParams.Response, s.ListNoParams.Err)}}
	case a != b:
		return Finding{Verdict: reports.Fail, Message: "resources/list returns a different first page with params {} than without params",
			Expected: toAny(json.RawMessage(a)), Actual: toAny(json.RawMessage(b))}
	}
	return pass("the same first page either way")
}

func checkCursorStable(s *Session) Finding {
	if s.CursorRepeat == nil {
		return skip("resources/list has a single page, so there is no cursor to repeat")
	}
	a, okA := resultItems(s.Resources.Pages[1], "resources")
	b, okB := resultItems(s.CursorRepeat, "resources")
	if !okA || !okB {
		return Finding{Verdict: reports.Warn, Message: "repeating the cursor of page 2 did not give a result: " + shortActual(s.CursorRepeat.Response, s.CursorRepeat.Err)}
	}
	if a != b {
		return Finding{Verdict: reports.Warn, Message: "the same cursor gave a different page the second time (no list_changed in between)",
			Expected: toAny(json.RawMessage(a)), Actual: toAny(json.RawMessage(b))}
	}
	return pass("the cursor of page 2 gives the same page again")
}

// annotated yields every annotations object on listed resources and templates.
func annotated(s *Session, yield func(where string, ann map[string]json.RawMessage)) {
	for _, l := range []struct {
		kind string
		obs  ListObs
		key  string
	}{{"resource", s.Resources, "uri"}, {"template", s.Templates, "uriTemplate"}} {
		for i, m := range itemsOf(l.obs) {
			if m == nil {
				continue
			}
			if a := obj(m["annotations"]); a != nil {
				yield(l.kind+" "+label(m, i, l.key), a)
			}
		}
	}
}

func checkAnnotations(s *Session, field string) Finding {
	p := &problems{}
	n := 0
	annotated(s, func(where string, ann map[string]json.RawMessage) {
		v, ok := ann[field]
		if !ok {
			return
		}
		n++
		switch field {
		case "audience":
			items, ok := arr(v)
			if !ok {
				p.fail("%s: audience is %s, want an array", where, describeType(v))
				return
			}
			for _, it := range items {
				if a, _ := str(it); a != "user" && a != "assistant" {
					p.fail("%s: audience holds %s, want \"user\" or \"assistant\"", where, clipJSON(it, 40))
				}
			}
		case "priority":
			var f float64
			if t := jtype(v); (t != "number" && t != "integer") || json.Unmarshal(v, &f) != nil {
				p.fail("%s: priority is %s, want a number", where, describeType(v))
			} else if f < 0 || f > 1 {
				p.fail("%s: priority %s is outside [0, 1]", where, string(v))
			}
		case "lastModified":
			ts, ok := str(v)
			if !ok {
				p.fail("%s: lastModified is %s, want a string", where, describeType(v))
			} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				p.warn("%s: lastModified %q is not an ISO 8601 (RFC 3339) timestamp", where, clipString(ts, 40))
			}
		}
	})
	if n == 0 {
		return skip("no listed resource or template has annotations." + field)
	}
	return p.finding(fmt.Sprintf("%d annotations.%s value(s) are valid", n, field))
}

var iconSize = regexp.MustCompile(`^(any|[0-9]+x[0-9]+)$`)

func checkIcons(s *Session, schemes bool) Finding {
	p := &problems{}
	n := 0
	visit := func(where string, raw json.RawMessage) {
		icons, ok := arr(raw)
		if !ok {
			return // the field type is judged by the list checks
		}
		for j, ic := range icons {
			n++
			w := fmt.Sprintf("%s icons[%d]", where, j)
			m := obj(ic)
			if m == nil {
				if !schemes {
					p.fail("%s is not an object", w)
				}
				continue
			}
			src, ok := str(m["src"])
			if schemes {
				if ok {
					scheme, _, _ := strings.Cut(src, ":")
					switch strings.ToLower(scheme) {
					case "https":
					case "data":
						if !strings.Contains(src, ",") {
							p.warn("%s: malformed data: URI", w)
						}
					default:
						p.warn("%s: src scheme %q; clients must reject anything but https: and data:, so the icon will not show", w, clipString(scheme, 20))
					}
				}
				continue
			}
			if !ok {
				p.fail("%s: src is %s, want a string", w, describeType(m["src"]))
			}
			if v, has := m["mimeType"]; has && jtype(v) != "string" {
				p.fail("%s: mimeType is %s, want a string", w, describeType(v))
			}
			if v, has := m["sizes"]; has {
				sizes, ok := arr(v)
				if !ok {
					p.fail("%s: sizes is %s, want an array of strings", w, describeType(v))
				}
				for _, sz := range sizes {
					if t, _ := str(sz); !iconSize.MatchString(t) {
						p.fail("%s: size %s is not \"WxH\" or \"any\"", w, clipJSON(sz, 30))
					}
				}
			}
			if v, has := m["theme"]; has {
				if t, _ := str(v); t != "light" && t != "dark" {
					p.fail("%s: theme is %s, want \"light\" or \"dark\"", w, clipJSON(v, 30))
				}
			}
		}
	}
	if si := obj(s.InitResult["serverInfo"]); si != nil {
		visit("serverInfo", si["icons"])
	}
	for i, m := range itemsOf(s.Resources) {
		if m != nil {
			visit("resource "+label(m, i, "uri"), m["icons"])
		}
	}
	for i, m := range itemsOf(s.Templates) {
		if m != nil {
			visit("template "+label(m, i, "uriTemplate"), m["icons"])
		}
	}
	if n == 0 {
		return skip("the server sends no icons")
	}
	return p.finding(fmt.Sprintf("%d icon(s) are valid", n))
}

func checkSizes(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, rd := range s.Reads {
		m := obj(rd.Resource)
		var size int64
		if m == nil || jtype(m["size"]) != "integer" || json.Unmarshal(m["size"], &size) != nil {
			continue
		}
		items, prob := contentsOf(rd)
		if prob != "" || len(items) != 1 || items[0] == nil {
			continue
		}
		var got int64 = -1
		if t, ok := str(items[0]["text"]); ok {
			got = int64(len(t)) // UTF-8 bytes, not code points (edge case E-28)
		} else if b, ok := str(items[0]["blob"]); ok {
			if dec, err := base64.StdEncoding.DecodeString(b); err == nil {
				got = int64(len(dec))
			}
		}
		if got < 0 {
			continue
		}
		n++
		if got != size {
			p.warn("%q lists size %d, but a read returns %d bytes", clipString(rd.URI, 60), size, got)
		}
	}
	if n == 0 {
		return skip("no listed resource gives a size that a single-item read can confirm")
	}
	return p.finding(fmt.Sprintf("%d size(s) match what a read returns", n))
}

func checkTextIsText(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, rd := range s.Reads {
		items, _ := contentsOf(rd)
		for j, m := range items {
			t, ok := str(m["text"])
			if !ok {
				continue
			}
			n++
			where := fmt.Sprintf("reading %q: contents[%d]", clipString(rd.URI, 60), j)
			mt, _ := str(m["mimeType"])
			switch {
			case strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/") || mt == "application/octet-stream":
				p.warn("%s: binary type %s sent as text; use blob", where, mt)
			case strings.ContainsRune(t, 0):
				p.warn("%s: text holds NUL characters; binary data belongs in blob", where)
			case strings.ContainsRune(t, utf8.RuneError):
				p.warn("%s: text holds U+FFFD replacement characters (binary decoded as text?)", where)
			}
		}
	}
	if n == 0 {
		return skip("no listed resource returned text")
	}
	return p.finding(fmt.Sprintf("%d text item(s) look like text", n))
}

var (
	metaLabel  = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	metaKeyRE  = regexp.MustCompile(`^(?:` + metaLabel + `(?:\.` + metaLabel + `)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
	metaSkipIn = map[string]bool{"notifications/initialized": true}
)

// metaObjects yields every _meta member in the messages the server sent in
// the session, with a path for messages.
func metaObjects(s *Session, yield func(where string, v json.RawMessage)) {
	var walk func(path string, raw json.RawMessage)
	walk = func(path string, raw json.RawMessage) {
		switch jtype(raw) {
		case "object":
			for k, v := range obj(raw) {
				if k == "_meta" {
					yield(path+"._meta", v)
					continue
				}
				walk(path+"."+k, v)
			}
		case "array":
			items, _ := arr(raw)
			for i, it := range items {
				walk(fmt.Sprintf("%s[%d]", path, i), it)
			}
		}
	}
	for _, e := range s.Client.Transcript().Entries() {
		if e.Dir != mockclient.Recv {
			continue
		}
		for _, m := range e.Msgs {
			if metaSkipIn[m.Method] {
				continue
			}
			name := m.Method
			if name == "" {
				name = "response " + clipJSON(m.ID, 20)
			}
			for _, member := range []string{"result", "params"} {
				if v, ok := m.Members[member]; ok {
					walk(name+" "+member, v)
				}
			}
		}
	}
}

// reservedPrefix reports whether a _meta prefix is reserved for the spec
// under the negotiated version's rule (catalogue META-03, A-22).
func reservedPrefix(prefix, version string) bool {
	labels := strings.Split(prefix, ".")
	isMCP := func(l string) bool { l = strings.ToLower(l); return l == "modelcontextprotocol" || l == "mcp" }
	if atLeast(version, "2025-11-25") {
		return len(labels) >= 2 && isMCP(labels[1])
	}
	for i := 0; i+1 < len(labels); i++ {
		if isMCP(labels[i]) {
			return true
		}
	}
	return false
}

func checkMeta(s *Session, rule string) Finding {
	p := &problems{}
	n := 0
	metaObjects(s, func(where string, v json.RawMessage) {
		n++
		if rule == "object" {
			if jtype(v) != "object" {
				p.fail("%s is %s, want an object", where, describeType(v))
			}
			return
		}
		for k := range obj(v) {
			switch rule {
			case "format":
				if !metaKeyRE.MatchString(k) {
					p.fail("%s: key %q does not fit the _meta key grammar", where, clipString(k, 60))
				}
			case "reverse-dns":
				if prefix, _, ok := strings.Cut(k, "/"); ok && looksForwardDNS(prefix) {
					p.warn("%s: key %q: the prefix looks like a domain written forwards; use reverse DNS", where, clipString(k, 60))
				}
			case "reserved":
				if prefix, _, ok := strings.Cut(k, "/"); ok && reservedPrefix(prefix, s.Version()) && !definedMetaKeys[s.Version()][k] {
					p.warn("%s: key %q uses a prefix reserved for the spec, which defines no such key in %s", where, clipString(k, 60), s.Version())
				}
			}
		}
	})
	if n == 0 {
		return skip("the server sent no _meta")
	}
	return p.finding(fmt.Sprintf("%d _meta object(s) comply", n))
}

func checkContentsMeta(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, rd := range s.Reads {
		items, _ := contentsOf(rd)
		for j, m := range items {
			if v, ok := m["_meta"]; ok {
				n++
				if jtype(v) != "object" {
					p.fail("reading %q: contents[%d]._meta is %s, want an object", clipString(rd.URI, 60), j, describeType(v))
				}
			}
		}
	}
	if n == 0 {
		return skip("no contents item carries _meta")
	}
	return p.finding(fmt.Sprintf("%d contents _meta object(s) are objects", n))
}

func checkSubResult(s *Session, subscribe bool) Finding {
	if s.Sub == nil {
		return skip("the server lists no resource to subscribe to")
	}
	x, name := s.Sub.Subscribe, "resources/subscribe"
	if !subscribe {
		x, name = s.Sub.Unsubscribe, "resources/unsubscribe"
	}
	f := Finding{Actual: describe(x.Response, x.Err), Expected: map[string]any{"result": map[string]any{"$onlyKeys": []string{"_meta"}}}}
	switch {
	case x.Err != nil:
		f.Verdict, f.Message = reports.Fail, fmt.Sprintf("%s %q: %v", name, clipString(s.Sub.URI, 60), x.Err)
	case !x.Response.Has("result"):
		f.Verdict, f.Message = reports.Fail, fmt.Sprintf("%s %q failed although subscribe is declared: %s", name, clipString(s.Sub.URI, 60), clipJSON(x.Response.Error, 160))
	default:
		res := obj(x.Response.Result)
		for k := range res {
			if k != "_meta" {
				f.Verdict, f.Message = reports.Fail, fmt.Sprintf("%s result has the member %q; the result is empty", name, k)
				return f
			}
		}
		if res == nil {
			f.Verdict, f.Message = reports.Fail, name+" result is not an object"
			return f
		}
		f.Verdict, f.Message = reports.Pass, name+" returned an empty result"
	}
	return f
}

// updates returns the notifications/resources/updated the session received.
func updates(s *Session) []*mockclient.Inbound {
	var out []*mockclient.Inbound
	for _, in := range s.Client.Inbound() {
		if in.Msg.Method == "notifications/resources/updated" {
			out = append(out, in)
		}
	}
	return out
}

func updatedURI(m *mockclient.Message) (string, bool) {
	return str(obj(m.Params)["uri"])
}

// underURI reports whether u is uri or below it (a sub-resource, A-14).
func underURI(u, uri string) bool {
	return u == uri || strings.HasPrefix(u, strings.TrimSuffix(uri, "/")+"/")
}

func checkUpdatesAfterUnsubscribe(s *Session) Finding {
	ups := updates(s)
	if len(ups) == 0 {
		return skip("the server sent no notifications/resources/updated (no way to trigger a change is known)")
	}
	p := &problems{}
	for _, in := range ups {
		u, ok := updatedURI(in.Msg)
		if !ok {
			p.fail("notifications/resources/updated without a string params.uri: %s", clipJSON(in.Msg.Raw, 120))
			continue
		}
		if s.Sub != nil && underURI(u, s.Sub.URI) && in.Seq > s.Sub.UnsubscribedSeq {
			p.warn("an update for %q arrived after unsubscribe", clipString(u, 60))
		}
	}
	return p.finding(fmt.Sprintf("%d update(s), each with a uri and none after unsubscribe", len(ups)))
}

func checkUpdatesNeedSubscription(s *Session) Finding {
	p := &problems{}
	ups := updates(s)
	for _, in := range ups {
		u, _ := updatedURI(in.Msg)
		switch {
		case !s.Caps.Subscribe:
			p.fail("an update for %q, but the server does not declare resources.subscribe", clipString(u, 60))
		case s.Sub == nil || !underURI(u, s.Sub.URI) || (s.Sub.Subscribe != nil && in.Seq < s.Sub.Subscribe.SentSeq):
			p.fail("an update for %q, which the client never subscribed to", clipString(u, 60))
		}
	}
	if !atLeast(s.Version(), "2025-06-18") {
		p.warns, p.fails = append(p.warns, p.fails...), nil
	}
	return p.finding(fmt.Sprintf("%d update(s), all for subscribed URIs", len(ups)))
}

func listChanged(s *Session) []*mockclient.Inbound {
	var out []*mockclient.Inbound
	for _, in := range s.Client.Inbound() {
		if in.Msg.Method == "notifications/resources/list_changed" {
			out = append(out, in)
		}
	}
	return out
}

func checkListChangedDeclared(s *Session) Finding {
	lc := listChanged(s)
	if len(lc) > 0 && !s.Caps.ListChanged {
		f := Finding{Verdict: reports.Fail, Message: fmt.Sprintf("%d notifications/resources/list_changed, but the server does not declare resources.listChanged", len(lc)), Client: s.Client, From: lc[0].Seq - 2, To: lc[0].Seq + 1}
		if !atLeast(s.Version(), "2025-06-18") {
			f.Verdict = reports.Warn
		}
		return f
	}
	return pass(fmt.Sprintf("%d list_changed notification(s), listChanged declared: %v", len(lc), s.Caps.ListChanged))
}

func checkListChangedParams(s *Session) Finding {
	lc := listChanged(s)
	if len(lc) == 0 {
		return skip("the server sent no notifications/resources/list_changed")
	}
	p := &problems{}
	for _, in := range lc {
		if !in.Msg.Has("params") {
			continue
		}
		m := obj(in.Msg.Params)
		if m == nil {
			p.fail("params is %s, want an object", describeType(in.Msg.Params))
			continue
		}
		for k := range m {
			if k != "_meta" {
				p.fail("params has %q; only _meta is allowed", k)
			}
		}
	}
	return p.finding("params absent or holding only _meta")
}

func checkBatch(s *Session) Finding {
	b := s.Batch
	if b == nil {
		return Finding{Verdict: reports.Error, Message: "the batch probe did not run"}
	}
	// No SDK implements stdio batches (catalogue A-19): every shortfall is a warning.
	var got []any
	for _, e := range b.Replies {
		got = append(got, string(e.Data))
	}
	f := Finding{Verdict: reports.Warn, Actual: got, Expected: "one JSON array holding the responses to " + strings.Join(b.Sent, " and ")}
	switch {
	case len(b.Replies) == 0:
		f.Message = "no answer to a batch line (2025-03-26 requires batches to be accepted; no SDK does it on stdio)"
	case len(b.Replies) > 1 || !b.Replies[0].Batch:
		f.Message = "the batch was answered with separate messages, not one array"
	default:
		ids := map[string]bool{}
		for _, m := range b.Replies[0].Msgs {
			id, _ := str(m.ID)
			ids[id] = true
		}
		if len(b.Replies[0].Msgs) != len(b.Sent) || !ids[b.Sent[0]] || !ids[b.Sent[1]] {
			f.Message = fmt.Sprintf("the answer array holds %d message(s), want exactly the %d responses", len(b.Replies[0].Msgs), len(b.Sent))
		} else {
			return pass("one array with both responses, nothing for the notification")
		}
	}
	return f
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

// definedMetaKeys are the reserved-prefix keys a version defines itself.
var definedMetaKeys = map[string]map[string]bool{
	Modern: {
		"io.modelcontextprotocol/protocolVersion": true, "io.modelcontextprotocol/clientInfo": true,
		"io.modelcontextprotocol/clientCapabilities": true, "io.modelcontextprotocol/logLevel": true,
		"io.modelcontextprotocol/subscriptionId": true, "io.modelcontextprotocol/serverInfo": true,
	},
}
