package reports

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

// sampleReport is an ordinary run: every verdict, several areas, Expected
// and Actual, transcripts, and a stale baseline entry.
func sampleReport() *Report {
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcpconform", Version: "0.1.0"},
		Target: Target{
			Command:         []string{"./my-server", "--stdio"},
			ServerInfo:      json.RawMessage(`{"name":"demo-server","version":"1.4.2"}`),
			ProtocolVersion: "2025-11-25",
			Capabilities:    json.RawMessage(`{"resources":{"subscribe":true,"listChanged":true}}`),
			Versions:        []string{"2024-11-05", "2025-11-25"},
			StderrTail:      []string{"demo-server listening on stdio"},
			Processes:       4,
		},
		StartedAt:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		DurationMs: 1234,
		Stale:      []string{"resources-list-cursor-opaque"},
		Results: []Result{
			{
				ID: "lifecycle-initialize-result", Requirement: "LIFE-INIT-01", Level: "MUST", Verdict: Pass,
				Message: "initialize returned protocolVersion, capabilities and serverInfo",
				Spec:    "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization",
				Area:    "lifecycle", ProtocolVersion: "2025-11-25", Labels: []string{"MUST", "lifecycle"},
			},
			{
				ID: "resources-read-unknown-uri", Requirement: "RES-READ-05", Level: "SHOULD", Verdict: Warn,
				Message:         "error code -32602 for an unknown URI; this version uses -32002\nthe 2026-07-28 code, sent in an older session",
				Spec:            "https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling",
				Area:            "resources",
				Expected:        json.RawMessage(`[{"error":{"code":-32002}},{"error":{"code":-32602}}]`),
				Actual:          json.RawMessage(`{"error":{"code":-32602,"message":"Resource not found"}}`),
				ProtocolVersion: "2025-11-25",
				Sent:            `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"mcpconform-missing://n1"}}`,
				Got:             `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Resource not found"}}`,
				Quote:           "Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: -32002",
				Expect:          "resources/read of a URI the server does not have is answered with the version's resource-not-found error",
				Transcript: []TranscriptLine{
					{AtMs: 12, Dir: "send", Text: `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"mcpconform-missing://n1"}}`},
					{AtMs: 13, Dir: "recv", Text: `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Resource not found"}}`},
				},
			},
			{
				ID: "resources-list-pagination-terminates", Requirement: "RES-LIST-03", Level: "MUST", Verdict: Fail,
				Message:         "resources/list returned the same nextCursor twice",
				Spec:            "https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination",
				Area:            "resources",
				Expected:        map[string]any{"nextCursor": map[string]any{"$absent": true}},
				ProtocolVersion: "2025-11-25",
				Sent:            `{"jsonrpc":"2.0","id":9,"method":"resources/list","params":{"cursor":"page-2"}}`,
				Got:             `{"jsonrpc":"2.0","id":9,"result":{"resources":[{"uri":"file:///a"}],"nextCursor":"page-2"}}`,
				Quote:           "Clients MUST treat a missing nextCursor as the end of results; a server that repeats a cursor never ends",
				Expect:          "paging resources/list with each nextCursor in turn comes to a page without one",
				DurationMs:      12,
				Actual:          map[string]any{"nextCursor": "page-2", "resources": []any{map[string]any{"uri": "file:///a"}}},
				Transcript: []TranscriptLine{
					{AtMs: 20, Dir: "send", Text: `{"jsonrpc":"2.0","id":9,"method":"resources/list","params":{"cursor":"page-2"}}`},
					{AtMs: 21, Dir: "recv", Text: `{"jsonrpc":"2.0","id":9,"result":{"resources":[{"uri":"file:///a"}],"nextCursor":"page-2"}}`},
					{AtMs: 22, Dir: "note", Text: "cursor repeated; stopped paging"},
				},
			},
			{
				ID: "stdio-no-banner", Requirement: "STDIO-02", Level: "MUST", Verdict: Pass,
				Message: "every line on stdout was a JSON-RPC message", Area: "stdio",
				Spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio",
			},
			{
				ID: "resources-subscribe-updated", Requirement: "RES-SUB-02", Level: "MUST", Verdict: Skip,
				Message: "skipped: the server does not declare resources.subscribe", Area: "resources",
				Spec: "https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions",
			},
			{
				ID: "jsonrpc-batch-rejected", Requirement: "RPC-07", Level: "INFO", Verdict: Info,
				Message: "a JSON-RPC batch was answered with one error", Area: "jsonrpc",
				Spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic#json-rpc",
			},
			{
				ID: "lifecycle-shutdown-exit", Requirement: "LIFE-SHUT-01", Level: "SHOULD", Verdict: Error,
				Message: "the server did not exit within 2s of stdin closing; killed", Area: "lifecycle",
				Spec: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#shutdown",
			},
			{
				ID: "resources-templates-list", Requirement: "RES-TPL-01", Level: "MUST", Verdict: XFail,
				Message: "resources/templates/list failed with -32601 (in the baseline)", Area: "resources",
				Spec: "https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates",
			},
			{
				ID: "ping-basic", Requirement: "PING-01", Level: "MUST", Verdict: Pass,
				Message: "ping answered with an empty result",
				Spec:    "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping",
			},
		},
	}
	r.Count()
	return r
}

// Hostile strings a server might send, one per trick.
const (
	hostileScript   = "<script>alert(1)</script>"
	hostileImg      = "<img src=x onerror=alert(1)>"
	hostileBreakout = "</script><script>document.title='pwned'</script>"
	hostileANSI     = "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b]8;;http://x\x07link\x1b]8;;\x07 over\rwrite"
	hostileControls = "nul\x00 bel\x07 bs\x08 vt\x0b ff\x0c del\x7f c1\u0085\u009b esc\x1b"
	hostileInvalid  = "bad \xff\xfe utf8 \xc3\x28 and \xed\xa0\x80 surrogate"
	hostileXML      = "]]> <![CDATA[ x ]]> &amp; &#0; \ufffe\uffff"
	hostileFence    = "```\n# heading\n````\n~~~\n| a | b |\n"
	hostileBidi     = "abc\u202eevil\u2066x\u2069\u2028line"
)

// hostileReport is a report full of strings a hostile server could have put
// in it: markup, ANSI and OSC sequences, control bytes, invalid UTF-8,
// Markdown fences, very long lines and values encoding/json cannot encode.
func hostileReport() *Report {
	long := strings.Repeat("A", 300_000) + hostileScript
	all := strings.Join([]string{hostileScript, hostileImg, hostileBreakout, hostileANSI,
		hostileControls, hostileInvalid, hostileXML, hostileFence, hostileBidi}, "\n")
	r := &Report{
		Tool: Tool{Name: "mcpconform", Version: "0.1.0"},
		Target: Target{
			Command:         []string{"./evil", hostileScript, hostileANSI},
			ServerInfo:      json.RawMessage(`{"name":"` + "</script><script>document.title='pwned'</script>" + `","version":"\u001b[31m1"}`),
			ProtocolVersion: hostileBreakout,
			Capabilities:    json.RawMessage("{not json \xff"),
			StderrTail:      []string{hostileANSI, hostileControls, hostileInvalid},
		},
		Stale:       []string{hostileImg},
		Interrupted: hostileANSI,
		Results: []Result{
			{ID: hostileScript, Requirement: "X-01", Level: "MUST", Verdict: Fail, Message: all,
				Spec: "javascript:alert(1)", Area: hostileImg,
				Expected: map[string]any{"name": hostileBreakout, "ansi": hostileANSI, "bad": hostileInvalid, "fence": hostileFence},
				Actual:   map[string]any{"name": hostileImg, "xml": hostileXML, "bidi": hostileBidi, "c": hostileControls},
				Transcript: []TranscriptLine{
					{AtMs: 1, Dir: "recv", Text: all},
					{AtMs: 2, Dir: hostileScript, Text: long},
					{AtMs: 3, Dir: "stderr", Text: hostileANSI},
				}},
			{ID: hostileImg, Requirement: hostileXML, Level: hostileBreakout, Verdict: Warn, Message: hostileANSI + "\n" + hostileFence,
				Spec: "https://example.invalid/spec\"><script>alert(1)</script>", Area: "resources",
				Expected: json.RawMessage("{\"broken\": \xff"), Actual: map[string]any{"nan": math.NaN()}},
			{ID: hostileBreakout, Requirement: hostileControls, Level: "MUST", Verdict: Error, Message: hostileInvalid + hostileControls,
				Spec: "https://modelcontextprotocol.io/specification/x", Area: hostileBreakout,
				Expected: long, Actual: hostileFence + hostileXML},
			{ID: "ansi-" + hostileANSI, Requirement: "X-04", Level: "SHOULD", Verdict: Skip, Message: hostileControls + hostileXML,
				Spec: "data:text/html,<script>alert(1)</script>", Area: hostileANSI},
			{ID: "long-" + strings.Repeat("x", 500), Requirement: hostileFence, Level: hostileBidi, Verdict: Info, Message: long,
				Spec: "https://a|b<c>", Area: "general"},
			{ID: "pass-" + hostileInvalid, Requirement: "X-06", Level: "MUST", Verdict: Pass, Message: hostileXML, Area: hostileInvalid},
			{ID: "xfail-" + hostileXML, Requirement: "X-07", Level: "MUST", Verdict: XFail, Message: hostileFence, Area: "general"},
		},
	}
	r.Count()
	return r
}
