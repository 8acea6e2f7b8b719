package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/mcpconform/mcpconform/wire"
)

// Protocol versions in which fields first appear. Versions are dates, so
// they compare as strings.
const (
	v20250326 = "2025-03-26" // tool annotations
	v20250618 = "2025-06-18" // title, _meta, annotations.lastModified; structuredContent, outputSchema
	v20251125 = "2025-11-25" // icons; serverInfo description and websiteUrl
)

// servingVersion is the version of the request being served: 2026-07-28
// for a request in that era's envelope, else the negotiated one.
func (s *server) servingVersion() string {
	if s.req != nil {
		return modernVersion
	}
	if s.version == "" && s.cat.legacy && s.variants.has("pre-init-served") {
		return s.cat.versions[len(s.cat.versions)-1]
	}
	return s.version
}

// atLeast reports whether the version being served has what version v added.
func (s *server) atLeast(v string) bool { return s.servingVersion() >= v }

// knownClientCapabilities are the client capability keys of the versions
// the mock speaks; only reject-unknown-capability looks at them.
var knownClientCapabilities = []string{"experimental", "roots", "sampling", "elicitation", "tasks", "extensions"}

// initialize answers the initialize request (LIFE-03, LIFE-04, LIFE-05).
func (s *server) initialize(params json.RawMessage) (any, *rpcError) {
	switch {
	case !s.cat.legacy:
		return nil, s.legacyRefused(params)
	case s.initialized:
		return nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request: the session is already initialized."}
	case s.sawModern && s.faults.has("legacy-initialize-unexplained"):
		return nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request."}
	}
	var p struct {
		ProtocolVersion *string                    `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ClientInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"clientInfo"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.ProtocolVersion == nil || p.Capabilities == nil ||
		p.ClientInfo == nil || p.ClientInfo.Name == nil || p.ClientInfo.Version == nil {
		return nil, invalidParams("Invalid params: initialize needs protocolVersion, capabilities and clientInfo with name and version.")
	}
	if s.faults.has("reject-unknown-capability") {
		for k := range p.Capabilities {
			if !slices.Contains(knownClientCapabilities, k) {
				return nil, invalidParams("Unknown client capability %q.", short(k))
			}
		}
	}
	requested := *p.ProtocolVersion
	supported := s.cat.versions
	newest := supported[len(supported)-1]
	// "If the server supports the requested protocol version, it MUST
	// respond with the same version. Otherwise, the server MUST respond with
	// another protocol version it supports."
	version := newest
	switch {
	case s.faults.has("no-version-echo"):
		// Never the requested version, so that a client can tell.
		if requested == newest && len(supported) > 1 {
			version = supported[len(supported)-2]
		}
	case slices.Contains(supported, requested):
		version = requested
	case s.faults.has("version-error"):
		return nil, &rpcError{Code: wire.CodeInvalidParams, Message: "Unsupported protocol version.",
			Data: object{"supported": supported, "requested": requested}}
	case s.faults.has("version-bogus"):
		version = requested
	}
	s.initialized = true
	s.version = version

	result := object{
		"protocolVersion": version,
		"capabilities":    s.capabilities(),
		"serverInfo":      s.serverInfo(),
	}
	if s.cat.fx.Instructions != "" {
		result["instructions"] = s.cat.fx.Instructions
	}
	if s.faults.has("instructions-not-string") {
		result["instructions"] = 42
	}
	if s.faults.has("missing-server-info") {
		delete(result, "serverInfo")
	}
	if s.faults.has("nul-byte") {
		s.pending = append(s.pending, &outMsg{kind: kindRaw, raw: []byte("\x00")})
	}
	if s.faults.has("early-server-request") {
		// Just before the response, so that no client can have sent
		// notifications/initialized yet whatever its reader's timing.
		s.pre = append(s.pre, &outMsg{kind: kindRequest, method: "roots/list", id: s.newID()})
	}
	if s.variants.has("ping-and-log-during-initialize") {
		// Ahead of the response: the handshake lets a server ping and log
		// before notifications/initialized.
		s.pre = append(s.pre,
			&outMsg{kind: kindRequest, method: "ping", id: s.newID()},
			&outMsg{kind: kindNotification, method: "notifications/message",
				params: s.dressParams(object{"level": "info", "logger": "mockserver", "data": "initializing"})})
	}
	if s.faults.has("exit-after-initialize") {
		s.exitAfterInit = true
	}
	return result, nil
}

func (s *server) newID() json.RawMessage {
	s.nextID++
	return json.RawMessage(strconv.Itoa(s.nextID))
}

// listChanged reports whether the server declares resources.listChanged,
// as some faults force it one way or the other.
func (s *server) listChanged() bool {
	r := s.cat.fx.Capabilities.Resources
	switch {
	case r == nil || s.faults.has("undeclared-list-changed"):
		return false
	case s.faults.has("notification-with-id"), s.faults.has("params-array"), s.faults.has("list-changed-bad-params"):
		return true
	}
	return r.ListChanged
}

func (s *server) capabilities() object {
	caps := object{}
	fc := s.cat.fx.Capabilities
	if fc.Resources != nil && !s.faults.has("undeclared-resources") && !(s.req == nil && s.faults.has("undeclared-resources-wrong-code")) {
		r := object{}
		if fc.Resources.Subscribe && !s.faults.has("subscribe-undeclared-served") {
			r["subscribe"] = true
		}
		if s.faults.has("capabilities-bad-types") {
			r["subscribe"] = "yes"
		}
		if s.listChanged() {
			r["listChanged"] = true
		}
		if s.faults.has("list-changed-not-boolean") {
			r["listChanged"] = "yes"
		}
		if s.variants.has("extra-members") {
			r["mockExtra"] = true
		}
		caps["resources"] = r
	}
	if s.variants.has("extra-members") {
		caps["mockExtraCapability"] = extraValue()
	}
	for _, name := range []string{"tools", "prompts"} {
		lc := s.declaredList(name)
		if lc == nil {
			continue
		}
		// listChanged is optional: left out, it means false.
		o := object{}
		if lc.ListChanged {
			o["listChanged"] = true
		}
		caps[name] = o
	}
	if fc.Logging != nil && !s.faults.has("unrequested-log") {
		caps["logging"] = object{}
	}
	if s.completionsDeclared() {
		caps["completions"] = object{}
	}
	if len(fc.Experimental) > 0 {
		caps["experimental"] = fc.Experimental
	}
	if s.req != nil && s.faults.has("extension-bad-key") {
		caps["extensions"] = object{"mcpconform-mock": object{}}
	}
	if s.req != nil && s.variants.has("extension-declared") {
		caps["extensions"] = object{"com.example.mock/feature": object{"version": "1"}}
	}
	return caps
}

// declaredList returns the tools or prompts capability (kind) the server
// declares, or nil: the fixture has none, or a fault hides the one it has
// while still serving its methods (or hides its listChanged).
func (s *server) declaredList(kind string) *ListCapability {
	if s.faults.has("undeclared-" + kind + "-served") {
		return nil
	}
	lc := s.cat.fx.Capabilities.Prompts
	if kind == "tools" {
		lc = s.cat.fx.Capabilities.Tools
	}
	if lc != nil && s.faults.has("undeclared-"+kind+"-list-changed") {
		return &ListCapability{} // it sends list_changed without declaring it
	}
	return lc
}

// serverInfo is the Implementation object, cut to the version served.
func (s *server) serverInfo() object { return s.serverInfoAt(s.servingVersion()) }

func (s *server) serverInfoAt(version string) object {
	si := s.cat.fx.Server
	o := object{"name": si.Name, "version": si.Version}
	if s.faults.has("ci-commands") {
		o["name"] = ciCommands + " " + si.Name
	}
	if version >= v20250618 && si.Title != "" {
		o["title"] = si.Title
	}
	if version >= v20251125 {
		if si.Description != "" {
			o["description"] = si.Description
		}
		if si.WebsiteURL != "" {
			o["websiteUrl"] = si.WebsiteURL
		}
		if len(si.Icons) > 0 {
			o["icons"] = si.Icons
		}
	}
	if s.variants.has("extra-members") {
		o["mockExtra"] = extraValue()
	}
	return o
}

// ping answers {} whenever it is asked, before initialize too (PING-01..03).
func (s *server) ping(params json.RawMessage) (any, *rpcError) {
	switch {
	case !s.initialized && s.faults.has("ping-before-init-refused"):
		return nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Server not initialized: send initialize first."}
	case params != nil && s.faults.has("ping-params-rejected"):
		return nil, invalidParams("Invalid params: ping takes no params.")
	case s.faults.has("result-not-object"):
		return []any{}, nil
	case s.faults.has("ping-not-empty"):
		return object{"status": "ok"}, nil
	}
	return object{}, nil
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// setLevel accepts logging/setLevel when logging is declared (LOG-04) and
// refuses a level that is not a syslog severity with -32602 (LOG-07). Only
// the log-notifications variant logs, at the level set.
func (s *server) setLevel(params json.RawMessage) (any, *rpcError) {
	if s.variants.has("logging-without-set-level") {
		return nil, &rpcError{Code: wire.CodeMethodNotFound, Message: "Method not found: logging/setLevel."}
	}
	var p struct {
		Level string `json:"level"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil {
		return nil, invalidParams("Invalid params: logging/setLevel needs a level.")
	}
	if !slices.Contains(logLevels, p.Level) && !s.faults.has("set-level-unknown-accepted") {
		return nil, unknownEntity("Invalid params: level must be one of the syslog levels.")
	}
	s.logLevel = p.Level
	if s.faults.has("set-level-result-not-object") {
		return []any{}, nil
	}
	return object{}, nil
}

// unaskedListChanges sends the tools and prompts list_changed
// notifications faults send where the client cannot expect them: without
// the listChanged capability (legacy), or outside any listen stream
// (2026-07-28).
func (s *server) unaskedListChanges() {
	for _, kind := range []string{"tools", "prompts"} {
		if s.faults.has("undeclared-" + kind + "-list-changed") {
			s.notify("notifications/"+kind+"/list_changed", nil)
		}
	}
}

// afterInitialized runs once notifications/initialized has arrived: the
// faults that make the server speak up unasked do it here.
func (s *server) afterInitialized() {
	if s.faults.has("notification-with-id") || s.faults.has("params-array") ||
		s.faults.has("undeclared-list-changed") || s.faults.has("list-changed-bad-params") {
		var params any
		if s.faults.has("list-changed-bad-params") {
			params = object{"_meta": "x"}
		}
		s.notify("notifications/resources/list_changed", params)
	}
	s.unaskedListChanges()
	if s.faults.has("spurious-updated") {
		uri := "test://mcpconform-mock/never-subscribed"
		if len(s.listed) > 0 {
			uri = s.listed[0].URI
		}
		s.notify("notifications/resources/updated", s.updatedParams(uri))
	}
	if s.faults.has("log-bad-message") {
		s.notify("notifications/message", object{"level": "verbose", "logger": 42, "message": "client is ready"})
	}
	if s.faults.has("unrequested-log") {
		s.notify("notifications/message", object{"level": "info", "logger": "mockserver", "data": "client is ready"})
	}
	if s.faults.has("server-request-bad-id") {
		s.request(json.RawMessage("1.5"), "ping", nil)
	}
	if s.faults.has("server-request-id-reused") {
		s.request(json.RawMessage(`"srv-1"`), "ping", nil)
		s.request(json.RawMessage(`"srv-1"`), "ping", nil)
	}
}

// startFaults runs the faults that act before the first frame is read.
func (s *server) startFaults() {
	if s.faults.has("ci-commands") {
		fmt.Fprintf(s.errOut, "::group::forged\n  ::set-output name=verdict::pass\nlog ##[endgroup]\n%s\n", ciCommands)
	}
	if s.faults.has("crash-on-start") {
		fmt.Fprintln(s.errOut, "mockserver: fatal: cannot start (crash-on-start)")
		os.Exit(3)
	}
	if s.faults.has("ignore-sigterm") {
		ignoreSIGTERM()
	}
	if s.faults.has("leave-child") {
		var out io.Writer // what the child holds open: stdout, if that is the transport
		if lc, ok := s.conn.(*lineConn); ok {
			out = lc.w
		}
		if pid, err := startOrphan(out); err != nil {
			fmt.Fprintf(s.errOut, "mockserver: leave-child: %v\n", err)
		} else {
			fmt.Fprintf(s.errOut, "mockserver: leave-child: started pid %d (sleep 600)\n", pid)
		}
	}
	if s.faults.has("stderr-flood") {
		line := bytes.Repeat([]byte("mockserver: stderr flood "), 4)
		line = append(line, '\n')
		for n := 0; n < 10_000_000; n += len(line) {
			if _, err := s.errOut.Write(line); err != nil {
				break
			}
		}
	}
	if s.faults.has("banner") {
		s.conn.raw([]byte("MCP mock server v1.0 ready (listening on stdio)"), true)
	}
	if s.faults.has("huge-line") || s.faults.has("huge-line-unterminated") {
		garbage := bytes.Repeat([]byte("garbage!"), 50<<20/8)
		s.conn.raw(garbage, s.faults.has("huge-line"))
	}
}
