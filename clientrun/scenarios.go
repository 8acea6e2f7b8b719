package clientrun

import (
	"embed"

	"fmt"
	"github.com/mcpconform/mcpconform/evidence"
	"slices"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/wire"
)

// Scenario is one thing a client under test is asked to do
// (MCP_CONFORMANCE_SCENARIO), with what its recording mock offers for it.
// Names that the official conformance suite also uses mean the same.
type Scenario struct {
	Name string
	// Official is set for the names of the official suite.
	Official bool
	// Summary says in one line what the client does.
	Summary string
	// Version, when set, is the only protocol version the scenario is run
	// under (MCP_CONFORMANCE_PROTOCOL_VERSION); otherwise the run's.
	Version string
	// DefaultVersion, when set, is asked for when the run asks for none:
	// what the scenario judges exists in that version (server-to-client
	// requests do not in 2026-07-28, an SDK's newest).
	DefaultVersion string
	// Context is MCP_CONFORMANCE_CONTEXT beyond "name".
	Context map[string]any
	// Mock is the recording mock's setup.
	Mock MockSetup
	// Timed marks a scenario about timing (a deadline, the shutdown
	// escalation): every run waits out the client's own timers, and a
	// legal variant of the mock changes nothing of what it judges, so
	// interoperability runs leave it out.
	Timed bool
	// Unfit are the legal variants that take away what the scenario
	// needs (a tool it calls), which interoperability runs leave out.
	Unfit []string
	// HTTPOnly marks a scenario about what Streamable HTTP alone has (a
	// session the server ends): runs over stdio leave it out.
	HTTPOnly bool
}

// NotOn says why the scenario does not run over the transport (an
// evidence.Transport* name, "" for stdio), or "".
func (s Scenario) NotOn(transport string) string {
	if !isHTTP(transport) {
		if s.HTTPOnly {
			return "Streamable HTTP only: it judges what the client does with an HTTP session"
		}
		return ""
	}
	m := s.Mock
	return MockConfig{Ask: m.Ask, Notify: m.Notify, CounterOffer: m.CounterOffer, IgnoreEOF: m.IgnoreEOF, IgnoreSIGTERM: m.IgnoreSIGTERM, HoldAnswers: m.HoldAnswers}.stdioOnly()
}

// MockSetup is how a scenario's recording mock departs from the default
// reference server.
type MockSetup struct {
	// Fixture names a built-in fixture (fixtures/NAME.json); "" is the
	// reference server's default.
	Fixture       string
	Variants      []string
	Faults        []string
	Ask           []string
	Notify        []string
	CounterOffer  string
	IgnoreEOF     bool
	IgnoreSIGTERM bool
	HoldAnswers   bool
}

//go:embed fixtures/*.json
var fixtures embed.FS

// builtinFixture loads the built-in fixture named.
func builtinFixture(name string) (*mockserver.Fixture, error) {
	data, err := fixtures.ReadFile("fixtures/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no built-in fixture %q", name)
	}
	return mockserver.ParseFixture(name, data)
}

// scenarios is the catalogue, in run order. The mock of each gives the
// client something to do that the checks can judge: tools_call a tool to
// call, cancellation a read that is never answered, shutdown a server
// that only SIGKILL ends, and so on.
var scenarios = []Scenario{
	{Name: "initialize", Official: true, Summary: "connects, initializes, lists tools (every page), closes"},
	{Name: "tools_call", Official: true, Summary: "lists tools and calls add_numbers with {\"a\": 2, \"b\": 3}",
		Mock: MockSetup{Fixture: "add-numbers"}, Unfit: []string{"many-tools"}},
	{Name: "resources", Summary: "lists resources and templates to the last page, reads every listed resource"},
	{Name: "prompts", Summary: "lists prompts (every page) and gets each"},
	{Name: "list-changed", Summary: "lists tools, resources and prompts; lists tools again after notifications/tools/list_changed",
		Mock: MockSetup{Notify: []string{"notifications/tools/list_changed"}}},
	{Name: "server-requests", DefaultVersion: wire.Newest, Summary: "declares roots, sampling and elicitation; answers the server's ping, roots/list, sampling/createMessage and elicitation/create",
		Mock: MockSetup{Ask: []string{"ping", "roots/list", "sampling/createMessage", "elicitation/create"}, HoldAnswers: true}},
	{Name: "cancellation", Timed: true, Summary: "reads a resource the server never answers, gives up after 1 s and cancels the request",
		Context: map[string]any{"uri": "test://static/hello.txt", "timeoutMs": 1000},
		Mock:    MockSetup{Faults: []string{"hang-on-read"}}},
	{Name: "shutdown", Timed: true, Summary: "pings, then closes a server that ignores stdin EOF and SIGTERM: the stdio shutdown escalation is judged",
		Mock: MockSetup{IgnoreEOF: true, IgnoreSIGTERM: true}},
	{Name: "version-negotiation", Summary: "offers its newest version to a server that speaks 2024-11-05 only; accepts the counter-offer or closes",
		Mock: MockSetup{Variants: []string{"only-2024-11-05"}}},
	{Name: "session-expiry", HTTPOnly: true, DefaultVersion: wire.Newest, Summary: "over Streamable HTTP: lists tools; the server ends the session at the first request after initialization (404), the client starts a new session with a fresh initialize and lists tools",
		Mock: MockSetup{Variants: []string{"http-session-expires"}}},
	{Name: "request-metadata", Official: true, Version: wire.Modern, Summary: "in 2026-07-28: server/discover, then tools/list and a read with _meta on every request"},
	{Name: "sep-2322-client-request-state", Official: true, Version: wire.Modern, Summary: "in 2026-07-28: calls add_numbers, answered input_required; retries with the requestState echoed, under a new id",
		Context: map[string]any{"tool": "add_numbers", "arguments": map[string]any{"a": 2, "b": 3}},
		Mock:    MockSetup{Fixture: "add-numbers", Variants: []string{"input-required-retry"}}, Unfit: []string{"many-tools"}},
}

// Scenarios returns the scenario catalogue, in run order.
func Scenarios() []Scenario { return append([]Scenario(nil), scenarios...) }

// ScenarioNamed returns the scenario with the name.
func ScenarioNamed(name string) (Scenario, bool) {
	for _, s := range scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// LegalVariants are the mock's legal variants an interoperability run
// meets: those of the stdio mock that break no rule, with their versions.
// Over Streamable HTTP (LegalVariantsOn) they are the HTTP transport's.
func LegalVariants() []VariantRun { return LegalVariantsOn(evidence.TransportStdio) }

// LegalVariantsOn are the legal variants an interoperability run over the
// transport meets. Over HTTP: the HTTP transport's own (how answers,
// streams and sessions come), but http-protected, whose token the contract
// gives the client no way to know, and http-session-expires, which the
// session-expiry scenario judges.
func LegalVariantsOn(transport string) []VariantRun {
	var out []VariantRun
	if isHTTP(transport) {
		for _, v := range mockserver.HTTPVariants() {
			if v.Name != "http-protected" && v.Name != "http-session-expires" {
				out = append(out, VariantRun{Name: v.Name, Versions: v.Versions})
			}
		}
		return out
	}
	for _, v := range mockserver.Variants() {
		if len(v.Breaks) == 0 {
			out = append(out, VariantRun{Name: v.Name, Versions: v.Versions})
		}
	}
	return out
}

// MockFaults are the faults a resilience run meets, each in the scenario
// that gives it most to misbehave on (resources: lists, pages and reads;
// request-metadata for a fault of 2026-07-28 alone).
func MockFaults() []FaultRun { return MockFaultsOn(evidence.TransportStdio) }

// MockFaultsOn are the faults a resilience run over the transport meets:
// over HTTP, the HTTP transport's faults (what the stdio faults break is
// judged over stdio).
func MockFaultsOn(transport string) []FaultRun {
	var out []FaultRun
	if isHTTP(transport) {
		for _, f := range mockserver.HTTPFaults() {
			sc := "resources"
			if f.Version == wire.Modern {
				sc = "request-metadata"
			}
			out = append(out, FaultRun{Name: f.Name, Scenario: sc})
		}
		return out
	}
	for _, f := range mockserver.Faults() {
		if slices.ContainsFunc(mockserver.HTTPFaults(), func(h mockserver.Fault) bool { return h.Name == f.Name }) {
			continue // the stdio mock cannot have it
		}
		sc := "resources"
		if f.Version == wire.Modern {
			sc = "request-metadata"
		}
		out = append(out, FaultRun{Name: f.Name, Scenario: sc})
	}
	return out
}

// validateVariants validates the variants named, those of the HTTP
// transport aside (the HTTP handler takes them apart, and an unknown
// name is caught there).
func validateVariants(names []string) error {
	var rest []string
	for _, n := range names {
		if !slices.ContainsFunc(mockserver.HTTPVariants(), func(v mockserver.Variant) bool { return v.Name == n }) {
			rest = append(rest, n)
		}
	}
	return mockserver.ValidateVariants(rest)
}

// garbles reports whether a fault of the mock breaks the framing of what
// it writes (its stdio layer, or over HTTP a body that is not recorded as
// the message it holds: JSON under text/plain, an event cut before its
// blank line): the server's messages are then not all on record as
// messages, and a client check that compares the client with what the
// server handed out (a cursor, an id) can be misled.
func garbles(fault string) bool {
	if fault == "http-request-text-plain" || fault == "http-unterminated-event" {
		return true
	}
	return slices.ContainsFunc(mockserver.Faults(), func(f mockserver.Fault) bool { return f.Name == fault && f.Layer == "stdio" })
}
