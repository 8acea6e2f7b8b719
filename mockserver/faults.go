package mockserver

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Fault describes one way the mock server can be told to misbehave.
//
// Requirement is the id of the catalogue rule the fault breaks, and Level is
// how the suite grades that rule: "MUST" (the suite should report fail),
// "SHOULD" (warn) or "INFO" (nothing is judged; the fault exercises the
// harness itself: it must finish, stay within its limits and report).
// Apart from that rule, a server with the fault behaves correctly, so a
// suite run shows exactly that requirement failing.
type Fault struct {
	Name        string
	Layer       string
	Requirement string
	Level       string
	Description string
}

// The levels a Fault can have.
const (
	LevelMust   = "MUST"
	LevelShould = "SHOULD"
	LevelInfo   = "INFO"
)

// faultDef is a catalogue entry. process marks faults that act on the real
// process (exit, signals, children): they must not be switched on in a test
// that runs Serve in the test binary itself.
type faultDef struct {
	Fault
	process bool
}

// catalogue lists every fault. Names are stable: other packages and users'
// scripts refer to them.
var catalogue = []faultDef{
	// stdio framing and encoding.
	{Fault: Fault{"banner", "stdio", "STDIO-03", LevelMust, "writes a non-JSON banner line to stdout before anything else"}},
	{Fault: Fault{"log-stdout", "stdio", "STDIO-03", LevelMust, "writes a plain-text log line to stdout before every response"}},
	{Fault: Fault{"pretty-print", "stdio", "STDIO-02", LevelMust, "writes resources/templates/list responses indented over several lines"}},
	{Fault: Fault{"bom", "stdio", "STDIO-04", LevelMust, "writes a UTF-8 byte order mark before the first message"}},
	{Fault: Fault{"invalid-utf8", "stdio", "STDIO-04", LevelMust, "puts raw invalid UTF-8 bytes inside a string (a _meta value) of every resources/read result"}},
	{Fault: Fault{"crlf", "stdio", "STDIO-02", LevelShould, "ends every line with \\r\\n instead of \\n"}},
	{Fault: Fault{"blank-lines", "stdio", "STDIO-03", LevelShould, "writes an empty line after every message"}},
	{Fault: Fault{"nul-byte", "stdio", "STDIO-03", LevelMust, "writes a line holding a raw NUL byte right after the initialize response"}},
	{Fault: Fault{"partial-line-at-exit", "stdio", "STDIO-02", LevelMust, "on stdin EOF writes half a JSON message without a newline, then stops"}},
	{Fault: Fault{"raw-line-separator", "stdio", "STDIO-02", LevelShould, "writes U+2028 and U+2029 raw inside strings instead of escaping them"}},
	{Fault: Fault{"chunked-writes", "stdio", "STDIO-02", LevelInfo, "writes every message in three pieces with short pauses between them (still correct framing)"}},

	// JSON-RPC envelopes and error handling.
	{Fault: Fault{"wrong-jsonrpc-version", "jsonrpc", "JSONRPC-01", LevelMust, `resources/templates/list responses carry "jsonrpc": "1.0"`}},
	{Fault: Fault{"missing-jsonrpc", "jsonrpc", "JSONRPC-01", LevelMust, "resources/templates/list responses have no jsonrpc member"}},
	{Fault: Fault{"id-as-string", "jsonrpc", "JSONRPC-05", LevelMust, "resources/templates/list responses echo integer ids as strings"}},
	{Fault: Fault{"id-mismatch", "jsonrpc", "JSONRPC-05", LevelMust, `resources/templates/list responses carry the request id plus 1000 (string ids get the suffix "+1000")`}},
	{Fault: Fault{"duplicate-response", "jsonrpc", "JSONRPC-05", LevelMust, "answers every resources/templates/list request twice"}},
	{Fault: Fault{"result-and-error", "jsonrpc", "JSONRPC-06", LevelMust, "resources/templates/list responses carry an error member next to the result"}},
	{Fault: Fault{"result-not-object", "jsonrpc", "JSONRPC-07", LevelMust, "answers ping with the result []"}},
	{Fault: Fault{"error-code-string", "jsonrpc", "JSONRPC-08", LevelMust, `method-not-found errors carry their code as a string, "-32601"`}},
	{Fault: Fault{"error-code-float", "jsonrpc", "JSONRPC-08", LevelMust, "method-not-found errors carry the code -32601.5"}},
	{Fault: Fault{"reply-to-notification", "jsonrpc", "JSONRPC-10", LevelMust, `answers every notification with {"id": null, "result": {}}`}},
	{Fault: Fault{"notification-with-id", "jsonrpc", "JSONRPC-09", LevelMust, `server notifications carry "id": null; after notifications/initialized it sends notifications/resources/list_changed (listChanged is declared)`}},
	{Fault: Fault{"params-array", "jsonrpc", "JSONRPC-17", LevelMust, "server notifications carry params as an array; after notifications/initialized it sends notifications/resources/list_changed (listChanged is declared)"}},
	{Fault: Fault{"server-request-bad-id", "jsonrpc", "JSONRPC-02", LevelMust, "after notifications/initialized sends a ping request whose id is 1.5"}},
	{Fault: Fault{"server-request-id-reused", "jsonrpc", "JSONRPC-04", LevelMust, `after notifications/initialized sends two ping requests with the same id "srv-1"`}},
	{Fault: Fault{"id-null-accepted", "jsonrpc", "JSONRPC-03", LevelMust, `serves requests whose id is null and answers them with "id": null`}},
	{Fault: Fault{"parse-error-bad-id", "jsonrpc", "JSONRPC-16", LevelMust, "answers unparseable lines with -32700 carrying the invented id 0 instead of null"}},
	{Fault: Fault{"batch-unsupported", "jsonrpc", "JSONRPC-11", LevelShould, "in a 2025-03-26 session silently ignores lines holding a batch array"}},
	{Fault: Fault{"batch-after-2025-03", "jsonrpc", "JSONRPC-12", LevelMust, "answers batch arrays with a batch array in every version, not only 2025-03-26"}},
	{Fault: Fault{"no-parse-error", "jsonrpc", "ERR-01", LevelShould, "silently ignores unparseable lines instead of answering -32700"}},
	{Fault: Fault{"crash-on-parse-error", "jsonrpc", "ERR-01", LevelMust, "exits with status 1 on an unparseable line"}, process: true},
	{Fault: Fault{"no-invalid-request", "jsonrpc", "ERR-02", LevelShould, "silently ignores structurally invalid messages instead of answering -32600"}},
	{Fault: Fault{"unknown-method-wrong-code", "jsonrpc", "ERR-03", LevelShould, "answers unknown methods with -32602 instead of -32601"}},
	{Fault: Fault{"not-found-code-misused", "jsonrpc", "ERR-06", LevelShould, "answers unknown methods with -32002 (resource not found) instead of -32601 (also breaks ERR-03)"}},
	{Fault: Fault{"elicitation-code-old-version", "jsonrpc", "ERR-11", LevelMust, "in sessions other than 2025-11-25 answers unknown methods with -32042 (URL elicitation required) instead of -32601 (also breaks ERR-03)"}},
	{Fault: Fault{"invalid-params-internal", "jsonrpc", "ERR-04", LevelShould, "answers params of the wrong shape (a missing or mistyped member, e.g. resources/read without uri) with -32603 instead of -32602"}},
	{Fault: Fault{"multiline-error-message", "jsonrpc", "ERR-13", LevelShould, "error messages carry a multi-line stack trace"}},

	// Lifecycle, version negotiation, capabilities, ping.
	{Fault: Fault{"no-version-echo", "lifecycle", "LIFE-04", LevelMust, "never echoes the requested version: answers the newest supported one, or the one before it when the newest was requested (so its counter-offers also break LIFE-05)"}},
	{Fault: Fault{"version-error", "lifecycle", "LIFE-05", LevelShould, "answers an unsupported requested version with a -32602 error instead of a counter-offer"}},
	{Fault: Fault{"version-bogus", "lifecycle", "LIFE-05", LevelMust, "counter-offers the unsupported version it was asked for"}},
	{Fault: Fault{"missing-server-info", "lifecycle", "LIFE-03", LevelMust, "leaves serverInfo out of the initialize result"}},
	{Fault: Fault{"instructions-not-string", "lifecycle", "LIFE-03", LevelMust, "sends instructions as a number"}},
	{Fault: Fault{"capabilities-bad-types", "lifecycle", "LIFE-14", LevelMust, `declares resources: {"subscribe": "yes"} (also breaks RES-CAP-02)`}},
	{Fault: Fault{"list-changed-not-boolean", "lifecycle", "RES-CAP-02", LevelMust, `declares resources.listChanged as the string "yes" (LIFE-14 judges the same capability types)`}},
	{Fault: Fault{"undeclared-resources", "lifecycle", "RES-CAP-01", LevelMust, "declares no resources capability but serves resources"}},
	{Fault: Fault{"undeclared-resources-wrong-code", "lifecycle", "RES-CAP-04", LevelShould, "in legacy sessions declares no resources capability and answers every resources/* request with -32603 instead of -32601"}},
	{Fault: Fault{"reject-unknown-capability", "lifecycle", "LIFE-13", LevelMust, "rejects initialize with -32602 when the client capabilities hold a key it does not know"}},
	{Fault: Fault{"initialized-params-answered", "lifecycle", "LIFE-07", LevelMust, `answers notifications/initialized carrying params ({} or {_meta}) with {"id": null, "result": {}} (also breaks JSONRPC-10)`}},
	{Fault: Fault{"early-server-request", "lifecycle", "LIFE-09", LevelShould, "sends a roots/list request right after the initialize response, before notifications/initialized (also breaks LIFE-10 when the client has no roots capability)"}},
	{Fault: Fault{"silent-before-initialize", "lifecycle", "LIFE-08", LevelShould, "leaves requests other than initialize and ping unanswered before initialize, instead of refusing them"}},
	{Fault: Fault{"unrequested-log", "lifecycle", "LIFE-10", LevelMust, "sends notifications/message after notifications/initialized without declaring logging"}},
	{Fault: Fault{"ping-not-empty", "lifecycle", "PING-01", LevelMust, `answers ping with {"status": "ok"}`}},
	{Fault: Fault{"ping-before-init-refused", "lifecycle", "PING-02", LevelShould, "refuses ping before initialize with an error"}},
	{Fault: Fault{"ping-params-rejected", "lifecycle", "PING-03", LevelMust, "answers ping carrying params ({} or {_meta}) with -32602"}},

	// Pagination.
	{Fault: Fault{"cursor-loop", "pagination", "PAG-03", LevelMust, "the last page of resources/list points back to the first page, so paging never ends"}},
	{Fault: Fault{"cursor-not-string", "pagination", "PAG-01", LevelMust, "nextCursor of resources/list is a number"}},
	{Fault: Fault{"cursor-null", "pagination", "PAG-01", LevelMust, `the last page of resources/list carries "nextCursor": null`}},
	{Fault: Fault{"invalid-cursor-accepted", "pagination", "PAG-05", LevelShould, "answers an invalid cursor with the first page instead of -32602"}},
	{Fault: Fault{"unstable-cursor", "pagination", "PAG-04", LevelShould, "a cursor used again returns a page shifted by one item"}},
	{Fault: Fault{"no-params-differs", "pagination", "PAG-09", LevelMust, "resources/list without params returns a shorter first page than with params {} (the walk stays complete)"}},
	{Fault: Fault{"templates-cursor-loop", "pagination", "RES-TPL-05", LevelMust, "the last page of resources/templates/list points back to the first page, so paging never ends (also breaks PAG-03; resources/list is left alone)"}},

	// resources/list content.
	{Fault: Fault{"list-not-array", "list", "RES-LIST-01", LevelMust, "resources in the list result is an object keyed by URI"}},
	{Fault: Fault{"duplicate-uris", "list", "RES-LIST-04", LevelMust, "the last page repeats the URI of the first resource"}},
	{Fault: Fault{"resource-missing-name", "list", "RES-LIST-02", LevelMust, "the first listed resource has no name"}},
	{Fault: Fault{"resource-empty-title", "list", "RES-LIST-10", LevelShould, `the first listed resource has title "" (sessions at 2025-06-18 or later)`}},
	{Fault: Fault{"resource-bad-uri", "list", "RES-LIST-05", LevelMust, "lists an extra resource whose URI holds a raw space (a read of it answers with the percent-encoded URI)"}},
	{Fault: Fault{"resource-bad-field-types", "list", "RES-LIST-03", LevelMust, `the first listed resource has size "12" (a string) and mimeType 7`}},
	{Fault: Fault{"newer-fields", "list", "RES-LIST-03", LevelShould, "sends title, _meta and icons on resources even in sessions whose version lacks them"}},
	{Fault: Fault{"bad-annotations", "list", "RES-ANN-01", LevelMust, `the first resource's annotations carry audience ["robot"] and priority 1.5 (also breaks RES-ANN-02)`}},
	{Fault: Fault{"bad-audience", "list", "RES-ANN-01", LevelMust, `the first resource's annotations carry audience ["robot"]`}},
	{Fault: Fault{"bad-priority", "list", "RES-ANN-02", LevelMust, "the first resource's annotations carry priority 1.5"}},
	{Fault: Fault{"bad-last-modified", "list", "RES-ANN-03", LevelShould, `the first resource's annotations carry lastModified "yesterday" (sessions at 2025-06-18 or later)`}},
	{Fault: Fault{"bad-icon-scheme", "list", "RES-ICON-02", LevelShould, "the first resource carries an icon whose src is javascript:alert(1) (sessions at 2025-11-25)"}},
	{Fault: Fault{"icon-src-not-string", "list", "RES-ICON-01", LevelMust, "the first resource carries an icon whose src is the number 42 (sessions at 2025-11-25 or later)"}},
	{Fault: Fault{"size-mismatch", "list", "RES-LIST-08", LevelShould, "the first resource's size is one more than the bytes a read returns"}},
	{Fault: Fault{"bad-meta-key", "list", "META-02", LevelMust, `the first resource carries the _meta key "bad key!" (sessions at 2025-06-18 or later)`}},
	{Fault: Fault{"reserved-meta-key", "list", "META-03", LevelShould, "the first resource carries an undefined _meta key under a reserved prefix (io.modelcontextprotocol/ at 2025-11-25, modelcontextprotocol.io/ at 2025-06-18)"}},
	{Fault: Fault{"meta-forward-dns", "list", "META-04", LevelShould, `the first resource carries the _meta key "example.com/x", a domain written forwards (sessions at 2025-11-25 or later)`}},
	{Fault: Fault{"unknown-meta-refused", "jsonrpc", "META-01", LevelMust, "refuses legacy requests whose params._meta holds any key but progressToken with -32602 (also breaks ERR-04, which sends an unknown _meta key on a read)"}},
	{Fault: Fault{"progress-token-refused", "jsonrpc", "META-05", LevelMust, "refuses legacy requests whose params._meta holds progressToken with -32602"}},
	{Fault: Fault{"list-meta-not-object", "list", "META-07", LevelMust, `resources/list results carry _meta: "x" (legacy sessions at 2025-06-18 or later)`}},

	// Resource templates.
	{Fault: Fault{"templates-not-array", "templates", "RES-TPL-01", LevelMust, "resourceTemplates in the templates result is an object keyed by name"}},
	{Fault: Fault{"template-unbalanced", "templates", "RES-TPL-02", LevelMust, `lists an extra template "file:///{path" with an unclosed expression`}},
	{Fault: Fault{"template-missing-name", "templates", "RES-TPL-02", LevelMust, "the first listed template has no name"}},
	{Fault: Fault{"template-read-error", "templates", "RES-TPL-04", LevelShould, "reads of URIs matching a template fail with -32603"}},
	{Fault: Fault{"template-mimetype-mismatch", "templates", "RES-TPL-03", LevelShould, "reads of template expansions return a mimeType other than the template's"}},
	{Fault: Fault{"completion-bad-result", "templates", "RES-TPL-06", LevelMust, `in legacy sessions declares completions and answers completion/complete with completion.values "none", a string`}},

	// resources/read.
	{Fault: Fault{"blob-bad-base64", "read", "RES-READ-03", LevelMust, "blobs use the URL-safe base64 alphabet without padding"}},
	{Fault: Fault{"blob-wrapped-base64", "read", "RES-READ-03", LevelMust, "blobs are wrapped with a newline every 76 characters"}},
	{Fault: Fault{"text-and-blob", "read", "RES-READ-02", LevelMust, "text contents also carry a blob"}},
	{Fault: Fault{"contents-missing-uri", "read", "RES-READ-02", LevelMust, "contents items have no uri"}},
	{Fault: Fault{"contents-bad-uri", "read", "RES-READ-09", LevelMust, `contents items carry the uri "not a valid uri"`}},
	{Fault: Fault{"contents-annotations", "read", "RES-ANN-04", LevelShould, "contents items carry annotations (audience and priority)"}},
	{Fault: Fault{"listed-resource-unreadable", "read", "RES-READ-01", LevelShould, "a read of the last listed resource fails with -32603 (RES-READ-02 warns about it too)"}},
	{Fault: Fault{"contents-not-array", "read", "RES-READ-02", LevelMust, "contents is a single object instead of an array"}},
	{Fault: Fault{"empty-text-omitted", "read", "RES-READ-02", LevelMust, "a resource with empty text is returned without a text member"}},
	{Fault: Fault{"binary-as-text", "read", "RES-READ-04", LevelShould, "binary resources are returned as text (their base64) with their binary mimeType"}},
	{Fault: Fault{"unknown-uri-success", "read", "RES-READ-05", LevelShould, "a URI nothing matches gets a success with contents: [] (also RES-READ-06); hostile URIs (dot segments, %00, raw non-ASCII) still get an error"}},
	{Fault: Fault{"unknown-uri-32602", "read", "RES-READ-05", LevelShould, "a URI nothing matches gets -32602 (the 2026-07-28 code) in every session"}},
	{Fault: Fault{"unknown-uri-internal", "read", "RES-READ-05", LevelShould, "a URI nothing matches gets -32603"}},
	{Fault: Fault{"not-found-no-data", "read", "RES-READ-07", LevelShould, "the not-found error has no data.uri"}},
	{Fault: Fault{"hostile-uri-leak", "read", "RES-READ-10", LevelMust, "URIs with dot segments (file:///../../etc/passwd, %2e%2e variants) return fake passwd content"}},
	{Fault: Fault{"contents-meta-bad-type", "read", "RES-READ-15", LevelMust, `contents items carry _meta: "x" (sessions at 2025-06-18 or later)`}},

	// Subscriptions and list changes.
	{Fault: Fault{"subscribe-not-empty", "subscriptions", "RES-SUB-01", LevelMust, `answers resources/subscribe with {"subscribed": true}`}},
	{Fault: Fault{"subscribe-unsupported", "subscriptions", "RES-SUB-01", LevelMust, "declares subscribe but answers resources/subscribe with -32601 (unsubscribe still works)"}},
	{Fault: Fault{"unsubscribe-error", "subscriptions", "RES-SUB-02", LevelMust, "answers resources/unsubscribe with -32603"}},
	{Fault: Fault{"subscribe-undeclared-served", "subscriptions", "RES-SUB-05", LevelShould, "declares no subscribe but serves resources/subscribe and resources/unsubscribe with success"}},
	{Fault: Fault{"spurious-updated", "subscriptions", "RES-SUB-04", LevelMust, "after notifications/initialized sends notifications/resources/updated for a URI nobody subscribed to"}},
	{Fault: Fault{"updated-missing-uri", "subscriptions", "RES-SUB-03", LevelMust, "notifications/resources/updated has no params.uri; one is sent right after every subscribe"}},
	{Fault: Fault{"undeclared-list-changed", "subscriptions", "RES-LC-02", LevelMust, "declares no listChanged but sends notifications/resources/list_changed after notifications/initialized"}},
	{Fault: Fault{"list-changed-bad-params", "subscriptions", "RES-LC-03", LevelMust, `sends notifications/resources/list_changed with params {"x": 1} after notifications/initialized (listChanged is declared)`}},

	// The 2026-07-28 era: discovery, the per-request envelope, results,
	// cache hints, error codes. These act on 2026-07-28 requests only.
	{Fault: Fault{"modern-no-discover", "modern", "LIFE-23", LevelMust, "answers server/discover with -32601 while serving every other 2026-07-28 request"}},
	{Fault: Fault{"discover-bad-shape", "modern", "LIFE-23", LevelMust, "the server/discover result carries instructions as a number"}},
	{Fault: Fault{"no-result-type", "modern", "JSONRPC-15", LevelMust, "resources/templates/list results have no resultType (also breaks RES-TPL-07, whose cache hints include it)"}},
	{Fault: Fault{"bad-result-type", "modern", "JSONRPC-15", LevelMust, `resources/templates/list results carry resultType "done" (also breaks RES-TPL-07)`}},
	{Fault: Fault{"no-server-info-meta", "modern", "LIFE-26", LevelShould, "results carry no _meta io.modelcontextprotocol/serverInfo (server/discover's neither, which LIFE-23 grades as a SHOULD too)"}},
	{Fault: Fault{"envelope-not-required", "modern", "LIFE-20", LevelShould, "after 2026-07-28 traffic, serves requests whose _meta names no protocol version (no params, params {}, or _meta without it) as 2026-07-28 requests, as a dual-era server taking them for legacy traffic might"}},
	{Fault: Fault{"client-capabilities-not-required", "modern", "LIFE-20", LevelMust, "serves requests whose _meta lacks io.modelcontextprotocol/clientCapabilities"}},
	{Fault: Fault{"client-info-required", "modern", "LIFE-21", LevelMust, "refuses requests whose _meta lacks io.modelcontextprotocol/clientInfo with -32602"}},
	{Fault: Fault{"unsupported-version-served", "modern", "LIFE-22", LevelMust, "serves requests whose _meta names a protocol version it does not support (e.g. 1900-01-01) as 2026-07-28 requests"}},
	{Fault: Fault{"unsupported-version-no-data", "modern", "ERR-08", LevelMust, "-32022 errors carry no data (also breaks LIFE-22)"}},
	{Fault: Fault{"stateful-version", "modern", "LIFE-24", LevelMust, "after refusing a request with -32022, refuses the next valid request the same way, as if the bad version had stuck"}},
	{Fault: Fault{"modern-ping-served", "modern", "PING-06", LevelShould, "answers ping in the 2026-07-28 envelope with {} instead of -32601"}},
	{Fault: Fault{"modern-subscribe-served", "modern", "RES-SUB-06", LevelMust, "serves resources/subscribe and resources/unsubscribe in the 2026-07-28 envelope instead of answering -32601"}},
	{Fault: Fault{"no-cache-hints", "modern", "RES-LIST-09", LevelMust, "resources/list, resources/templates/list and resources/read results carry no ttlMs and no cacheScope (also breaks RES-TPL-07, RES-READ-14 and PAG-08)"}},
	{Fault: Fault{"read-no-cache-hints", "modern", "RES-READ-14", LevelMust, "resources/read results carry no ttlMs and no cacheScope (the list results keep theirs)"}},
	{Fault: Fault{"templates-no-cache-hints", "modern", "RES-TPL-07", LevelMust, "resources/templates/list results carry no ttlMs and no cacheScope (also breaks PAG-08; the other results keep theirs)"}},
	{Fault: Fault{"negative-ttl", "modern", "RES-LIST-09", LevelMust, "resources/list results carry ttlMs -1"}},
	{Fault: Fault{"cache-scope-varies", "modern", "PAG-08", LevelMust, `the pages of resources/list after the first carry the other cacheScope ("private" when the fixture says "public")`}},
	{Fault: Fault{"input-required-empty", "modern", "RES-READ-13", LevelMust, "a read of the last listed resource answers resultType input_required with neither inputRequests nor requestState (and no contents, which RES-READ-01 and RES-READ-02 still demand)"}},
	{Fault: Fault{"input-required-sampling", "modern", "LIFE-25", LevelMust, "a read of the last listed resource answers resultType input_required asking for sampling/createMessage, a client capability the request did not declare (and no contents, which RES-READ-01 and RES-READ-02 still demand)"}},
	{Fault: Fault{"not-found-32002-modern", "modern", "RES-READ-05", LevelMust, "an unknown resource gets -32002, the retired legacy code (also breaks ERR-07)"}},
	{Fault: Fault{"not-found-empty-contents-modern", "modern", "RES-READ-06", LevelMust, "a URI nothing matches gets a success with contents: [] (also breaks RES-READ-05); hostile URIs still get an error"}},
	{Fault: Fault{"server-request-modern", "modern", "JSONRPC-14", LevelMust, "after the first server/discover sends a roots/list request (also breaks STDIO-10)"}},
	{Fault: Fault{"server-request-modern-stdio", "modern", "STDIO-10", LevelMust, "after the first server/discover sends a roots/list request, which a 2026-07-28 server must not send on stdio (also breaks JSONRPC-14)"}},
	{Fault: Fault{"log-without-level", "modern", "LIFE-30", LevelMust, "after the first server/discover sends notifications/message, although no request set io.modelcontextprotocol/logLevel"}},
	{Fault: Fault{"legacy-code-range", "modern", "ERR-07", LevelShould, "URIs refused as malformed or hostile get -32001, from the legacy implementation-defined range"}},
	{Fault: Fault{"header-mismatch-code", "modern", "ERR-10", LevelMust, "URIs refused as malformed or hostile get -32020, the HTTP header-mismatch code"}},
	{Fault: Fault{"list-varies", "modern", "RES-CAP-03", LevelMust, "the first subscriptions/listen puts an extra resource at the head of the list, and no list_changed goes out"}},
	{Fault: Fault{"extension-bad-key", "modern", "LIFE-29", LevelMust, `server/discover declares capabilities.extensions {"mcpconform-mock": {}}, a key without a prefix`}},
	{Fault: Fault{"bad-traceparent", "modern", "META-06", LevelMust, `results carry _meta traceparent "not-a-trace-context"`}},
	{Fault: Fault{"legacy-initialize-unexplained", "modern", "LIFE-27", LevelShould, "after 2026-07-28 traffic, refuses a legacy initialize with -32600 and no word of the versions it supports, instead of serving it"}},

	// subscriptions/listen streams (2026-07-28).
	{Fault: Fault{"no-ack", "listen", "RES-SUB-07", LevelMust, "never sends notifications/subscriptions/acknowledged (so no stream message carries a subscriptionId: RES-SUB-09 breaks too)"}},
	{Fault: Fault{"ack-grants-more", "listen", "RES-SUB-07", LevelMust, "the acknowledgement grants the resource notification types the listen request did not ask for"}},
	{Fault: Fault{"ack-after-update", "listen", "RES-SUB-07", LevelMust, "sends notifications/resources/updated for a subscribed URI before the acknowledgement"}},
	{Fault: Fault{"subscription-id-as-string", "listen", "RES-SUB-09", LevelMust, "stream messages carry an integer listen id as a string subscriptionId (also breaks RES-SUB-07: that stream sees no acknowledgement of its own)"}},
	{Fault: Fault{"stream-after-cancel", "listen", "STDIO-11", LevelMust, "answers a subscriptions/listen request with its result after the client cancelled it"}},
	{Fault: Fault{"list-changed-unrequested", "listen", "RES-SUB-08", LevelMust, "right after acknowledging a stream that did not ask for resourcesListChanged, sends notifications/resources/list_changed on it (also breaks RES-LC-02)"}},
	{Fault: Fault{"list-changed-outside-stream", "listen", "RES-LC-02", LevelMust, "after the first server/discover sends notifications/resources/list_changed outside any stream"}},
	{Fault: Fault{"cancelled-not-listen", "listen", "RES-SUB-12", LevelMust, "after the first server/discover sends notifications/cancelled naming that request, which is no listen stream"}},
	{Fault: Fault{"stream-notification-before-listen", "listen", "RES-SUB-11", LevelMust, "after the first server/discover, before any listen, sends notifications/resources/updated tagged with a subscriptionId"}},

	// The process as a whole. Those marked process act on the real process.
	{Fault: Fault{"crash-on-start", "process", "LIFE-01", LevelMust, "writes a line to stderr and exits with status 3 before reading anything"}, process: true},
	{Fault: Fault{"crash-on-read", "process", "LIFE-15", LevelMust, "exits with status 1 on the first resources/read"}, process: true},
	{Fault: Fault{"exit-after-initialize", "process", "LIFE-15", LevelMust, "exits with status 0 right after the initialize response"}, process: true},
	{Fault: Fault{"hang-on-list", "process", "LIFE-15", LevelMust, "never answers resources/list (everything else is answered)"}},
	{Fault: Fault{"hang-on-read", "process", "LIFE-15", LevelMust, "never answers resources/read (everything else is answered)"}},
	{Fault: Fault{"slow", "process", "PING-01", LevelInfo, "delays every response by 300 ms (within the suite's thresholds)"}},
	{Fault: Fault{"ignore-sigterm", "process", "STDIO-08", LevelInfo, "ignores SIGTERM, so only SIGKILL ends it after stdin is closed"}, process: true},
	{Fault: Fault{"ignore-stdin-eof", "process", "STDIO-08", LevelInfo, "keeps running after stdin EOF until it is signalled"}},
	{Fault: Fault{"leave-child", "process", "STDIO-08", LevelInfo, "starts a child `sleep 600` in a new session that inherits stdout, then behaves"}, process: true},
	{Fault: Fault{"stderr-flood", "process", "STDIO-05", LevelInfo, "writes 10 MB to stderr at start"}},
	{Fault: Fault{"huge-response", "process", "STDIO-02", LevelInfo, "lists an extra resource whose read returns 50 MiB of text on one line"}},
	{Fault: Fault{"huge-line", "process", "STDIO-03", LevelMust, "writes a 50 MiB garbage line (no newline inside it) at start, then behaves"}},
	{Fault: Fault{"huge-line-unterminated", "process", "STDIO-03", LevelMust, "writes 50 MiB of garbage with no newline at start, so the first message is glued onto it"}},
	{Fault: Fault{"hostile-strings", "process", "RES-READ-04", LevelShould, "names, descriptions, texts and error messages carry markup, ANSI CSI/OSC sequences, C0 controls (NUL in texts) and lone surrogates"}},
}

var faultIndex = func() map[string]*faultDef {
	m := make(map[string]*faultDef, len(catalogue))
	for i := range catalogue {
		m[catalogue[i].Name] = &catalogue[i]
	}
	return m
}()

// Faults returns the fault catalogue, sorted by layer then name.
func Faults() []Fault {
	out := make([]Fault, len(catalogue))
	for i, d := range catalogue {
		out[i] = d.Fault
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Layer != out[j].Layer {
			return out[i].Layer < out[j].Layer
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ValidateFaults reports an error naming every unknown fault and listing the
// valid names. Empty names (as left by "a,,b") are ignored.
func ValidateFaults(names []string) error {
	var unknown []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, ok := faultIndex[n]; !ok {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	valid := make([]string, 0, len(catalogue))
	for _, d := range catalogue {
		valid = append(valid, d.Name)
	}
	slices.Sort(valid)
	word := "fault"
	if len(unknown) > 1 {
		word = "faults"
	}
	return fmt.Errorf("unknown %s %s; valid faults: %s", word, strings.Join(unknown, ", "), strings.Join(valid, ", "))
}

// faultSet is the set of faults switched on for one server.
type faultSet map[string]bool

func newFaultSet(names []string) faultSet {
	fs := make(faultSet)
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			fs[n] = true
		}
	}
	return fs
}

// has reports whether the fault is on. Asking for a name that is not in the
// catalogue is a programming error, caught by any test that reaches the call.
func (fs faultSet) has(name string) bool {
	if _, ok := faultIndex[name]; !ok {
		panic("mockserver: unknown fault name " + name)
	}
	return fs[name]
}
