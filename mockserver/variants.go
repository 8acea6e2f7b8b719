package mockserver

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/spelling"
)

// Variant describes a legal variation: behaviour a correct server may show
// that is unusual. Where a fault proves that a check fails on a broken
// server, a variant proves that it does not accuse a correct one.
//
// Versions lists the protocol versions a server with the variant serves
// (nil: every version the fixture serves); a variant that is legal only in
// some versions narrows the server to them. Breaks lists the catalogue ids
// of SHOULD or SHOULD NOT rules the variant knowingly breaks, normally
// none: a suite may warn about those, and about nothing else.
type Variant struct {
	Name        string
	Description string
	Versions    []string
	Breaks      []string
}

// variantDef is a catalogue entry. why says, citing the catalogue or the
// spec, why the behaviour is legal; excludes names the variants it cannot
// be combined with; resources marks variants that need the resources
// capability (they add, serve or change resources or templates), which
// the variants that drop resources (no-resources, tools-only) exclude.
type variantDef struct {
	Variant
	why       string
	excludes  []string
	resources bool
}

// Version sets variants are legal in.
var (
	handshakeVersions = knownVersions
	modernVersions    = []string{modernVersion}
)

// variantCatalogue lists every variant. Names are stable: other packages
// and users' scripts refer to them.
var variantCatalogue = []variantDef{
	// Framing, encoding and the order of messages.
	{Variant: Variant{Name: "pipelined-out-of-order", Description: "holds every other response (initialize's excepted) until the next response has been written or 100 ms have passed, so answers to pipelined requests come out of order"},
		why: "JSON-RPC matches responses by id and puts no order on them (JSONRPC-05)", excludes: []string{"slow-answers"}},
	{Variant: Variant{Name: "late-parse-error", Description: "sends the -32700 for an unparseable line 120 ms late, after the answers to the requests that followed it"},
		why: "the -32700 still comes, with a null id (ERR-01, JSONRPC-16); nothing ties its timing to other answers (JSONRPC-05)"},
	{Variant: Variant{Name: "slow-answers", Description: "delays every response by 200 ms, keeping their order"},
		why: "well inside any sane deadline: LIFE-15 asks for an answer, PING-01 for a prompt one"},
	{Variant: Variant{Name: "python-json-escapes", Description: `writes every non-ASCII character as a \uXXXX escape (surrogate pairs beyond the BMP), as Python's json.dumps does, echoed string ids included ("ü-1" comes back as "\u00fc-1")`},
		why: "RFC 8259 § 7 lets any character be escaped; the ids keep their value (JSONRPC-05)", excludes: []string{"unescaped-line-separators"}},
	{Variant: Variant{Name: "escaped-slash", Description: `writes every "/" inside strings as "\/"`},
		why: `RFC 8259 § 7 allows the escape "\/"`},
	{Variant: Variant{Name: "spaced-json", Description: `separates members and elements with ", " and ": ", as Python's json.dumps does by default`},
		why: "insignificant whitespace (RFC 8259 § 2); each message stays on one line (STDIO-02)"},
	{Variant: Variant{Name: "members-reordered", Description: "writes the members of every object in descending order of name, so responses start with result or error and end with id"},
		why: "JSON objects are unordered (RFC 8259 § 4)"},
	{Variant: Variant{Name: "unescaped-line-separators", Description: "writes U+2028 and U+2029 raw inside strings instead of escaping them"},
		why: "RFC 8259 needs no escape for them and they are no newline, so framing holds (STDIO-02)"},
	{Variant: Variant{Name: "float-integers", Description: "writes integer values the schema types as integer or number in float form: size 14.0, ttlMs 60000.0, priority 1.0; ids and error codes are left alone"},
		why: "JSON Schema (draft 6 on, which every schema.json uses) counts a number with a zero fraction as an integer (RES-LIST-03, RES-LIST-09)", excludes: []string{"exponent-integers"}},
	{Variant: Variant{Name: "exponent-integers", Description: "writes size and ttlMs in exponent form (14 as 1.4e+01, 60000 as 6e+04)"},
		why: "an integer by JSON Schema's definition, whatever its notation (RES-LIST-03, RES-LIST-09)"},

	// Members the schemas leave open.
	{Variant: Variant{Name: "extra-members", Description: "adds unknown members to results (empty results excepted), resources, templates, contents items, capabilities (an unknown capability, an unknown key in resources), serverInfo, error objects and notification params"},
		why: "no schema.json closes an object with additionalProperties false; capability sets are open (LIFE-13); RES-LIST-03 makes unknown fields INFO"},
	{Variant: Variant{Name: "meta-everywhere", Description: `adds _meta with well-formed keys (a prefixed one, one without prefix, "com.example.mock/" with an empty name) to every result and notification, and from 2025-06-18 to every resource, template and contents item`},
		why: "Result and notification params carry _meta in every version, resources, templates and contents from 2025-06-18 (RES-READ-15); the keys follow META-02"},

	// Lists that move.
	{Variant: Variant{Name: "time-varying-resource", Description: "lists test://variant/changing.txt, whose text, size and lastModified change after every read; the list gives the size of what the next read returns, and subscribers get notifications/resources/updated"},
		why: "contents may change at any time (RES-SUB-03); size is a hint (RES-LIST-08); the set of resources stays the same (RES-CAP-03)", resources: true},
	{Variant: Variant{Name: "list-order-varies", Description: "rotates the resource list by one more place on every walk (every first page); the pages of one walk stay consistent"},
		why: "no rule orders the list; the set stays the same (RES-CAP-03) and a cursor still gives the same page (PAG-04)", resources: true},
	{Variant: Variant{Name: "list-changes-while-paging", Versions: handshakeVersions, Description: "changes the resource list after every resources/list page, alternately adding test://variant/churn-N at its head and removing it again, announced by notifications/resources/list_changed when listChanged is declared; a walk may see an item twice or miss one"},
		why: "the list may change at any time in the handshake era (RES-LC-01) and cursors need only be stable while it does not (PAG-04); 2026-07-28 forbids changes caused by requests (RES-CAP-03), so only the handshake versions are served", resources: true},
	{Variant: Variant{Name: "list-changes-after-reads", Versions: handshakeVersions, Description: "declares listChanged and changes the list after every read of a listed resource, alternately adding and removing test://variant/after-read.txt, announcing each change"},
		why: "as list-changes-while-paging (RES-LC-01, RES-CAP-03 being a 2026-07-28 rule)", excludes: []string{"no-list-changed"}, resources: true},
	{Variant: Variant{Name: "many-resource-pages", Description: "lists 150 resources (the fixture's, padded with generated ones), one per page"},
		why: "the server picks the page size (PAG-02); paging ends (PAG-03)", resources: true},
	{Variant: Variant{Name: "many-template-pages", Description: "lists 150 templates (the fixture's, padded with generated echo templates), one per page"},
		why: "as many-resource-pages (PAG-02, RES-TPL-05)", resources: true},
	{Variant: Variant{Name: "many-tools", Description: "lists 130 tools, echo-1 … echo-130, instead of the fixture's, 20 per page, so tools/list spans 7 pages; each echoes its text argument"},
		why: "the server picks the page size (PAG-02) and paging ends (PAG-03); the names are unique (TOOLS-13) and of the recommended syntax (TOOLS-12)"},
	{Variant: Variant{Name: "odd-cursors", Description: "uses cursors of about 2 KiB holding spaces, quotes, a backslash, / + = and non-ASCII characters"},
		why: "a cursor is an opaque string (PAG-01)"},
	{Variant: Variant{Name: "empty-string-cursor", Versions: modernVersions, Description: `gives the last page of each list the cursor "": the page before it carries nextCursor ""`},
		why: "in 2026-07-28 an empty cursor is a real cursor (PAG-07)", excludes: []string{"list-order-varies"}},
	{Variant: Variant{Name: "ttl-per-page", Versions: modernVersions, Description: "gives every page of a list its own ttlMs: 0 on the first page, 1000 times the page number after it"},
		why: "each page carries its own ttlMs and the values may differ (PAG-08)"},
	{Variant: Variant{Name: "cache-private", Versions: modernVersions, Description: `answers with cacheScope "private" everywhere`},
		why: `"private" is one of the two scopes (RES-LIST-09)`},
	{Variant: Variant{Name: "ttl-zero", Versions: modernVersions, Description: "answers with ttlMs 0 everywhere"},
		why: "ttlMs has minimum 0 (RES-LIST-09)"},

	// URIs, templates and contents.
	{Variant: Variant{Name: "odd-uris", Description: "lists resources with unusual but valid URIs: a percent-encoded reg-name, IPv6 and IPvFuture hosts, userinfo and a port, an empty path, a query and a fragment, urn: and tag: forms, a scheme with + - ., sub-delims in the path, a path without authority"},
		why: "each is an absolute URI by RFC 3986 § 3 (RES-LIST-05)", resources: true},
	{Variant: Variant{Name: "catch-all-template", Description: "lists the template echo://{+path} and serves every ASCII URI of the echo scheme (dot segments and %00 excepted), also URIs nobody listed or expanded: the text names the URI"},
		why: "a template describes what resources/read can fetch (RES-TPL-04); a server may resolve any URI it can, so no echo: URI is unknown to it (RES-READ-05 only covers resources that do not exist)", resources: true},
	{Variant: Variant{Name: "rfc6570-templates", Description: "adds templates using level 3 and 4 operators (/ ; ? & # . with explode), each serving the URIs it matches"},
		why: "RFC 6570 levels 1 to 4 are allowed (RES-TPL-02)", resources: true},
	{Variant: Variant{Name: "fragment-sub-resources", Description: "returns text contents as one item per line, each with the uri U#line=N,M (RFC 5147), and follows every subscription (legacy subscribe or listen) with notifications/resources/updated for U#section-1"},
		why: "contents items may name sub-resources (RES-READ-09); the uri of updated may be a sub-resource of the subscribed one (RES-SUB-03)", resources: true},
	{Variant: Variant{Name: "contents-uri-normalised", Description: "lists resources whose URIs are not in normal form (https://Example.COM, TEST://static/upper.txt, test://static/%7ejoe/notes.txt) and answers their reads with the normalised uri in contents"},
		why: "servers may normalise URIs (RFC 3986 § 6); contents need not repeat the requested uri (RES-READ-09)", resources: true},
	{Variant: Variant{Name: "directory-contents", Description: "lists file:///variant/dir/ of type inode/directory (no size), whose read returns one contents item per file in it (text and blob), each readable on its own"},
		why: "file:// resources may be directories (RES-LIST-07) returning several items with sub-resource URIs (RES-READ-09)", resources: true},
	{Variant: Variant{Name: "blob-only", Description: "returns every contents item as a blob (base64 of its bytes), text resources included, keeping their mimeType"},
		why: "any bytes may travel as a blob (RES-READ-02, RES-READ-03); RES-READ-04 only asks that text is really text"},
	{Variant: Variant{Name: "empty-resources", Description: `gives every listed resource empty content: text "" or blob "", size 0`},
		why: `empty text is "" and an empty blob "" (RES-READ-02)`, resources: true},
	{Variant: Variant{Name: "contents-without-mime", Description: "leaves mimeType out of every contents item"},
		why: "mimeType is optional on contents (RES-READ-02)"},
	{Variant: Variant{Name: "minimal-metadata", Description: "lists resources and templates with their required members only (uri or uriTemplate, and name), serverInfo with name and version only, and no instructions"},
		why: "every other member is optional (RES-LIST-02, RES-TPL-02, LIFE-03)"},
	{Variant: Variant{Name: "shared-names", Description: `names every resource "resource" and every template "template"`},
		why: "a URI identifies a resource (RES-LIST-04); names need not be unique"},
	{Variant: Variant{Name: "rich-descriptions", Description: "gives resources and templates multi-line Markdown descriptions of about 2 KiB with non-ASCII text, and titles with emoji (from 2025-06-18)"},
		why: "descriptions and titles are plain strings (RES-LIST-03, RES-LIST-10)"},
	{Variant: Variant{Name: "unusual-mime-types", Description: "uses mimeTypes with parameters and odd case (Text/Plain; Charset=UTF-8, application/vnd.mcpconform.mock+json; version=2), the same in the list and in contents"},
		why: "mimeType is a free string; media types are case-insensitive and take parameters (RFC 2045 § 5.1)"},

	// Capabilities a server may leave out.
	{Variant: Variant{Name: "templates-empty", Description: "has no templates: resources/templates/list answers an empty list"},
		why: "resourceTemplates may be empty (RES-TPL-01)", excludes: []string{"templates-not-implemented", "many-template-pages", "catch-all-template", "rfc6570-templates"}, resources: true},
	{Variant: Variant{Name: "templates-not-implemented", Description: "has no templates and answers resources/templates/list with -32601"},
		why: "the spec requires resources/list of a server declaring resources (RES-CAP-03), never templates/list, and -32601 is the answer for a method the server does not implement (schema MethodNotFoundError)", excludes: []string{"many-template-pages", "catch-all-template", "rfc6570-templates"}, resources: true},
	{Variant: Variant{Name: "no-subscribe", Description: "declares resources without subscribe: resources/subscribe and unsubscribe get -32601, and listen acknowledgements leave resourceSubscriptions out"},
		why: "subscribe is optional (RES-CAP-02); -32601 for an undeclared method (RES-CAP-04, RES-SUB-05); unsupported filter types are left out (RES-SUB-07)", resources: true},
	{Variant: Variant{Name: "no-list-changed", Description: "declares resources without listChanged: no list_changed is ever sent, and listen acknowledgements leave resourcesListChanged out"},
		why: "listChanged is optional (RES-CAP-02, RES-LC-02)", resources: true},
	{Variant: Variant{Name: "no-listen", Versions: modernVersions, Description: "declares neither subscribe nor any listChanged (of resources, tools or prompts) and answers subscriptions/listen with -32601"},
		why: "nothing could be listened to; -32601 is the answer for a method gated behind capabilities the server did not advertise (schema MethodNotFoundError, ERR-03)", resources: true},
	{Variant: Variant{Name: "no-resources", Description: "declares no resources capability and answers every resources/* request with -32601"},
		why: "a server without resources declares none (RES-CAP-01) and gets -32601 for their methods (RES-CAP-04)"},
	{Variant: Variant{Name: "tools-only", Description: "serves tools and nothing else: no resources, templates or prompts, and capabilities holds tools alone (the fixture's tools, or the default fixture's when it has none); every resources/* and prompts/* request gets -32601"},
		why: "every capability is optional and a server declares those of the features it offers (LIFE-14, RES-CAP-01); a method behind an undeclared capability gets -32601 (RES-CAP-04)", excludes: []string{"prompt-arguments-optional-all"}},
	{Variant: Variant{Name: "tools-prompts-list-changed", Description: "declares tools.listChanged and prompts.listChanged (the lists never change, so no list_changed is sent) and acknowledges listen streams asking for toolsListChanged and promptsListChanged"},
		why: "listChanged only says the server may announce changes (TOOLS-28, PROMPTS-17); a stream acknowledges the filter types the server supports (RES-SUB-07)", excludes: []string{"no-listen"}},
	{Variant: Variant{Name: "experimental-capability", Description: `declares capabilities.experimental {"com.example.mock/feature": {"enabled": true}}`},
		why: "experimental maps names to objects (LIFE-14)"},
	{Variant: Variant{Name: "extension-declared", Versions: modernVersions, Description: `declares capabilities.extensions {"com.example.mock/feature": {"version": "1"}} in server/discover`},
		why: "extension keys follow the _meta key grammar with a prefix, values are objects (LIFE-29)"},

	// Messages the server sends of its own accord.
	{Variant: Variant{Name: "progress-notifications", Description: "answers every request carrying _meta.progressToken with two notifications/progress (0.5 of 1, then 1 of 1) before the response"},
		why: "a server may send progress for a token it was given, increasing (META-05, progress utility)"},
	{Variant: Variant{Name: "log-notifications", Versions: handshakeVersions, Description: "declares logging and, after notifications/initialized, sends notifications/message at the current level (info until logging/setLevel) before every response"},
		why: "a server that declares logging may log (LIFE-10); 2026-07-28 deprecates logging for new servers, so only the handshake versions are served"},
	{Variant: Variant{Name: "logging-without-set-level", Versions: handshakeVersions, Description: "declares logging but does not implement logging/setLevel: every logging/setLevel gets -32601"},
		why: `clients "MAY" send logging/setLevel and no sentence makes a server implement it: LOG-04 records the refusal, and the rules that need a level set (LOG-05, LOG-07) are not judged`},
	{Variant: Variant{Name: "modern-set-level-served", Versions: modernVersions, Description: "answers logging/setLevel in the 2026-07-28 envelope with an empty result, as a dual-era server that keeps the old method might"},
		why: "2026-07-28 removes logging/setLevel, but no sentence forbids a server to go on answering it: LOG-09 records it"},
	{Variant: Variant{Name: "updated-notifications", Description: "sends notifications/resources/updated for every subscribed URI before every later response (legacy subscribe), and on every open listen stream for the URIs it agreed to (2026-07-28)"},
		why: "a subscribed resource may change at any time (RES-SUB-03, RES-SUB-04); stream notifications carry the subscriptionId (RES-SUB-09)", resources: true},
	{Variant: Variant{Name: "server-pings", Versions: handshakeVersions, Description: `after notifications/initialized sends a ping request before a response at most once a second, with ids alternating between large integers (9007199254740993 on) and strings with escapes ("mock-\u00e9-ping-2")`},
		why: "either side may ping (PING-01, PING-04) once the client is ready (LIFE-09); ids are strings or integers (JSONRPC-02)"},
	{Variant: Variant{Name: "ping-and-log-during-initialize", Description: "declares logging and, while it answers initialize (before the response), sends a ping request and a notifications/message; a dual-era server does so for the legacy initialize that follows server/discover too"},
		why: "before notifications/initialized the server may send pings and logging (LIFE-09), and a process follows the legacy rules from the moment the legacy initialize is sent (LIFE-31), so the 2026-07-28 rules on server requests and log levels do not apply to them"},
	{Variant: Variant{Name: "stderr-chatter", Description: "writes a log line to stderr at start and for every message it reads"},
		why: "the server may log to stderr (STDIO-05)"},
	{Variant: Variant{Name: "streams-end-cancelled", Versions: modernVersions, Description: "at stdin EOF ends each open listen stream with notifications/cancelled naming its id, instead of the listen result"},
		why: "the cancellation page makes this the server's way to tear a stream down (RES-SUB-10, RES-SUB-12)"},
	{Variant: Variant{Name: "ack-known-uris-only", Versions: modernVersions, Description: "agrees only to the resourceSubscriptions URIs it lists or a template matches, leaving the others out of the acknowledgement"},
		why: "the acknowledgement holds the subset the server agreed to honour (RES-SUB-07)"},
	{Variant: Variant{Name: "input-required-retry", Versions: modernVersions, Description: "answers every read of a listed resource, get of a listed prompt (its required arguments given) and call of a listed tool (its arguments valid) with input_required and a requestState only, naming the request, and serves the request retried with that requestState"},
		why: "a server MAY answer prompts/get, resources/read and tools/call with an InputRequiredResult (MRTR-02, RES-READ-13), here with a requestState alone, asking for no client capability (MRTR-01, LIFE-25); whether to ask depends on the request alone (LIFE-24)"},
	{Variant: Variant{Name: "input-required-read", Versions: modernVersions, Description: "lists test://variant/confirm.txt, whose read answers input_required with a requestState only, and the contents when retried with that requestState"},
		why: "a read may answer InputRequiredResult (RES-READ-13), here the request-state-only form of the schema's examples, asking for no client capability (LIFE-25)", resources: true},

	// Versions.
	{Variant: Variant{Name: "only-2024-11-05", Versions: []string{"2024-11-05"}, Description: "serves 2024-11-05 only: an initialize offering any other version is answered with 2024-11-05"},
		why: "a server supports the versions it chooses and counter-offers one of them (LIFE-04, LIFE-05)"},
	{Variant: Variant{Name: "only-2025-03-26", Versions: []string{"2025-03-26"}, Description: "serves 2025-03-26 only: an initialize offering any other version is answered with 2025-03-26"},
		why: "as only-2024-11-05 (LIFE-05)"},
	{Variant: Variant{Name: "only-2025-06-18", Versions: []string{"2025-06-18"}, Description: "serves 2025-06-18 only: an initialize offering any other version is answered with 2025-06-18"},
		why: "as only-2024-11-05 (LIFE-05)"},
	{Variant: Variant{Name: "only-2025-11-25", Versions: []string{"2025-11-25"}, Description: "serves 2025-11-25 only: an initialize offering any other version is answered with 2025-11-25"},
		why: "as only-2024-11-05 (LIFE-05)"},
	{Variant: Variant{Name: "only-2026-07-28", Versions: modernVersions, Description: "serves 2026-07-28 only: initialize gets -32022 naming 2026-07-28"},
		why: "a 2026-07-28-only server names its versions when refusing initialize (LIFE-27)"},

	// Annotations.
	{Variant: Variant{Name: "last-modified-date-only", Description: `gives every resource annotations.lastModified "2025-01-02", a date without a time (sessions at 2025-06-18 or later)`},
		why: "a calendar date is an ISO 8601 string (RES-ANN-03)", resources: true},
	{Variant: Variant{Name: "last-modified-offset", Description: `gives every resource annotations.lastModified "2025-01-02T03:04:05.678+05:45", with a UTC offset (sessions at 2025-06-18 or later)`},
		why: "ISO 8601 and RFC 3339 allow any offset (RES-ANN-03)", resources: true},
	{Variant: Variant{Name: "priority-extremes", Description: "gives the resources annotations.priority 0 and 1 exactly, alternately"},
		why: "priority lies in [0, 1], both ends included (RES-ANN-02)", resources: true},
	{Variant: Variant{Name: "empty-audience", Description: "gives every resource annotations.audience []"},
		why: "audience is an array of roles, which may be empty (RES-ANN-01)", resources: true},

	// Tools and prompts.
	{Variant: Variant{Name: "structured-text-reformatted", Description: `the add tool's text block holds its structured result written differently, { "sum" : 3.0 }: the same JSON value, spaced out, with a fraction`},
		why: "the tools page asks for \"the serialized JSON\" in a TextContent block (TOOLS-26), not a byte-for-byte form: JSON values compare by value"},
	{Variant: Variant{Name: "tool-result-mixed-blocks", Description: "tools/call results carry, after their own blocks, an embedded resource, an audio block (from 2025-03-26) and a resource_link (from 2025-06-18)"},
		why: "CallToolResult.content may hold every content block type the version defines (TOOLS-18): EmbeddedResource always, AudioContent from 2025-03-26, ResourceLink from 2025-06-18"},
	{Variant: Variant{Name: "unknown-tool-other-error", Versions: handshakeVersions, Description: "answers tools/call of a tool it does not have with -32601 instead of -32602"},
		why: "before 2026-07-28 the spec only says that errors in finding the tool \"should be reported as an MCP error response\" (schema CallToolResult.isError, TOOLS-21), and -32602 is just the code of the tools page's example; 2026-07-28 names -32602 (InvalidParamsError), so only the handshake versions are served"},
	{Variant: Variant{Name: "readonly-hint-untrue", Description: `lists one tool more, purge_notes, annotated readOnlyHint: true although it deletes every note; each call of it writes "purge_notes ran" to stderr, so a run shows whether it was called`},
		why: "annotations are hints (TOOLS-10), and the tools page says clients \"MUST consider tool annotations to be untrusted unless they come from trusted servers\": no sentence binds a server to annotate truthfully, so a client may not rely on them"},
	{Variant: Variant{Name: "completion-has-more", Description: "answers completion/complete with the first matching value only, total counting all of them and hasMore true when more match"},
		why: "total may exceed the number of values sent, and hasMore says more exist (COMP-03, COMP-04)"},
	{Variant: Variant{Name: "no-completions", Description: "declares no completions and answers completion/complete with -32601"},
		why: "completion is optional; a server without the capability answers -32601 (COMP-02)"},
	{Variant: Variant{Name: "prompt-arguments-optional-all", Description: "marks every prompt argument optional (adding a prompt with two optional arguments when no prompt takes any): prompts/get without them fills their placeholders with empty strings"},
		why: "required is optional and means false when left out (PROMPTS-06); -32602 is due only for a missing argument the prompt marks required (PROMPTS-15)"},

	// Errors.
	{Variant: Variant{Name: "error-id-omitted", Versions: []string{"2025-11-25", modernVersion}, Description: "leaves the id member out of errors for lines whose id could not be read (-32700, and -32600 with an unreadable id)"},
		why: "from 2025-11-25 the error id is optional when the request id could not be read (JSONRPC-16)"},
	{Variant: Variant{Name: "error-data-rich", Description: "gives every error a data object with extra members (reason, method, a nested detail), also the errors that have no data by default"},
		why: "data is free-form (JSONRPC-08)"},
	{Variant: Variant{Name: "long-error-messages", Breaks: []string{"ERR-13"}, Description: "makes every error message one sentence of about 300 characters, on one line"},
		why: "code and message are what JSON-RPC requires (JSONRPC-08); only the SHOULD of a concise message is stretched (ERR-13)"},

	// Batches.
	{Variant: Variant{Name: "batch-in-2024", Versions: []string{"2024-11-05", "2025-03-26"}, Description: "answers a batch array with a batch array in 2024-11-05 sessions too, as in 2025-03-26"},
		why: "2024-11-05 follows JSON-RPC 2.0, batches included (§ 6), and does not exclude them; their removal starts at 2025-06-18 (JSONRPC-12)"},
	{Variant: Variant{Name: "exit-on-batch", Versions: []string{"2025-06-18", "2025-11-25", modernVersion}, Description: "ends the session when a line holds a batch array: Serve returns and `mcpconform mock` exits with status 0"},
		why: "the answer to an array after 2025-06-18 is unspecified (JSONRPC-12), and the server may end the session by exiting (STDIO-09)"},

	// Lifecycle.
	{Variant: Variant{Name: "pre-init-served", Versions: handshakeVersions, Description: "serves requests that come before initialize, at the newest version, as the TypeScript SDK does"},
		why: "what a server does with them is unspecified (LIFE-08, ERR-14)"},
	{Variant: Variant{Name: "pre-init-refused-32602", Description: "refuses requests that come before initialize with -32602 instead of -32600, as the Python SDK does"},
		why: "no code is specified for them (ERR-14)"},
	{Variant: Variant{Name: "initialized-opens-gate", Versions: handshakeVersions, Description: "takes a notifications/initialized that comes without initialize as the start of a session at the newest version, as the Python SDK does; like the default, it never waits for notifications/initialized before serving"},
		why: "what a bare notifications/initialized does is unspecified (LIFE-07, ERR-14), and nothing makes requests wait for it once initialize was answered (LIFE-08)"},

	// Ids.
	{Variant: Variant{Name: "ids-reencoded", Description: `decodes request ids and encodes them afresh instead of echoing their bytes: escapes in string ids are resolved ("\u0041" comes back as "A"), integers keep every digit`},
		why: "a response carries the id's value (JSONRPC-05), not its bytes", excludes: []string{"ids-escaped"}},
	{Variant: Variant{Name: "ids-escaped", Description: `echoes string ids with every character escaped ("a-1" comes back as "\u0061\u002d\u0031"); integer ids keep every digit`},
		why: "the same value (JSONRPC-05); RFC 8259 § 7 lets any character be escaped"},
	{Variant: Variant{Name: "unsafe-integer-ids-dropped", Description: "drops, unanswered, every request whose id is an integer beyond 2^53 - 1 (9007199254740993), saying so on stderr, as the TypeScript SDK does: its message schema accepts safe integers only"},
		why: "RFC 8259 § 6 warns that integers beyond 2^53 - 1 are not interoperable; a server that cannot read such an id is recorded (id-echo-beyond-safe-integer, info), not failed"},
}

var variantIndex = func() map[string]*variantDef {
	m := make(map[string]*variantDef, len(variantCatalogue))
	for i := range variantCatalogue {
		m[variantCatalogue[i].Name] = &variantCatalogue[i]
	}
	return m
}()

// Variants returns the catalogue of legal variations, sorted by name.
func Variants() []Variant {
	out := make([]Variant, len(variantCatalogue))
	for i, d := range variantCatalogue {
		out[i] = d.Variant
		out[i].Versions = slices.Clone(d.Versions)
		out[i].Breaks = slices.Clone(d.Breaks)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ValidateVariants reports an error for unknown variant names (suggesting
// the nearest name for a near miss), for variants that exclude each other
// and for variants that serve no protocol version in common. Empty names
// (as left by "a,,b") are ignored.
func ValidateVariants(names []string) error {
	var unknown []string
	var known []*variantDef
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		d, ok := variantIndex[n]
		if !ok {
			u := fmt.Sprintf("%q", n)
			if s := nearestVariant(n); s != "" {
				u += fmt.Sprintf(" (did you mean %q?)", s)
			}
			unknown = append(unknown, u)
			continue
		}
		if !slices.Contains(known, d) {
			known = append(known, d)
		}
	}
	if len(unknown) > 0 {
		valid := make([]string, 0, len(variantCatalogue))
		for _, d := range variantCatalogue {
			valid = append(valid, d.Name)
		}
		slices.Sort(valid)
		word := "variant"
		if len(unknown) > 1 {
			word = "variants"
		}
		return fmt.Errorf("unknown %s %s; valid variants: %s", word, strings.Join(unknown, ", "), strings.Join(valid, ", "))
	}
	for i, a := range known {
		for _, b := range known[i+1:] {
			if slices.Contains(a.excludes, b.Name) || slices.Contains(b.excludes, a.Name) ||
				dropsResources(a.Name) && b.resources || dropsResources(b.Name) && a.resources {
				return fmt.Errorf("variants %q and %q exclude each other", a.Name, b.Name)
			}
		}
	}
	var versions []string // nil: no restriction yet
	restricted := false
	var by []string
	for _, d := range known {
		if d.Versions == nil {
			continue
		}
		by = append(by, d.Name)
		if !restricted {
			versions, restricted = slices.Clone(d.Versions), true
			continue
		}
		versions = slices.DeleteFunc(versions, func(v string) bool { return !slices.Contains(d.Versions, v) })
	}
	if restricted && len(versions) == 0 {
		return fmt.Errorf("variants %s serve no protocol version in common", quoteJoin(by))
	}
	return nil
}

// dropsResources tells the variants that leave the server without
// resources.
func dropsResources(name string) bool { return name == "no-resources" || name == "tools-only" }

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// nearestVariant suggests the variant a mistyped name most likely meant,
// or "" when none is close.
func nearestVariant(name string) string {
	best, bestDist := "", -1
	for _, d := range variantCatalogue {
		dist := spelling.Distance(strings.ToLower(name), d.Name)
		if bestDist < 0 || dist < bestDist || dist == bestDist && d.Name < best {
			best, bestDist = d.Name, dist
		}
	}
	if bestDist >= 0 && bestDist <= max(2, len(name)/3) {
		return best
	}
	for _, d := range variantCatalogue {
		if len(name) >= 4 && strings.Contains(d.Name, strings.ToLower(name)) {
			return d.Name
		}
	}
	return ""
}

// variantSet is the set of variants switched on for one server.
type variantSet map[string]bool

func newVariantSet(names []string) variantSet {
	vs := make(variantSet)
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			vs[n] = true
		}
	}
	return vs
}

// has reports whether the variant is on. Asking for a name that is not in
// the catalogue is a programming error, caught by any test that reaches
// the call.
func (vs variantSet) has(name string) bool {
	if _, ok := variantIndex[name]; !ok {
		panic("mockserver: unknown variant name " + name)
	}
	return vs[name]
}

// versions returns the protocol versions the variants leave the server,
// or nil when none restricts them.
func (vs variantSet) versions() []string {
	var out []string
	restricted := false
	for _, d := range variantCatalogue {
		if !vs[d.Name] || d.Versions == nil {
			continue
		}
		if !restricted {
			out, restricted = slices.Clone(d.Versions), true
			continue
		}
		out = slices.DeleteFunc(out, func(v string) bool { return !slices.Contains(d.Versions, v) })
	}
	return out
}
