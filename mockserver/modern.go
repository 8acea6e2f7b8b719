package mockserver

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// The 2026-07-28 era has no handshake: "every request carries its version
// and capabilities in params._meta", and the server takes them from that
// request alone, never from earlier traffic (LIFE-20, LIFE-24).

// Keys of the per-request and per-result _meta of 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// codeLegacyRange is what the legacy-code-range fault answers with: a code
// of JSON-RPC's implementation-defined server-error range, which no spec
// version names (so wire does not either). The other codes are wire's.
const codeLegacyRange = -32001

// modernRequest is the 2026-07-28 request being served. It lives for one
// request only: nothing of it carries over to the next (LIFE-24).
type modernRequest struct {
	id          json.RawMessage
	laterPage   bool   // a resources/list page after the first (cache-scope-varies)
	inputResult object // the InputRequiredResult that answers this request instead (askInput)
	noAnswer    bool   // the request stays open: subscriptions/listen
	pageNumber  int    // the page of a list being answered (ttl-per-page)
	trace       object // the trace context the result's _meta carries on
}

// requestMeta returns the members of params._meta; nil when params or
// _meta is absent or not an object.
func requestMeta(params json.RawMessage) map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Meta
}

// hasEnvelope reports whether a request's _meta holds any of the
// per-request keys of 2026-07-28: the client speaks that era.
func hasEnvelope(params json.RawMessage) bool {
	meta := requestMeta(params)
	for _, k := range []string{metaProtocolVersion, metaClientCapabilities, metaClientInfo} {
		if _, ok := meta[k]; ok {
			return true
		}
	}
	return false
}

// modernTraffic decides which era's rules serve a request. A dual-era
// server (catalogue A-20) serves enveloped requests as 2026-07-28 without
// any initialize; "an initialize switches the stdio process to legacy
// semantics" (LIFE-31). Once a process has seen 2026-07-28 traffic and no
// initialize, a request without the envelope is a 2026-07-28 request that
// lacks it: -32602 (LIFE-20).
func (s *server) modernTraffic(msg *incoming) bool {
	switch {
	case !s.cat.modern, msg.method == "initialize", s.initialized:
		return false
	case !s.cat.legacy:
		return true
	}
	return s.sawModern || hasEnvelope(msg.params)
}

// modernMethods are the requests of 2026-07-28 the mock serves.
var modernMethods = map[string]func(*server, json.RawMessage) (any, *rpcError){
	"server/discover":          (*server).discover,
	"resources/list":           (*server).listResources,
	"resources/templates/list": (*server).listTemplates,
	"resources/read":           (*server).read,
	"subscriptions/listen":     (*server).listen,
	"tools/list":               (*server).listTools,
	"tools/call":               (*server).callTool,
	"prompts/list":             (*server).listPrompts,
	"prompts/get":              (*server).getPrompt,
	"completion/complete":      (*server).complete,
}

// removedMethods existed in the handshake era and are gone from 2026-07-28.
var removedMethods = []string{"initialize", "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel"}

// cacheable are the methods whose results carry ttlMs and cacheScope.
var cacheable = []string{"server/discover", "resources/list", "resources/templates/list", "resources/read", "tools/list", "prompts/list"}

// pagedLists are the paginated methods.
var pagedLists = []string{"resources/list", "resources/templates/list", "tools/list", "prompts/list"}

// modernHandler returns the handler of a 2026-07-28 method, or nil for a
// method that is unknown, removed or behind an undeclared capability.
func (s *server) modernHandler(method string) func(*server, json.RawMessage) (any, *rpcError) {
	switch {
	case method == "server/discover" && s.faults.has("modern-no-discover"):
		return nil
	case method == "ping" && s.faults.has("modern-ping-served"):
		return func(*server, json.RawMessage) (any, *rpcError) { return object{}, nil }
	case method == "resources/subscribe" && s.faults.has("modern-subscribe-served") && s.methodDeclared(method):
		return (*server).subscribe
	case method == "resources/unsubscribe" && s.faults.has("modern-subscribe-served") && s.methodDeclared(method):
		return (*server).unsubscribe
	case method == "subscriptions/listen" && s.variants.has("no-listen"):
		return nil
	case method == "logging/setLevel" && s.variants.has("modern-set-level-served") && s.methodDeclared(method):
		return (*server).setLevel
	}
	h, ok := modernMethods[method]
	if !ok || !s.methodDeclared(method) {
		return nil
	}
	return h
}

// dispatchModern serves a 2026-07-28 request: method, then envelope, then
// params; every result gets resultType and _meta serverInfo, and the
// cacheable ones ttlMs and cacheScope.
func (s *server) dispatchModern(msg *incoming) (result any, rerr *rpcError, answer bool) {
	if hasEnvelope(msg.params) {
		s.sawModern = true
	}
	h := s.modernHandler(msg.method)
	if h == nil {
		code := wire.CodeMethodNotFound
		if s.faults.has("unknown-method-wrong-code") {
			code = wire.CodeInvalidParams
		}
		why := ""
		if slices.Contains(removedMethods, msg.method) {
			why = " (not part of protocol version " + modernVersion + ")"
		}
		return nil, &rpcError{Code: code, Message: fmt.Sprintf("Method not found: %s%s.", short(msg.method), why)}, true
	}
	if rerr := s.checkEnvelope(msg.params); rerr != nil {
		return nil, rerr, true
	}
	if !s.proceed(msg.method) {
		return nil, nil, false
	}
	s.req = &modernRequest{id: msg.id, trace: traceContext(msg.params, msg.id)}
	defer func() { s.req = nil }()
	result, rerr = h(s, msg.params)
	if rerr != nil {
		switch {
		case rerr.malformed && s.faults.has("invalid-params-internal"):
			rerr.Code = wire.CodeInternalError
		case rerr.hostile && s.faults.has("legacy-code-range"):
			rerr.Code = codeLegacyRange
		case rerr.hostile && s.faults.has("header-mismatch-code"):
			rerr.Code = wire.CodeHeaderMismatch
		}
		return nil, rerr, true
	}
	if s.req.noAnswer {
		return nil, nil, false
	}
	return s.decorate(msg.method, result), nil, true
}

// checkEnvelope checks the per-request _meta: a protocol version the
// server supports (else -32022 with data {supported, requested}, LIFE-22)
// and the client's capabilities (LIFE-20); clientInfo is optional
// (LIFE-21). A missing or mistyped field is -32602.
func (s *server) checkEnvelope(params json.RawMessage) *rpcError {
	meta := requestMeta(params)
	rawVersion, hasVersion := meta[metaProtocolVersion]
	if !hasVersion && s.faults.has("envelope-not-required") {
		return nil
	}
	var version string
	if !hasVersion || json.Unmarshal(rawVersion, &version) != nil {
		return &rpcError{Code: wire.CodeInvalidParams, Message: `Invalid params: _meta["` + metaProtocolVersion + `"] must name the protocol version.`}
	}
	if version != modernVersion && !s.faults.has("unsupported-version-served") {
		if s.faults.has("stateful-version") {
			s.stuckVersion = version
		}
		return s.unsupportedVersion(version)
	}
	if s.stuckVersion != "" {
		v := s.stuckVersion
		s.stuckVersion = ""
		return s.unsupportedVersion(v)
	}
	if _, ok := meta[metaClientInfo]; !ok && s.faults.has("client-info-required") {
		return &rpcError{Code: wire.CodeInvalidParams, Message: `Invalid params: _meta["` + metaClientInfo + `"] must name the client.`}
	}
	caps, hasCaps := meta[metaClientCapabilities]
	caps = bytes.TrimSpace(caps)
	if (!hasCaps || len(caps) == 0 || caps[0] != '{') && !s.faults.has("client-capabilities-not-required") {
		return &rpcError{Code: wire.CodeInvalidParams, Message: `Invalid params: _meta["` + metaClientCapabilities + `"] must declare the client's capabilities ({} for none).`}
	}
	if raw, ok := meta[metaLogLevel]; ok {
		var level string
		if (json.Unmarshal(raw, &level) != nil || !slices.Contains(logLevels, level)) && !s.faults.has("log-level-meta-unchecked") {
			return &rpcError{Code: wire.CodeInvalidParams, Message: `Invalid params: _meta["` + metaLogLevel + `"] must be one of the syslog levels.`}
		}
	}
	return nil
}

// unsupportedVersion is the -32022 error for a version the server does not
// speak in the envelope.
func (s *server) unsupportedVersion(requested string) *rpcError {
	supported := s.supportedVersions()
	e := &rpcError{Code: wire.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("Unsupported protocol version %q; this server supports %s.", short(requested), strings.Join(supported, ", "))}
	if !s.faults.has("unsupported-version-no-data") {
		e.Data = object{"supported": supported, "requested": requested}
	}
	return e
}

// supportedVersions lists every version the server serves, newest first:
// 2026-07-28 in the envelope, the others through initialize.
func (s *server) supportedVersions() []string {
	var out []string
	if s.cat.modern {
		out = append(out, modernVersion)
	}
	for i := len(s.cat.versions) - 1; i >= 0; i-- {
		out = append(out, s.cat.versions[i])
	}
	return out
}

// discover answers server/discover (LIFE-23).
func (s *server) discover(json.RawMessage) (any, *rpcError) {
	result := object{"supportedVersions": s.supportedVersions(), "capabilities": s.capabilities()}
	if s.cat.fx.Instructions != "" {
		result["instructions"] = s.cat.fx.Instructions
	}
	if s.faults.has("discover-bad-shape") {
		result["instructions"] = 42
	}
	if !s.discovered {
		s.discovered = true
		s.afterFirstDiscover()
	}
	return result, nil
}

// afterFirstDiscover runs the faults that make a 2026-07-28 server speak
// up unasked, once per process.
func (s *server) afterFirstDiscover() {
	if s.faults.has("log-without-level") {
		s.notify("notifications/message", object{"level": "info", "logger": "mockserver", "data": "server/discover answered"})
	}
	if s.faults.has("server-request-modern") || s.faults.has("server-request-modern-stdio") {
		s.request(s.newID(), "roots/list", nil)
	}
	if s.faults.has("list-changed-outside-stream") {
		s.notify("notifications/resources/list_changed", nil)
	}
	s.unaskedListChanges()
	if s.faults.has("stream-notification-before-listen") && len(s.listed) > 0 {
		params := s.updatedParams(s.listed[0].URI)
		params["_meta"] = object{metaSubscriptionID: "mcpconform-mock-early"}
		s.notify("notifications/resources/updated", params)
	}
	if s.faults.has("cancelled-not-listen") {
		s.notify("notifications/cancelled", object{"requestId": safeID(s.req.id), "reason": "mockserver cancels an answered request"})
	}
}

// decorate adds what every 2026-07-28 result carries: resultType "complete"
// (JSONRPC-15), _meta serverInfo (LIFE-26), and on cacheable results ttlMs
// and cacheScope, the same scope on every page of a list (RES-LIST-09,
// RES-READ-14, RES-TPL-07, PAG-08).
func (s *server) decorate(method string, result any) any {
	r, ok := result.(object)
	if !ok {
		return result
	}
	r["resultType"] = "complete"
	if method == envelopeTarget {
		switch {
		case s.faults.has("no-result-type"):
			delete(r, "resultType")
		case s.faults.has("bad-result-type"):
			r["resultType"] = "done"
		}
	}
	if s.req.inputResult != nil {
		// An InputRequiredResult is no complete result: no cache hints.
		r = s.req.inputResult
		if meta := s.resultMeta(nil); len(meta) > 0 {
			r["_meta"] = meta
		}
		return r
	}
	if meta := s.resultMeta(r["_meta"]); len(meta) > 0 {
		r["_meta"] = meta
	}
	if !slices.Contains(cacheable, method) || s.faults.has("no-cache-hints") && method != "server/discover" ||
		method == "resources/read" && s.faults.has("read-no-cache-hints") ||
		method == "tools/list" && s.faults.has("tools-no-cache-hints") ||
		method == "resources/templates/list" && s.faults.has("templates-no-cache-hints") {
		return r
	}
	ttl := s.cat.ttlMs
	if s.variants.has("ttl-per-page") && slices.Contains(pagedLists, method) {
		ttl = 1000 * s.req.pageNumber
	}
	r["ttlMs"] = s.num(ttl)
	r["cacheScope"] = s.cat.cacheScope
	if method == "resources/list" {
		if s.faults.has("negative-ttl") {
			r["ttlMs"] = -1
		}
		if s.faults.has("cache-scope-varies") && s.req.laterPage {
			r["cacheScope"] = map[string]string{"public": "private", "private": "public"}[s.cat.cacheScope]
		}
	}
	return r
}

// resultMeta is the _meta of a 2026-07-28 result: what the handler put
// there, plus serverInfo.
func (s *server) resultMeta(existing any) object {
	meta := object{}
	if m, ok := existing.(object); ok {
		maps.Copy(meta, m)
	}
	if !s.faults.has("no-server-info-meta") {
		meta[metaServerInfo] = s.serverInfoAt(modernVersion)
	}
	if s.req != nil {
		maps.Copy(meta, s.req.trace)
	}
	if s.faults.has("bad-traceparent") {
		meta["traceparent"] = "not-a-trace-context"
	}
	return meta
}

// traceparentForm is a W3C trace context traceparent of version 00:
// version, trace-id, parent-id and flags in lowercase hex.
var traceparentForm = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// traceContext is the trace context a result carries on when the request's
// _meta holds a valid traceparent (the keys 2026-07-28 reserves for
// OpenTelemetry, whose values "MUST follow W3C Trace Context"): the same
// trace-id and flags with the mock's own span as parent-id, and the
// request's tracestate unchanged. Nil otherwise.
func traceContext(params, id json.RawMessage) object {
	meta := requestMeta(params)
	var tp string
	if json.Unmarshal(meta["traceparent"], &tp) != nil {
		return nil
	}
	m := traceparentForm.FindStringSubmatch(tp)
	if m == nil || strings.Trim(m[1], "0") == "" || strings.Trim(m[2], "0") == "" {
		return nil
	}
	sum := sha256.Sum256(append([]byte(tp), id...))
	span := hex.EncodeToString(sum[:8])
	if strings.Trim(span, "0") == "" {
		span = "0000000000000001"
	}
	out := object{"traceparent": "00-" + m[1] + "-" + span + "-" + m[3]}
	var state string
	if json.Unmarshal(meta["tracestate"], &state) == nil {
		out["tracestate"] = state
	}
	return out
}

// legacyRefused answers initialize on a server of the 2026-07-28 era only:
// an error that names the versions it supports (LIFE-27).
func (s *server) legacyRefused(params json.RawMessage) *rpcError {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	supported := s.supportedVersions()
	return &rpcError{Code: wire.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("Unsupported protocol version: this server speaks %s only, with params._meta on every request and no initialize.", strings.Join(supported, ", ")),
		Data:    object{"supported": supported, "requested": p.ProtocolVersion}}
}

// askInput decides whether a 2026-07-28 request that would be served
// (a read of a listed resource, a get of a listed prompt with its
// required arguments, a call of a listed tool with valid arguments) is
// answered input_required instead, and if so sets the result. key names
// what the request is about (a URI, a prompt or tool name). Whether to ask
// depends on the request alone, requestState included: nothing is kept
// between requests (LIFE-24).
func (s *server) askInput(method, key string, params json.RawMessage) bool {
	if s.req == nil {
		return false // handshake-era traffic: no InputRequiredResult there
	}
	var p struct {
		RequestState *string `json:"requestState"`
	}
	_ = json.Unmarshal(params, &p)
	state := ""
	if p.RequestState != nil {
		state = *p.RequestState
	}
	switch {
	case method == "resources/read" && (s.faults.has("input-required-empty") || s.faults.has("input-required-sampling")) && len(s.listed) > 0 && key == s.listed[len(s.listed)-1].URI:
		s.req.inputResult = s.inputRequired()
	case method != "resources/read" && s.faults.has("input-required-no-state"):
		s.req.inputResult = object{"resultType": "input_required"}
	case s.faults.has("input-required-forever"):
		// A new requestState on every attempt, made from the one the
		// request carries: the request never completes.
		s.req.inputResult = object{"resultType": "input_required", "requestState": cmp.Or(state, "mcpconform-mock:again") + "+"}
	case s.variants.has("input-required-retry"):
		want := "mcpconform-mock:" + method + ":" + key
		if state == want {
			return false
		}
		s.req.inputResult = object{"resultType": "input_required", "requestState": want}
	case method == "resources/read" && key == confirmURI && s.variants.has("input-required-read"):
		if state == confirmState {
			return false
		}
		s.req.inputResult = object{"resultType": "input_required", "requestState": confirmState}
	default:
		return false
	}
	return true
}

// inputRequired is the result of a read the input-required faults pick:
// resultType input_required with neither inputRequests nor requestState
// (input-required-empty), or asking for sampling, which the client did not
// declare (input-required-sampling).
func (s *server) inputRequired() object {
	r := object{"resultType": "input_required"}
	if s.faults.has("input-required-sampling") {
		r["inputRequests"] = object{"mcpconform-mock-sampling": object{
			"method": "sampling/createMessage",
			"params": object{"messages": []any{object{"role": "user", "content": object{"type": "text", "text": "Summarise the resource."}}}, "maxTokens": 100},
		}}
		r["requestState"] = "mcpconform-mock-state"
	}
	return r
}
