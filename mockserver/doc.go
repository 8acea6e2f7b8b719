// Package mockserver is a reference MCP server for the stdio transport,
// built from a JSON fixture, that can misbehave on request.
//
// Without faults it follows the protocol revisions 2024-11-05 through
// 2025-11-25: the initialize handshake and version negotiation, ping,
// resources (static and templated, text and binary), tools (calls checked
// against their inputSchema) and prompts (templated messages), pagination
// with opaque cursors, subscriptions, and list changes, with the fields of
// each message cut to the negotiated version. It serves 2026-07-28 as well, the
// era without a handshake: per-request _meta, server/discover, resultType
// and cache hints on results, and subscriptions/listen streams. By default
// one process serves both eras; a fixture can restrict it to either. The mcpconform suite tests
// itself against it: every check must fail against a fault that breaks
// its rule and pass against the correct server. Client authors can point
// their clients at it too (`mcpconform mock`).
//
// A fault (see Faults) breaks exactly one rule of the requirement
// catalogue and leaves the rest of the behaviour correct. A variant (see
// Variants) is the other direction: behaviour a correct server may show
// that is unusual, against which no check may fail. Faults of the
// "process" layer that exit, ignore signals or start children act on the
// whole process; use them only where Serve runs in a process of its own.
//
// The fixture format, the legal variations and the fault catalogue are
// documented in README.md next to this file; fixture.schema.json is the
// fixture's JSON Schema.
package mockserver
