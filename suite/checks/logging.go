package checks

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// LogLevels are the syslog severities of LoggingLevel, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// loggingChecks judge log notifications and logging/setLevel (LOG-*).
func loggingChecks() []*Check {
	return []*Check{
		{
			ID: "no-log-without-capability", Requirement: "LOG-01", Area: "logging",
			Description: "the server sends notifications/message only when it declared the logging capability",
			Needs:       []plan.Probe{plan.ProbeSetLevel, plan.ProbeLogLevelMeta},
			Judge:       checkLogCapability,
		},
		{
			ID: "log-message-shape", Requirement: "LOG-03", Area: "logging",
			Description: "every notifications/message has a level of the eight syslog severities and a data member; logger, when present, is a string",
			Needs:       []plan.Probe{plan.ProbeSetLevel, plan.ProbeLogLevelMeta},
			Judge:       checkLogMessageShape,
		},
		{
			ID: "log-set-level", Requirement: "LOG-04", Area: "logging",
			Description: "logging/setLevel with a valid level gets an empty result, or a refusal (recorded: clients MAY send it, and no sentence makes servers implement it)",
			Needs:       []plan.Probe{plan.ProbeSetLevel},
			Requires:    []string{"logging"},
			Versions:    legacyOnly,
			Judge:       checkSetLevel,
		},
		{
			ID: "log-level-respected", Requirement: "LOG-05", Area: "logging",
			Description: `after logging/setLevel to "emergency" is answered, no notifications/message is less severe`,
			Needs:       []plan.Probe{plan.ProbeSetLevel, plan.ProbeSetLevelUnknown},
			Requires:    []string{"logging"},
			Versions:    legacyOnly,
			Judge:       checkLevelRespected,
		},
		{
			ID: "log-level-meta-served", Requirement: "LOG-07", Area: "logging",
			Description: `a 2026-07-28 request whose _meta asks for logs at "error", a recognised level, is served, not refused`,
			Needs:       []plan.Probe{plan.ProbeLogLevelMeta},
			Requires:    []string{"logging"},
			Versions:    modernOnly,
			Judge:       checkLogLevelMetaServed,
		},
		{
			ID: "log-level-meta-respected", Requirement: "LOG-05", Area: "logging",
			Description: `while a 2026-07-28 request whose _meta asks for logs at "error" is open, no notifications/message is less severe`,
			Needs:       []plan.Probe{plan.ProbeLogLevelMeta},
			Requires:    []string{"logging"},
			Versions:    modernOnly,
			Judge:       checkLogLevelMetaRespected,
		},
		{
			ID: "log-unknown-level", Requirement: "LOG-07", Area: "logging",
			Description: "logging/setLevel with a level no version defines gets the error -32602",
			Needs:       []plan.Probe{plan.ProbeSetLevel, plan.ProbeSetLevelUnknown},
			Requires:    []string{"logging"},
			Versions:    legacyOnly,
			Judge: func(j *J) Finding {
				if why := setLevelRefused(j); why != "" {
					return skipped(why)
				}
				return errorProbe(j.Run, j.Version, j.Session.Tagged(plan.ProbeSetLevelUnknown.Tag()), wire.CodeInvalidParams,
					named("logging/setLevel to "+plan.LevelUnknown), "an unknown level gets -32602", "logging/setLevel was not sent")
			},
		},
	}
}

func checkLogCapability(j *J) Finding {
	t := &tally{}
	for _, p := range j.Processes {
		declaredLogging := false
		for _, x := range p.Exchanges() {
			if res := x.Result(); res != nil && (x.Method == "initialize" || x.Method == "server/discover") {
				if _, ok := wire.Object(res["capabilities"])["logging"]; ok {
					declaredLogging = true
				}
			}
		}
		eachMessage(&J{Processes: []*evidence.Process{p}}, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
			if m.Method != "notifications/message" {
				return
			}
			t.judged()
			if !declaredLogging {
				t.violate(At(p, e.Seq), "notifications/message, but the server does not declare the logging capability")
			}
		})
	}
	return t.finding(fmt.Sprintf("%d log notifications, each from a server declaring the logging capability", t.n), "the server sent no notifications/message")
}

// logSchema is the schema text a log notification's params break.
const logSchema = "level: LoggingLevel; logger?: string; data: unknown;"

func checkLogMessageShape(j *J) Finding {
	t := &tally{}
	eachMessage(j, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
		if m.Method != "notifications/message" || m.Kind() != wire.KindNotification {
			return
		}
		t.judged()
		w := At(p, e.Seq)
		params := wire.Object(m.Params)
		if params == nil {
			t.violateSchema(w, logSchema, "notifications/message: params is %s, want an object", describeType(m.Params))
			return
		}
		if level, _ := wire.String(params["level"]); !slices.Contains(LogLevels, level) {
			t.violateSchema(w, logSchema, "notifications/message: level is %s, want one of %v", describeType(params["level"]), LogLevels)
		}
		if _, ok := params["data"]; !ok {
			t.violateSchema(w, logSchema, "notifications/message has no data member")
		}
		if lg, ok := params["logger"]; ok && wire.Type(lg) != "string" {
			t.violateSchema(w, logSchema, "notifications/message: logger is %s, want a string", describeType(lg))
		}
	})
	return t.finding(fmt.Sprintf("%d log notification(s), each with a syslog level and data", t.n), "the server sent no notifications/message")
}

// checkSetLevel judges logging/setLevel to a valid level. No sentence
// makes a server implement it ("clients MAY send a logging/setLevel
// request"), so a refusal is recorded; a result that is no object breaks
// the schema (EmptyResult).
func checkSetLevel(j *J) Finding {
	t := &tally{}
	for _, x := range j.Session.Tagged(plan.ProbeSetLevel.Tag()) {
		w, ok := answered(t, j.Run, x, "logging/setLevel to "+plan.LevelSet)
		switch {
		case !ok:
		case !x.Response.Has("result"):
			t.record(w, "logging/setLevel to %s was refused with the error %s: the server declares logging but does not implement logging/setLevel, which clients MAY send and no sentence requires servers to implement", plan.LevelSet, clipJSON(x.Response.Error, 160))
		case wire.Object(x.Response.Result) == nil:
			t.violate(w, "logging/setLevel: the result is %s, want an (empty) object", describeType(x.Response.Result))
		}
	}
	return t.finding("logging/setLevel to "+plan.LevelSet+" gets a result", "logging/setLevel was not sent")
}

// setLevelRefused says why the checks that need logging/setLevel to work
// judge nothing when the server refused it for a valid level (it does not
// implement it, which it need not), else "".
func setLevelRefused(j *J) string {
	for _, x := range j.Session.Tagged(plan.ProbeSetLevel.Tag()) {
		if x.OK() && x.Response.Has("error") {
			return fmt.Sprintf("not judged: the server does not implement logging/setLevel (it refused the valid level %s with %s), which it need not", plan.LevelSet, clipJSON(x.Response.Error, 120))
		}
	}
	return ""
}

func checkLevelRespected(j *J) Finding {
	t := &tally{}
	var set *evidence.Exchange
	for _, x := range j.Session.Tagged(plan.ProbeSetLevel.Tag()) {
		if x.Response != nil && x.Response.Has("result") {
			set = x
		}
	}
	if why := setLevelRefused(j); why != "" {
		return skipped(why)
	}
	if set == nil {
		return skipped("logging/setLevel was not answered with a result (log-set-level judges it)")
	}
	p := set.Process
	// The window: from the answer to the next setLevel (or the end).
	end := -1
	for _, x := range p.Tagged(plan.ProbeSetLevelUnknown.Tag()) {
		if x.SentSeq >= 0 {
			end = x.SentSeq
		}
	}
	floor := slices.Index(LogLevels, plan.LevelSet)
	messages(p, func(e transcript.Entry, m *wire.Message) {
		if e.Seq <= set.RecvSeq || end >= 0 && e.Seq > end || m.Method != "notifications/message" || p.Provoked(e.Seq) {
			return
		}
		t.judged()
		level, _ := wire.String(wire.Object(m.Params)["level"])
		if i := slices.Index(LogLevels, level); i >= 0 && i < floor {
			t.violate(At(p, e.Seq), "a %s message after the level was set to %s", level, plan.LevelSet)
		}
	})
	return t.finding(fmt.Sprintf("%d log notification(s) after the level was set, none below %s", t.n, plan.LevelSet),
		"no notifications/message came after logging/setLevel was answered (nothing to judge)")
}

// logLevelRequests returns the requests of the log-level probe, each as
// it came to after the suite's retries, and every attempt.
func logLevelRequests(j *J) (final, all []*evidence.Exchange) {
	all = j.Session.Tagged(plan.ProbeLogLevelMeta.Tag())
	for _, c := range evidence.RetryChains(j.Version, all) {
		final = append(final, c[len(c)-1])
	}
	return final, all
}

// checkLogLevelMetaServed judges whether requests asking for logs at a
// recognised level are served. No sentence speaks of refusing them; LOG-07
// reserves the refusal for a level that is "not a recognized log level",
// so a refusal is warned as disputed.
func checkLogLevelMetaServed(j *J) Finding {
	t := &tally{}
	final, _ := logLevelRequests(j)
	for _, x := range final {
		what := fmt.Sprintf("%s asking for logs at %s", x.Method, plan.LevelMeta)
		if w, ok := answered(t, j.Run, x, what); ok && x.Response.Has("error") {
			t.dispute(w, "%s was refused: %s; the logging page reserves a refusal for a level that is not recognised, and %q is one of the eight", what, clipJSON(x.Response.Error, 160), plan.LevelMeta)
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) asking for logs at %s were served", t.n, plan.LevelMeta), "no request asked for logs")
}

// checkLogLevelMetaRespected judges the log messages a process wrote
// while a request of the probe was open (sent, not answered yet): the
// logging page lets the server send them "at or above the requested
// level", the level being the "Minimum log level the server should emit
// for this request". The probe's requests go one at a time, after the
// session's other traffic, so a message then is for the open request.
func checkLogLevelMetaRespected(j *J) Finding {
	t := &tally{}
	_, all := logLevelRequests(j)
	floor := slices.Index(LogLevels, plan.LevelMeta)
	for _, x := range all {
		if x.SentSeq < 0 {
			continue
		}
		p := x.Process
		messages(p, func(e transcript.Entry, m *wire.Message) {
			if e.Seq <= x.SentSeq || x.RecvSeq >= 0 && e.Seq > x.RecvSeq || m.Method != "notifications/message" || wire.SubscriptionID(m) != nil || p.Provoked(e.Seq) {
				return
			}
			t.judged()
			level, _ := wire.String(wire.Object(m.Params)["level"])
			if i := slices.Index(LogLevels, level); i >= 0 && i < floor {
				t.violate(At(p, e.Seq), "a %s message while %s, which asked for logs at %s, was open", level, x.Method, plan.LevelMeta)
			}
		})
	}
	return t.finding(fmt.Sprintf("%d log notification(s) for requests asking for %s, none less severe", t.n, plan.LevelMeta),
		"the server logged nothing for the requests that asked for logs (nothing to judge)")
}
