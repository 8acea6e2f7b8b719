package main

// Fault is one rule the client breaks on purpose.
type Fault struct {
	Name string
	// Breaks are the requirements a judge must find broken, at their
	// level in the version the client uses, and no others.
	Breaks []string
	// Scenario, Version and Context are the contract's environment under
	// which the fault shows (Version "": the newest handshake version).
	Scenario string
	Version  string
	Context  string
	// Server says what the server must do for the fault to show, as
	// arguments of the recording mock: its --variant and --fault flags,
	// or --counter-offer V (answer initialize with version V), --ask
	// METHOD (send that request once the client is initialized),
	// --ignore-eof and --ignore-sigterm.
	Server []string
	// HTTP marks a fault of Streamable HTTP: it shows when the client is
	// given the server's URL (Server then names the HTTP mock's
	// --variant and --fault).
	HTTP        bool
	Description string
}

// Faults is the catalogue of faults, one per client rule judged.
var Faults = []Fault{
	{Name: "no-initialized", Breaks: []string{"LIFE-07"}, Scenario: "initialize",
		Description: "never sends notifications/initialized"},
	{Name: "request-before-init-response", Breaks: []string{"LIFE-08"}, Scenario: "initialize",
		Description: "sends tools/list right behind initialize, before its response"},
	{Name: "batch-initialize", Breaks: []string{"LIFE-11"}, Scenario: "initialize", Version: "2025-03-26",
		Description: "in 2025-03-26 sends initialize inside a batch array"},
	{Name: "cancel-initialize", Breaks: []string{"LIFE-12"}, Scenario: "initialize",
		Description: "sends notifications/cancelled for its initialize request"},
	{Name: "no-client-info", Breaks: []string{"LIFE-02"}, Scenario: "initialize",
		Description: "leaves clientInfo out of initialize"},
	{Name: "capability-wrong-type", Breaks: []string{"SCHEMA-01"}, Scenario: "initialize",
		Description: "declares capabilities.experimental as a string, where the schema wants an object"},
	{Name: "wrong-version-accepted", Breaks: []string{"LIFE-06"}, Scenario: "version-negotiation", Server: []string{"--counter-offer", "1999-01-01"},
		Description: "goes on with any version the server counter-offers, one no revision defines included"},
	{Name: "ignores-capabilities", Breaks: []string{"LIFE-10"}, Scenario: "resources", Server: []string{"--variant", "no-subscribe"},
		Description: "sends resources/subscribe whatever the server declared"},
	{Name: "no-cancel-on-timeout", Breaks: []string{"LIFE-15"}, Scenario: "cancellation", Context: `{"name":"cancellation","timeoutMs":300}`, Server: []string{"--fault", "hang-on-read"},
		Description: "gives up on a read at its deadline without notifications/cancelled"},
	{Name: "no-discover", Breaks: []string{"LIFE-32"}, Scenario: "request-metadata", Version: "2026-07-28",
		Description: "in 2026-07-28 sends tools/list first, without the server/discover probe"},
	{Name: "modern-no-meta", Breaks: []string{"LIFE-34", "LIFE-21"}, Scenario: "request-metadata", Version: "2026-07-28",
		Description: "in 2026-07-28 sends requests without _meta (no protocolVersion, clientCapabilities or clientInfo)"},
	{Name: "modern-no-client-info", Breaks: []string{"LIFE-21"}, Scenario: "request-metadata", Version: "2026-07-28",
		Description: "in 2026-07-28 leaves clientInfo out of _meta"},
	{Name: "jsonrpc-1.0", Breaks: []string{"JSONRPC-01"}, Scenario: "initialize",
		Description: `sends a tools/list with "jsonrpc": "1.0"`},
	{Name: "fractional-id", Breaks: []string{"JSONRPC-02"}, Scenario: "initialize",
		Description: "numbers a tools/list request 2.5"},
	{Name: "null-id", Breaks: []string{"JSONRPC-03"}, Scenario: "initialize",
		Description: `sends a tools/list with "id": null`},
	{Name: "id-reused", Breaks: []string{"JSONRPC-04"}, Scenario: "initialize",
		Description: "asks for the second page of tools under the id of the first"},
	{Name: "notification-with-id", Breaks: []string{"JSONRPC-09"}, Scenario: "initialize",
		Description: "sends notifications/initialized with an id"},
	{Name: "batch-requests", Breaks: []string{"JSONRPC-12"}, Scenario: "initialize",
		Description: "in 2025-11-25 sends two requests in one batch array"},
	{Name: "response-wrong-id", Breaks: []string{"JSONRPC-05", "PING-01"}, Scenario: "initialize", Server: []string{"--variant", "server-pings"},
		Description: "answers the server's ping under another id (so the ping itself goes unanswered)"},
	{Name: "ignore-ping", Breaks: []string{"PING-01"}, Scenario: "initialize", Server: []string{"--variant", "server-pings"},
		Description: "never answers the server's ping"},
	{Name: "embedded-newline", Breaks: []string{"STDIO-02"}, Scenario: "initialize",
		Description: "writes a tools/list request pretty-printed over several lines"},
	{Name: "bom", Breaks: []string{"STDIO-04"}, Scenario: "initialize",
		Description: "starts its initialize line with a byte order mark"},
	{Name: "banner", Breaks: []string{"STDIO-06"}, Scenario: "initialize",
		Description: "writes a line of text to the server's stdin before initialize"},
	{Name: "responses-in-modern", Breaks: []string{"STDIO-15"}, Scenario: "request-metadata", Version: "2026-07-28",
		Description: "in 2026-07-28 writes a response nobody asked for"},
	{Name: "sigkill-first", Breaks: []string{"STDIO-16"}, Scenario: "shutdown",
		Description: "ends the server with SIGKILL, its stdin still open"},
	{Name: "sigterm-first", Breaks: []string{"STDIO-16"}, Scenario: "shutdown",
		Description: "ends the server with SIGTERM before closing its stdin"},
	{Name: "pagination-stops-early", Breaks: []string{"PAG-10"}, Scenario: "initialize",
		Description: "stops listing tools after the first page"},
	{Name: "cursor-modified", Breaks: []string{"PAG-06"}, Scenario: "initialize",
		Description: `sends every cursor back with an "x" appended`},
	{Name: "empty-cursor-as-end", Breaks: []string{"PAG-07"}, Scenario: "resources", Version: "2026-07-28", Server: []string{"--variant", "empty-string-cursor"},
		Description: `in 2026-07-28 takes a nextCursor of "" for the end of the list`},
	{Name: "unknown-cancel", Breaks: []string{"CANCEL-01"}, Scenario: "initialize",
		Description: "sends notifications/cancelled for an id it never used"},
	{Name: "progress-token-object", Breaks: []string{"META-10"}, Scenario: "initialize",
		Description: "sends an object as a progress token"},
	{Name: "progress-token-reused", Breaks: []string{"META-11"}, Scenario: "cancellation", Context: `{"name":"cancellation","timeoutMs":300}`, Server: []string{"--fault", "hang-on-read"},
		Description: "sends two reads at once with the same progress token (the server answers neither; both are cancelled at the deadline)"},
	{Name: "roots-undeclared-answered", Breaks: []string{"ROOTS-01"}, Scenario: "initialize", Server: []string{"--ask", "roots/list"},
		Description: "answers roots/list with roots without declaring the roots capability"},
	{Name: "roots-refused-wrong-code", Breaks: []string{"ROOTS-02"}, Scenario: "initialize", Server: []string{"--ask", "roots/list"},
		Description: "without roots, refuses roots/list with -32603 instead of -32601"},
	{Name: "roots-not-file", Breaks: []string{"ROOTS-03"}, Scenario: "initialize", Server: []string{"--ask", "roots/list"},
		Description: "declares roots and answers roots/list with an https:// root"},
	{Name: "sampling-undeclared-answered", Breaks: []string{"SAMP-01"}, Scenario: "initialize", Server: []string{"--ask", "sampling/createMessage"},
		Description: "answers sampling/createMessage without declaring sampling"},
	{Name: "request-state-modified", Breaks: []string{"MRTR-04"}, Scenario: "sep-2322-client-request-state", Version: "2026-07-28", Server: []string{"--variant", "input-required-retry"},
		Description: "retries an input_required answer with its requestState changed"},
	{Name: "retry-same-id", Breaks: []string{"MRTR-05"}, Scenario: "sep-2322-client-request-state", Version: "2026-07-28", Server: []string{"--variant", "input-required-retry"},
		Description: "retries an input_required answer under the id of the request it retries"},
}

// httpFaults are the faults of Streamable HTTP.
var httpFaults = []Fault{
	{Name: "http-post-elsewhere", Breaks: []string{"HTTP-33"}, Scenario: "initialize", HTTP: true,
		Description: "posts notifications/initialized to the endpoint's path + /notifications instead of the MCP endpoint"},
	{Name: "http-accept-json-only", Breaks: []string{"HTTP-35"}, Scenario: "initialize", HTTP: true,
		Description: "posts with Accept: application/json alone, leaving text/event-stream out"},
	{Name: "http-session-id-dropped", Breaks: []string{"HTTP-37"}, Scenario: "initialize", HTTP: true,
		Description: "leaves Mcp-Session-Id out of every POST after initialize (the server refuses them with 400)"},
	{Name: "http-no-version-header", Breaks: []string{"HTTP-39"}, Scenario: "initialize", HTTP: true,
		Description: "leaves MCP-Protocol-Version out of its POSTs after initialization"},
	{Name: "http-other-version-header", Breaks: []string{"HTTP-40"}, Scenario: "initialize", Version: "2025-11-25", HTTP: true,
		Description: "negotiates 2025-11-25, then sends MCP-Protocol-Version: 2025-06-18 on its POSTs (a version the server also serves)"},
	{Name: "http-wrong-mcp-method", Breaks: []string{"HTTP-41"}, Scenario: "request-metadata", Version: "2026-07-28", HTTP: true,
		Description: "sends Mcp-Method: tools/call on its requests after server/discover (tools/list on a tools/call; the server refuses them with -32020)"},
	{Name: "http-responses-in-modern", Breaks: []string{"HTTP-43"}, Scenario: "request-metadata", Version: "2026-07-28", HTTP: true, Server: []string{"--fault", "http-request-on-stream"},
		Description: "in 2026-07-28 answers the ping a faulty server sends on a response stream, posting a response"},
	{Name: "http-get-accept-json", Breaks: []string{"HTTP-36"}, Scenario: "initialize", HTTP: true,
		Description: "opens its GET stream with Accept: application/json"},
	{Name: "http-no-renew", Breaks: []string{"HTTP-38"}, Scenario: "session-expiry", HTTP: true, Server: []string{"--variant", "http-session-expires"},
		Description: "answered 404 for its session, gives up instead of starting a new one"},
	{Name: "http-no-delete", Breaks: []string{"HTTP-42"}, Scenario: "initialize", HTTP: true,
		Description: "exits with its session open, never sending DELETE"},
}

func init() { Faults = append(Faults, httpFaults...) }

// FaultNamed returns the fault with the name, or nil.
func FaultNamed(name string) *Fault {
	for i := range Faults {
		if Faults[i].Name == name {
			return &Faults[i]
		}
	}
	return nil
}

// LegalBehaviour is something legal but unusual the client does: a judge
// must not fail it.
type LegalBehaviour struct {
	Name        string
	Scenario    string
	Version     string
	Server      []string
	HTTP        bool
	Description string
}

// Legal lists the legal behaviours.
var Legal = []LegalBehaviour{
	{Name: "pipelined", Scenario: "initialize",
		Description: "sends the first page requests of tools, resources and prompts at once and reads the answers as they come"},
	{Name: "string-ids", Scenario: "resources",
		Description: `numbers its requests with strings holding non-ASCII text ("req-ü-1")`},
	{Name: "meta-everywhere", Scenario: "prompts",
		Description: "puts _meta with a key of its own on every request and notification"},
	{Name: "no-capabilities", Scenario: "server-requests", Server: []string{"--variant", "server-pings", "--ask", "roots/list", "--ask", "sampling/createMessage"},
		Description: "declares no capabilities even where the scenario offers them: answers pings, refuses roots/list and sampling with -32601"},
	{Name: "reconnect", Scenario: "initialize",
		Description: "does the scenario, then starts the server again and does it once more"},
	{Name: "http-no-get", Scenario: "initialize", HTTP: true,
		Description: "over Streamable HTTP, never opens the GET stream (a MAY)"},
	{Name: "http-odd-headers", Scenario: "prompts", HTTP: true,
		Description: "over Streamable HTTP, writes header names in lower case and weights text/event-stream with q=0.9 in Accept"},
	{Name: "crlf", Scenario: "initialize",
		Description: `ends every line with "\r\n" (recorded: JSON reads the \r as whitespace)`},
}

// LegalNamed returns the legal behaviour with the name, or nil.
func LegalNamed(name string) *LegalBehaviour {
	for i := range Legal {
		if Legal[i].Name == name {
			return &Legal[i]
		}
	}
	return nil
}
