package mockserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFaultCatalogue(t *testing.T) {
	faults := Faults()
	if len(faults) < 45 {
		t.Errorf("%d faults, want at least 45", len(faults))
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	reqID := regexp.MustCompile(`^[A-Z]+(-[A-Z]+)*-[0-9]{2}$`)
	seen := map[string]bool{}
	for _, f := range faults {
		if seen[f.Name] {
			t.Errorf("fault %s listed twice", f.Name)
		}
		seen[f.Name] = true
		if !kebab.MatchString(f.Name) {
			t.Errorf("fault name %q is not kebab-case", f.Name)
		}
		if !reqID.MatchString(f.Requirement) {
			t.Errorf("fault %s: requirement %q is not a catalogue id", f.Name, f.Requirement)
		}
		for _, a := range f.Also {
			if !reqID.MatchString(a) || a == f.Requirement {
				t.Errorf("fault %s: also breaks %q, which is no other catalogue id", f.Name, a)
			}
		}
		if f.Layer == "" || f.Description == "" {
			t.Errorf("fault %s: empty layer or description", f.Name)
		}
	}
	if !sort.SliceIsSorted(faults, func(i, j int) bool {
		return faults[i].Layer < faults[j].Layer || faults[i].Layer == faults[j].Layer && faults[i].Name < faults[j].Name
	}) {
		t.Errorf("Faults() is not sorted by layer then name")
	}
	// Names other packages refer to.
	for _, name := range strings.Fields(`banner log-stdout pretty-print bom invalid-utf8 crlf blank-lines nul-byte
		partial-line-at-exit wrong-jsonrpc-version missing-jsonrpc id-as-string id-mismatch result-and-error
		result-not-object error-code-string error-code-float reply-to-notification notification-with-id
		no-parse-error crash-on-parse-error no-invalid-request unknown-method-wrong-code invalid-params-internal
		multiline-error-message server-request-bad-id params-array batch-unsupported no-version-echo version-error
		version-bogus missing-server-info capabilities-bad-types undeclared-resources reject-unknown-capability
		early-server-request unrequested-log ping-not-empty ping-before-init-refused ping-params-rejected
		cursor-loop cursor-not-string invalid-cursor-accepted unstable-cursor no-params-differs duplicate-uris
		resource-missing-name resource-bad-uri resource-bad-field-types newer-fields bad-annotations
		bad-last-modified bad-icon-scheme size-mismatch bad-meta-key reserved-meta-key template-unbalanced
		template-missing-name template-read-error template-mimetype-mismatch blob-bad-base64 blob-wrapped-base64
		text-and-blob contents-missing-uri contents-not-array binary-as-text unknown-uri-success unknown-uri-32602
		unknown-uri-internal not-found-no-data hostile-uri-leak contents-meta-bad-type
		subscribe-unsupported unsubscribe-error spurious-updated undeclared-list-changed list-changed-bad-params
		crash-on-start crash-on-read crash-on-read-without-params notification-flood stdout-flood request-flood endless-line deep-nesting huge-server-info exit-after-initialize hang-on-list hang-on-read hang-on-templates-list params-array-dropped slow ignore-sigterm
		ignore-stdin-eof leave-child stderr-flood huge-response huge-line hostile-strings`) {
		if !seen[name] {
			t.Errorf("fault %s is missing", name)
		}
	}
}

func TestValidateFaults(t *testing.T) {
	if err := ValidateFaults([]string{"banner", " crlf", ""}); err != nil {
		t.Errorf("valid faults: %v", err)
	}
	err := ValidateFaults([]string{"banner", "no-such-fault", "other"})
	if err == nil {
		t.Fatal("unknown faults accepted")
	}
	for _, want := range []string{`"no-such-fault"`, `"other"`, "valid faults:", "banner", "slow"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := Serve(context.Background(), strings.NewReader(""), &bytes.Buffer{}, nil, Options{Faults: []string{"nope"}}); err == nil {
		t.Errorf("Serve accepted an unknown fault")
	}
}

// script is the client side of the fault smoke tests: one session per
// entry of scriptVersions, each touching every rule a fault can break.
var scriptVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2099-01-01"}

func script(t *testing.T, version string) string {
	if version == modernVersion {
		return modernScript(t)
	}
	cat := mustCompile(t)
	s := &server{cat: cat}
	var lines []string
	id := 0
	req := func(method string, params any) {
		id++
		lines = append(lines, request(fmt.Sprint(id), method, params))
	}
	lines = append(lines, request(`"pre"`, "ping", nil), request(`"pre-list"`, "resources/list", nil))
	p := initParams(version)
	p["capabilities"] = map[string]any{"x-unknown": map[string]any{}}
	req("initialize", p)
	lines = append(lines, notification("notifications/initialized", nil))
	req("ping", nil)
	req("ping", map[string]any{"_meta": map[string]any{}})
	req("resources/list", nil)
	req("resources/list", map[string]any{})
	for _, off := range []int{3, 3, 6, 9} {
		req("resources/list", map[string]any{"cursor": s.encodeCursor(listResources, off)})
	}
	req("resources/list", map[string]any{"cursor": "mcp-conformance-invalid-cursor"})
	req("resources/templates/list", nil)
	for _, off := range []int{2, 4} {
		req("resources/templates/list", map[string]any{"cursor": s.encodeCursor(listTemplates, off)})
	}
	for _, r := range cat.resources {
		req("resources/read", map[string]any{"uri": r.URI})
	}
	for _, uri := range []string{"test://items/42", "test://greeting/Ada", "test://mcp-conformance/does-not-exist",
		"file:///../../etc/passwd", "test://mcpconform-mock/bad uri.txt"} {
		req("resources/read", map[string]any{"uri": uri})
	}
	req("resources/subscribe", map[string]any{"uri": "test://static/hello.txt"})
	req("resources/unsubscribe", map[string]any{"uri": "test://static/hello.txt"})
	req("resources/read", map[string]any{})
	req("mcp-conformance/unknown-method", nil)
	lines = append(lines,
		`{"jsonrpc":"2.0","id":1,"method":`,
		`{"jsonrpc":"1.0","id":"env","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		notification("notifications/x-conformance", nil),
		`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"resources/templates/list"}]`,
	)
	req("ping", nil)
	// Added late so that the ids above stay put.
	lines = append(lines, notification("notifications/initialized", map[string]any{}))
	req("ping", map[string]any{"_meta": map[string]any{"com.example.mcpconform/probe": "x"}})
	req("resources/list", map[string]any{"_meta": map[string]any{"progressToken": "p1"}})
	lines = append(lines, `{"jsonrpc":"2.0","id":"arr","method":"resources/list","params":[]}`)
	lines = append(lines, toolsAndPrompts(s, func(n int) string { return fmt.Sprintf(`"t%d"`, n) }, nil)...)
	lines = append(lines, logsAndCompletions(func(n int) string { return fmt.Sprintf(`"c%d"`, n) }, nil)...)
	return strings.Join(lines, "\n") + "\n"
}

// logsAndCompletions are the requests of the scripts that touch the rules
// of logging and completion a fault can break: logging/setLevel to a
// level, a request it may log about, setLevel to a level no version
// defines (c1 … c3); completions of a prompt argument, a template
// variable and an argument of an unknown prompt (c4 … c6); server/discover
// asking for an unknown log level (c7, 2026-07-28 only); a completion with
// context (c7, mc8); server/discover asking for logs at "error" (mc9,
// 2026-07-28 only). id and wrap are as for toolsAndPrompts.
func logsAndCompletions(id func(n int) string, wrap func(map[string]any) map[string]any) []string {
	var lines []string
	req := func(method string, params map[string]any) {
		var p any = params
		if wrap != nil {
			p = wrap(params)
		}
		lines = append(lines, request(id(len(lines)+1), method, p))
	}
	req("logging/setLevel", map[string]any{"level": "emergency"})
	req("ping", nil)
	req("logging/setLevel", map[string]any{"level": "mcpconform-verbose"})
	complete := func(ref map[string]any, arg string) map[string]any {
		return map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}
	}
	req("completion/complete", complete(map[string]any{"type": "ref/prompt", "name": "summarize"}, "topic"))
	req("completion/complete", complete(map[string]any{"type": "ref/resource", "uri": "test://greeting/{name}"}, "name"))
	req("completion/complete", complete(map[string]any{"type": "ref/prompt", "name": "mcp-conformance-unknown-prompt"}, "topic"))
	// discoverAt asks server/discover for logs at level (2026-07-28 only).
	discoverAt := func(level string) {
		if wrap == nil {
			return
		}
		p := wrap(nil)
		meta := maps.Clone(p["_meta"].(map[string]any))
		meta[metaLogLevel] = level
		p["_meta"] = meta
		lines = append(lines, request(id(len(lines)+1), "server/discover", p))
	}
	discoverAt("mcpconform-verbose")
	withContext := complete(map[string]any{"type": "ref/prompt", "name": "summarize"}, "style")
	withContext["context"] = map[string]any{"arguments": map[string]any{"topic": "music"}}
	req("completion/complete", withContext)
	discoverAt("error")
	return lines
}

// toolsAndPrompts are the requests of the scripts that touch every rule
// of tools and prompts a fault can break: both lists, every tool called
// (well, with bad arguments, unknown, without a name, by the name
// bad-tool-name gives) and every prompt got (with and without its
// required argument, unknown). id makes the n-th id; wrap, if not nil,
// makes the params of a request.
func toolsAndPrompts(s *server, id func(n int) string, wrap func(map[string]any) map[string]any) []string {
	var lines []string
	req := func(method string, params map[string]any) {
		var p any
		if params != nil {
			p = params
		}
		if wrap != nil {
			p = wrap(params)
		}
		lines = append(lines, request(id(len(lines)+1), method, p))
	}
	req("tools/list", nil)
	req("tools/list", map[string]any{"cursor": s.encodeCursor(listTools, 2)})
	req("tools/list", map[string]any{"cursor": "mcp-conformance-invalid-cursor"})
	for _, call := range []map[string]any{
		{"name": "echo", "arguments": map[string]any{"text": "hi"}},
		{"name": badToolName, "arguments": map[string]any{"text": "hi"}},
		{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}},
		{"name": "add", "arguments": map[string]any{"a": "x", "b": 2}},
		{"name": "delete_note", "arguments": map[string]any{"id": "n1"}},
		{"name": "mcp-conformance-unknown-tool", "arguments": map[string]any{}},
		{"arguments": map[string]any{}},
	} {
		req("tools/call", call)
	}
	req("prompts/list", nil)
	req("prompts/list", map[string]any{"cursor": s.encodeCursor(listPrompts, 1)})
	req("prompts/list", map[string]any{"cursor": s.encodeCursor(listPrompts, 2)}) // the end: a page only a longer list fills
	for _, get := range []map[string]any{
		{"name": "summarize", "arguments": map[string]any{"topic": "MCP"}},
		{"name": "greeting"},
		{"name": "summarize"},
		{"name": "mcp-conformance-unknown-prompt"},
	} {
		req("prompts/get", get)
	}
	req("tools/call", map[string]any{"name": "logo", "arguments": map[string]any{}})
	req("prompts/list", map[string]any{"cursor": "mcp-conformance-invalid-cursor"})
	// With a progress token (lost in 2026-07-28, where wrap replaces
	// _meta): the logo tool reports three steps.
	req("tools/call", map[string]any{"name": "logo", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "p-logo"}})
	return lines
}

// modernScript is the client side of a 2026-07-28 session: ids are
// strings "m…" so that no legacy effect check matches them by accident.
func modernScript(t *testing.T) string {
	cat := mustCompile(t)
	s := &server{cat: cat}
	var lines []string
	id := 0
	raw := func(method string, params any) {
		id++
		lines = append(lines, request(fmt.Sprintf(`"m%d"`, id), method, params))
	}
	req := func(method string, params map[string]any) { raw(method, enveloped(params)) }
	req("server/discover", nil)
	req("resources/list", nil)
	for _, off := range []int{3, 6, 9} {
		req("resources/list", map[string]any{"cursor": s.encodeCursor(listResources, off)})
	}
	req("resources/templates/list", nil)
	req("resources/templates/list", map[string]any{"cursor": s.encodeCursor(listTemplates, 2)})
	for _, uri := range []string{"test://static/hello.txt", "test://static/pixel.png", "test://items/42",
		"test://mcp-conformance/does-not-exist", "file:///../../etc/passwd", "not a uri"} {
		req("resources/read", map[string]any{"uri": uri})
	}
	// The envelope: missing, incomplete, an unsupported version, then a valid request.
	raw("resources/list", nil)
	raw("resources/list", map[string]any{})
	raw("resources/list", map[string]any{"_meta": map[string]any{metaClientCapabilities: map[string]any{}}})
	raw("resources/list", map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion}})
	raw("resources/list", map[string]any{"_meta": map[string]any{metaProtocolVersion: "1900-01-01", metaClientCapabilities: map[string]any{}}})
	req("server/discover", nil)
	req("ping", nil)
	req("resources/subscribe", map[string]any{"uri": "test://static/hello.txt"})
	// Streams: a string id and an integer id; the first is cancelled.
	lines = append(lines,
		request(`"L1"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"test://static/hello.txt"}}})),
		request(`77`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourcesListChanged": true}})))
	req("resources/read", map[string]any{"uri": "test://static/hello.txt"})
	lines = append(lines, notification("notifications/cancelled", map[string]any{"requestId": "L1"}))
	req("resources/list", nil)
	lines = append(lines, notification("notifications/cancelled", map[string]any{"requestId": 77}))
	// A stream left open is closed at EOF; then a legacy initialize.
	lines = append(lines, request(`"L3"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{}})))
	// The last listed resource, and an envelope without clientInfo.
	req("resources/read", map[string]any{"uri": cat.resources[len(cat.resources)-1].URI})
	raw("resources/list", map[string]any{"_meta": map[string]any{metaProtocolVersion: modernVersion, metaClientCapabilities: map[string]any{}}})
	// Tools and prompts, with ids "mt1" … of their own.
	lines = append(lines, toolsAndPrompts(s, func(n int) string { return fmt.Sprintf(`"mt%d"`, n) }, enveloped)...)
	lines = append(lines, logsAndCompletions(func(n int) string { return fmt.Sprintf(`"mc%d"`, n) }, enveloped)...)
	raw("initialize", initParams("2025-11-25"))
	return strings.Join(lines, "\n") + "\n"
}

// runScript runs the script once per version and returns all stdout,
// sessions separated by a line "=== <version>".
func runScript(t *testing.T, faults []string, versions ...string) (stdout, stderr string) {
	t.Helper()
	var out, errs strings.Builder
	for _, v := range versions {
		o, e, err := transcript(Options{Faults: faults}, script(t, v))
		if err != nil {
			t.Fatalf("faults %v, version %s: Serve: %v", faults, v, err)
		}
		fmt.Fprintf(&out, "=== %s\n%s", v, o)
		errs.Write(e)
	}
	return out.String(), errs.String()
}

// specialFaults are checked by their own tests: their stdout is the
// correct one, or they act on the process, or their output is huge.
var specialFaults = []string{
	"slow", "chunked-writes", "stderr-flood", "ignore-stdin-eof",
	"huge-line", "huge-line-unterminated", "huge-response",
	"notification-flood", "stdout-flood", "request-flood", "endless-line",
	"stream-decoder", "small-items-flood", "small-items-line",
}

// TestStreamDecoderSwallowsAndDies: under stream-decoder a truncated line
// takes the next message as its missing value, and the message after that
// ends the server, as go-sdk's stream decoder does.
func TestStreamDecoderSwallowsAndDies(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
{"jsonrpc":"2.0","id":3,"method":
{"jsonrpc":"2.0","id":4,"method":"ping"}
{"jsonrpc":"2.0","id":5,"method":"ping"}
`
	out, _, err := transcript(Options{Faults: []string{"stream-decoder"}}, in)
	if err == nil || !strings.Contains(err.Error(), "decoding the JSON stream") {
		t.Errorf("Serve returned %v, want the decoding error that ends the server", err)
	}
	if !strings.Contains(string(out), `"id":2,"result":{}`) {
		t.Errorf("the ping before the truncated line was not answered:\n%s", out)
	}
	for _, id := range []string{`"id":3`, `"id":4`, `"id":5`} {
		if strings.Contains(string(out), id) {
			t.Errorf("stdout answers %s, which the broken stream swallowed:\n%s", id, out)
		}
	}
	// The correct server answers the pings around the truncated line.
	out, _, err = transcript(Options{}, in)
	if err != nil || !strings.Contains(string(out), `"id":4,"result":{}`) || !strings.Contains(string(out), `"id":5,"result":{}`) {
		t.Errorf("the correct server: %v\n%s", err, out)
	}
}

// faultEffects states, for many faults, something the faulty transcript
// shows and the correct one does not.
var faultEffects = map[string]func(out string) bool{
	"banner":                func(o string) bool { return strings.Contains(o, "=== 2024-11-05\nMCP mock server") },
	"log-stdout":            func(o string) bool { return strings.Contains(o, "INFO mockserver answered ping") },
	"pretty-print":          func(o string) bool { return strings.Contains(o, "\n{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 11,") },
	"bom":                   func(o string) bool { return strings.Contains(o, "\n\uFEFF{") },
	"invalid-utf8":          func(o string) bool { return !utf8.ValidString(o) },
	"crlf":                  func(o string) bool { return strings.Contains(o, "}\r\n") },
	"blank-lines":           func(o string) bool { return strings.Contains(o, "}\n\n") },
	"nul-byte":              func(o string) bool { return strings.Contains(o, "\n\x00\n") },
	"partial-line-at-exit":  func(o string) bool { return strings.Contains(o, `"notifications/mes=== `) },
	"wrong-jsonrpc-version": func(o string) bool { return strings.Contains(o, `"jsonrpc":"1.0"`) },
	"missing-jsonrpc":       func(o string) bool { return strings.Contains(o, "\n{\"id\":11,\"result\"") },
	"id-as-string":          func(o string) bool { return strings.Contains(o, `"id":"11","result":{"nextCursor"`) },
	"id-mismatch":           func(o string) bool { return strings.Contains(o, `"id":1011,"result":{"nextCursor"`) },
	"duplicate-response": func(o string) bool {
		return strings.Count(o, `{"jsonrpc":"2.0","id":11,"result"`) == len(scriptVersions)*2
	},
	"result-and-error": func(o string) bool {
		return strings.Contains(o, `"uriTemplate":"test://files/{+path}"}]},"error":{"code":-32603`)
	},
	"result-not-object":     func(o string) bool { return strings.Contains(o, `"id":3,"result":[]`) },
	"error-code-string":     func(o string) bool { return strings.Contains(o, `"code":"-32601"`) },
	"error-code-float":      func(o string) bool { return strings.Contains(o, `"code":-32601.5`) },
	"reply-to-notification": func(o string) bool { return strings.Contains(o, `{"jsonrpc":"2.0","id":null,"result":{}}`) },
	"notification-with-id": func(o string) bool {
		return strings.Contains(o, `"id":null,"method":"notifications/resources/list_changed"`)
	},
	"params-array": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/resources/list_changed","params":[]`)
	},
	"server-request-bad-id": func(o string) bool { return strings.Contains(o, `"id":1.5,"method":"ping"`) },
	"id-null-accepted":      func(o string) bool { return strings.Contains(o, `{"jsonrpc":"2.0","id":null,"result":{}}`) },
	"id-coerced":            func(o string) bool { return strings.Contains(o, `{"jsonrpc":"2.0","id":1,"result":{}}`) },
	"parse-error-bad-id":    func(o string) bool { return strings.Contains(o, `"id":0,"error":{"code":-32700`) },
	"batch-unsupported": func(o string) bool {
		return !strings.Contains(o, `[{"jsonrpc":"2.0","id":"b1"`) && strings.Contains(o, "batches are not supported")
	},
	"no-parse-error":            func(o string) bool { return !strings.Contains(o, "-32700") },
	"no-invalid-request":        func(o string) bool { return !strings.Contains(o, `"code":-32600,"message":"Invalid request`) },
	"unknown-method-wrong-code": func(o string) bool { return strings.Contains(o, `"error":{"code":-32602,"message":"Method not found`) },
	"invalid-params-internal":   func(o string) bool { return strings.Contains(o, `{"code":-32603,"message":"Invalid params: uri`) },
	"multiline-error-message":   func(o string) bool { return strings.Contains(o, `\ngoroutine 1`) },
	"no-version-echo":           func(o string) bool { return !strings.Contains(o, `"protocolVersion":"2024-11-05"`) },
	"version-error":             func(o string) bool { return strings.Contains(o, `"message":"Unsupported protocol version."`) },
	"version-bogus":             func(o string) bool { return strings.Contains(o, `"protocolVersion":"2099-01-01"`) },
	"missing-server-info":       func(o string) bool { return !strings.Contains(o, `"serverInfo"`) },
	"instructions-not-string":   func(o string) bool { return strings.Contains(o, `"instructions":42`) },
	"capabilities-bad-types":    func(o string) bool { return strings.Contains(o, `"subscribe":"yes"`) },
	"undeclared-resources": func(o string) bool {
		return strings.Contains(o, `"capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"tools":{"listChanged":true}}`)
	},
	"reject-unknown-capability": func(o string) bool { return strings.Contains(o, "Unknown client capability") },
	"early-server-request":      func(o string) bool { return strings.Contains(o, `"method":"roots/list"`) },
	"unrequested-log": func(o string) bool {
		return strings.Contains(sessionOf(o, "2025-11-25"), `"method":"notifications/message"`)
	},
	"ping-not-empty":           func(o string) bool { return strings.Contains(o, `"result":{"status":"ok"}`) },
	"ping-before-init-refused": func(o string) bool { return strings.Contains(o, `"id":"pre","error"`) },
	"ping-params-rejected":     func(o string) bool { return strings.Contains(o, "ping takes no params") },
	"cursor-not-string":        func(o string) bool { return strings.Contains(o, `"nextCursor":3`) },
	"cursor-null":              func(o string) bool { return strings.Contains(o, `"nextCursor":null`) },
	"invalid-cursor-accepted":  func(o string) bool { return strings.Contains(o, `{"jsonrpc":"2.0","id":10,"result":{"nextCursor"`) },
	"list-not-array":           func(o string) bool { return strings.Contains(o, `"resources":{"config://app/settings.json":{`) },
	"resource-missing-name": func(o string) bool {
		return strings.Contains(o, `"mimeType":"text/plain","size":14,"title":"Hello, world","uri"`)
	},
	"resource-bad-uri":         func(o string) bool { return strings.Contains(o, `"uri":"test://mcpconform-mock/bad uri.txt"}]`) },
	"resource-bad-field-types": func(o string) bool { return strings.Contains(o, `"mimeType":7`) },
	"newer-fields":             func(o string) bool { return strings.Contains(sessionOf(o, "2024-11-05"), `"title":"Hello, world"`) },
	"bad-annotations":          func(o string) bool { return strings.Contains(o, `"audience":["robot"],"priority":1.5`) },
	"bad-audience":             func(o string) bool { return strings.Contains(o, `"audience":["robot"],"priority":0.8`) },
	"bad-priority":             func(o string) bool { return strings.Contains(o, `"audience":["user","assistant"],"priority":1.5`) },
	"bad-last-modified":        func(o string) bool { return strings.Contains(o, `"lastModified":"yesterday"`) },
	"bad-icon-scheme":          func(o string) bool { return strings.Contains(o, `"src":"javascript:alert(1)"`) },
	"size-mismatch":            func(o string) bool { return strings.Contains(o, `"size":15,`) },
	"bad-meta-key":             func(o string) bool { return strings.Contains(o, `"bad key!":1`) },
	"reserved-meta-key":        func(o string) bool { return strings.Contains(o, `"io.modelcontextprotocol/bogus":true`) },
	"templates-not-array":      func(o string) bool { return strings.Contains(o, `"resourceTemplates":{"`) },
	"template-unbalanced":      func(o string) bool { return strings.Contains(o, `"uriTemplate":"file:///{path"`) },
	"template-missing-name": func(o string) bool {
		return strings.Contains(o, `{"description":"Echoes the id as JSON.","mimeType":"application/json","title":"Item by id","uriTemplate"`)
	},
	"template-read-error": func(o string) bool { return strings.Contains(o, "Internal error: reading the resource failed.") },
	"template-mimetype-mismatch": func(o string) bool {
		return strings.Contains(o, `{"mimeType":"text/plain","text":"{\"id\":\"42\"}","uri":"test://items/42"}`)
	},
	"blob-bad-base64": func(o string) bool {
		return strings.Contains(o, `"blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGI6IfgLEAAA__8DgAHW9v42HwAAAABJRU5ErkJggg"`)
	},
	"blob-wrapped-base64": func(o string) bool {
		return strings.Contains(o, `"blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGI6IfgLEAAA//8DgAHW\n`)
	},
	"text-and-blob": func(o string) bool {
		return strings.Contains(o, `"blob":"SGVsbG8sIHdvcmxkIQo=","mimeType":"text/plain","text":"Hello, world!\n"`)
	},
	"contents-missing-uri": func(o string) bool {
		return strings.Contains(o, `"contents":[{"mimeType":"text/plain","text":"Hello, world!\n"}]`)
	},
	"contents-not-array": func(o string) bool { return strings.Contains(o, `"contents":{"mimeType"`) },
	"empty-text-omitted": func(o string) bool {
		return strings.Contains(o, `"contents":[{"mimeType":"text/plain","uri":"test://static/empty.txt"}]`)
	},
	"binary-as-text":      func(o string) bool { return strings.Contains(o, `{"mimeType":"image/png","text":"iVBOR`) },
	"unknown-uri-success": func(o string) bool { return strings.Contains(o, `"result":{"contents":[]}`) },
	"unknown-uri-32602": func(o string) bool {
		return strings.Contains(sessionOf(o, "2025-11-25"), `{"code":-32602,"message":"Resource not found`)
	},
	"unknown-uri-internal": func(o string) bool { return strings.Contains(o, `{"code":-32603,"message":"Resource not found`) },
	"not-found-no-data": func(o string) bool {
		return !strings.Contains(o, `"data":{"uri":"test://mcp-conformance/does-not-exist"}`)
	},
	"hostile-uri-leak": func(o string) bool { return strings.Contains(o, "root:x:0:0") },
	"contents-meta-bad-type": func(o string) bool {
		return strings.Contains(o, `"contents":[{"_meta":"x"`)
	},
	"subscribe-unsupported": func(o string) bool { return strings.Contains(o, "Method not found: resources/subscribe.") },
	"unsubscribe-error":     func(o string) bool { return strings.Contains(o, "unsubscribing failed") },
	"spurious-updated": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/resources/updated","params":{"uri":"test://static/hello.txt"}`)
	},
	"updated-missing-uri": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/resources/updated","params":{}`)
	},
	"undeclared-list-changed": func(o string) bool {
		return strings.Contains(o, `"resources":{"subscribe":true}`) && strings.Contains(o, "list_changed")
	},
	"list-changed-bad-params": func(o string) bool { return strings.Contains(o, `"params":{"_meta":"x"}`) },
	"hang-on-list":            func(o string) bool { return !strings.Contains(o, `"resources":[`) },
	// The 2026-07-28 session of modernScript: its requests have ids "m1" … "m24".
	"modern-no-discover": func(o string) bool { return modernLine(o, "m1", `"error":{"code":-32601`) },
	"discover-bad-shape": func(o string) bool { return modernLine(o, "m1", `"instructions":42`) },
	"no-result-type":     func(o string) bool { return !modernLine(o, "m6", `"resultType"`) },
	"bad-result-type":    func(o string) bool { return modernLine(o, "m6", `"resultType":"done"`) },
	"no-server-info-meta": func(o string) bool {
		return !strings.Contains(sessionOf(o, modernVersion), metaServerInfo)
	},
	"envelope-not-required":            func(o string) bool { return modernLine(o, "m14", `"result":{`) },
	"client-capabilities-not-required": func(o string) bool { return modernLine(o, "m17", `"result":{`) },
	"unsupported-version-served":       func(o string) bool { return modernLine(o, "m18", `"result":{`) },
	"unsupported-version-no-data": func(o string) bool {
		return modernLine(o, "m18", `"code":-32022`) && !modernLine(o, "m18", `"data"`)
	},
	"stateful-version":        func(o string) bool { return modernLine(o, "m19", `"error":{"code":-32022`) },
	"modern-ping-served":      func(o string) bool { return modernLine(o, "m20", `"result":{`) },
	"modern-subscribe-served": func(o string) bool { return modernLine(o, "m21", `"result":{`) },
	"no-cache-hints":          func(o string) bool { return !modernLine(o, "m2", `"ttlMs"`) && modernLine(o, "m1", `"ttlMs"`) },
	"negative-ttl":            func(o string) bool { return modernLine(o, "m2", `"ttlMs":-1`) },
	"cache-scope-varies": func(o string) bool {
		return modernLine(o, "m2", `"cacheScope":"public"`) && modernLine(o, "m3", `"cacheScope":"private"`)
	},
	"not-found-32002-modern":          func(o string) bool { return modernLine(o, "m11", `"error":{"code":-32002`) },
	"not-found-empty-contents-modern": func(o string) bool { return modernLine(o, "m11", `"contents":[]`) },
	"server-request-modern": func(o string) bool {
		return strings.Contains(sessionOf(o, modernVersion), `"method":"roots/list"`)
	},
	"log-without-level": func(o string) bool {
		return strings.Contains(sessionOf(o, modernVersion), `"data":"server/discover answered"`)
	},
	"legacy-code-range": func(o string) bool {
		return modernLine(o, "m12", `"code":-32001`) && modernLine(o, "m13", `"code":-32001`)
	},
	"header-mismatch-code": func(o string) bool {
		return modernLine(o, "m12", `"code":-32020`) && modernLine(o, "m13", `"code":-32020`)
	},
	"list-varies":       func(o string) bool { return modernLine(o, "m23", "test://mcpconform-mock/appeared.txt") },
	"extension-bad-key": func(o string) bool { return modernLine(o, "m1", `"extensions":{"mcpconform-mock":{}}`) },
	"bad-traceparent":   func(o string) bool { return modernLine(o, "m2", `"traceparent":"not-a-trace-context"`) },
	"legacy-initialize-unexplained": func(o string) bool {
		return modernLine(o, "m26", `"error":{"code":-32600,"message":"Invalid request."}`)
	},
	"no-ack": func(o string) bool {
		return !strings.Contains(sessionOf(o, modernVersion), "notifications/subscriptions/acknowledged")
	},
	"ack-grants-more": func(o string) bool {
		return strings.Contains(o, `/subscriptionId":"L1"},"notifications":{"resourceSubscriptions":["test://static/hello.txt"],"resourcesListChanged":true}`)
	},
	"ack-after-update": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"uri":"test://static/hello.txt"}}`+"\n"+`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"`)
	},
	"subscription-id-as-string": func(o string) bool { return strings.Contains(o, `"io.modelcontextprotocol/subscriptionId":"77"`) },
	"stream-after-cancel":       func(o string) bool { return strings.Contains(o, `{"jsonrpc":"2.0","id":"L1","result"`) },
	"list-changed-unrequested": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/resources/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}`)
	},
	"list-changed-outside-stream": func(o string) bool {
		return strings.Contains(sessionOf(o, modernVersion), `"method":"notifications/resources/list_changed"}`)
	},
	"cancelled-not-listen": func(o string) bool {
		return strings.Contains(o, `"method":"notifications/cancelled","params":{"reason":"mockserver cancels an answered request","requestId":"m1"}`)
	},

	// The tools and prompts requests of toolsAndPrompts: ids "t1" … "t17"
	// in the handshake sessions.
	"tools-not-array": func(o string) bool { return scriptLine(o, "2025-11-25", "t1", `"tools":{"add":{`) },
	"tool-no-input-schema": func(o string) bool {
		return scriptLine(o, "2024-11-05", "t1", `"tools":[{"description":"Returns the text it is given.","name":"echo"},`)
	},
	"tool-input-schema-not-object": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t1", `"inputSchema":{"type":"string"},"name":"echo"`)
	},
	"duplicate-tool-names": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t1", `"description":"Listed a second time under the same name.","inputSchema"`)
	},
	"bad-tool-name": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t1", `"name":"echo text!"`) && scriptLine(o, "2025-11-25", "t5", `"result":{"content":[{"text":"hi"`) &&
			scriptLine(o, "2025-06-18", "t1", `"name":"echo"`)
	},
	// The logo call with a progress token, "t20".
	"progress-decreasing": func(o string) bool {
		return strings.Contains(sessionOf(o, "2025-11-25"), `"message":"logo: step 1 of 3","progress":3,"progressToken":"p-logo"`)
	},
	"progress-not-number": func(o string) bool { return strings.Contains(sessionOf(o, "2025-11-25"), `"progress":"1/3"`) },
	"progress-unknown-token": func(o string) bool {
		return strings.Contains(sessionOf(o, "2025-11-25"), `"progressToken":"mock-other-p-logo"`)
	},
	"progress-after-response": func(o string) bool {
		session := sessionOf(o, "2025-11-25")
		answer := strings.Index(session, `{"jsonrpc":"2.0","id":"t20",`)
		return answer >= 0 && strings.Index(session, `"logo: step 3 of 3"`) > answer
	},
	"unknown-tool-result": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t9", `"result":{"content":[{"text":"unknown tool","type":"text"}],"isError":true}`)
	},
	"prompts-not-array": func(o string) bool { return scriptLine(o, "2025-11-25", "t11", `"prompts":{"summarize":{`) },
	"prompt-no-name": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t11", `"prompts":[{"arguments"`) && !scriptLine(o, "2025-11-25", "t11", `"name":"summarize"`)
	},
	"duplicate-prompt-names": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t11", `"description":"Listed a second time under the same name."`)
	},
	"prompt-no-messages": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t14", `"result":{"description":"Asks for a summary of a topic, in a style if one is given."}`)
	},
	"prompt-bad-role": func(o string) bool { return scriptLine(o, "2025-11-25", "t15", `"role":"system"`) },
	"prompt-content-array": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t14", `"content":[{"text":"Summarize MCP. Style: "`)
	},
	"unknown-prompt-result": func(o string) bool { return scriptLine(o, "2025-11-25", "t17", `"result":{"messages":[]}`) },
	"prompt-missing-argument-accepted": func(o string) bool {
		return scriptLine(o, "2025-11-25", "t16", `"text":"Summarize . Style: "`)
	},

	// The logging and completion requests of logsAndCompletions: ids
	// "c1" … "c6" in the handshake sessions, "mc1" … "mc7" in 2026-07-28.
	"log-bad-message":             func(o string) bool { return strings.Contains(o, `"level":"verbose","logger":42`) },
	"set-level-result-not-object": func(o string) bool { return scriptLine(o, "2025-11-25", "c1", `"result":[]`) },
	"set-level-ignored":           func(o string) bool { return strings.Contains(sessionOf(o, "2025-11-25"), `"level":"debug"`) },
	"set-level-unknown-accepted":  func(o string) bool { return scriptLine(o, "2025-11-25", "c3", `"result":{}`) },
	"log-level-meta-unchecked":    func(o string) bool { return modernLine(o, "mc7", `"result":{`) },
	"log-level-meta-ignored": func(o string) bool {
		return strings.Contains(sessionOf(o, modernVersion), `"data":"answering server/discover","level":"debug"`)
	},
	"completion-context-refused": func(o string) bool { return scriptLine(o, "2025-11-25", "c7", "does not take context") },
	"completion-too-many":        func(o string) bool { return scriptLine(o, "2025-11-25", "c4", `"topic-100"`) },
	"completion-total-low":       func(o string) bool { return scriptLine(o, "2025-11-25", "c4", `"total":3`) },
	"completion-unknown-prompt-served": func(o string) bool {
		return scriptLine(o, "2025-11-25", "c6", `"result":{"completion"`)
	},
	"completion-undeclared-wrong-code": func(o string) bool {
		return scriptLine(o, "2025-11-25", "c4", `"code":-32602`) && !strings.Contains(sessionOf(o, "2025-11-25"), `"completions":{}`)
	},
	"completion-bad-result": func(o string) bool { return scriptLine(o, "2025-11-25", "c5", `"values":"none"`) },

	"hang-on-read":           func(o string) bool { return !strings.Contains(o, `"contents":[`) },
	"hang-on-templates-list": func(o string) bool { return !strings.Contains(o, `"resourceTemplates":[`) },
	"params-array-dropped":   func(o string) bool { return !strings.Contains(o, `"id":"arr"`) },
	"hostile-strings": func(o string) bool {
		return strings.Contains(o, `\u003cscript\u003e`) && strings.Contains(o, `\u001b[31m`) && strings.Contains(o, `\udfff\ud800`)
	},
}

func TestEveryFaultChangesOutput(t *testing.T) {
	versions := append(slices.Clone(scriptVersions), modernVersion)
	baseline, _ := runScript(t, nil, versions...)
	for name, effect := range faultEffects {
		if effect(baseline) {
			t.Errorf("the effect check of %s already holds for the correct server", name)
		}
	}
	for _, f := range Faults() {
		if faultIndex[f.Name].process || slices.Contains(specialFaults, f.Name) || f.Bulk && raceEnabled {
			// Bulk faults move tens of megabytes, which the race detector
			// makes take minutes: they run without it.
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			out, _ := runScript(t, []string{f.Name}, versions...)
			if out == baseline {
				t.Fatalf("the transcript is the same as the correct server's")
			}
			if effect, ok := faultEffects[f.Name]; ok && !effect(out) {
				t.Errorf("the transcript does not show the fault's effect:\n%s", clip(out))
			}
		})
	}
}

// TestFaultsLeaveTheRestAlone checks, for faults aimed at one message or
// field, that stdout differs from the correct server's in few lines.
func TestFaultsLeaveTheRestAlone(t *testing.T) {
	leavesTheRestAlone(t, "2025-11-25",
		"result-not-object", "cursor-not-string", "cursor-null", "resource-missing-name", "bad-priority",
		"template-unbalanced", "template-missing-name", "not-found-no-data", "hostile-uri-leak",
		"unknown-uri-32602", "unsubscribe-error", "parse-error-bad-id", "ping-not-empty",
		"tools-not-array", "tool-no-input-schema", "tool-input-schema-not-object", "duplicate-tool-names", "bad-tool-name",
		"unknown-tool-result", "prompts-not-array", "prompt-no-name", "duplicate-prompt-names", "prompt-no-messages",
		"prompt-bad-role", "prompt-content-array", "unknown-prompt-result", "prompt-missing-argument-accepted",
		"progress-decreasing", "progress-not-number", "progress-unknown-token", "progress-after-response")
	leavesTheRestAlone(t, modernVersion,
		"discover-bad-shape", "negative-ttl", "cache-scope-varies", "no-result-type", "bad-result-type",
		"envelope-not-required", "client-capabilities-not-required", "unsupported-version-served",
		"unsupported-version-no-data", "stateful-version", "modern-ping-served", "modern-subscribe-served",
		"not-found-32002-modern", "not-found-empty-contents-modern", "legacy-code-range", "header-mismatch-code",
		"extension-bad-key", "legacy-initialize-unexplained", "ack-grants-more", "subscription-id-as-string")
}

func leavesTheRestAlone(t *testing.T, version string, faults ...string) {
	t.Helper()
	baseline, _ := runScript(t, nil, version)
	base := strings.Split(baseline, "\n")
	for _, name := range faults {
		out, _ := runScript(t, []string{name}, version)
		got := strings.Split(out, "\n")
		if len(got) != len(base) {
			t.Errorf("%s: %d lines, the correct server writes %d", name, len(got), len(base))
			continue
		}
		changed := 0
		for i := range got {
			if got[i] != base[i] {
				changed++
			}
		}
		if changed == 0 || changed > 6 {
			t.Errorf("%s changed %d lines, want 1 to 6", name, changed)
		}
	}
}

// modernLine reports whether the response to request id of the 2026-07-28
// session holds want.
func modernLine(out, id, want string) bool { return scriptLine(out, modernVersion, id, want) }

// scriptLine reports whether the response to the request with the string
// id of a version's session holds want.
func scriptLine(out, version, id, want string) bool {
	for _, l := range strings.Split(sessionOf(out, version), "\n") {
		if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":"`+id+`",`) {
			return strings.Contains(l, want)
		}
	}
	return false
}

// sessionOf cuts one version's session out of a runScript transcript.
func sessionOf(out, version string) string {
	_, after, _ := strings.Cut(out, "=== "+version+"\n")
	before, _, _ := strings.Cut(after, "\n=== ")
	return before
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

func TestFaultSlow(t *testing.T) {
	input := request("1", "ping", nil) + "\n" + request("2", "ping", nil) + "\n"
	began := time.Now()
	out, _, err := transcript(Options{Faults: []string{"slow"}}, input)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(began); elapsed < 300*time.Millisecond {
		t.Errorf("slow answered in %v, want at least 300ms", elapsed)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	if string(out) != want {
		t.Errorf("slow output %q, want %q (in order)", out, want)
	}
}

func TestFaultChunkedWrites(t *testing.T) {
	for _, faults := range [][]string{nil, {"chunked-writes"}} {
		w := &writeCounter{}
		err := Serve(context.Background(), strings.NewReader(request("1", "ping", nil)+"\n"), w, nil, Options{Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if faults != nil {
			want = 3
		}
		if w.writes != want || w.String() != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			t.Errorf("faults %v: %d writes of %q, want %d writes of the ping response", faults, w.writes, w.String(), want)
		}
	}
}

type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func TestFaultStderrFlood(t *testing.T) {
	_, stderr, err := transcript(Options{Faults: []string{"stderr-flood"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(stderr) < 10_000_000 {
		t.Errorf("stderr-flood wrote %d bytes, want 10 MB", len(stderr))
	}
	_, stderr, _ = transcript(Options{}, "")
	if len(stderr) != 0 {
		t.Errorf("the correct server wrote %q to stderr", stderr)
	}
}

func TestFaultIgnoreStdinEOF(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := Serve(ctx, strings.NewReader(""), &bytes.Buffer{}, nil, Options{Faults: []string{"ignore-stdin-eof"}})
	if err != context.DeadlineExceeded {
		t.Errorf("ignore-stdin-eof: Serve returned %v, want it to wait for the context", err)
	}
	if err := Serve(context.Background(), strings.NewReader(""), &bytes.Buffer{}, nil, Options{}); err != nil {
		t.Errorf("correct server at EOF: %v", err)
	}
}

// lineStats is a writer that keeps only the length and the two ends of
// every line, so huge output costs no memory in the test.
type lineStats struct {
	lines []lineStat
	open  bool
}

type lineStat struct {
	n          int
	head, tail string
}

func (w *lineStats) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if !w.open {
			w.lines = append(w.lines, lineStat{})
			w.open = true
		}
		l := &w.lines[len(w.lines)-1]
		chunk := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			chunk, p = p[:i], p[i+1:]
			w.open = false
		} else {
			p = nil
		}
		if len(l.head) < 200 {
			l.head += string(chunk[:min(len(chunk), 200-len(l.head))])
		}
		l.tail = string(chunk[max(0, len(chunk)-200):])
		l.n += len(chunk)
	}
	return n, nil
}

func TestFaultHugeOutput(t *testing.T) {
	t.Parallel()
	run := func(fault string, input string) []lineStat {
		t.Helper()
		var w lineStats
		if err := Serve(context.Background(), strings.NewReader(input), &w, nil, Options{Faults: []string{fault}}); err != nil {
			t.Fatal(err)
		}
		return w.lines
	}
	initialize := request("1", "initialize", initParams("2025-06-18")) + "\n"

	lines := run("huge-line", initialize)
	if len(lines) != 2 || lines[0].n != 50<<20 || strings.Contains(lines[0].head, "{") || !strings.HasPrefix(lines[1].head, `{"jsonrpc"`) {
		t.Errorf("huge-line: want a 50 MiB garbage line, then the response; got %+v", lines)
	}
	lines = run("huge-line-unterminated", initialize)
	if len(lines) != 1 || lines[0].n <= 50<<20 || !strings.HasSuffix(lines[0].tail, `"version":"1.0.0"}}}`) {
		t.Errorf("huge-line-unterminated: want the response glued to 50 MiB of garbage; got %+v", lines)
	}
	lines = run("huge-response", initialize+strings.Join([]string{
		request("2", "resources/list", map[string]any{"cursor": (&server{cat: mustCompile(t)}).encodeCursor(listResources, 9)}),
		request("3", "resources/read", map[string]any{"uri": "test://mcpconform-mock/huge.txt"}),
	}, "\n")+"\n")
	if len(lines) != 3 || !strings.Contains(lines[1].tail, `"size":52428800,"uri":"test://mcpconform-mock/huge.txt"}]}}`) || lines[2].n < 50<<20 {
		t.Errorf("huge-response: want the huge resource listed and a read of over 50 MiB; got %+v", lines)
	}
	initialized := initialize + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	lines = run("small-items-line", initialized)
	if len(lines) != 2 || lines[1].n < 60<<20 || !strings.Contains(lines[1].head, `"items":[0,0,0`) {
		t.Errorf("small-items-line: want a 60 MiB line of small items after the response; got %+v", lines)
	}
	lines = run("small-items-flood", initialized)
	if len(lines) != 1+smallItemsCount || lines[1].n < 10<<20 || lines[smallItemsCount].n < 10<<20 {
		t.Errorf("small-items-flood: want %d lines of 10 MiB after the response; got %d lines", smallItemsCount, len(lines))
	}
}

func mustCompile(t *testing.T) *catalog {
	t.Helper()
	cat, err := compile(DefaultFixture())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// floodWriter takes writes until it holds limit bytes, then fails them
// and closes stop: the flood faults write until stdout fails.
type floodWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
	stop  chan struct{}
}

func (w *floodWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() >= w.limit {
		return 0, io.ErrClosedPipe
	}
	w.buf.Write(p)
	if w.buf.Len() >= w.limit {
		close(w.stop)
	}
	return len(p), nil
}

func TestFaultFloods(t *testing.T) {
	for fault, want := range map[string]func(lines []string) bool{
		"notification-flood": func(ls []string) bool {
			return strings.HasPrefix(ls[1], `{"jsonrpc":"2.0","method":"notifications/mcpconform-flood","params":{"n":0}}`)
		},
		"stdout-flood": func(ls []string) bool { return ls[1] == "y" && ls[len(ls)-2] == "y" },
		"request-flood": func(ls []string) bool {
			return strings.HasPrefix(ls[1], `{"jsonrpc":"2.0","id":"flood-0","method":"ping"}`)
		},
		"endless-line": func(ls []string) bool {
			return len(ls) == 2 && strings.HasPrefix(ls[1], `{"jsonrpc":"2.0","method":"notifications/mcpconform-endless","params":{"text":"endless endless`)
		},
	} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			w := &floodWriter{limit: 1 << 20, stop: make(chan struct{})}
			in, feed := io.Pipe()
			go func() {
				feed.Write([]byte(request("1", "initialize", initParams("2025-11-25")) + "\n"))
				<-w.stop // the flood fills stdout; then stdin ends
				feed.Close()
			}()
			// Serve ends when stdin does, or with the write error of a
			// stdout that is full.
			if err := Serve(context.Background(), in, w, nil, Options{Faults: []string{fault}}); err != nil && !errors.Is(err, io.ErrClosedPipe) {
				t.Fatal(err)
			}
			<-w.stop
			w.mu.Lock()
			lines := strings.Split(w.buf.String(), "\n")
			w.mu.Unlock()
			if len(lines) < 2 || !strings.Contains(lines[0], `"protocolVersion":"2025-11-25"`) || !want(lines) {
				t.Errorf("%s: %d lines, starting %.200q", fault, len(lines), w.buf.String())
			}
		})
	}
}

// TestServeEndsOnCancel cancels a session blocked on reading stdin:
// Serve returns the context's error, with and without a timing variant
// (under one, a reader runs ahead of the loop).
func TestServeEndsOnCancel(t *testing.T) {
	for _, variants := range [][]string{nil, {"slow-answers"}} {
		ctx, cancel := context.WithCancel(context.Background())
		inR, inW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, inR, &syncBuffer{}, nil, Options{Variants: variants}) }()
		if _, err := inW.Write([]byte(request("1", "ping", nil) + "\n")); err != nil {
			t.Fatal(err)
		}
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("variants %v: Serve returned %v, want %v", variants, err, context.Canceled)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("variants %v: Serve did not return after its context was cancelled", variants)
		}
		inR.Close()
	}
}
