// Package mockserver is a reference MCP server for the stdio transport,
// built from a JSON fixture, that can misbehave on request. Serve speaks
// on stdin and stdout; ServeConn speaks the same newline-delimited JSON
// on any other connection (a Unix socket, a TCP connection).
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
//
// # Transports
//
// One loop serves a session (loop.go), fed by a transport through a small
// interface (transport.go): frames in, whole messages out, and the raw
// writes with which faults put out malformed output on purpose. The
// stdio transport (stdio.go) frames lines; one that is no byte stream,
// such as Streamable HTTP, fits the same interface.
//
// # What it shares with package wire, and what not
//
// The suite's reader and this server speak one vocabulary: the error
// codes are wire's constants, ids are read, compared and tested for null
// with wire (IsIDLiteral, IDKey, IsNullID), and lines are cut by
// wire.LineReader. Three things stay here on purpose:
//
//   - The encoder (wire.go) and the line writer (stdio.go). They write
//     what faults ask for: a missing jsonrpc member, a changed id, a byte
//     order mark, "\r\n", a line without its newline, a message over
//     several lines. Package wire reads and judges; nothing in it may
//     write a malformed message.
//   - The envelope decoder (decodeEnvelope). It decides as a server does
//     what to answer, which -32600 and which id to echo, from the first
//     thing wrong; wire.DecodeMessage keeps every member for checks to
//     judge, and decides nothing.
//   - The limit of a line (maxLine, 128 MiB), passed to wire.LineReader:
//     a longer line is skipped without being held and answered with
//     -32600, which is this server's choice, not a rule the suite judges
//     by. The reader's
//     findings on each line (BOM, invalid UTF-8, not JSON) are ignored:
//     the server judges each line itself, as any server must.
//
// URIs are checked here too (uri.go), not by wire.AbsoluteURI, which judges
// the URIs a server lists: this server accepts an IRI in a request, and
// refuses traversal and %00 probes that the grammar of RFC 3986 allows.
package mockserver
