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
	"ts": tsWarns(),
	"everything": tsWarns(map[string]string{
		"template-mimetype-matches": "RES-TPL-03: the blob template says application/octet-stream, its reads say text/plain",
		"log-unknown-level":         "LOG-07: logging/setLevel with a level no version defines gets -32603 (a zod error, TypeScript SDK) instead of -32602",
	}),
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
	for _, o := range more {
		for k, v := range o {
			m[k] = v
		}
	}
	return m
}

func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite against four real servers (about a minute)")
	}
	for _, s := range compat.Servers {
		t.Run(s.Name, func(t *testing.T) {
			got := runSuite(t, argv[s.Name](t), s.Name)
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

// runSuite runs the whole suite, every protocol version, against argv.
func runSuite(t *testing.T, argv []string, name string) *compat.Golden {
	t.Helper()
	cfg := execute.Config{
		Command:     argv,
		Env:         transport.Environment(nil, false),
		Timeout:     5 * time.Second,
		SpecVersion: "all",
		// Node.js takes 0.3 s to start a server when the machine is idle,
		// but over 20 s (the default deadline) was seen with the CPU
		// oversubscribed tenfold, turning warnings of fresh-process probes
		// into harness errors. The deadline of a start is not what is judged.
		StartTimeout: time.Minute,
		// server-everything asks for roots 350 ms after initialize: on a
		// loaded machine that timer fires late, and whether the request is
		// seen must not change the golden verdicts.
		RequestWindow: 5 * time.Second,
		// Our own test servers are trusted: their tools annotated
		// readOnlyHint: true are called, so that the tool checks judge
		// real SDKs' results.
		CallTools: plan.ToolPolicy{Mode: plan.CallReadOnly},
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
var racing = map[string]map[string]string{
	"gosdk": {"listen-cancel-stops@2026-07-28": whyCancelledListenAnswered},
	"mcpgo": {"listen-cancel-stops@2026-07-28": whyCancelledListenAnswered},
}

const whyCancelledListenAnswered = "STDIO-11: the server answers a listen request the client cancelled (\"MUST NOT send any further messages for it\"); proven when the answer follows the answer to a request sent after the cancellation"

// raced maps a fail of a racing result of server to info, the verdict
// the golden holds for it.
func raced(server string, verdicts map[string]reports.Verdict) map[string]reports.Verdict {
	out := make(map[string]reports.Verdict, len(verdicts))
	for k, v := range verdicts {
		if racing[server][k] != "" && v == reports.Fail {
			v = reports.Info
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
