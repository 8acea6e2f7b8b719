package compat_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/internal/compat"
	"github.com/mcpconform/mcpconform/internal/testservers"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transport"
)

var (
	update    = flag.Bool("update", false, "rewrite testdata/*.golden.json from this run")
	reportDir = flag.String("report", "", "also write the JSON report of each server's run into this directory")
)

// argv gives the command of each server of compat.Servers.
var argv = map[string]func(testing.TB) []string{
	"gosdk":      func(tb testing.TB) []string { return testservers.GoServer(tb, "gosdk") },
	"mcpgo":      func(tb testing.TB) []string { return testservers.GoServer(tb, "mcpgo") },
	"ts":         testservers.TSServer,
	"everything": testservers.Everything,
}

// httpOf names the server of httpServers behind each HTTP server of
// compat.Servers.
var httpOf = map[string]string{
	"gosdk-http":           "gosdk",
	"gosdk-stateless-http": "gosdk-stateless",
	"mcpgo-http":           "mcpgo",
	"ts-http":              "ts",
	"everything-http":      "everything",
}

// allowedFails lists every fail the suite may give against a real server,
// keyed by check id ("id" for every version, "id@version" for one), each
// with the reason the server, not the suite, is wrong. A fail missing here
// fails TestGolden: either the server really breaks a MUST (add it, citing
// the requirement id of the catalogue, suite/requirements.json, or its
// section 5.2 on what the SDKs do) or the suite is wrong (fix the suite).
var allowedFails = map[string]map[string]string{
	"gosdk": {
		// go-sdk's stream decoder swallows the next line after a truncated
		// one and never answers again (testservers/README.md).
		"parse-error": "ERR-01: a dead or wedged server after a malformed line is a FAIL (catalogue ERR-01: \"a dead process = FAIL\")",
		// go-sdk ends its connection (exit 1) on any envelope it cannot
		// decode (testservers/README.md: "dies").
		"invalid-request-missing-jsonrpc":       "ERR-02: go-sdk exits on a request without \"jsonrpc\" instead of answering -32600",
		"invalid-request-wrong-jsonrpc-version": "ERR-02: go-sdk exits on \"jsonrpc\":\"1.0\" instead of answering -32600",
		"invalid-request-method-not-string":     "ERR-02: go-sdk exits on a non-string method instead of answering -32600",
		"invalid-request-boolean-id":            "ERR-02: go-sdk exits on a boolean id instead of answering -32600",
		// go-sdk reads a request id into an integer (testservers/README.md:
		// "answered with id 1").
		"id-echo-fractional": "JSONRPC-05/JSONRPC-16: a request with the id 1.5 is answered with the id 1; JSON-RPC: the response id \"MUST be the same as the value of the id member in the Request Object\"",
		// A request in the modern envelope naming protocol version
		// 1900-01-01 is served (as legacy traffic) instead of refused.
		"unsupported-version-refused@2026-07-28": "LIFE-22: an unsupported protocolVersion in the modern envelope must get -32022; go-sdk serves the request",
		// listen-cancel-stops@2026-07-28 may fail: see racing.
	},
	"mcpgo": {
		"batch-accepted@2025-03-26":              "JSONRPC-11: 2025-03-26 requires receiving batches; mcp-go answers a batch line with -32700 (it parses one object per line)",
		"invalid-request-boolean-id":             "ERR-02/JSONRPC-02: mcp-go serves a request whose id is `true` (a request id is a string or an integer)",
		"unsupported-version-refused@2026-07-28": "LIFE-22: an unsupported protocolVersion in the modern envelope must get -32022; mcp-go serves the request",
		// listen-cancel-stops@2026-07-28 may fail: see racing.
	},
	"ts": {
		"every-request-answered": whyDropsParamsArray,
	},
	"gosdk-http": {
		"http-batch-post":       whyBatchRefused,
		"http-origin-validated": whyOriginServed,
		"id-echo-fractional":    whyIDTruncated,
	},
	"gosdk-stateless-http": {
		"http-batch-post":                         whyBatchRefused,
		"http-origin-validated":                   whyOriginServed,
		"id-echo-fractional":                      whyIDTruncated,
		"http-encoded-name@2026-07-28":            "HTTP-24: an Mcp-Name in the Base64 sentinel form (=?base64?…?=) of the body's URI is refused with -32020 (\"servers MUST decode an encoded Mcp-Name … before comparing it to the corresponding request body value\")",
		"http-protocol-version-header@2026-07-28": whyNoVersionError,
	},
	"mcpgo-http": {
		"batch-accepted@2025-03-26":               "JSONRPC-11: 2025-03-26 requires receiving batches; mcp-go answers a POST holding a batch with -32700",
		"http-batch-post":                         whyBatchRefused,
		"http-origin-validated":                   whyOriginServed,
		"http-notice-refused-status":              "HTTP-03: a notification whose params is a string is refused with -32700 under status 200 (\"If the server cannot accept the input, it MUST return an HTTP error status code\")",
		"http-protocol-version-header@2026-07-28": whyNoVersionError,
		"invalid-request-boolean-id":              "ERR-02/JSONRPC-02: mcp-go serves a request whose id is `true` (a request id is a string or an integer)",
	},
	"ts-http": {
		"http-origin-validated": whyOriginServed,
	},
	"everything-http": {
		"http-origin-validated": whyOriginServed,
		// The TypeScript SDK's in-memory event store keeps the priming
		// events as the message {} and replays every stream's events
		// after the one named.
		"http-resume-same-stream":           "HTTP-14: a GET with Last-Event-ID naming an event of one POST's stream replays responses that came on other streams (\"The server MUST NOT replay messages that would have been delivered on a different stream\")",
		"http-event-ids-unique":             "HTTP-13: the resumed stream carries event ids of other streams again, replaying their events (the ids of a session's events \"MUST be globally unique across all streams within that session\")",
		"jsonrpc-version@2025-11-25":        "JSONRPC-01: the resumed stream replays the priming events as events whose data is {}, an object without \"jsonrpc\" that a client reads as a message",
		"http-session-ended-404@2025-11-25": "HTTP-10: after the DELETE that ended its session (200), a request with the session's id gets 400 (-32000) instead of 404 Not Found (\"after which it MUST respond to requests containing that session ID with HTTP 404 Not Found\")",
	},
	"everything": {
		// The get-resource-links tool answers with resource_link blocks
		// whatever version was negotiated; the type exists from
		// 2025-06-18 (CallToolResult.content, TOOLS-18).
		"tools-call-result-shape@2024-11-05": "TOOLS-18: a tools/call result holds resource_link blocks, a content type 2024-11-05 does not define",
		"tools-call-result-shape@2025-03-26": "TOOLS-18: a tools/call result holds resource_link blocks, a content type 2025-03-26 does not define",
		"every-request-answered":             whyDropsParamsArray,
	},
}

// Justifications shared by several servers.
const (
	whyBatchRefused      = "HTTP-30/JSONRPC-11: at 2025-03-26 a POST holding a batch is refused with 400 (\"MCP implementations … MUST support receiving JSON-RPC batches\")"
	whyOriginServed      = "HTTP-18: a request from the foreign Origin http://mcpconform.invalid to the server on 127.0.0.1 is served (\"Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks\"); the SDK checks no Origin unless the server sets it up"
	whyIDTruncated       = "JSONRPC-05/JSONRPC-16: a request with the id 1.5 is answered with the id 1; JSON-RPC: the response id \"MUST be the same as the value of the id member in the Request Object\""
	whyNoVersionError    = "HTTP-17: a request whose MCP-Protocol-Version is 1900-01-01 gets 400 without the UnsupportedProtocolVersionError (-32022) 2026-07-28 pairs with it"
	whyHTTPSilent        = "ERR-02: over HTTP a structurally invalid request gets no -32600, only an empty answer (a warning)"
	whyUnknownToolResult = "TOOLS-21: a call of an unknown tool is answered with a tool result (isError, the text \"MCP error -32602 …\") instead of the error response the schema asks for errors in finding a tool"
	whyDualEra           = "LIFE-20 (disputed): a dual-era server takes a request without a protocol version for legacy traffic, where server/discover is no method (-32601)"
	whyNullID            = "ERR-02: a request with a null id (JSON-RPC's, not MCP's) is neither refused nor served; silence is the usual SDK behaviour and a warning"
	whyLegacyNotFound    = "RES-READ-05: an unknown URI gets -32602, the 2026-07-28 code, in a legacy session, which should get -32002"
	whySilentInvalid     = "ERR-02: a structurally invalid request gets no -32600, only silence (the usual SDK behaviour, a warning)"
	whySilentParse       = "ERR-01: a line that is not JSON gets no -32700, only silence (the usual SDK behaviour, a warning)"
	whyCursorIgnored     = "PAG-05, TOOLS-05, PROMPTS-05: an invalid cursor is ignored (the first page comes back) instead of -32602"
	// The TypeScript SDK's message schema rejects a request whose params
	// is an array or whose id is fractional, and the transport drops what
	// it cannot parse.
	whyDropsParamsArray = "JSONRPC-18: resources/list with \"params\": [] and ping with the id 1.5 (rpc calls in JSON-RPC's terms, though MCP forbids both shapes) are never answered: the server answers the ping sent after each, then exits at the end of its input without answering them (\"the Server MUST reply with a Response\")"
	whyDropsBatches     = "JSONRPC-11: a 2025-03-26 batch line is met with silence while later requests are answered (a deadline proves nothing: a warning)"
	whyZodMessage       = "ERR-13: a zod validation error is the message, several lines of JSON"
	whyNoParamsCode     = "ERR-15 (robustness): resources/read without params gets an error other than -32602, JSON-RPC's code for invalid params (a SHOULD: no MUST names the code)"
	// The TypeScript SDK 1.x validates params with zod, whose error has no
	// JSON-RPC code: the request fails as an internal error, -32603.
	// mcp-go answers a read without a uri as a read of the URI "" (-32002)
	// and a numeric uri as an invalid request (-32600).
	whyParamsCode = "ERR-15: resources/read with params of the wrong shape is refused, but with another code than -32602, JSON-RPC's code for invalid params (a SHOULD: no MUST names the code)"
	// Both Go SDKs hand prompts/get to the handler without checking the
	// arguments a prompt marks required; the plain error a handler
	// returns then goes out with the SDK's generic code (go-sdk 0,
	// mcp-go -32603).
	whyPromptArgsToHandler = "PROMPTS-15: prompts/get without a required argument gets the handler's error with the SDK's generic code, not -32602 (the SDK does not check required arguments)"
)

// allowedWarns lists every warning the suite may give against a real
// server, keyed like allowedFails, each with the reason. A warning missing
// here fails TestGolden as a fail would: -update does not accept a new
// warning without review.
var allowedWarns = map[string]map[string]string{
	"gosdk": {
		"prompts-missing-argument":                     whyPromptArgsToHandler,
		"envelope-empty-params@2026-07-28":             whyDualEra,
		"envelope-missing-params@2026-07-28":           whyDualEra,
		"envelope-missing-protocol-version@2026-07-28": whyDualEra,
		"invalid-request-null-id":                      whyNullID,
		"batch-accepted@2025-03-26":                    whyDropsBatches,
		"resources-read-no-params":                     whyNoParamsCode,
		"legacy-initialize-after-modern@2026-07-28":    "LIFE-27: after 2026-07-28 traffic a legacy initialize is refused (code 0, \"duplicate initialize\") without naming the versions the server supports",
		"resources-read-unknown-uri":                   whyLegacyNotFound,
		"resources-read-unknown-uri-known-scheme":      whyLegacyNotFound,
		// go-sdk v1.8.0: ServerSession.setLevel stores params.Level as it
		// comes; the 2026-07-28 envelope decodes logLevel as a string.
		"log-unknown-level":                 "LOG-07: logging/setLevel with a level no version defines is answered {} instead of -32602",
		"log-unknown-level-meta@2026-07-28": "LOG-07: a request whose _meta io.modelcontextprotocol/logLevel is no syslog level is served instead of refused with -32602",
	},
	"mcpgo": {
		"prompts-missing-argument":                     whyPromptArgsToHandler,
		"envelope-empty-params@2026-07-28":             whyDualEra,
		"envelope-missing-params@2026-07-28":           whyDualEra,
		"envelope-missing-protocol-version@2026-07-28": whyDualEra,
		"invalid-request-method-not-string":            "ERR-15: a request whose method is a number gets -32700 (parse error) instead of -32600",
		"invalid-request-null-id":                      whyNullID,
		"resources-read-no-params":                     whyNoParamsCode,
		"resources-read-missing-uri-param":             whyParamsCode,
		"resources-read-uri-not-string":                whyParamsCode,
	},
	"gosdk-http": goHTTPWarns(),
	"gosdk-stateless-http": goHTTPWarns(map[string]string{
		"http-sse-no-buffering@2026-07-28":            whyNoBuffering,
		"log-unknown-level-meta@2026-07-28":           "LOG-07: a request whose _meta io.modelcontextprotocol/logLevel is no syslog level is served instead of refused with -32602",
		"resources-read-missing-uri-param@2026-07-28": whyParamsCode,
		"resources-read-uri-not-string@2026-07-28":    whyParamsCode,
	}),
	"mcpgo-http": {
		"http-session-required":                            "HTTP-09: a request without the session id the server gave gets 404 instead of 400 Bad Request (a SHOULD)",
		"http-sse-no-buffering@2026-07-28":                 whyNoBuffering,
		"invalid-request-boolean-id@2026-07-28":            whyMetaFirst,
		"invalid-request-missing-jsonrpc@2026-07-28":       whyMetaFirst,
		"invalid-request-wrong-jsonrpc-version@2026-07-28": whyMetaFirst,
		"invalid-request-method-not-string":                "ERR-15: a request whose method is a number gets -32700 (parse error) instead of -32600",
		"invalid-request-null-id":                          whyNullID,
		"prompts-missing-argument":                         whyPromptArgsToHandler,
		"resources-read-missing-uri-param":                 whyParamsCode,
		"resources-read-no-params":                         whyNoParamsCode,
		"resources-read-uri-not-string":                    whyParamsCode,
	},
	"everything-http": tsHTTPWarns(map[string]string{
		"template-mimetype-matches": "RES-TPL-03: the blob template says application/octet-stream, its reads say text/plain",
		"log-unknown-level":         "LOG-07: logging/setLevel with a level no version defines gets -32603 (a zod error, TypeScript SDK) instead of -32602",
	}),
	"ts-http": tsHTTPWarns(),
	"ts":      tsWarns(),
	"everything": tsWarns(map[string]string{
		"template-mimetype-matches": "RES-TPL-03: the blob template says application/octet-stream, its reads say text/plain",
		"log-unknown-level":         "LOG-07: logging/setLevel with a level no version defines gets -32603 (a zod error, TypeScript SDK) instead of -32602",
	}),
}

// More justifications of warnings over HTTP.
const (
	whyNoBuffering     = "HTTP-26: SSE responses carry no X-Accel-Buffering: no (a SHOULD)"
	whyMetaFirst       = "ERR-02: a 2026-07-28 request with a broken envelope gets -32602 for its _meta, checked first, instead of -32600"
	whyParseForInvalid = "ERR-02: over HTTP a structurally invalid request is refused with -32700 (parse error) instead of -32600"
)

// goHTTPWarns is what go-sdk's StreamableHTTPHandler is warned about,
// with more.
func goHTTPWarns(more ...map[string]string) map[string]string {
	m := map[string]string{
		"batch-accepted@2025-03-26":               whyDropsBatches,
		"http-priming-event@2025-11-25":           "HTTP-15: the stream of the POST of initialize begins with an event without an id (a SHOULD: a priming event holds an event id and empty data)",
		"http-retry-before-close@2025-11-25":      "HTTP-16: a stream closed before its response (the ping with the id 9007199254740993, which go-sdk cannot echo) sent no retry field first (a SHOULD)",
		"http-stream-carries-response":            "HTTP-04: the stream of a ping with the id 9007199254740993, beyond an IEEE double's exact integers, ends without its response (the request is one go-sdk cannot echo)",
		"invalid-request-boolean-id":              whyHTTPSilent,
		"invalid-request-method-not-string":       whyHTTPSilent,
		"invalid-request-missing-jsonrpc":         whyHTTPSilent,
		"invalid-request-wrong-jsonrpc-version":   whyHTTPSilent,
		"invalid-request-null-id":                 whyNullID,
		"log-unknown-level":                       "LOG-07: logging/setLevel with a level no version defines is answered {} instead of -32602",
		"parse-error":                             whySilentParse,
		"prompts-missing-argument":                whyPromptArgsToHandler,
		"resources-read-unknown-uri":              whyLegacyNotFound,
		"resources-read-unknown-uri-known-scheme": whyLegacyNotFound,
	}
	return withMore(m, more)
}

// withMore adds to m the entries of more, which replace m's; an empty
// justification removes the entry.
func withMore(m map[string]string, more []map[string]string) map[string]string {
	for _, o := range more {
		for k, v := range o {
			m[k] = v
			if v == "" {
				delete(m, k)
			}
		}
	}
	return m
}

// tsHTTPWarns is what both servers on the TypeScript SDK are warned
// about over Streamable HTTP (StreamableHTTPServerTransport), with more.
func tsHTTPWarns(more ...map[string]string) map[string]string {
	m := tsWarns(map[string]string{
		"batch-accepted@2025-03-26":             "JSONRPC-11: a 2025-03-26 batch POST is served, but its two answers come as separate messages, not as one array (JSON-RPC 2.0: \"the Server should respond with an Array containing the corresponding Response objects\")",
		"http-priming-event@2025-11-25":         "HTTP-15: the stream of a POST begins with the response's event, not with a priming event holding an event id and empty data (a SHOULD)",
		"params-array-refused":                  "ERR-15: resources/list with \"params\": [] is refused with -32700 (parse error) instead of -32602 or -32600",
		"invalid-request-boolean-id":            whyParseForInvalid,
		"invalid-request-method-not-string":     whyParseForInvalid,
		"invalid-request-missing-jsonrpc":       whyParseForInvalid,
		"invalid-request-wrong-jsonrpc-version": whyParseForInvalid,
		"invalid-request-null-id":               whyParseForInvalid,
		// Over HTTP a body that is not JSON is refused with -32700.
		"parse-error": "",
	})
	return withMore(m, more)
}

// tsWarns is what both servers on the TypeScript SDK are warned about,
// with more.
func tsWarns(more ...map[string]string) map[string]string {
	m := map[string]string{
		"batch-accepted@2025-03-26":               whyDropsBatches,
		"error-message-one-line":                  whyZodMessage,
		"invalid-request-boolean-id":              whySilentInvalid,
		"invalid-request-method-not-string":       whySilentInvalid,
		"invalid-request-missing-jsonrpc":         whySilentInvalid,
		"invalid-request-null-id":                 whyNullID,
		"invalid-request-wrong-jsonrpc-version":   whySilentInvalid,
		"parse-error":                             whySilentParse,
		"resources-list-invalid-cursor":           whyCursorIgnored,
		"resources-templates-list-invalid-cursor": whyCursorIgnored,
		"resources-read-unknown-uri":              whyLegacyNotFound,
		"resources-read-unknown-uri-known-scheme": whyLegacyNotFound,
		"resources-read-no-params":                whyNoParamsCode,
		"resources-read-missing-uri-param":        whyParamsCode,
		"resources-read-uri-not-string":           whyParamsCode,
		"tools-call-unknown-tool":                 whyUnknownToolResult,
		"tools-list-invalid-cursor":               whyCursorIgnored,
		"prompts-list-invalid-cursor":             whyCursorIgnored,
	}
	return withMore(m, more)
}

func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite against four real servers (about a minute)")
	}
	for _, s := range compat.Servers {
		t.Run(s.Name, func(t *testing.T) {
			got := runSuite(t, s, argv[s.Name])
			checkAllowed(t, s.Name, withoutRaced(s.Name, got), reports.Fail, allowedFails[s.Name])
			checkAllowed(t, s.Name, got, reports.Warn, allowedWarns[s.Name])
			// A harness error against a real server is the suite's own
			// failure (a bug, or a budget too small): never accepted.
			for _, k := range got.Keys() {
				if got.Verdicts[k] == reports.Error {
					t.Errorf("harness error against %s: %s: %s", s.Name, k, got.Reasons[k])
				}
			}

			path := compat.Path("testdata", s.Name)
			if *update {
				if old, err := compat.Load(path); err == nil {
					// A racing result keeps the golden's verdict and reason
					// whichever way this run's race went.
					for k := range racing[s.Name] {
						if v, ok := old.Verdicts[k]; ok {
							got.Verdicts[k], got.Reasons[k] = v, old.Reasons[k]
						}
					}
				}
				if err := got.Save(path); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := compat.Load(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./internal/compat -update` to create it)", err)
			}
			if diff := cmp.Diff(settled(raced(s.Name, want.Verdicts)), settled(raced(s.Name, got.Verdicts))); diff != "" {
				t.Errorf("verdicts against %s changed (-want +got):\n%s\n%s"+
					"If the change is intended, run `go test ./internal/compat -update` and `go run ./internal/compat/gencompat`.",
					s.Title, diff, reasonsOfChanges(want, got))
			} else if diff := cmp.Diff(stable(s.Name, want.Reasons, want.Verdicts), stable(s.Name, got.Reasons, got.Verdicts)); diff != "" {
				// The same verdict for another reason is a change to review
				// too: a check may pass or fail for the wrong cause.
				t.Errorf("reasons against %s changed (-want +got):\n%s\n"+
					"If the change is intended, run `go test ./internal/compat -update` and `go run ./internal/compat/gencompat`.",
					s.Title, diff)
			}
		})
	}
}

// runSuite runs the whole suite, every protocol version, against server
// s: the command argv gives, or over HTTP the server of httpServers,
// launched on a port of the run's.
func runSuite(t *testing.T, s compat.Server, argv func(testing.TB) []string) *compat.Golden {
	t.Helper()
	name := s.Name
	// The settings are the target list's (targets.yaml, which says why
	// each is what it is), so that a fleet of the same servers judges
	// them alike; an HTTP server has its stdio form's.
	tg := target(t, compat.Base(name))
	policy, err := plan.ParseToolPolicy(tg.CallTools)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	var http *execute.HTTPTarget
	if s.Transport == "http" {
		hs := httpServer{}
		for _, h := range httpServers {
			if h.name == httpOf[name] {
				hs = h
			}
		}
		argv, env, http = hs.argv, hs.env, &execute.HTTPTarget{}
		// No tool is called over HTTP: the stdio golden of the same server
		// judges its tool results, and calls running side by side over
		// HTTP miss the tool deadline on a loaded machine, which would
		// make every tools/call after them go unsent.
		policy = plan.ToolPolicy{Mode: plan.CallNone}
	}
	command := argv(t)
	if command == nil {
		t.Skip("the server is not installed (internal/testservers/setup.sh)")
	}
	cfg := execute.Config{
		Command:       command,
		Env:           transport.Environment(env, false),
		HTTP:          http,
		Timeout:       time.Duration(tg.Timeout),
		SpecVersion:   tg.SpecVersion,
		StartTimeout:  time.Duration(tg.StartTimeout),
		RequestWindow: time.Duration(tg.ServerRequestWindow),
		CallTools:     policy,
	}
	run, err := execute.Execute(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Fatal != nil {
		t.Fatalf("%s did not start: %s", name, run.Fatal.Message)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	results := suite.Judge(run, files)
	if *reportDir != "" {
		writeReport(t, filepath.Join(*reportDir, name+".json"), run, results)
	}
	g, err := compat.FromResults(name, run.Nonce, results)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// target is the entry of a server in targets.yaml.
func target(t *testing.T, name string) fleet.Target {
	t.Helper()
	list, err := fleet.Load("targets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range list.Targets {
		if tg.ID == name {
			return tg
		}
	}
	t.Fatalf("targets.yaml has no target %s", name)
	return fleet.Target{}
}

// TestTargetsListTheServers: the target list holds the matrix's servers,
// in its order, and a fleet accepts it.
func TestTargetsListTheServers(t *testing.T) {
	list, err := fleet.Load("targets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := list.Check(); err != nil {
		t.Fatal(err)
	}
	var ids, want []string
	for _, tg := range list.Targets {
		ids = append(ids, tg.ID)
	}
	for _, s := range compat.Servers {
		if s.Transport != "http" {
			want = append(want, s.Name)
		}
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("targets.yaml lists (-want +got):\n%s", diff)
	}
}

// writeReport writes the JSON report of a run, the evidence behind a
// changed verdict.
func writeReport(t *testing.T, path string, run *evidence.Run, results []reports.Result) {
	t.Helper()
	rep := &reports.Report{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpconform", Version: "compat-test"},
		Target:        reports.Target{Command: run.Command, Versions: run.Versions, Processes: len(run.Processes)},
		StartedAt:     run.Started,
		DurationMs:    run.Duration.Milliseconds(),
		Results:       results,
	}
	rep.Count()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reports.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
}

// durations matches the times a reason may quote (how long a shutdown
// took), which vary from run to run.
var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m)\b`)

// laterAnswer matches the request a dropped request's reason names as
// answered after it: which of the requests sent after it the server
// answered first depends on the server's timing.
var laterAnswer = regexp.MustCompile(`answered (\S+) \(id [^)]*\), sent after it`)

// stable is reasons with the times they quote replaced, so that only a
// change of substance shows.
func stable(server string, reasons map[string]string, verdicts map[string]reports.Verdict) map[string]string {
	out := make(map[string]string, len(reasons))
	for k, r := range reasons {
		if timed(k) && verdicts[k] == reports.Skip {
			continue // see settled
		}
		if id, _ := compat.SplitKey(k); slices.Contains(progressed, id) && verdicts[k] == reports.Pass {
			continue // see progressed
		}
		if racing[server][k] != "" {
			continue // its two verdicts give two reasons; see racing
		}
		r = laterAnswer.ReplaceAllString(r, "answered <a later request>, sent after it")
		out[k] = durations.ReplaceAllString(r, "<duration>")
	}
	return out
}

// racing lists, per server, the results that depend on which of two of
// the server's own messages it writes first, with the reason. Such a
// result has two golden verdicts: the one the golden holds (info), and a
// fail, which is then justified here instead of in allowedFails.
//
// Both Go SDKs end a listen the client cancelled with a success result at
// once (go-sdk: the result "marks subscription teardown"), which STDIO-11
// forbids (nothing more for a cancelled request). They write it
// concurrently with the answer to the request the probe sends after the
// cancellation. When it comes first, the transcript cannot prove it was
// not in flight, and listen-cancel-stops records it (info); when it comes
// after that answer, the server had read the cancellation, and the check
// fails, rightly. Which comes first is the server's timing.
//
// mcp-go over Streamable HTTP writes the acknowledgement of a listen and,
// once the session ends, the listen's result from separate goroutines:
// mostly the acknowledgement comes first (pass); when the result comes
// first the stream has no acknowledgement before it, and
// listen-acknowledged-first fails, rightly. The golden holds the pass
// (racedTo).
var racing = map[string]map[string]string{
	"gosdk":      {"listen-cancel-stops@2026-07-28": whyCancelledListenAnswered},
	"mcpgo":      {"listen-cancel-stops@2026-07-28": whyCancelledListenAnswered},
	"mcpgo-http": {"listen-acknowledged-first@2026-07-28": whyListenNotAcknowledged},
}

// racedTo is, where it is not info, the golden verdict a racing result's
// fail stands for.
var racedTo = map[string]map[string]reports.Verdict{
	"mcpgo-http": {"listen-acknowledged-first@2026-07-28": reports.Pass},
}

const whyListenNotAcknowledged = "RES-SUB-07: the first message of a listen stream is notifications/subscriptions/acknowledged; proven when the listen's result comes with no acknowledgement before it"

const whyCancelledListenAnswered = "STDIO-11: the server answers a listen request the client cancelled (\"MUST NOT send any further messages for it\"); proven when the answer follows the answer to a request sent after the cancellation"

// raced maps a fail of a racing result of server to info, the verdict
// the golden holds for it.
func raced(server string, verdicts map[string]reports.Verdict) map[string]reports.Verdict {
	out := make(map[string]reports.Verdict, len(verdicts))
	for k, v := range verdicts {
		if racing[server][k] != "" && v == reports.Fail {
			v = reports.Info
			if alt, ok := racedTo[server][k]; ok {
				v = alt
			}
		}
		out[k] = v
	}
	return out
}

// unprompted are the checks that judge requests a server makes of the
// client on its own, when it makes them: server-everything asks for roots
// on a timer 350 ms after initialize, which a loaded machine fires late
// or after the probe process has done. Whether a run sees the request is
// timing, so for these a skip (nothing seen) and a pass are the same
// golden verdict; a fail or a warning still shows as a change.
var unprompted = []string{"jsonrpc-server-request-id-not-null", "jsonrpc-server-request-ids-unique", "jsonrpc-server-request-ids", "no-requests-before-initialized"}

// progressed are the checks of the progress a tool call's token asks for.
// server-everything's long-running tool reports a step every 2 s, which is
// also the budget of a tool call: how many steps arrive before the call is
// given up (none, one, two) is timing. For these too a skip and a pass are
// the same golden verdict, and a pass's reason (how many notifications) is
// not compared; a fail or a warning still shows.
var progressed = []string{"progress-token-active", "progress-increases", "progress-params"}

func timed(key string) bool {
	id, _ := compat.SplitKey(key)
	return slices.Contains(unprompted, id) || slices.Contains(progressed, id)
}

// settled maps, for the unprompted checks, a pass to skip.
func settled(verdicts map[string]reports.Verdict) map[string]reports.Verdict {
	out := make(map[string]reports.Verdict, len(verdicts))
	for k, v := range verdicts {
		if timed(k) && v == reports.Pass {
			v = reports.Skip
		}
		out[k] = v
	}
	return out
}

// withoutRaced returns g without the fails racing justifies.
func withoutRaced(server string, g *compat.Golden) *compat.Golden {
	out := *g
	out.Verdicts = raced(server, g.Verdicts)
	return &out
}

// checkAllowed reports every result of verdict v that allowed does not
// justify, and every entry of allowed that no result needs any more.
func checkAllowed(t *testing.T, server string, g *compat.Golden, v reports.Verdict, allowed map[string]string) {
	t.Helper()
	used := map[string]bool{}
	var bad []string
	for _, k := range g.Keys() {
		if g.Verdicts[k] != v {
			continue
		}
		id, _ := compat.SplitKey(k)
		switch {
		case allowed[k] != "":
			used[k] = true
		case allowed[id] != "":
			used[id] = true
		default:
			bad = append(bad, fmt.Sprintf("%s: %s", k, g.Reasons[k]))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%ss against %s not justified in the allowed %ss (a real defect: allow it with the catalogue's justification; a suite bug: fix the suite):\n\t%s",
			v, server, v, strings.Join(bad, "\n\t"))
	}
	var unused []string
	for k := range allowed {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("the allowed %ss of %s list checks that no longer give it (remove them): %s", v, server, strings.Join(unused, ", "))
	}
}

// reasonsOfChanges lists, for every key whose verdict changed, the old and
// new reasons, which a bare verdict diff does not show.
func reasonsOfChanges(want, got *compat.Golden) string {
	keys := map[string]bool{}
	for k, v := range got.Verdicts {
		if want.Verdicts[k] != v {
			keys[k] = true
		}
	}
	for k := range want.Verdicts {
		if _, ok := got.Verdicts[k]; !ok {
			keys[k] = true
		}
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var b strings.Builder
	for _, k := range sorted {
		fmt.Fprintf(&b, "%s:\n", k)
		if r := want.Reasons[k]; r != "" {
			fmt.Fprintf(&b, "\twas: %s\n", r)
		}
		if r := got.Reasons[k]; r != "" {
			fmt.Fprintf(&b, "\tnow: %s\n", r)
		}
	}
	return b.String()
}

// TestRacedResults: a racing result's fail compares equal to the golden's
// info, with either reason; any other change of it, or a fail of another
// check, still shows.
func TestRacedResults(t *testing.T) {
	const k = "listen-cancel-stops@2026-07-28"
	if racing["mcpgo"][k] == "" {
		t.Fatalf("%s is not racing for mcpgo", k)
	}
	golden := map[string]reports.Verdict{k: reports.Info, "ping-empty-result": reports.Pass}
	for _, tc := range []struct {
		got  reports.Verdict
		same bool
	}{{reports.Info, true}, {reports.Fail, true}, {reports.Pass, false}, {reports.Warn, false}} {
		got := map[string]reports.Verdict{k: tc.got, "ping-empty-result": reports.Pass}
		if same := cmp.Equal(raced("mcpgo", golden), raced("mcpgo", got)); same != tc.same {
			t.Errorf("%s against the golden's info: same %v, want %v", tc.got, same, tc.same)
		}
	}
	other := map[string]reports.Verdict{k: reports.Info, "ping-empty-result": reports.Fail}
	if cmp.Equal(raced("mcpgo", golden), raced("mcpgo", other)) {
		t.Error("a fail of a check that does not race compares equal to its pass")
	}
	if cmp.Equal(raced("ts", golden), raced("ts", map[string]reports.Verdict{k: reports.Fail, "ping-empty-result": reports.Pass})) {
		t.Error("a fail races against a server whose result does not")
	}
	reasons := func(r string) map[string]string { return map[string]string{k: r} }
	if !cmp.Equal(stable("mcpgo", reasons("in flight?"), golden), stable("mcpgo", reasons("proven"), golden)) {
		t.Error("the two reasons of a racing result differ in the comparison")
	}
}
