package mockserver

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/spelling"
)

// Fault describes one way the mock server can be told to misbehave.
//
// Requirement is the id of the catalogue rule the fault breaks (its level
// in the version judged is the catalogue's, not the fault's), and Also
// lists every other rule its behaviour breaks as a consequence: a suite
// run against the fault may report those and no others. Version is the
// protocol version whose session shows it (empty: the newest handshake
// version). A Harness fault breaks no rule: it exercises the harness
// itself (slow answers, floods, strays), which must finish, stay within
// its limits and report without a harness error.
type Fault struct {
	Name        string
	Layer       string
	Requirement string
	Also        []string
	Version     string
	Harness     bool
	// Silent marks a fault that shows only as silence within the
	// harness's deadlines: no rule is proven broken (the server may be
	// slow), so the suite reports Requirement as not judged (error),
	// never as a fail.
	Silent bool
	// Budget marks a fault that exhausts a budget of the harness (a flood):
	// the run stops the process, says it is incomplete, and reports what it
	// could not judge as errors; only Requirement and Also may fail.
	Budget bool
	// Disputed marks a fault the suite warns about at most: a point where
	// the spec contradicts itself, or the SHOULD part of a requirement
	// that also holds a MUST.
	Disputed bool
	// Schema marks a fault that breaks the version's schema itself (a
	// required member missing): it fails at the schema level even where
	// its requirement, as the catalogue prices it, only warns.
	Schema bool
	// Bulk marks a fault that moves tens of megabytes through the harness
	// or floods it: correct, but the race detector makes it take minutes,
	// so the project's tests run it without.
	Bulk        bool
	Description string
}

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
	{Fault: Fault{Name: "banner", Layer: "stdio", Requirement: "STDIO-03", Description: "writes a non-JSON banner line to stdout before anything else"}},
	{Fault: Fault{Name: "log-stdout", Layer: "stdio", Requirement: "STDIO-03", Description: "writes a plain-text log line to stdout before every response"}},
	{Fault: Fault{Name: "pretty-print", Layer: "stdio", Requirement: "STDIO-02", Also: []string{"STDIO-03", "JSONRPC-18"}, Description: "writes resources/templates/list responses indented over several lines"}},
	{Fault: Fault{Name: "bom", Layer: "stdio", Requirement: "STDIO-04", Description: "writes a UTF-8 byte order mark before the first message"}},
	{Fault: Fault{Name: "invalid-utf8", Layer: "stdio", Requirement: "STDIO-04", Description: "puts raw invalid UTF-8 bytes inside a string (a _meta value) of every resources/read result"}},
	{Fault: Fault{Name: "crlf", Layer: "stdio", Requirement: "STDIO-02", Harness: true, Description: "ends every line with \r\n instead of \n (legal: JSON reads the \r as whitespace; recorded, not judged)"}},
	{Fault: Fault{Name: "blank-lines", Layer: "stdio", Requirement: "STDIO-03", Description: "writes an empty line after every message"}},
	{Fault: Fault{Name: "nul-byte", Layer: "stdio", Requirement: "STDIO-03", Description: "writes a line holding a raw NUL byte right after the initialize response"}},
	{Fault: Fault{Name: "partial-line-at-exit", Layer: "stdio", Requirement: "STDIO-02", Description: "on stdin EOF writes half a JSON message without a newline, then stops"}},
	{Fault: Fault{Name: "stream-decoder", Layer: "stdio", Requirement: "ERR-01", Description: "reads stdin as a stream of JSON values, not lines (as go-sdk does): a truncated line swallows the next message, and stdin that stops being JSON ends the server with exit status 1"}},
	{Fault: Fault{Name: "chunked-writes", Layer: "stdio", Requirement: "STDIO-02", Harness: true, Description: "writes every message in three pieces with short pauses between them (still correct framing)"}},

	// JSON-RPC envelopes and error handling.
	{Fault: Fault{Name: "stray-before-parse-error", Layer: "jsonrpc", Requirement: "JSONRPC-05", Harness: true, Description: `answers a line that is not JSON with a response to nothing ({"id":"mcpconform-mock-stray","result":{}}), then the right -32700: parse-error must judge the -32700 (what a provocation draws is judged only by its probe, so the stray is recorded, not judged)`}},
	{Fault: Fault{Name: "wrong-jsonrpc-version", Layer: "jsonrpc", Requirement: "JSONRPC-01", Description: `resources/templates/list responses carry "jsonrpc": "1.0"`}},
	{Fault: Fault{Name: "missing-jsonrpc", Layer: "jsonrpc", Requirement: "JSONRPC-01", Description: "resources/templates/list responses have no jsonrpc member"}},
	{Fault: Fault{Name: "id-as-string", Layer: "jsonrpc", Requirement: "JSONRPC-05", Description: "resources/templates/list responses echo integer ids as strings"}},
	{Fault: Fault{Name: "id-mismatch", Layer: "jsonrpc", Requirement: "JSONRPC-05", Also: []string{"JSONRPC-18"}, Description: `resources/templates/list responses carry the request id plus 1000 (string ids get the suffix "+1000")`}},
	{Fault: Fault{Name: "duplicate-response", Layer: "jsonrpc", Requirement: "JSONRPC-05", Description: "answers every resources/templates/list request twice"}},
	{Fault: Fault{Name: "result-and-error", Layer: "jsonrpc", Requirement: "JSONRPC-06", Description: "resources/templates/list responses carry an error member next to the result"}},
	{Fault: Fault{Name: "result-not-object", Layer: "jsonrpc", Requirement: "JSONRPC-07", Also: []string{"JSONRPC-05", "META-01", "PING-01", "PING-02", "PING-03"}, Description: "answers ping with the result []"}},
	{Fault: Fault{Name: "error-code-string", Layer: "jsonrpc", Requirement: "JSONRPC-08", Also: []string{"ERR-03"}, Description: `method-not-found errors carry their code as a string, "-32601"`}},
	{Fault: Fault{Name: "error-code-float", Layer: "jsonrpc", Requirement: "JSONRPC-08", Also: []string{"ERR-03"}, Description: "method-not-found errors carry the code -32601.5"}},
	{Fault: Fault{Name: "reply-to-notification", Layer: "jsonrpc", Requirement: "JSONRPC-10", Also: []string{"STDIO-11"}, Description: `answers every notification with {"id": null, "result": {}}`}},
	{Fault: Fault{Name: "notification-with-id", Layer: "jsonrpc", Requirement: "JSONRPC-09", Description: `server notifications carry "id": null; after notifications/initialized it sends notifications/resources/list_changed (listChanged is declared)`}},
	{Fault: Fault{Name: "params-array-dropped", Layer: "jsonrpc", Requirement: "JSONRPC-18", Description: `never answers a request whose params is an array ("params": []), as the TypeScript SDK does; everything else is answered`}},
	{Fault: Fault{Name: "params-array", Layer: "jsonrpc", Requirement: "JSONRPC-17", Also: []string{"RES-LC-03"}, Description: "server notifications carry params as an array; after notifications/initialized it sends notifications/resources/list_changed (listChanged is declared)"}},
	{Fault: Fault{Name: "server-request-bad-id", Layer: "jsonrpc", Requirement: "JSONRPC-02", Description: "after notifications/initialized sends a ping request whose id is 1.5"}},
	{Fault: Fault{Name: "server-request-id-reused", Layer: "jsonrpc", Requirement: "JSONRPC-04", Description: `after notifications/initialized sends two ping requests with the same id "srv-1"`}},
	{Fault: Fault{Name: "id-null-accepted", Layer: "jsonrpc", Requirement: "ERR-02", Description: `serves requests whose id is null and answers them with "id": null`}},
	{Fault: Fault{Name: "id-coerced", Layer: "jsonrpc", Requirement: "JSONRPC-05", Description: "reads request ids into integers: a request whose id is a fraction or a boolean is served, answered with the integer it truncates to (1.5 and true become 1)"}},
	{Fault: Fault{Name: "parse-error-bad-id", Layer: "jsonrpc", Requirement: "JSONRPC-16", Description: "answers unparseable lines with -32700 carrying the invented id 0 instead of null"}},
	{Fault: Fault{Name: "batch-unsupported", Layer: "jsonrpc", Requirement: "JSONRPC-11", Version: "2025-03-26", Description: "in a 2025-03-26 session refuses lines holding a batch array with one -32600, as a server that parses one object per line"}},
	{Fault: Fault{Name: "no-parse-error", Layer: "jsonrpc", Requirement: "ERR-01", Disputed: true, Description: "silently ignores unparseable lines instead of answering -32700"}},
	{Fault: Fault{Name: "crash-on-parse-error", Layer: "jsonrpc", Requirement: "ERR-01", Description: "exits with status 1 on an unparseable line"}, process: true},
	{Fault: Fault{Name: "no-invalid-request", Layer: "jsonrpc", Requirement: "ERR-02", Also: []string{"JSONRPC-18"}, Disputed: true, Description: "silently ignores structurally invalid messages instead of answering -32600"}},
	// A wrong standard code only a SHOULD names is a warning (ERR-15),
	// whichever test provoked it.
	{Fault: Fault{Name: "unknown-method-wrong-code", Layer: "jsonrpc", Requirement: "ERR-15", Description: "answers unknown methods with -32602 instead of -32601 (a warning: only JSON-RPC's table of codes names -32601)"}},
	{Fault: Fault{Name: "not-found-code-misused", Layer: "jsonrpc", Requirement: "ERR-06", Also: []string{"ERR-15"}, Description: "answers unknown methods with -32002 (resource not found) instead of -32601 (also a wrong standard code, ERR-15)"}},
	{Fault: Fault{Name: "elicitation-code-old-version", Layer: "jsonrpc", Requirement: "ERR-15", Version: "2025-06-18", Description: "in sessions other than 2025-11-25 answers unknown methods with -32042 (URL elicitation required) instead of -32601 (a warning: only JSON-RPC's table of codes names -32601)"}},
	{Fault: Fault{Name: "invalid-params-internal", Layer: "jsonrpc", Requirement: "ERR-15", Description: "answers params of the wrong shape (a missing or mistyped member, e.g. resources/read without uri) with -32603 instead of -32602 (a warning: no MUST sentence names -32602 for them; ERR-04's MUST holds, as the request is refused)"}},
	{Fault: Fault{Name: "multiline-error-message", Layer: "jsonrpc", Requirement: "ERR-13", Description: "error messages carry a multi-line stack trace"}},

	// Lifecycle, version negotiation, capabilities, ping.
	{Fault: Fault{Name: "no-version-echo", Layer: "lifecycle", Requirement: "LIFE-04", Also: []string{"LIFE-05"}, Description: "never echoes the requested version: answers the newest supported one, or the one before it when the newest was requested (so its counter-offers also break LIFE-05)"}},
	{Fault: Fault{Name: "version-error", Layer: "lifecycle", Requirement: "LIFE-05", Disputed: true, Description: "answers an unsupported requested version with a -32602 error instead of a counter-offer"}},
	{Fault: Fault{Name: "version-bogus", Layer: "lifecycle", Requirement: "LIFE-05", Description: "counter-offers the unsupported version it was asked for"}},
	{Fault: Fault{Name: "missing-server-info", Layer: "lifecycle", Requirement: "LIFE-03", Description: "leaves serverInfo out of the initialize result"}},
	{Fault: Fault{Name: "instructions-not-string", Layer: "lifecycle", Requirement: "LIFE-03", Description: "sends instructions as a number"}},
	{Fault: Fault{Name: "capabilities-bad-types", Layer: "lifecycle", Requirement: "LIFE-14", Also: []string{"RES-CAP-02"}, Description: `declares resources: {"subscribe": "yes"} (also breaks RES-CAP-02)`}},
	{Fault: Fault{Name: "list-changed-not-boolean", Layer: "lifecycle", Requirement: "RES-CAP-02", Also: []string{"LIFE-14"}, Description: `declares resources.listChanged as the string "yes" (LIFE-14 judges the same capability types)`}},
	{Fault: Fault{Name: "undeclared-resources", Layer: "lifecycle", Requirement: "RES-CAP-01", Description: "declares no resources capability but serves resources"}},
	{Fault: Fault{Name: "undeclared-resources-wrong-code", Layer: "lifecycle", Requirement: "RES-CAP-04", Description: "in legacy sessions declares no resources capability and answers every resources/* request with -32603 instead of -32601"}},
	{Fault: Fault{Name: "reject-unknown-capability", Layer: "lifecycle", Requirement: "LIFE-13", Description: "rejects initialize with -32602 when the client capabilities hold a key it does not know"}},
	{Fault: Fault{Name: "initialized-params-answered", Layer: "lifecycle", Requirement: "LIFE-07", Also: []string{"JSONRPC-10"}, Description: `answers notifications/initialized carrying params ({} or {_meta}) with {"id": null, "result": {}} (also breaks JSONRPC-10)`}},
	{Fault: Fault{Name: "early-server-request", Layer: "lifecycle", Requirement: "LIFE-09", Also: []string{"LIFE-10"}, Description: "sends a roots/list request just before its initialize response, so before notifications/initialized (also breaks LIFE-10 when the client has no roots capability)"}},
	{Fault: Fault{Name: "silent-before-initialize", Layer: "lifecycle", Requirement: "JSONRPC-18", Description: "leaves requests other than initialize and ping unanswered before initialize, instead of refusing them: they are dropped, since it answers the requests after them"}},
	{Fault: Fault{Name: "unrequested-log", Layer: "lifecycle", Requirement: "LOG-01", Also: []string{"LIFE-10"}, Description: "sends notifications/message after notifications/initialized without declaring logging"}},
	{Fault: Fault{Name: "log-bad-message", Layer: "lifecycle", Requirement: "LOG-03", Description: `after notifications/initialized sends notifications/message with level "verbose", logger 42 and no data`}},
	{Fault: Fault{Name: "set-level-result-not-object", Layer: "lifecycle", Requirement: "LOG-04", Also: []string{"JSONRPC-07"}, Description: "answers logging/setLevel with the result [] instead of an empty object (also breaks JSONRPC-07)"}},
	{Fault: Fault{Name: "set-level-ignored", Layer: "lifecycle", Requirement: "LOG-05", Description: "once logging/setLevel was accepted, sends a debug notifications/message before every response, whatever the level set"}},
	{Fault: Fault{Name: "set-level-unknown-accepted", Layer: "lifecycle", Requirement: "LOG-07", Description: "accepts logging/setLevel with any level string, one no version defines included, instead of -32602"}},
	{Fault: Fault{Name: "ping-not-empty", Layer: "lifecycle", Requirement: "PING-01", Also: []string{"META-01", "PING-02", "PING-03"}, Description: `answers ping with {"status": "ok"}`}},
	{Fault: Fault{Name: "ping-before-init-refused", Layer: "lifecycle", Requirement: "PING-02", Harness: true, Description: "refuses ping before initialize with an error (recorded: what a server answers before initialize is unspecified)"}},
	{Fault: Fault{Name: "ping-params-rejected", Layer: "lifecycle", Requirement: "PING-03", Also: []string{"META-01"}, Description: "answers ping carrying params ({} or {_meta}) with -32602"}},

	// Pagination.
	{Fault: Fault{Name: "cursor-loop", Layer: "pagination", Requirement: "PAG-03", Description: "the last page of resources/list points back to the first page, so paging never ends"}},
	{Fault: Fault{Name: "cursor-not-string", Layer: "pagination", Requirement: "PAG-01", Description: "nextCursor of resources/list is a number"}},
	{Fault: Fault{Name: "cursor-null", Layer: "pagination", Requirement: "PAG-01", Description: `the last page of resources/list carries "nextCursor": null`}},
	{Fault: Fault{Name: "invalid-cursor-accepted", Layer: "pagination", Requirement: "PAG-05", Description: "answers an invalid cursor with the first page instead of -32602"}},
	{Fault: Fault{Name: "unstable-cursor", Layer: "pagination", Requirement: "PAG-04", Description: "a cursor used again returns a page shifted by one item"}},
	{Fault: Fault{Name: "no-params-differs", Layer: "pagination", Requirement: "PAG-09", Harness: true, Description: "resources/list without params returns a shorter first page than with params {} (recorded: a list may change between calls)"}},
	{Fault: Fault{Name: "templates-cursor-loop", Layer: "pagination", Requirement: "RES-TPL-05", Also: []string{"PAG-03"}, Description: "the last page of resources/templates/list points back to the first page, so paging never ends (also breaks PAG-03; resources/list is left alone)"}},

	// resources/list content.
	{Fault: Fault{Name: "list-not-array", Layer: "list", Requirement: "RES-LIST-01", Also: []string{"META-05"}, Description: "resources in the list result is an object keyed by URI"}},
	{Fault: Fault{Name: "duplicate-uris", Layer: "list", Requirement: "RES-LIST-04", Description: "the last page repeats the URI of the first resource"}},
	{Fault: Fault{Name: "resource-missing-name", Layer: "list", Requirement: "RES-LIST-02", Description: "the first listed resource has no name"}},
	{Fault: Fault{Name: "resource-empty-title", Layer: "list", Requirement: "RES-LIST-10", Harness: true, Description: `the first listed resource has title "" (legal: the schema allows an empty string; recorded)`}},
	{Fault: Fault{Name: "resource-bad-uri", Layer: "list", Requirement: "RES-LIST-05", Also: []string{"RES-SUB-01", "RES-SUB-02"}, Description: "lists an extra resource whose URI holds a raw space (a read of it answers with the percent-encoded URI)"}},
	{Fault: Fault{Name: "resource-bad-field-types", Layer: "list", Requirement: "RES-LIST-03", Description: `the first listed resource has size "12" (a string) and mimeType 7`}},
	{Fault: Fault{Name: "newer-fields", Layer: "list", Requirement: "RES-LIST-03", Version: "2024-11-05", Harness: true, Description: "sends title, _meta and icons on resources even in sessions whose version lacks them (legal: objects are open; recorded)"}},
	{Fault: Fault{Name: "bad-annotations", Layer: "list", Requirement: "RES-ANN-01", Also: []string{"RES-ANN-02"}, Description: `the first resource's annotations carry audience ["robot"] and priority 1.5 (also breaks RES-ANN-02)`}},
	{Fault: Fault{Name: "bad-audience", Layer: "list", Requirement: "RES-ANN-01", Description: `the first resource's annotations carry audience ["robot"]`}},
	{Fault: Fault{Name: "bad-priority", Layer: "list", Requirement: "RES-ANN-02", Description: "the first resource's annotations carry priority 1.5"}},
	{Fault: Fault{Name: "bad-last-modified", Layer: "list", Requirement: "RES-ANN-03", Description: `the first resource's annotations carry lastModified "yesterday" (sessions at 2025-06-18 or later)`}},
	{Fault: Fault{Name: "bad-icon-scheme", Layer: "list", Requirement: "RES-ICON-02", Description: "the first resource carries an icon whose src is javascript:alert(1) (sessions at 2025-11-25)"}},
	{Fault: Fault{Name: "icon-src-not-string", Layer: "list", Requirement: "RES-ICON-01", Description: "the first resource carries an icon whose src is the number 42 (sessions at 2025-11-25 or later)"}},
	{Fault: Fault{Name: "size-mismatch", Layer: "list", Requirement: "RES-LIST-08", Disputed: true, Description: "the first resource's size is one more than the bytes a read returns"}},
	{Fault: Fault{Name: "bad-meta-key", Layer: "list", Requirement: "META-02", Description: `the first resource carries the _meta key "bad key!" (sessions at 2025-06-18 or later)`}},
	{Fault: Fault{Name: "reserved-meta-key", Layer: "list", Requirement: "META-03", Description: "the first resource carries an undefined _meta key under a reserved prefix (io.modelcontextprotocol/ at 2025-11-25, modelcontextprotocol.io/ at 2025-06-18)"}},
	{Fault: Fault{Name: "meta-forward-dns", Layer: "list", Requirement: "META-04", Description: `the first resource carries the _meta key "example.com/x", a domain written forwards (sessions at 2025-11-25 or later)`}},
	{Fault: Fault{Name: "unknown-meta-refused", Layer: "jsonrpc", Requirement: "META-01", Also: []string{"ERR-04"}, Description: "refuses legacy requests whose params._meta holds any key but progressToken with -32602 (also breaks ERR-04, which sends an unknown _meta key on a read)"}},
	{Fault: Fault{Name: "progress-token-refused", Layer: "jsonrpc", Requirement: "META-05", Description: "refuses legacy requests whose params._meta holds progressToken with -32602"}},
	{Fault: Fault{Name: "list-meta-not-object", Layer: "list", Requirement: "META-07", Description: `resources/list results carry _meta: "x" (legacy sessions at 2025-06-18 or later)`}},

	// Resource templates.
	{Fault: Fault{Name: "templates-not-array", Layer: "templates", Requirement: "RES-TPL-01", Description: "resourceTemplates in the templates result is an object keyed by name"}},
	{Fault: Fault{Name: "template-unbalanced", Layer: "templates", Requirement: "RES-TPL-02", Description: `lists an extra template "file:///{path" with an unclosed expression`}},
	{Fault: Fault{Name: "template-missing-name", Layer: "templates", Requirement: "RES-TPL-02", Description: "the first listed template has no name"}},
	{Fault: Fault{Name: "template-read-error", Layer: "templates", Requirement: "RES-TPL-04", Harness: true, Description: "reads of URIs matching a template fail with -32603 (recorded: the sample values may name nothing readable)"}},
	{Fault: Fault{Name: "template-mimetype-mismatch", Layer: "templates", Requirement: "RES-TPL-03", Description: "reads of template expansions return a mimeType other than the template's"}},
	{Fault: Fault{Name: "completion-bad-result", Layer: "templates", Requirement: "RES-TPL-06", Also: []string{"COMP-03"}, Description: `in legacy sessions declares completions and answers completion/complete of template variables with completion.values "none", a string (also breaks COMP-03)`}},

	// Completion.
	{Fault: Fault{Name: "completion-too-many", Layer: "completion", Requirement: "COMP-03", Description: "answers every completion/complete of a known argument with 101 values (the fixture's, padded with generated ones)"}},
	{Fault: Fault{Name: "completion-total-low", Layer: "completion", Requirement: "COMP-04", Description: "gives completion results a total one less than the number of values returned"}},
	{Fault: Fault{Name: "completion-unknown-prompt-served", Layer: "completion", Requirement: "COMP-06", Description: "answers completion/complete of a prompt it does not have with an empty list of values instead of -32602"}},
	{Fault: Fault{Name: "completion-context-refused", Layer: "completion", Requirement: "COMP-07", Description: "refuses completion/complete carrying context.arguments with -32602 (recorded: no sentence says what a server does with context)"}},
	{Fault: Fault{Name: "completion-undeclared-wrong-code", Layer: "completion", Requirement: "COMP-02", Description: "declares no completions and answers completion/complete with -32602 instead of -32601"}},
	{Fault: Fault{Name: "undeclared-completions-served", Layer: "completion", Requirement: "COMP-01", Also: []string{"COMP-02"}, Description: "declares no completions capability but serves completion/complete all the same (so the suite's request for a prompt it does not have gets -32602, not -32601: COMP-02)"}},

	// Tools.
	{Fault: Fault{Name: "tools-not-array", Layer: "tools", Requirement: "TOOLS-04", Description: "tools in the tools/list result is an object keyed by name"}},
	{Fault: Fault{Name: "tool-no-input-schema", Layer: "tools", Requirement: "TOOLS-06", Description: "the first listed tool has no inputSchema"}},
	{Fault: Fault{Name: "tool-input-schema-not-object", Layer: "tools", Requirement: "TOOLS-07", Description: `the first listed tool's inputSchema is {"type": "string"}`}},
	{Fault: Fault{Name: "duplicate-tool-names", Layer: "tools", Requirement: "TOOLS-13", Description: "the first page lists a second tool under the first tool's name, annotated destructive where the first is read-only"}},
	{Fault: Fault{Name: "bad-tool-name", Layer: "tools", Requirement: "TOOLS-12", Version: "2025-11-25", Description: `in sessions at 2025-11-25 or later the first tool is named "echo text!" (a space and a "!") and is called by that name`}},
	{Fault: Fault{Name: "tool-title-not-string", Layer: "tools", Requirement: "TOOLS-09", Version: "2025-06-18", Description: "in sessions at 2025-06-18 or later the first listed tool's title is the number 7"}},
	{Fault: Fault{Name: "tool-annotations-bad-hint", Layer: "tools", Requirement: "TOOLS-10", Version: "2025-03-26", Description: `in sessions at 2025-03-26 or later the first listed tool's annotations are {"readOnlyHint": "yes"} (a string, not a boolean)`}},
	{Fault: Fault{Name: "output-schema-bad-required", Layer: "tools", Requirement: "TOOLS-08", Version: "2025-06-18", Description: `every listed outputSchema has "required": "sum", a string where the schema wants an array of strings`}},
	{Fault: Fault{Name: "tool-result-no-content", Layer: "tools", Requirement: "TOOLS-18", Also: []string{"TOOLS-26"}, Description: "tools/call results of tools that ran have no content array (also breaks TOOLS-26: the structured result has no text block)"}},
	{Fault: Fault{Name: "tool-text-not-string", Layer: "tools", Requirement: "TOOLS-19", Also: []string{"TOOLS-26"}, Description: "the text blocks of tools/call results of tools that ran hold the number 42 as their text (also breaks TOOLS-26)"}},
	{Fault: Fault{Name: "tool-image-bad-base64", Layer: "tools", Requirement: "TOOLS-20", Description: "the image block of the logo tool's result has a line break inside its base64 data"}},
	{Fault: Fault{Name: "structured-not-object", Layer: "tools", Requirement: "TOOLS-24", Also: []string{"TOOLS-25"}, Version: "2025-06-18", Description: "the add tool's structuredContent is an array, [sum], and so breaks its outputSchema too (TOOLS-25)"}},
	{Fault: Fault{Name: "structured-invalid", Layer: "tools", Requirement: "TOOLS-25", Version: "2025-06-18", Description: `the add tool's structuredContent is {"sum": "3"}: a string where its outputSchema wants a number`}},
	{Fault: Fault{Name: "structured-no-text", Layer: "tools", Requirement: "TOOLS-26", Version: "2025-06-18", Description: "the add tool's result has structuredContent, and its text block says the sum in words instead of holding the same JSON"}},
	{Fault: Fault{Name: "tool-ignores-invalid-arguments", Layer: "tools", Requirement: "TOOLS-29", Description: "tools/call runs the tool even when the arguments break its inputSchema (it validates no tool input)"}},
	{Fault: Fault{Name: "tools-invalid-cursor-accepted", Layer: "tools", Requirement: "TOOLS-05", Description: "answers tools/list with an invalid cursor with the first page instead of -32602"}},
	{Fault: Fault{Name: "undeclared-tools-list-changed", Layer: "tools", Requirement: "TOOLS-28", Description: "declares no tools.listChanged but sends notifications/tools/list_changed after notifications/initialized (2026-07-28: after the first server/discover, outside any stream)"}},
	{Fault: Fault{Name: "progress-decreasing", Layer: "tools", Requirement: "META-08", Description: "the notifications/progress of a tool call carrying a progressToken count down (3, 2, 1 of 3) instead of up"}},
	{Fault: Fault{Name: "progress-after-response", Layer: "tools", Requirement: "META-05", Description: "the last notifications/progress of a tool call carrying a progressToken comes after the call's response, when the request is no longer active"}},
	{Fault: Fault{Name: "progress-unknown-token", Layer: "tools", Requirement: "META-05", Description: "the notifications/progress of a tool call carrying a progressToken name another token, mock-other-<token>, which the client never sent"}},
	{Fault: Fault{Name: "progress-not-number", Layer: "tools", Requirement: "META-09", Description: `the notifications/progress of a tool call carrying a progressToken give progress as a string ("1/3") instead of a number`}},
	{Fault: Fault{Name: "undeclared-tools-served", Layer: "tools", Requirement: "TOOLS-01", Description: "declares no tools capability but serves tools/list and tools/call all the same"}},
	{Fault: Fault{Name: "unknown-tool-result", Layer: "tools", Requirement: "TOOLS-21", Description: `tools/call of a tool it does not have answers the result {"content": [{"type": "text", "text": "unknown tool"}], "isError": true} instead of an error`}},

	// Prompts.
	{Fault: Fault{Name: "prompts-not-array", Layer: "prompts", Requirement: "PROMPTS-04", Description: "prompts in the prompts/list result is an object keyed by name"}},
	{Fault: Fault{Name: "prompt-no-name", Layer: "prompts", Requirement: "PROMPTS-06", Description: "the first listed prompt has no name (prompts/get still knows it by its name)"}},
	{Fault: Fault{Name: "duplicate-prompt-names", Layer: "prompts", Requirement: "PROMPTS-07", Description: "the last page lists a second prompt under the first prompt's name"}},
	{Fault: Fault{Name: "prompt-no-messages", Layer: "prompts", Requirement: "PROMPTS-10", Description: "prompts/get results have no messages"}},
	{Fault: Fault{Name: "prompt-bad-role", Layer: "prompts", Requirement: "PROMPTS-11", Description: `the first message of every prompts/get result has the role "system"`}},
	{Fault: Fault{Name: "prompt-content-array", Layer: "prompts", Requirement: "PROMPTS-12", Description: "the first message of every prompts/get result holds its content as an array around the text block"}},
	{Fault: Fault{Name: "prompt-title-not-string", Layer: "prompts", Requirement: "PROMPTS-08", Version: "2025-06-18", Description: "in sessions at 2025-06-18 or later the first listed prompt's title is the number 7"}},
	{Fault: Fault{Name: "prompt-image-bad-data", Layer: "prompts", Requirement: "PROMPTS-13", Description: `prompts/get adds a user message holding an image block whose data is "not base64!" and whose mimeType is "png"`}},
	{Fault: Fault{Name: "prompts-invalid-cursor-accepted", Layer: "prompts", Requirement: "PROMPTS-05", Description: "answers prompts/list with an invalid cursor with the first page instead of -32602"}},
	{Fault: Fault{Name: "undeclared-prompts-list-changed", Layer: "prompts", Requirement: "PROMPTS-17", Description: "declares no prompts.listChanged but sends notifications/prompts/list_changed after notifications/initialized (2026-07-28: after the first server/discover, outside any stream)"}},
	{Fault: Fault{Name: "undeclared-prompts-served", Layer: "prompts", Requirement: "PROMPTS-01", Description: "declares no prompts capability but serves prompts/list and prompts/get all the same"}},
	{Fault: Fault{Name: "unknown-prompt-result", Layer: "prompts", Requirement: "PROMPTS-14", Description: `prompts/get of a prompt it does not have answers {"messages": []} instead of -32602`}},
	{Fault: Fault{Name: "prompt-missing-argument-accepted", Layer: "prompts", Requirement: "PROMPTS-15", Description: "prompts/get without an argument the prompt marks required is served anyway, its placeholders left empty, instead of -32602"}},

	// resources/read.
	{Fault: Fault{Name: "blob-bad-base64", Layer: "read", Requirement: "RES-READ-03", Description: "blobs use the URL-safe base64 alphabet without padding"}},
	{Fault: Fault{Name: "blob-wrapped-base64", Layer: "read", Requirement: "RES-READ-03", Description: "blobs are wrapped with a newline every 76 characters"}},
	{Fault: Fault{Name: "text-and-blob", Layer: "read", Requirement: "RES-READ-02", Description: "text contents also carry a blob"}},
	{Fault: Fault{Name: "contents-missing-uri", Layer: "read", Requirement: "RES-READ-02", Description: "contents items have no uri"}},
	{Fault: Fault{Name: "contents-bad-uri", Layer: "read", Requirement: "RES-LIST-05", Description: `contents items carry the uri "not a valid uri"`}},
	{Fault: Fault{Name: "contents-annotations", Layer: "read", Requirement: "RES-ANN-04", Disputed: true, Description: "contents items carry annotations (audience and priority)"}},
	{Fault: Fault{Name: "read-uri-renamed", Layer: "read", Requirement: "RES-READ-17", Disputed: true, Description: "a read of the second listed resource answers with one contents item that carries the first listed resource's uri"}},
	{Fault: Fault{Name: "listed-read-empty", Layer: "read", Requirement: "RES-READ-06", Disputed: true, Description: "a read of the first listed resource answers contents: []"}},
	{Fault: Fault{Name: "listed-resource-unreadable", Layer: "read", Requirement: "RES-READ-01", Also: []string{"RES-READ-02"}, Harness: true, Description: "a read of the last listed resource fails with -32603 (legal: the spec's own code for a failed read; recorded)"}},
	{Fault: Fault{Name: "contents-not-array", Layer: "read", Requirement: "RES-READ-02", Also: []string{"ERR-04", "RES-READ-01", "RES-TPL-04"}, Description: "contents is a single object instead of an array"}},
	{Fault: Fault{Name: "empty-text-omitted", Layer: "read", Requirement: "RES-READ-02", Description: "a resource with empty text is returned without a text member"}},
	{Fault: Fault{Name: "binary-as-text", Layer: "read", Requirement: "RES-READ-04", Description: "binary resources are returned as text (their base64) with their binary mimeType"}},
	{Fault: Fault{Name: "unknown-uri-success", Layer: "read", Requirement: "RES-READ-05", Also: []string{"RES-READ-06"}, Description: "a URI nothing matches gets a success with contents: [] (also RES-READ-06); hostile URIs (dot segments, %00, raw non-ASCII) still get an error"}},
	{Fault: Fault{Name: "unknown-uri-32602", Layer: "read", Requirement: "RES-READ-05", Description: "a URI nothing matches gets -32602 (the 2026-07-28 code) in every session"}},
	{Fault: Fault{Name: "unknown-uri-internal", Layer: "read", Requirement: "RES-READ-05", Description: "a URI nothing matches gets -32603"}},
	{Fault: Fault{Name: "not-found-no-data", Layer: "read", Requirement: "RES-READ-07", Description: "the not-found error has no data.uri"}},
	{Fault: Fault{Name: "hostile-uri-leak", Layer: "read", Requirement: "RES-READ-10", Description: "URIs with dot segments (file:///../../etc/passwd, %2e%2e variants) return fake passwd content"}},
	{Fault: Fault{Name: "contents-meta-bad-type", Layer: "read", Requirement: "RES-READ-15", Also: []string{"META-07"}, Description: `contents items carry _meta: "x" (sessions at 2025-06-18 or later)`}},

	// Subscriptions and list changes.
	{Fault: Fault{Name: "subscribe-unsupported", Layer: "subscriptions", Requirement: "RES-SUB-01", Description: "declares subscribe but answers resources/subscribe with -32601 (unsubscribe still works)"}},
	{Fault: Fault{Name: "unsubscribe-error", Layer: "subscriptions", Requirement: "RES-SUB-02", Description: "answers resources/unsubscribe with -32603"}},
	{Fault: Fault{Name: "subscribe-undeclared-served", Layer: "subscriptions", Requirement: "RES-SUB-05", Description: "declares no subscribe but serves resources/subscribe and resources/unsubscribe with success"}},
	{Fault: Fault{Name: "spurious-updated", Layer: "subscriptions", Requirement: "RES-SUB-04", Description: "after notifications/initialized sends notifications/resources/updated for a URI nobody subscribed to"}},
	{Fault: Fault{Name: "updated-missing-uri", Layer: "subscriptions", Requirement: "RES-SUB-03", Schema: true, Description: "notifications/resources/updated has no params.uri; one is sent right after every subscribe"}},
	{Fault: Fault{Name: "undeclared-list-changed", Layer: "subscriptions", Requirement: "RES-LC-02", Description: "declares no listChanged but sends notifications/resources/list_changed after notifications/initialized"}},
	{Fault: Fault{Name: "list-changed-bad-params", Layer: "subscriptions", Requirement: "RES-LC-03", Also: []string{"META-07"}, Description: `sends notifications/resources/list_changed with params {"_meta": "x"}, a _meta that is no object, after notifications/initialized (listChanged is declared; also breaks META-07)`}},

	// The 2026-07-28 era: discovery, the per-request envelope, results,
	// cache hints, error codes. These act on 2026-07-28 requests only.
	{Fault: Fault{Name: "modern-no-discover", Layer: "modern", Requirement: "LIFE-23", Version: "2026-07-28", Description: "answers server/discover with -32601 while serving every other 2026-07-28 request"}},
	{Fault: Fault{Name: "discover-bad-shape", Layer: "modern", Requirement: "LIFE-23", Version: "2026-07-28", Description: "the server/discover result carries instructions as a number"}},
	{Fault: Fault{Name: "no-result-type", Layer: "modern", Requirement: "JSONRPC-15", Also: []string{"RES-TPL-07"}, Version: "2026-07-28", Description: "resources/templates/list results have no resultType (also breaks RES-TPL-07, whose cache hints include it)"}},
	{Fault: Fault{Name: "bad-result-type", Layer: "modern", Requirement: "JSONRPC-15", Also: []string{"RES-TPL-07"}, Version: "2026-07-28", Description: `resources/templates/list results carry resultType "done" (also breaks RES-TPL-07)`}},
	{Fault: Fault{Name: "no-server-info-meta", Layer: "modern", Requirement: "LIFE-26", Version: "2026-07-28", Description: "results carry no _meta io.modelcontextprotocol/serverInfo (server/discover's neither, which LIFE-23 grades as a SHOULD too)"}},
	{Fault: Fault{Name: "envelope-not-required", Layer: "modern", Requirement: "LIFE-20", Version: "2026-07-28", Disputed: true, Description: "after 2026-07-28 traffic, serves requests whose _meta names no protocol version (no params, params {}, or _meta without it) as 2026-07-28 requests, as a dual-era server taking them for legacy traffic might"}},
	{Fault: Fault{Name: "client-capabilities-not-required", Layer: "modern", Requirement: "LIFE-20", Version: "2026-07-28", Description: "serves requests whose _meta lacks io.modelcontextprotocol/clientCapabilities"}},
	{Fault: Fault{Name: "client-info-required", Layer: "modern", Requirement: "LIFE-21", Version: "2026-07-28", Description: "refuses requests whose _meta lacks io.modelcontextprotocol/clientInfo with -32602"}},
	{Fault: Fault{Name: "unsupported-version-served", Layer: "modern", Requirement: "LIFE-22", Version: "2026-07-28", Description: "serves requests whose _meta names a protocol version it does not support (e.g. 1900-01-01) as 2026-07-28 requests"}},
	{Fault: Fault{Name: "unsupported-version-no-data", Layer: "modern", Requirement: "ERR-08", Also: []string{"LIFE-22"}, Version: "2026-07-28", Description: "-32022 errors carry no data (also breaks LIFE-22)"}},
	{Fault: Fault{Name: "stateful-version", Layer: "modern", Requirement: "LIFE-24", Version: "2026-07-28", Description: "after refusing a request with -32022, refuses the next valid request the same way, as if the bad version had stuck"}},
	{Fault: Fault{Name: "modern-ping-served", Layer: "modern", Requirement: "PING-06", Version: "2026-07-28", Description: "answers ping in the 2026-07-28 envelope with {} instead of -32601"}},
	{Fault: Fault{Name: "modern-subscribe-served", Layer: "modern", Requirement: "RES-SUB-06", Version: "2026-07-28", Description: "serves resources/subscribe and resources/unsubscribe in the 2026-07-28 envelope instead of answering -32601"}},
	{Fault: Fault{Name: "no-cache-hints", Layer: "modern", Requirement: "RES-LIST-09", Also: []string{"RES-TPL-07", "RES-READ-14", "PAG-08", "TOOLS-17"}, Version: "2026-07-28", Description: "resources/list, resources/templates/list, resources/read, tools/list and prompts/list results carry no ttlMs and no cacheScope (also breaks RES-TPL-07, RES-READ-14, PAG-08 and TOOLS-17)"}},
	{Fault: Fault{Name: "tools-no-cache-hints", Layer: "modern", Requirement: "TOOLS-17", Version: "2026-07-28", Description: "tools/list results carry no ttlMs and no cacheScope"}},
	{Fault: Fault{Name: "read-no-cache-hints", Layer: "modern", Requirement: "RES-READ-14", Version: "2026-07-28", Description: "resources/read results carry no ttlMs and no cacheScope (the list results keep theirs)"}},
	{Fault: Fault{Name: "templates-no-cache-hints", Layer: "modern", Requirement: "RES-TPL-07", Also: []string{"PAG-08"}, Version: "2026-07-28", Description: "resources/templates/list results carry no ttlMs and no cacheScope (also breaks PAG-08; the other results keep theirs)"}},
	{Fault: Fault{Name: "negative-ttl", Layer: "modern", Requirement: "RES-LIST-09", Version: "2026-07-28", Description: "resources/list results carry ttlMs -1"}},
	{Fault: Fault{Name: "cache-scope-varies", Layer: "modern", Requirement: "PAG-08", Version: "2026-07-28", Description: `the pages of resources/list after the first carry the other cacheScope ("private" when the fixture says "public")`}},
	{Fault: Fault{Name: "input-required-empty", Layer: "modern", Requirement: "RES-READ-16", Version: "2026-07-28", Description: "a read of the last listed resource answers resultType input_required with neither inputRequests nor requestState (and no contents, which RES-READ-01 and RES-READ-02 still demand)"}},
	{Fault: Fault{Name: "input-required-sampling", Layer: "modern", Requirement: "LIFE-25", Version: "2026-07-28", Description: "a read of the last listed resource answers resultType input_required asking for sampling/createMessage, a client capability the request did not declare (and no contents, which RES-READ-01 and RES-READ-02 still demand)"}},
	{Fault: Fault{Name: "input-required-no-state", Layer: "modern", Requirement: "MRTR-01", Version: "2026-07-28", Description: "prompts/get of a listed prompt and tools/call of a listed tool answer resultType input_required with neither inputRequests nor requestState, leaving nothing to retry with"}},
	{Fault: Fault{Name: "input-required-forever", Layer: "modern", Requirement: "MRTR-03", Harness: true, Version: "2026-07-28", Description: "answers every read of a listed resource, get of a listed prompt and call of a listed tool with input_required and a new requestState, retries included, so the request never completes (legal: a server may ask again on every attempt; the harness stops retrying and records it)"}},
	{Fault: Fault{Name: "log-level-meta-ignored", Layer: "modern", Requirement: "LOG-05", Version: "2026-07-28", Description: "logs at debug for a request whose _meta sets io.modelcontextprotocol/logLevel, whatever level it asks for"}},
	{Fault: Fault{Name: "not-found-32002-modern", Layer: "modern", Requirement: "RES-READ-05", Also: []string{"ERR-07"}, Version: "2026-07-28", Description: "an unknown resource gets -32002, the retired legacy code (also breaks ERR-07)"}},
	{Fault: Fault{Name: "not-found-empty-contents-modern", Layer: "modern", Requirement: "RES-READ-06", Also: []string{"RES-READ-05"}, Version: "2026-07-28", Description: "a URI nothing matches gets a success with contents: [] (also breaks RES-READ-05); hostile URIs still get an error"}},
	{Fault: Fault{Name: "server-request-modern", Layer: "modern", Requirement: "JSONRPC-14", Also: []string{"STDIO-10"}, Version: "2026-07-28", Description: "after the first server/discover sends a roots/list request (also breaks STDIO-10)"}},
	{Fault: Fault{Name: "server-request-modern-stdio", Layer: "modern", Requirement: "STDIO-10", Also: []string{"JSONRPC-14"}, Version: "2026-07-28", Description: "after the first server/discover sends a roots/list request, which a 2026-07-28 server must not send on stdio (also breaks JSONRPC-14)"}},
	{Fault: Fault{Name: "log-level-meta-unchecked", Layer: "modern", Requirement: "LOG-07", Version: "2026-07-28", Description: "serves requests whose _meta io.modelcontextprotocol/logLevel is no syslog level instead of refusing them with -32602"}},
	{Fault: Fault{Name: "log-without-level", Layer: "modern", Requirement: "LIFE-30", Also: []string{"LOG-01"}, Version: "2026-07-28", Description: "after the first server/discover sends notifications/message, although no request set io.modelcontextprotocol/logLevel"}},
	{Fault: Fault{Name: "legacy-code-range", Layer: "modern", Requirement: "ERR-07", Version: "2026-07-28", Disputed: true, Description: "URIs refused as malformed or hostile get -32001, from the legacy implementation-defined range"}},
	{Fault: Fault{Name: "header-mismatch-code", Layer: "modern", Requirement: "ERR-10", Version: "2026-07-28", Description: "URIs refused as malformed or hostile get -32020, the HTTP header-mismatch code"}},
	{Fault: Fault{Name: "list-varies", Layer: "modern", Requirement: "RES-CAP-03", Version: "2026-07-28", Description: "the first subscriptions/listen puts an extra resource at the head of the list, and no list_changed goes out"}},
	{Fault: Fault{Name: "extension-bad-key", Layer: "modern", Requirement: "LIFE-29", Version: "2026-07-28", Description: `server/discover declares capabilities.extensions {"mcpconform-mock": {}}, a key without a prefix`}},
	{Fault: Fault{Name: "bad-traceparent", Layer: "modern", Requirement: "META-06", Version: "2026-07-28", Description: `results carry _meta traceparent "not-a-trace-context"`}},
	{Fault: Fault{Name: "legacy-initialize-unexplained", Layer: "modern", Requirement: "LIFE-27", Version: "2026-07-28", Description: "after 2026-07-28 traffic, refuses a legacy initialize with -32600 and no word of the versions it supports, instead of serving it"}},

	// subscriptions/listen streams (2026-07-28).
	{Fault: Fault{Name: "no-ack", Layer: "listen", Requirement: "RES-SUB-07", Version: "2026-07-28", Description: "never sends notifications/subscriptions/acknowledged: a stream the client cancels shows only silence, which the harness cannot tell from an acknowledgement still to come, but one still open at stdin EOF ends with its listen result and no acknowledgement before it"}},
	{Fault: Fault{Name: "ack-grants-more", Layer: "listen", Requirement: "RES-SUB-07", Version: "2026-07-28", Description: "the acknowledgement grants the resource notification types the listen request did not ask for"}},
	{Fault: Fault{Name: "ack-after-update", Layer: "listen", Requirement: "RES-SUB-07", Version: "2026-07-28", Description: "sends notifications/resources/updated for a subscribed URI before the acknowledgement"}},
	{Fault: Fault{Name: "subscription-id-as-string", Layer: "listen", Requirement: "RES-SUB-09", Version: "2026-07-28", Description: "stream messages carry an integer listen id as a string subscriptionId"}},
	{Fault: Fault{Name: "stream-after-cancel", Layer: "listen", Requirement: "STDIO-11", Version: "2026-07-28", Description: "answers a subscriptions/listen request with its result after the client cancelled it, right after answering the next request"}},
	{Fault: Fault{Name: "list-changed-unrequested", Layer: "listen", Requirement: "RES-SUB-08", Also: []string{"RES-LC-02"}, Version: "2026-07-28", Description: "right after acknowledging a stream that did not ask for resourcesListChanged, sends notifications/resources/list_changed on it (also breaks RES-LC-02)"}},
	{Fault: Fault{Name: "list-changed-outside-stream", Layer: "listen", Requirement: "RES-LC-02", Version: "2026-07-28", Description: "after the first server/discover sends notifications/resources/list_changed outside any stream"}},
	{Fault: Fault{Name: "cancelled-not-listen", Layer: "listen", Requirement: "RES-SUB-12", Version: "2026-07-28", Description: "after the first server/discover sends notifications/cancelled naming that request, which is no listen stream"}},
	{Fault: Fault{Name: "stream-notification-before-listen", Layer: "listen", Requirement: "RES-SUB-11", Version: "2026-07-28", Description: "after the first server/discover, before any listen, sends notifications/resources/updated tagged with a subscriptionId"}},

	// The process as a whole. Those marked process act on the real process.
	{Fault: Fault{Name: "crash-on-start", Layer: "process", Requirement: "LIFE-01", Also: []string{"STDIO-01", "JSONRPC-18"}, Description: "writes a line to stderr and exits with status 3 before reading anything"}, process: true},
	{Fault: Fault{Name: "notification-flood", Bulk: true, Layer: "process", Requirement: "JSONRPC-18", Harness: true, Budget: true, Also: []string{"ERR-01", "ERR-02"}, Description: "once initialized, writes notifications without end (a harness budget: the run stops it and says what it could not judge)"}},
	{Fault: Fault{Name: "stdout-flood", Bulk: true, Layer: "process", Requirement: "STDIO-03", Budget: true, Also: []string{"ERR-01", "ERR-02"}, Description: "once initialized, writes the line \"y\" without end, like yes(1)"}},
	{Fault: Fault{Name: "request-flood", Bulk: true, Layer: "process", Requirement: "JSONRPC-18", Harness: true, Budget: true, Also: []string{"ERR-01", "ERR-02"}, Description: "once initialized, sends ping requests without end (a harness budget: the answers are bounded, and the run stops it)"}},
	{Fault: Fault{Name: "endless-line", Bulk: true, Layer: "process", Requirement: "JSONRPC-18", Silent: true, Description: "once initialized, starts a notification whose string never ends, 64 KiB a millisecond"}},
	{Fault: Fault{Name: "deep-nesting", Bulk: true, Layer: "process", Requirement: "RES-LIST-01", Harness: true, Description: "the resources/list result carries a member nested 5,000 arrays deep (past the harness's depth: recorded, never judged)"}},
	{Fault: Fault{Name: "nested-arrays", Bulk: true, Layer: "process", Requirement: "RES-LIST-01", Harness: true, Description: "every result but ping's (which must be empty) carries a 64 KB member of 64 arrays each nested 500 deep (within the harness's depth): cheap to send, costly to print"}},
	{Fault: Fault{Name: "small-items-flood", Bulk: true, Layer: "process", Requirement: "JSONRPC-18", Harness: true, Description: "once initialized, sends 30 notifications of 10 MiB each, made of small items ([0,0,0,…])"}},
	{Fault: Fault{Name: "small-items-line", Bulk: true, Layer: "process", Requirement: "JSONRPC-18", Harness: true, Description: "once initialized, sends one notification of 60 MiB on one line, made of small items ([0,0,0,…])"}},
	{Fault: Fault{Name: "huge-server-info", Bulk: true, Layer: "process", Requirement: "LIFE-03", Harness: true, Description: "serverInfo carries a 60 MiB description: legal, and no report may copy it whole"}},
	{Fault: Fault{Name: "crash-on-read-without-params", Layer: "process", Requirement: "ERR-04", Version: "2025-11-25", Description: "exits with status 2 on a resources/read that has no params member (as a release of one SDK panicked)"}, process: true},
	{Fault: Fault{Name: "crash-on-read", Layer: "process", Requirement: "JSONRPC-18", Also: []string{"RES-READ-10", "ERR-04"}, Description: "exits with status 1 on the first resources/read"}, process: true},
	{Fault: Fault{Name: "exit-after-initialize", Layer: "process", Requirement: "JSONRPC-18", Also: []string{"RES-READ-10", "ERR-01", "ERR-02", "ERR-04", "JSONRPC-17", "JSONRPC-12"}, Description: "exits with status 0 right after the initialize response"}, process: true},
	{Fault: Fault{Name: "hang-on-list", Layer: "process", Requirement: "JSONRPC-18", Description: "never answers resources/list (everything else is answered, so the requests after it show it was dropped)"}},
	{Fault: Fault{Name: "hang-on-read", Layer: "process", Requirement: "JSONRPC-18", Description: "never answers resources/read (everything else is answered, so the requests after it show it was dropped)"}},
	{Fault: Fault{Name: "hang-on-templates-list", Layer: "process", Requirement: "JSONRPC-18", Description: "never answers resources/templates/list (everything else is answered, so the requests after it show it was dropped)"}},
	{Fault: Fault{Name: "slow", Layer: "process", Requirement: "PING-01", Harness: true, Description: "delays every response by 300 ms (within the suite's thresholds)"}},
	{Fault: Fault{Name: "ignore-sigterm", Layer: "process", Requirement: "STDIO-08", Harness: true, Description: "ignores SIGTERM, so only SIGKILL ends it after stdin is closed"}, process: true},
	{Fault: Fault{Name: "ignore-stdin-eof", Layer: "process", Requirement: "STDIO-08", Harness: true, Description: "keeps running after stdin EOF until it is signalled"}},
	{Fault: Fault{Name: "leave-child", Layer: "process", Requirement: "STDIO-08", Harness: true, Description: "starts a child `sleep 600` in a new session that inherits stdout, then behaves"}, process: true},
	{Fault: Fault{Name: "stderr-flood", Layer: "process", Requirement: "STDIO-05", Harness: true, Description: "writes 10 MB to stderr at start"}},
	{Fault: Fault{Name: "huge-response", Bulk: true, Layer: "process", Requirement: "STDIO-02", Harness: true, Description: "lists an extra resource whose read returns 50 MiB of text on one line"}},
	{Fault: Fault{Name: "huge-line", Bulk: true, Layer: "process", Requirement: "STDIO-03", Description: "writes a 50 MiB garbage line (no newline inside it) at start, then behaves"}},
	{Fault: Fault{Name: "huge-line-unterminated", Bulk: true, Layer: "process", Requirement: "STDIO-03", Also: []string{"LIFE-01", "JSONRPC-18"}, Description: "writes 50 MiB of garbage with no newline at start, so the first message is glued onto it"}},
	{Fault: Fault{Name: "ci-commands", Layer: "process", Requirement: "LIFE-03", Harness: true, Also: []string{"TOOLS-12"}, Description: "serverInfo name, tool names, resource names, error messages and stderr lines carry CI workflow commands (::add-mask::, ::error::, ##[group]); legal apart from the tool names, and no report may pass them on"}},
	{Fault: Fault{Name: "hostile-strings", Layer: "process", Requirement: "RES-READ-04", Description: "names, descriptions, texts and error messages carry markup, ANSI CSI/OSC sequences, C0 controls (NUL in texts) and lone surrogates"}},
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

// CheckFaultNames returns an error naming the first unknown fault with the
// nearest names of the catalogue, not the whole catalogue, as a command
// line wants it (ValidateFaults lists every valid name).
func CheckFaultNames(names []string) error {
	var known []string
	for _, f := range slices.Concat(Faults(), HTTPFaults()) {
		known = append(known, f.Name)
	}
	for _, n := range names {
		if slices.Contains(known, n) {
			continue
		}
		if near := spelling.Nearest(n, known, 3); len(near) > 0 {
			return fmt.Errorf("unknown fault %s; did you mean %s? see mcpconform mock --list-faults", n, strings.Join(near, ", "))
		}
		return fmt.Errorf("unknown fault %s; see mcpconform mock --list-faults", n)
	}
	return nil
}
