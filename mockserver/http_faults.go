package mockserver

import (
	"slices"
	"sort"
	"strings"
)

// The faults and legal variants of the Streamable HTTP transport. They
// act on what HTTP adds around the messages (statuses, headers, streams,
// sessions), so they exist only where the mock serves HTTP
// (ServeHTTP, `mcpconform mock --http`); over stdio they are refused.
// Each fault breaks the rule of one HTTP check; each variant is behaviour
// a correct server may show over HTTP.

// httpFaultCatalogue lists the HTTP faults. Names are stable.
var httpFaultCatalogue = []Fault{
	{Name: "http-request-text-plain", Layer: "http", Requirement: "HTTP-01", Also: []string{"JSONRPC-18"}, Description: "answers every request but initialize with its JSON under Content-Type text/plain (a client reading JSON or SSE finds no answer)"},
	{Name: "http-notice-200", Layer: "http", Requirement: "HTTP-02", Description: "answers a POST of notifications or responses it accepts with 200 and no body instead of 202"},
	{Name: "http-refusal-200", Layer: "http", Requirement: "HTTP-03", Description: "refuses a notification whose params is not an object with a JSON-RPC error under status 200 instead of an HTTP error status"},
	{Name: "http-stream-no-response", Layer: "http", Requirement: "HTTP-04", Also: []string{"JSONRPC-18"}, Version: "2025-06-18", Description: "ends the SSE stream of every tools/list before its response, and never sends the response"},
	{Name: "http-stream-left-open", Layer: "http", Requirement: "HTTP-05", Description: "keeps the SSE stream of a request open after its response, until the client goes"},
	{Name: "http-unterminated-event", Layer: "http", Requirement: "JSONRPC-18", Description: "ends the SSE stream of every tools/list right after the data of its response, without the blank line that ends the event"},
	{Name: "http-no-priming", Layer: "http", Requirement: "HTTP-15", Description: "starts SSE streams without the priming event (an event id and empty data)"},
	{Name: "http-poll-without-retry", Layer: "http", Requirement: "HTTP-16", Description: "closes the connection of every tools/list stream after its priming event, without a retry field; the response waits for a GET that resumes the stream"},
	{Name: "http-get-404", Layer: "http", Requirement: "HTTP-06", Description: "answers a GET of the MCP endpoint with 404 Not Found instead of a stream or 405"},
	{Name: "http-response-on-get", Layer: "http", Requirement: "HTTP-07", Also: []string{"HTTP-04", "JSONRPC-18"}, Description: "while a GET stream is open, sends the response to tools/list on it, and ends the POST's stream without it"},
	{Name: "http-session-id-space", Layer: "http", Requirement: "HTTP-08", Description: "gives session ids holding a space (\"mock session N\")"},
	{Name: "http-no-session-404", Layer: "http", Requirement: "HTTP-09", Description: "answers a request without a session id (initialize excepted) with 404 instead of 400"},
	{Name: "http-delete-keeps-session", Layer: "http", Requirement: "HTTP-10", Description: "answers DELETE with 200 and goes on serving the session"},
	{Name: "http-broadcast", Layer: "http", Requirement: "HTTP-12", Also: []string{"HTTP-07", "HTTP-14", "JSONRPC-05", "JSONRPC-10"}, Description: "sends every response on its POST's stream and, while one is open, on the GET stream too"},
	{Name: "http-event-ids-per-stream", Layer: "http", Requirement: "HTTP-13", Also: []string{"HTTP-14"}, Description: "numbers the events of each stream from 0, so that streams of one session share event ids"},
	{Name: "http-replay-other-streams", Layer: "http", Requirement: "HTTP-14", Also: []string{"HTTP-13"}, Description: "resuming a stream with Last-Event-ID replays the events of every stream of the session after it"},
	{Name: "http-version-header-ignored", Layer: "http", Requirement: "HTTP-17", Version: "2025-11-25", Description: "serves requests whose MCP-Protocol-Version names a version it does not support (2026-07-28: answers the -32022 of such a request under status 200)"},
	{Name: "http-origin-ignored", Layer: "http", Requirement: "HTTP-18", Description: "serves requests from any Origin"},
	{Name: "http-origin-400", Layer: "http", Requirement: "HTTP-18", Disputed: true, Description: "refuses a foreign Origin with 400 instead of 403 (a warning from 2025-11-25: it protects, with the wrong status)"},
	{Name: "http-headers-unchecked", Layer: "http", Requirement: "HTTP-19", Version: "2026-07-28", Description: "never compares MCP-Protocol-Version, Mcp-Method and Mcp-Name with the body, nor asks for them"},
	{Name: "http-unknown-method-200", Layer: "http", Requirement: "HTTP-20", Version: "2026-07-28", Description: "answers -32601 (method not found) under status 200 instead of 404"},
	{Name: "http-missing-meta-200", Layer: "http", Requirement: "HTTP-21", Version: "2026-07-28", Description: "answers the -32602 of a request missing a required _meta field under status 200 instead of 400"},
	{Name: "http-name-not-decoded", Layer: "http", Requirement: "HTTP-24", Version: "2026-07-28", Description: "compares an Mcp-Name in the Base64 sentinel form with the body without decoding it, and refuses the request with -32020"},
	{Name: "http-modern-get-stream", Layer: "http", Requirement: "HTTP-25", Also: []string{"HTTP-26"}, Version: "2026-07-28", Description: "opens an empty stream for a GET without a session and answers DELETE without one with 200, even when it serves 2026-07-28 alone (judged with --variant only-2026-07-28)"},
	{Name: "http-no-accel-buffering", Layer: "http", Requirement: "HTTP-26", Version: "2026-07-28", Description: "leaves X-Accel-Buffering: no out of its SSE responses"},
	{Name: "http-request-on-stream", Layer: "http", Requirement: "HTTP-27", Also: []string{"JSONRPC-14", "HTTP-05"}, Version: "2026-07-28", Description: "sends a ping request of its own on every 2026-07-28 response stream"},
	{Name: "http-batch-refused", Layer: "http", Requirement: "HTTP-30", Also: []string{"JSONRPC-11"}, Version: "2025-03-26", Description: "refuses a POST holding a batch with 400"},
	{Name: "http-protected-no-metadata", Layer: "http", Requirement: "HTTP-31", Description: "wants a bearer token (the token of --variant protected) and answers a request without it 401 with neither resource_metadata nor a well-known metadata document"},
}

// httpVariantCatalogue lists the legal variants of the HTTP transport,
// each with why it is legal. Names are stable.
var httpVariantCatalogue = []variantDef{
	{Variant: Variant{Name: "http-json-responses", Description: "answers every request with one application/json body, never a stream (2026-07-28 subscriptions/listen excepted, which only a stream carries); notifications of the server go to the GET stream"},
		why: "a request is answered with application/json or text/event-stream (HTTP-01); the client must support both"},
	{Variant: Variant{Name: "http-sse-always", Description: "answers every request, 2026-07-28 ones too, with an SSE stream"},
		why: "the server chooses per request (HTTP-01)"},
	{Variant: Variant{Name: "http-no-get-stream", Description: "answers GET with 405 Method Not Allowed"},
		why: "HTTP-06 allows 405 for a server that offers no stream"},
	{Variant: Variant{Name: "http-no-delete", Description: "answers DELETE with 405 Method Not Allowed: clients cannot end sessions"},
		why: "HTTP-11: the server MAY refuse to let clients end sessions"},
	{Variant: Variant{Name: "http-session-expires", Versions: legacyHTTPVersions, Description: "ends the first session at its first request after initialization (initialize and notifications aside), answering it 404 Not Found as it answers every later request naming that session; the sessions after it do not expire"},
		why: "HTTP-10: the server MAY terminate the session at any time, then answers 404; the client then starts a new session"},
	{Variant: Variant{Name: "http-stateless", Description: "gives no session ids: every POST is served on its own, as by a server that keeps no state between requests; GET is 405; a request naming no version is served as 2025-03-26, so an initialize offering 2024-11-05 is answered with 2025-03-26"},
		why: "a session id MAY be assigned (session management is optional); without one, requests need none"},
	{Variant: Variant{Name: "http-event-names", Description: `names every SSE event that carries a message "message" (the default, written out)`},
		why: "the event name is not specified (HTTP-29); \"message\" is what a client gets without one"},
	{Variant: Variant{Name: "http-protected", Description: "wants Authorization: Bearer " + mockToken + ": without it a request is answered 401 with resource_metadata in WWW-Authenticate, and the metadata document names an authorization server"},
		why: "servers SHOULD implement authentication (the transports page), and HTTP-31 is how they tell clients where"},
}

// legacyHTTPVersions are the versions with HTTP sessions.
var legacyHTTPVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// mockToken is the bearer token the protected mock accepts.
const mockToken = "mcpconform-mock-token"

// HTTPFaults returns the faults of the HTTP transport, sorted by name.
func HTTPFaults() []Fault {
	out := slices.Clone(httpFaultCatalogue)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HTTPVariants returns the legal variants of the HTTP transport, sorted by
// name.
func HTTPVariants() []Variant {
	out := make([]Variant, len(httpVariantCatalogue))
	for i, d := range httpVariantCatalogue {
		out[i] = d.Variant
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// isHTTPFault and isHTTPVariant report whether a name is the HTTP
// transport's.
func isHTTPFault(name string) bool {
	return slices.ContainsFunc(httpFaultCatalogue, func(f Fault) bool { return f.Name == strings.TrimSpace(name) })
}

func isHTTPVariant(name string) bool {
	return slices.ContainsFunc(httpVariantCatalogue, func(d variantDef) bool { return d.Name == strings.TrimSpace(name) })
}

// httpSet is the set of the HTTP faults or variants switched on.
type httpSet map[string]bool

// has reports whether the name is on; a name of neither catalogue is a
// programming error.
func (s httpSet) has(name string) bool {
	if !isHTTPFault(name) && !isHTTPVariant(name) {
		panic("mockserver: unknown HTTP fault or variant " + name)
	}
	return s[name]
}

// splitHTTP separates the HTTP transport's names from the others.
func splitHTTP(names []string, isHTTP func(string) bool) (httpNames httpSet, rest []string) {
	httpNames = httpSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case isHTTP(n):
			httpNames[n] = true
		default:
			rest = append(rest, n)
		}
	}
	return httpNames, rest
}
