package plan

import "strings"

// Probe names traffic the executor sends beyond discovery and the vector
// tests, for checks to judge: a check declares the probes it needs
// (checks.Check.Needs), the executor sends those a run's checks need, and
// the check finds their exchanges in the evidence by tag (Tag).
type Probe string

// Probes a check may need. The comment of each says what the executor
// sends; the checks that judge it say so in their Needs.
const (
	// ProbeEmptyParams lists resources with params {} (a handshake-era
	// session).
	ProbeEmptyParams Probe = "list-empty-params"
	// ProbeCursorRepeat asks for the cursor of page 2 of the resource list
	// again.
	ProbeCursorRepeat Probe = "cursor-repeat"
	// ProbeSubscribe subscribes to the listed resources, reads them,
	// unsubscribes and reads them again (steps "subscribe", "read",
	// "unsubscribe", "read-after"), when the server declares subscribe.
	ProbeSubscribe Probe = "subscribe"
	// ProbeSubUndeclared subscribes to a listed resource of a server that
	// does not declare subscribe.
	ProbeSubUndeclared Probe = "subscribe-undeclared"
	// ProbeBatch sends one line holding two requests and a notification
	// (2025-03-26 only).
	ProbeBatch Probe = "batch"
	// ProbeListen opens listen streams in a 2026-07-28 session (step
	// "stream"), reads a resource (steps "read", "read-after") and cancels
	// them (steps "cancel", "fence").
	ProbeListen Probe = "listen"
	// ProbeListenHeld opens one more listen stream, for tool and prompt
	// list changes, that stays open until the process ends. Its request is
	// tagged ProbeListen.Tag("stream").
	ProbeListenHeld Probe = "listen-held"
	// ProbeListAfter lists resources again, every page, after all other
	// traffic of a 2026-07-28 session.
	ProbeListAfter Probe = "list-after"
	// ProbeCounterOffer is the initialize of the probe process, offering a
	// version no server knows, and one more process's initialize offering
	// a version not shaped like a date.
	ProbeCounterOffer Probe = "counter-offer"
	// ProbeServerRequests keeps the probe process, whose initialize
	// declares roots, sampling and elicitation, open for the requests a
	// server makes of the client. The requests are the server's; the
	// probe process's initialize is tagged ProbeCounterOffer.
	ProbeServerRequests Probe = "server-requests"
	// ProbeTrace sends server/discover with W3C trace context in its _meta
	// (a 2026-07-28 session).
	ProbeTrace Probe = "trace-context"
	// ProbeComplete asks for completions of every argument of every listed
	// prompt and every variable of every listed template.
	ProbeComplete Probe = "complete"
	// ProbeCompleteUndeclared asks one completion of a server that declares
	// no completions (from 2025-03-26).
	ProbeCompleteUndeclared Probe = "complete-undeclared"
	// ProbeCompleteContext asks for a completion of the last argument of a
	// prompt and of a template of several, the others resolved in
	// context.arguments (from 2025-06-18). Its values come from
	// ProbeComplete's answers.
	ProbeCompleteContext Probe = "complete-context"
	// ProbeSetLevel sets the log level of a handshake-era session to
	// LevelSet, then sends requests a server may log about (step
	// "traffic").
	ProbeSetLevel Probe = "set-level"
	// ProbeSetLevelUnknown sets the log level to LevelUnknown, after
	// ProbeSetLevel.
	ProbeSetLevelUnknown Probe = "set-level-unknown"
	// ProbeLogLevelMeta sends, in a 2026-07-28 session, requests whose
	// _meta asks for logs at LevelMeta, one at a time, after all other
	// traffic of the process.
	ProbeLogLevelMeta Probe = "log-level-meta"
	// ProbePromptMissingArgument gets the first listed prompt with a
	// required argument without its arguments.
	ProbePromptMissingArgument Probe = "prompt-missing-argument"
	// ProbeToolCall calls the listed tools the --call-tools policy allows
	// (ToolCall), then again with their arguments broken
	// (BrokenArguments). Its requests are tagged evidence.TagToolCall and
	// evidence.TagToolCallInvalid.
	ProbeToolCall Probe = "tool-call"
)

// Traffic of the executor's own: sent whatever the checks need, and
// judged by none in particular.
const (
	// ProbeSettle is the request that shows a server has read what came
	// before it (ping, or server/discover in 2026-07-28).
	ProbeSettle Probe = "settle"
	// ProbeNudge is a second settle request, sent when the first is slow
	// to be answered after a vector test.
	ProbeNudge Probe = "nudge"
	// ProbeReinit opens a process that replaces one, or one more probe
	// process.
	ProbeReinit Probe = "reinit"
	// ProbeRefresh lists resources again, after the server announced a
	// change, before a test run for each listed resource.
	ProbeRefresh Probe = "refresh"
)

// Probes returns every probe a check may need, in the order above.
func Probes() []Probe {
	return append([]Probe{
		ProbeEmptyParams, ProbeCursorRepeat, ProbeSubscribe, ProbeSubUndeclared, ProbeBatch,
		ProbeListen, ProbeListenHeld, ProbeListAfter, ProbeCounterOffer, ProbeServerRequests,
		ProbeTrace, ProbeComplete, ProbeCompleteUndeclared, ProbeCompleteContext,
		ProbeSetLevel, ProbeSetLevelUnknown, ProbeLogLevelMeta, ProbePromptMissingArgument,
		ProbeToolCall,
	}, httpProbes()...)
}

// Tag is the tag of the probe's traffic: "p:" and the probe's name, with
// the step names after it, each after a dot.
func (p Probe) Tag(step ...string) string {
	t := "p:" + string(p)
	if len(step) > 0 {
		t += "." + strings.Join(step, ".")
	}
	return t
}

// Log levels the probes ask for.
const (
	// LevelSet is the level ProbeSetLevel sets: the most severe, so that
	// any message less severe breaks it.
	LevelSet = "emergency"
	// LevelUnknown is the level ProbeSetLevelUnknown sets, one no version
	// defines.
	LevelUnknown = "mcpconform-verbose"
	// LevelMeta is the level ProbeLogLevelMeta asks for
	// (io.modelcontextprotocol/logLevel): a recognised level in the middle
	// of the scale, so that a less severe message shows.
	LevelMeta = "error"
)

// Set is a set of probes: those a run's checks need.
type Set map[Probe]bool

// NewSet returns the set of the probes given.
func NewSet(ps ...Probe) Set {
	s := Set{}
	for _, p := range ps {
		s[p] = true
	}
	return s
}

// Every returns the set of every probe a check may need.
func Every() Set { return NewSet(Probes()...) }

// Has reports whether the set holds p.
func (s Set) Has(p Probe) bool { return s[p] }
