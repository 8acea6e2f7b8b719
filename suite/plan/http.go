package plan

// Probes of the Streamable HTTP transport. Each is sent only to a server
// reached over HTTP; what breaks a client's own rule on purpose (a
// missing session id, a foreign Origin, a version header no version
// has, headers that disagree with the body) is bracketed by marks with
// Provoking set. A request that carries no message (GET, DELETE) carries
// the probe's tag on its own HTTPRequest entry; one that carries a
// message carries it on the message's Send entry as well.
const (
	// ProbeHTTPGet opens the stream of a GET to the MCP endpoint (Accept:
	// text/event-stream, the session's id), in each handshake-era
	// session, and keeps it open while the session's other traffic runs.
	ProbeHTTPGet Probe = "http-get"
	// ProbeHTTPNotify POSTs, in each session, messages the server cannot
	// answer: a notification no version defines,
	// notifications/mcpconform/probe (step "notification"); in a
	// handshake-era session a response to an id the server never sent
	// (step "response"); and a notification whose params is a string
	// (step "invalid", provoking).
	ProbeHTTPNotify Probe = "http-notify"
	// ProbeHTTPNoSession POSTs a ping without Mcp-Session-Id in a
	// handshake-era session whose server gave one (provoking).
	ProbeHTTPNoSession Probe = "http-no-session"
	// ProbeHTTPDelete ends the session of a handshake-era probe process
	// with DELETE (step "delete"), then POSTs a ping with the ended
	// session's id (step "after").
	ProbeHTTPDelete Probe = "http-delete"
	// ProbeHTTPResume GETs the MCP endpoint with Last-Event-ID set to the
	// first event id of the stream of a POST of the session (a
	// handshake-era session whose server gave event ids), and reads what
	// the resumed stream replays.
	ProbeHTTPResume Probe = "http-resume"
	// ProbeHTTPBadVersion sends a request whose MCP-Protocol-Version
	// header is a version no spec has, "1900-01-01": a ping in a session
	// from 2025-06-18, server/discover with the same version in its
	// _meta in 2026-07-28 (provoking).
	ProbeHTTPBadVersion Probe = "http-bad-version"
	// ProbeHTTPOrigin sends the request that opens a session (initialize,
	// or server/discover in 2026-07-28; the GET of the deprecated HTTP+SSE
	// transport) with Origin: OriginForeign, to a target on a loopback
	// address only (provoking).
	ProbeHTTPOrigin Probe = "http-origin"
	// ProbeHTTPHeaderMismatch sends, in a 2026-07-28 session, requests
	// whose headers disagree with their bodies (provoking): Mcp-Method
	// naming another method (step "method"), Mcp-Name naming another
	// resource or prompt than the body's, in a resources/read or
	// prompts/get of a listed one (step "name"), MCP-Protocol-Version
	// naming 2025-11-25 (step "version"), and no Mcp-Method at all (step
	// "missing").
	ProbeHTTPHeaderMismatch Probe = "http-header-mismatch"
	// ProbeHTTPHeaderCase sends, in a 2026-07-28 session, a
	// server/discover whose MCP header names are all in lower case.
	ProbeHTTPHeaderCase Probe = "http-header-case"
	// ProbeHTTPEncodedName sends, in a 2026-07-28 session, a
	// resources/read of a listed resource (else a prompts/get of a listed
	// prompt without required arguments) whose Mcp-Name is in the Base64
	// sentinel form, =?base64?…?=.
	ProbeHTTPEncodedName Probe = "http-encoded-name"
	// ProbeHTTPModernGetDelete sends, in a 2026-07-28 session, a GET
	// (step "get") and a DELETE (step "delete") to the MCP endpoint.
	ProbeHTTPModernGetDelete Probe = "http-modern-get-delete"
	// ProbeHTTPAccept POSTs, in each session, a ping (server/discover in
	// 2026-07-28) whose Accept header names application/json alone
	// (provoking).
	ProbeHTTPAccept Probe = "http-accept"
	// ProbeHTTPProtectedResource GETs, once a request was answered 401,
	// the protected-resource metadata the 401's WWW-Authenticate names in
	// resource_metadata (step "named"), else the well-known URIs:
	// /.well-known/oauth-protected-resource followed by the endpoint's
	// path (step "path"), then at the root (step "root").
	ProbeHTTPProtectedResource Probe = "http-protected-resource"
	// ProbeHTTPLegacySSE GETs the URL with Accept: text/event-stream and no
	// session when its POST of initialize was refused with 400, 404 or
	// 405, as a client looking for the deprecated HTTP+SSE transport
	// (2024-11-05) does, and reads the stream's first event.
	ProbeHTTPLegacySSE Probe = "http-legacy-sse"
)

// OriginForeign is the Origin ProbeHTTPOrigin sends: a name under
// .invalid (RFC 2606), the origin of no server.
const OriginForeign = "http://mcpconform.invalid"

// VersionUnknown is the version ProbeHTTPBadVersion names in its header.
const VersionUnknown = "1900-01-01"

// httpProbes are the probes of the HTTP transport, in the order above.
func httpProbes() []Probe {
	return []Probe{
		ProbeHTTPGet, ProbeHTTPNotify, ProbeHTTPNoSession, ProbeHTTPDelete, ProbeHTTPResume,
		ProbeHTTPBadVersion, ProbeHTTPOrigin, ProbeHTTPHeaderMismatch, ProbeHTTPHeaderCase,
		ProbeHTTPEncodedName, ProbeHTTPModernGetDelete, ProbeHTTPAccept,
		ProbeHTTPProtectedResource, ProbeHTTPLegacySSE,
	}
}
