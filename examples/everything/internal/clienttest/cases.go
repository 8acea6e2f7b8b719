package clienttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

// The versions a case runs at: a handshake version every client speaks,
// and 2026-07-28 for the clients whose SDK speaks it.
const (
	Legacy = "2025-11-25"
	Modern = "2026-07-28"
)

// A Case is one run of a scenario against the mock and what the record
// must show.
type Case struct {
	Name string
	Run  Run // Version is set by Versions
	// Versions to run at; nil means Legacy and Modern.
	Versions []string
	// Status is the exit status wanted; Check may look further.
	Status int
	// StatusWithoutModern, when not zero, is the status wanted of a client
	// whose SDK does not speak 2026-07-28.
	StatusWithoutModern int
	Check               func(t *testing.T, c Client, r Result)
}

// Cases are the scenarios `mcpconform mock` can serve, each with the
// evidence a correct client leaves in the record.
func Cases(t *testing.T) []Case {
	addNumbers := Testdata(t, "add-numbers.json")
	return []Case{
		{
			Name: "initialize", Run: Run{Scenario: "initialize"},
			Check: func(t *testing.T, c Client, r Result) {
				handshake(t, r, Legacy)
				pagesFollowed(t, r.Record, "tools/list", 3)
			},
		},
		{
			Name: "tools_call", Run: Run{Scenario: "tools_call", Mock: []string{"--fixture", addNumbers}},
			Check: func(t *testing.T, c Client, r Result) {
				calls := r.Record.Sent("tools/call")
				if len(calls) != 1 {
					t.Fatalf("tools/call: sent %d, want 1", len(calls))
				}
				if got := String(calls[0].Params, "name"); got != "add_numbers" {
					t.Errorf("tools/call name: got %q, want add_numbers", got)
				}
				if args := Member(calls[0].Params, "arguments"); !Equal(args, Raw(map[string]int{"a": 2, "b": 3})) {
					t.Errorf("tools/call arguments: got %s, want {\"a\":2,\"b\":3}", args)
				}
				printed(t, r, "add_numbers: ", "5")
			},
		},
		{
			Name: "tools_call without add_numbers", Run: Run{Scenario: "tools_call"}, Versions: []string{Legacy},
			Status: contract.ExitFailed,
			Check: func(t *testing.T, c Client, r Result) {
				if n := len(r.Record.Sent("tools/call")); n != 0 {
					t.Errorf("tools/call: sent %d, want none: the server lists no add_numbers", n)
				}
			},
		},
		{
			Name: "resources", Run: Run{Scenario: "resources"},
			Check: func(t *testing.T, c Client, r Result) {
				listed := pagesFollowed(t, r.Record, "resources/list", 4)
				pagesFollowed(t, r.Record, "resources/templates/list", 3)
				var want, got []string
				for _, item := range items(listed, "resources") {
					want = append(want, String(item, "uri"))
				}
				for _, read := range r.Record.Sent("resources/read") {
					got = append(got, String(read.Params, "uri"))
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("resources/read URIs:\n got %q\nwant %q (every listed resource, in order)", got, want)
				}
			},
		},
		{
			Name: "resources with a cursor loop", Run: Run{Scenario: "resources", Mock: []string{"--fault", "cursor-loop"}}, Versions: []string{Legacy},
			Status: contract.ExitFailed,
			Check: func(t *testing.T, c Client, r Result) {
				seen := map[string]bool{}
				for _, m := range r.Record.Sent("resources/list") {
					cursor := String(m.Params, "cursor")
					if seen[cursor] {
						t.Errorf("resources/list: cursor %q sent twice", cursor)
					}
					seen[cursor] = true
				}
				if n := len(r.Record.Sent("resources/read")); n != 0 {
					t.Errorf("resources/read: sent %d after a failed listing, want none", n)
				}
			},
		},
		{
			Name: "prompts", Run: Run{Scenario: "prompts"},
			Check: func(t *testing.T, c Client, r Result) {
				listed := items(pagesFollowed(t, r.Record, "prompts/list", 3), "prompts")
				gets := r.Record.Sent("prompts/get")
				if len(gets) != len(listed) {
					t.Fatalf("prompts/get: sent %d, want one per listed prompt (%d)", len(gets), len(listed))
				}
				for i, p := range listed {
					want := map[string]string{}
					var args []struct {
						Name     string
						Required bool
					}
					_ = json.Unmarshal(Member(p, "arguments"), &args)
					for _, a := range args {
						if a.Required {
							want[a.Name] = "x"
						}
					}
					name, got := String(gets[i].Params, "name"), Member(gets[i].Params, "arguments")
					if name != String(p, "name") {
						t.Errorf("prompts/get %d: name %q, want %q", i, name, String(p, "name"))
					}
					if !Equal(got, Raw(want)) && !(len(want) == 0 && got == nil) {
						t.Errorf("prompts/get %q: arguments %s, want %s", name, got, Raw(want))
					}
				}
			},
		},
		{
			Name: "list-changed", Run: Run{Scenario: "list-changed", Mock: []string{"--variant", "list-changes-while-paging"}}, Versions: []string{Legacy},
			Check: func(t *testing.T, c Client, r Result) {
				changed := r.Record.Received("notifications/resources/list_changed")
				if len(changed) == 0 {
					t.Fatal("the mock sent no notifications/resources/list_changed")
				}
				after := r.Record.Index(changed[0])
				for _, m := range r.Record.Sent("resources/list") {
					if r.Record.Index(m) > after && len(Member(m.Params, "cursor")) == 0 {
						return
					}
				}
				t.Error("no resources/list from the first page after notifications/resources/list_changed")
			},
		},
		{
			Name: "list-changed, nothing changes", Run: Run{Scenario: "list-changed"},
			Check: func(t *testing.T, c Client, r Result) {
				printed(t, r, "no list_changed")
				if !r.Record.Modern() {
					return
				}
				// 2026-07-28 sends list changes only on a stream that asked.
				listen := r.Record.Sent("subscriptions/listen")
				if len(listen) != 1 {
					t.Fatalf("subscriptions/listen: sent %d, want 1", len(listen))
				}
				for _, kind := range []string{"toolsListChanged", "resourcesListChanged", "promptsListChanged"} {
					if !Equal(Member(listen[0].Params, "notifications", kind), Raw(true)) {
						t.Errorf("subscriptions/listen %s: got %s, want true", kind, Member(listen[0].Params, "notifications", kind))
					}
				}
			},
		},
		{
			Name: "server-requests", Run: Run{Scenario: "server-requests", Mock: []string{"--fault", "early-server-request"}, Context: map[string]any{"tool": "echo", "arguments": map[string]any{"text": "hi"}}},
			Check: func(t *testing.T, c Client, r Result) {
				caps := declared(t, r.Record)
				for _, want := range []string{"roots", "sampling", "elicitation"} {
					if Member(caps, want) == nil {
						t.Errorf("client capabilities %s: no %s", caps, want)
					}
				}
				if !Equal(Member(caps, "roots", "listChanged"), Raw(true)) {
					t.Errorf("client capabilities %s: roots.listChanged is not true", caps)
				}
				asks := r.Record.Received("roots/list")
				if !r.Record.Modern() && len(asks) == 0 {
					t.Fatal("the mock sent no roots/list (fault early-server-request)")
				}
				for _, ask := range asks {
					reply, ok := r.Record.Reply(ask)
					if !ok {
						t.Errorf("roots/list %s: no answer", ask.ID)
						continue
					}
					var roots []struct{ URI string }
					_ = json.Unmarshal(Member(reply.Result, "roots"), &roots)
					if len(roots) != 1 || roots[0].URI != contract.RootURI {
						t.Errorf("roots/list answer %s, want one root %s", reply.Result, contract.RootURI)
					}
				}
				calls := r.Record.Sent("tools/call")
				if len(calls) != 1 || String(calls[0].Params, "name") != "echo" || !Equal(Member(calls[0].Params, "arguments"), Raw(map[string]string{"text": "hi"})) {
					t.Errorf("tools/call: got %v, want one call of echo with {\"text\":\"hi\"}", calls)
				}
			},
		},
		{
			Name: "cancellation of a read", Run: Run{Scenario: "cancellation", Mock: []string{"--fault", "hang-on-read"}, Context: map[string]any{"uri": "test://static/hello.txt", "timeoutMs": 300}},
			Check: func(t *testing.T, c Client, r Result) {
				cancelled(t, r.Record, "resources/read", "uri", "test://static/hello.txt")
			},
		},
		{
			Name: "cancellation of a tool call", Run: Run{Scenario: "cancellation", Mock: []string{"--fault", "slow"}, Context: map[string]any{"tool": "echo", "arguments": map[string]any{"text": "x"}, "timeoutMs": 100}}, Versions: []string{Legacy},
			Check: func(t *testing.T, c Client, r Result) {
				cancelled(t, r.Record, "tools/call", "name", "echo")
			},
		},
		{
			Name: "shutdown", Run: Run{Scenario: "shutdown"},
			Check: func(t *testing.T, c Client, r Result) {
				handshake(t, r, Legacy)
				if !r.Record.Modern() && len(r.Record.Sent("ping")) != 1 {
					t.Errorf("ping: sent %d, want 1", len(r.Record.Sent("ping")))
				}
			},
		},
		{
			// The mock ignores stdin EOF: the client's shutdown has to go on to
			// a signal, and the client exits 0 once it has.
			Name: "shutdown of a server that ignores stdin EOF", Run: Run{Scenario: "shutdown", Mock: []string{"--fault", "ignore-stdin-eof"}}, Versions: []string{Legacy},
			Check: func(t *testing.T, c Client, r Result) { printed(t, r, "closed in ") },
		},
		{
			Name: "version-negotiation, a counter-offer", Run: Run{Scenario: "version-negotiation", Mock: []string{"--fixture", Testdata(t, "only-2025-03-26.json")}}, Versions: []string{Legacy},
			Check: func(t *testing.T, c Client, r Result) {
				inits := r.Record.Sent("initialize")
				if len(inits) != 1 {
					t.Fatalf("initialize: sent %d, want 1", len(inits))
				}
				if v := String(inits[0].Params, "protocolVersion"); v == "2025-03-26" {
					t.Errorf("initialize offered %s: want the SDK's newest handshake version", v)
				}
				answer, _ := r.Record.Answer(inits[0])
				if v := String(answer.Result, "protocolVersion"); v != "2025-03-26" {
					t.Fatalf("the mock answered %s, want a counter-offer of 2025-03-26", answer.Result)
				}
				if len(r.Record.Sent("notifications/initialized")) != 1 {
					t.Error("no notifications/initialized: the counter-offer was not accepted")
				}
				printed(t, r, "protocol version 2025-03-26")
			},
		},
		{
			// A server of 2026-07-28 alone: a client that speaks it lands there,
			// one that does not has no version in common and fails.
			Name: "version-negotiation, 2026-07-28 only", Run: Run{Scenario: "version-negotiation", Mock: []string{"--fixture", Testdata(t, "only-2026-07-28.json")}}, Versions: []string{Legacy},
			StatusWithoutModern: contract.ExitFailed,
			Check: func(t *testing.T, c Client, r Result) {
				if !c.Modern {
					inits := r.Record.Sent("initialize")
					if len(inits) != 1 {
						t.Fatalf("initialize: sent %d, want 1", len(inits))
					}
					if answer, _ := r.Record.Answer(inits[0]); answer.Error == nil {
						t.Errorf("the mock answered the initialize with %s, want an error", answer.Result)
					}
					return
				}
				if !r.Record.Modern() {
					t.Error("the client did not settle on 2026-07-28 with a server that speaks nothing else")
				}
				printed(t, r, "protocol version 2026-07-28")
			},
		},
		{
			Name: "request-metadata", Run: Run{Scenario: "request-metadata"}, Versions: []string{Modern},
			Check: func(t *testing.T, c Client, r Result) {
				if !r.Record.Modern() {
					t.Fatal("the client sent an initialize: not in the 2026-07-28 era")
				}
				for _, method := range []string{"server/discover", "tools/list", "resources/read"} {
					sent := r.Record.Sent(method)
					if len(sent) == 0 {
						t.Errorf("%s: none sent", method)
					}
					for _, m := range sent {
						if v := String(m.Params, "_meta", "io.modelcontextprotocol/protocolVersion"); v != Modern {
							t.Errorf("%s %s: _meta protocolVersion %q, want %s", method, m.ID, v, Modern)
						}
						if Member(m.Params, "_meta", "io.modelcontextprotocol/clientCapabilities") == nil {
							t.Errorf("%s %s: no clientCapabilities in _meta", method, m.ID)
						}
					}
				}
				printed(t, r, "2026-07-28 era")
			},
		},
		{
			Name: "sep-2322-client-request-state",
			Run: Run{Scenario: "sep-2322-client-request-state", Mock: []string{"--fixture", addNumbers, "--variant", "input-required-retry"},
				Context: map[string]any{"tool": "add_numbers", "arguments": map[string]any{"a": 2, "b": 3}}},
			Versions: []string{Modern},
			Check: func(t *testing.T, c Client, r Result) {
				calls := r.Record.Sent("tools/call")
				if len(calls) != 2 {
					t.Fatalf("tools/call: sent %d, want 2 (the call and its retry)", len(calls))
				}
				first, _ := r.Record.Answer(calls[0])
				if String(first.Result, "resultType") != "input_required" {
					t.Fatalf("the mock answered the first call with %s, want input_required", first.Result)
				}
				state := Member(first.Result, "requestState")
				if got := Member(calls[1].Params, "requestState"); !Equal(got, state) {
					t.Errorf("retry requestState: got %s, want %s exactly", got, state)
				}
				if Equal(calls[0].ID, calls[1].ID) {
					t.Errorf("the retry reuses the id %s", calls[0].ID)
				}
				if !Equal(Member(calls[1].Params, "arguments"), Member(calls[0].Params, "arguments")) {
					t.Errorf("retry arguments %s differ from the call's %s", Member(calls[1].Params, "arguments"), Member(calls[0].Params, "arguments"))
				}
				printed(t, r, "add_numbers: ", "5")
			},
		},
	}
}

// RunCases runs every case of Cases against c, each at the versions it
// names (2026-07-28 only for a client whose SDK speaks it), in parallel. A
// scenario c does not support must end with exit status 3.
func RunCases(t *testing.T, c Client) {
	for _, tc := range Cases(t) {
		versions := tc.Versions
		if versions == nil {
			versions = []string{Legacy, Modern}
		}
		for _, v := range versions {
			unsupported := c.unsupported(tc.Run.Scenario)
			if v == Modern && !c.Modern && !unsupported {
				continue
			}
			t.Run(tc.Name+"/"+v, func(t *testing.T) {
				t.Parallel()
				run := tc.Run
				run.Version = v
				r := c.Run(t, run)
				if unsupported {
					if r.Status != contract.ExitUnsupported || !strings.Contains(r.Stderr, "unsupported by this SDK") {
						t.Fatalf("exit status %d, stderr %q: want %d and the reason", r.Status, r.Stderr, contract.ExitUnsupported)
					}
					return
				}
				want := tc.Status
				if !c.Modern && tc.StatusWithoutModern != 0 {
					want = tc.StatusWithoutModern
				}
				if r.Status != want {
					t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.Status, want, r.Stdout, r.Stderr)
				}
				if !r.Spawned || r.Record.Processes() != 1 {
					t.Fatalf("mock processes: %d (spawned: %v), want 1", r.Record.Processes(), r.Spawned)
				}
				tc.Check(t, c, r)
			})
		}
	}
}

// RunUsage checks the contract's usage errors: an unknown scenario and a
// missing one exit 2 with one line on stderr, before any server is
// started.
func RunUsage(t *testing.T, c Client) {
	for _, scenario := range []string{"no-such-scenario", ""} {
		t.Run(fmt.Sprintf("scenario %q", scenario), func(t *testing.T) {
			t.Parallel()
			r := c.Run(t, Run{Scenario: scenario})
			if r.Status != contract.ExitUsage {
				t.Errorf("exit status %d, want %d", r.Status, contract.ExitUsage)
			}
			if n := lines(r.Stderr); n != 1 {
				t.Errorf("stderr has %d lines, want 1:\n%s", n, r.Stderr)
			}
			if r.Spawned {
				t.Error("the mock was started")
			}
		})
	}
}

// handshake checks that a handshake-era session offered version and
// sent notifications/initialized after the initialize answer.
func handshake(t *testing.T, r Result, version string) {
	t.Helper()
	if r.Record.Modern() {
		return
	}
	inits := r.Record.Sent("initialize")
	if len(inits) != 1 {
		t.Fatalf("initialize: sent %d, want 1", len(inits))
	}
	if v := String(inits[0].Params, "protocolVersion"); v != version {
		t.Errorf("initialize offered %q, want %q", v, version)
	}
	answer, ok := r.Record.Answer(inits[0])
	initialized := r.Record.Sent("notifications/initialized")
	if !ok || len(initialized) != 1 || r.Record.Index(initialized[0]) < r.Record.Index(answer) {
		t.Errorf("want one notifications/initialized after the initialize answer")
	}
}

// pagesFollowed checks that the client walked a list to its end: the
// first request without a cursor, then each nextCursor sent back as it
// came, until a page without one. It returns the pages' results.
func pagesFollowed(t *testing.T, rec Record, method string, wantPages int) []json.RawMessage {
	t.Helper()
	sent := rec.Sent(method)
	var pages []json.RawMessage
	var cursor json.RawMessage
	for i, req := range sent {
		if !Equal(Member(req.Params, "cursor"), cursor) {
			t.Errorf("%s %d: cursor %s, want %s", method, i+1, Member(req.Params, "cursor"), cursor)
		}
		answer, ok := rec.Answer(req)
		if !ok || answer.Result == nil {
			t.Fatalf("%s %d: no result", method, i+1)
		}
		pages = append(pages, answer.Result)
		cursor = Member(answer.Result, "nextCursor")
		if cursor == nil {
			break
		}
	}
	if len(pages) != wantPages || cursor != nil {
		t.Errorf("%s: %d pages, the last with nextCursor %s; want %d pages to the end", method, len(pages), cursor, wantPages)
	}
	return pages
}

// items gathers the items of a list's pages.
func items(pages []json.RawMessage, key string) []json.RawMessage {
	var all []json.RawMessage
	for _, p := range pages {
		var page []json.RawMessage
		_ = json.Unmarshal(Member(p, key), &page)
		all = append(all, page...)
	}
	return all
}

// declared returns the capabilities the client declared: in initialize, or
// in 2026-07-28 in the _meta of server/discover.
func declared(t *testing.T, rec Record) json.RawMessage {
	t.Helper()
	if inits := rec.Sent("initialize"); len(inits) > 0 {
		return Member(inits[0].Params, "capabilities")
	}
	if d := rec.Sent("server/discover"); len(d) > 0 {
		return Member(d[0].Params, "_meta", "io.modelcontextprotocol/clientCapabilities")
	}
	t.Fatal("neither initialize nor server/discover sent")
	return nil
}

// cancelled checks that the request of method whose params member key is
// value was followed by a notifications/cancelled naming its id.
func cancelled(t *testing.T, rec Record, method, key, value string) {
	t.Helper()
	var req *Message
	for _, m := range rec.Sent(method) {
		if String(m.Params, key) == value {
			req = &m
			break
		}
	}
	if req == nil {
		t.Fatalf("no %s of %s %q", method, key, value)
	}
	for _, n := range rec.Sent("notifications/cancelled") {
		if Equal(Member(n.Params, "requestId"), req.ID) && rec.Index(n) > rec.Index(*req) {
			return
		}
	}
	t.Errorf("no notifications/cancelled for %s %s", method, req.ID)
}

// printed checks that a line of the client's stdout holds every part.
func printed(t *testing.T, r Result, parts ...string) {
	t.Helper()
	for _, line := range strings.Split(r.Stdout, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return
		}
	}
	t.Errorf("stdout has no line with %q:\n%s", parts, r.Stdout)
}
