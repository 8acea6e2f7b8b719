package mockserver

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// startVariants prepares what the variants keep before the first line.
func (s *server) startVariants() {
	s.started = time.Now()
	if s.variants.has("time-varying-resource") {
		s.setChanging(0)
	}
	if s.variants.has("stderr-chatter") {
		fmt.Fprintf(s.errOut, "%s mockserver: serving MCP on stdio\n", s.started.UTC().Format(time.RFC3339Nano))
	}
}

// beforeResponse queues what the notification variants send ahead of the
// response to a request: progress for its token, a log message, updates
// for what is subscribed, and a ping of the server's own.
func (s *server) beforeResponse(msg *incoming) {
	if msg.id == nil {
		return
	}
	if token, ok := requestMeta(msg.params)["progressToken"]; ok && s.variants.has("progress-notifications") && wire.IsIDLiteral(token) {
		for _, p := range []float64{0.5, 1} {
			params := object{"progressToken": token, "progress": s.fraction(p), "total": s.fraction(1)}
			if s.servingVersion() >= "2025-03-26" || s.modernTraffic(msg) {
				params["message"] = fmt.Sprintf("%s is %d%% done.", short(msg.method), int(p*100))
			}
			s.pre = append(s.pre, &outMsg{kind: kindNotification, method: "notifications/progress", params: s.dressParams(params)})
		}
	}
	if s.modernTraffic(msg) && msg.method != "subscriptions/listen" && s.cat.fx.Capabilities.Logging != nil {
		// A request that asks for logs at a level gets one, at that level
		// (LOG-05; the logging page allows messages "at or above the
		// requested level" before the response).
		var level string
		if raw, ok := requestMeta(msg.params)[metaLogLevel]; ok && json.Unmarshal(raw, &level) == nil && slices.Contains(logLevels, level) {
			if s.faults.has("log-level-meta-ignored") {
				level = "debug"
			}
			s.pre = append(s.pre, &outMsg{kind: kindNotification, method: "notifications/message",
				params: s.dressParams(object{"level": level, "logger": "mockserver", "data": "answering " + short(msg.method)})})
		}
	}
	legacyReady := s.clientReady && !s.modernTraffic(msg)
	if legacyReady && s.logLevel != "" && s.faults.has("set-level-ignored") {
		s.pre = append(s.pre, &outMsg{kind: kindNotification, method: "notifications/message",
			params: object{"level": "debug", "logger": "mockserver", "data": "answering " + short(msg.method)}})
	}
	if legacyReady && s.variants.has("log-notifications") {
		level := cmp.Or(s.logLevel, "info")
		s.pre = append(s.pre, &outMsg{kind: kindNotification, method: "notifications/message",
			params: s.dressParams(object{"level": level, "logger": "mockserver", "data": "answering " + short(msg.method)})})
	}
	if s.variants.has("updated-notifications") {
		s.toPre(func() {
			if !s.modernTraffic(msg) {
				for _, u := range slices.Sorted(maps.Keys(s.subscriptions)) {
					s.notify("notifications/resources/updated", s.updatedParams(u))
				}
				return
			}
			for _, st := range s.streams {
				for _, u := range st.uris {
					s.streamNotify(st, "notifications/resources/updated", s.updatedParams(u))
				}
			}
		})
	}
	if legacyReady && s.variants.has("server-pings") && time.Since(s.lastPing) >= time.Second {
		s.lastPing = time.Now()
		s.pings++
		var id json.RawMessage
		if s.pings%2 == 1 {
			// Above 2^53: a client must keep every digit (JSONRPC-05).
			n := new(big.Int).Add(big.NewInt(9007199254740993), big.NewInt(int64(s.pings/2)))
			id = json.RawMessage(n.String())
		} else {
			id = json.RawMessage(fmt.Sprintf(`"mock-\u00e9-ping-%d"`, s.pings))
		}
		s.pre = append(s.pre, &outMsg{kind: kindRequest, method: "ping", id: id})
	}
}

// toPre runs f and moves what it queued after the response to before it.
func (s *server) toPre(f func()) {
	mark := len(s.pending)
	f()
	s.pre = append(s.pre, s.pending[mark:]...)
	s.pending = s.pending[:mark]
}

// emptyResults are the methods whose result is EmptyResult: the variants
// add no members to them, only _meta.
var emptyResults = []string{"ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel"}

// dress adds the members extra-members and meta-everywhere put on results.
func (s *server) dress(method string, result any) any {
	r, ok := result.(object)
	if !ok {
		return result
	}
	if s.variants.has("extra-members") && !slices.Contains(emptyResults, method) {
		r["mockExtra"] = extraValue()
	}
	if s.variants.has("meta-everywhere") {
		r["_meta"] = mergeMeta(r["_meta"])
	}
	return r
}

// dressParams adds the extra members and _meta to notification params.
func (s *server) dressParams(params any) any {
	extra, meta := s.variants.has("extra-members"), s.variants.has("meta-everywhere")
	if !extra && !meta {
		return params
	}
	p := object{}
	if o, ok := params.(object); ok {
		maps.Copy(p, o)
	}
	if extra {
		p["mockExtra"] = extraValue()
	}
	if meta {
		p["_meta"] = mergeMeta(p["_meta"])
	}
	return p
}

// dressItem adds the extra members and _meta to a resource, template or
// contents item (_meta on those exists from 2025-06-18).
func (s *server) dressItem(o object) {
	if s.variants.has("extra-members") {
		o["mockExtra"] = extraValue()
	}
	if s.variants.has("meta-everywhere") && s.atLeast(v20250618) {
		o["_meta"] = mergeMeta(o["_meta"])
	}
}

// extraValue is the value of the unknown members extra-members adds.
func extraValue() object {
	return object{"note": "an unknown member that clients ignore", "values": []any{1, 2.5, nil, true, "x"}}
}

// variantMeta are the _meta keys meta-everywhere adds: prefixed, without
// a prefix, and a prefix with an empty name, all within META-02.
var variantMeta = object{
	"com.example.mock/trace-id": "4bf92f3577b34da6",
	"note":                      "a key without a prefix",
	"com.example.mock/":         "a prefix with an empty name",
	"com.example.mock/x.y-z_w":  object{"nested": []any{1, "two"}},
}

// mergeMeta adds variantMeta to an existing _meta object.
func mergeMeta(existing any) object {
	m := object{}
	if o, ok := existing.(object); ok {
		maps.Copy(m, o)
	}
	maps.Copy(m, variantMeta)
	return m
}

// richErrorData is the data error-data-rich gives an error: what it had,
// and more.
func richErrorData(e *rpcError) object {
	d := object{}
	switch v := e.Data.(type) {
	case object:
		maps.Copy(d, v)
	case nil:
	default:
		d["original"] = v
	}
	reason := map[int]string{wire.CodeParseError: "parse_error", wire.CodeInvalidRequest: "invalid_request", wire.CodeMethodNotFound: "method_not_found",
		wire.CodeInvalidParams: "invalid_params", wire.CodeInternalError: "internal_error", wire.CodeResourceNotFound: "resource_not_found",
		wire.CodeUnsupportedProtocolVersion: "unsupported_protocol_version"}[e.Code]
	d["reason"] = cmp.Or(reason, "other")
	d["detail"] = object{"retryable": false, "seeAlso": "https://modelcontextprotocol.io/specification", "codes": []int{e.Code}}
	return d
}

// rotated is the resource list as a walk with rotation r sees it.
func (s *server) rotated(r int) []*entry {
	n := len(s.listed)
	if r == 0 || n == 0 {
		return s.listed
	}
	r %= n
	return append(slices.Clone(s.listed[r:]), s.listed[:r]...)
}

// churnList changes the list after a resources/list page under
// list-changes-while-paging: a resource appears at its head, and goes
// again after the next page.
func (s *server) churnList() {
	if !s.variants.has("list-changes-while-paging") || s.req != nil {
		return
	}
	s.churn++
	if s.churn%2 == 1 {
		uri := fmt.Sprintf("test://variant/churn-%d", (s.churn+1)/2)
		e := &entry{Resource: Resource{URI: uri, Name: fmt.Sprintf("churn-%d", (s.churn+1)/2), MimeType: "text/plain"},
			data: []byte("A resource that came while the list was paged.\n"), isText: true}
		s.listed = append([]*entry{e}, s.listed...)
	} else {
		s.listed = slices.DeleteFunc(s.listed, func(e *entry) bool { return strings.HasPrefix(e.URI, "test://variant/churn-") })
	}
	s.announceListChange()
}

// announceListChange sends list_changed when listChanged is declared
// (RES-LC-01); the variants that change the list are legacy only.
func (s *server) announceListChange() {
	if s.listChanged() && s.req == nil {
		s.notify("notifications/resources/list_changed", nil)
	}
}

// afterVariantRead runs what the variants do after a listed resource was
// read: the changing resource moves to its next generation, and the list
// changes under list-changes-after-reads.
func (s *server) afterVariantRead(e *entry) {
	if e.URI == changingURI && s.variants.has("time-varying-resource") {
		s.generation++
		s.setChanging(s.generation)
		if s.subscriptions[changingURI] {
			s.notify("notifications/resources/updated", s.updatedParams(changingURI))
		}
		for _, st := range s.streams {
			if slices.Contains(st.uris, changingURI) {
				s.streamNotify(st, "notifications/resources/updated", s.updatedParams(changingURI))
			}
		}
	}
	if s.variants.has("list-changes-after-reads") && s.req == nil {
		s.readToggle = !s.readToggle
		if s.readToggle {
			s.listed = append(s.listed, &entry{Resource: Resource{URI: afterReadURI, Name: "after-read", MimeType: "text/plain"},
				data: []byte("A resource that came after a read.\n"), isText: true})
		} else {
			s.listed = slices.DeleteFunc(s.listed, func(e *entry) bool { return e.URI == afterReadURI })
		}
		s.announceListChange()
	}
}

// setChanging puts generation gen of the changing resource into the list,
// with the time of the change as lastModified.
func (s *server) setChanging(gen int) {
	for i, e := range s.listed {
		if e.URI != changingURI {
			continue
		}
		ne := *e
		ne.data = []byte(changingText(gen))
		a := Annotations{}
		if e.Annotations != nil {
			a = *e.Annotations
		}
		a.LastModified = time.Now().UTC().Format(time.RFC3339Nano)
		ne.Annotations = &a
		s.listed[i] = &ne
	}
}

// child finds a file of a listed directory.
func (s *server) child(uri string) *entry {
	for _, e := range s.listed {
		for _, c := range e.children {
			if c.URI == uri {
				return c
			}
		}
	}
	return nil
}

// catchAll reports whether the catch-all template serves uri: every ASCII
// URI of the echo scheme. Hostile URIs were refused before.
func (s *server) catchAll(uri string) bool {
	if !s.variants.has("catch-all-template") || !isASCII(uri) {
		return false
	}
	colon := strings.IndexByte(uri, ':')
	return colon > 0 && strings.EqualFold(uri[:colon], "echo")
}

// knownURI reports whether the server can read uri: it is listed, a file
// of a listed directory, or a template matches it.
func (s *server) knownURI(uri string) bool {
	if s.lookup(uri) != nil || s.child(uri) != nil || s.catchAll(uri) {
		return true
	}
	for _, t := range s.templates {
		if t.tmpl != nil && t.tmpl.Match(uri) != nil {
			return true
		}
	}
	return false
}

// confirmState is the requestState input-required-read hands out.
const confirmState = "mcpconform-mock:confirm:1"

// subResource is the sub-resource of uri that fragment-sub-resources
// reports as updated.
func subResource(uri string) string {
	if strings.Contains(uri, "#") {
		return uri
	}
	return uri + "#section-1"
}
