package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// ClientCheck is a check of client mode: a rule a client keeps, judged
// over what the recording mock saw of it in one scenario. Its level is the
// catalogue's for the version the client used: in client mode a client's
// obligation costs its level and a server's is recorded at most
// (catalog.Requirement.Binds).
type ClientCheck struct {
	ID          string
	Requirement string
	Area        string
	Description string
	// Flags label the check: disputed, heuristic.
	Flags []string
	// Scenarios narrows the scenarios whose runs the check judges (nil:
	// every scenario), for rules a client keeps only when a scenario asks
	// for what they govern (a whole list, say).
	Scenarios []string
	// Versions narrows the versions the check judges (nil: every version
	// whose catalogue has the requirement).
	Versions []string
	// Transport, when set, is the only transport whose runs the check
	// judges (evidence.TransportStdio: the rule is about a server process
	// and its stdio; evidence.TransportHTTP: about HTTP requests).
	Transport string
	// Judge decides.
	Judge func(j *ClientJ) Finding
}

// ClientJ is what a client judge sees: the run, the scenario, the version
// judged, and the spawns of the scenario whose traffic used that version
// (a client that reconnects has several).
type ClientJ struct {
	Run      *evidence.ClientRun
	Scenario *evidence.ScenarioRun
	Version  string
	Spawns   []*evidence.Spawn

	views map[*evidence.Spawn]*spawnView
}

// view returns the index of a spawn's transcript.
func (j *ClientJ) view(sp *evidence.Spawn) *spawnView {
	if j.views == nil {
		j.views = map[*evidence.Spawn]*spawnView{}
	}
	v := j.views[sp]
	if v == nil {
		v = newSpawnView(sp)
		j.views[sp] = v
	}
	return v
}

// each calls f with the view of every spawn judged.
func (j *ClientJ) each(f func(v *spawnView)) {
	for _, sp := range j.Spawns {
		f(j.view(sp))
	}
}

// eachLine calls f with every line the client wrote in the spawns judged.
func (j *ClientJ) eachLine(f func(v *spawnView, e transcript.Entry)) {
	j.each(func(v *spawnView) {
		for _, e := range v.entries {
			if e.Dir == transcript.Send {
				f(v, e)
			}
		}
	})
}

// ClientChecks returns every check of client mode, in report order.
func ClientChecks() []*ClientCheck {
	var all []*ClientCheck
	for _, family := range [][]*ClientCheck{
		clientStdioChecks(), clientLifecycleChecks(), clientModernChecks(), clientJSONRPCChecks(),
		clientPingChecks(), clientRootsChecks(), clientSamplingChecks(), clientElicitationChecks(),
		clientPaginationChecks(), clientListChangedChecks(), clientCancelChecks(), clientTimeoutChecks(),
		clientMetaChecks(), clientMRTRChecks(), clientSchemaChecks(), clientHTTPChecks(),
	} {
		all = append(all, family...)
	}
	return all
}

// File returns the base name of the file that defines the check's judge.
func (c *ClientCheck) File() string { return funcFile(c.Judge) }

// Applies returns why the check does not judge version v in the scenario
// named, or "".
func (c *ClientCheck) Applies(scenario, v string) string {
	if why := applies(c.Requirement, c.Versions, v); why != "" {
		return why
	}
	if len(c.Scenarios) > 0 && !slices.Contains(c.Scenarios, scenario) {
		return fmt.Sprintf("judged in the scenarios %s only", strings.Join(c.Scenarios, ", "))
	}
	return ""
}

// Result judges the check under j.
func (c *ClientCheck) Result(j *ClientJ) reports.Result {
	res, _ := c.judge(j)
	return res
}

// judge judges the check under j: its result, and the finding it priced
// (nil when the check did not judge).
func (c *ClientCheck) judge(j *ClientJ) (reports.Result, *Finding) {
	res := BaseResult(c.ID, c.Requirement, c.Area, j.Version, c.Flags)
	res.Expect = c.Description
	res.Labels = append(res.Labels, ScenarioLabels(j.Scenario)...)
	if why := c.Applies(j.Scenario.Name, j.Version); why != "" {
		res.Verdict, res.Message = reports.Skip, why
		return res, nil
	}
	if why := c.offTransport(j.Run); why != "" {
		res.Verdict, res.Message = reports.Skip, why
		return res, nil
	}
	if len(j.Spawns) == 0 && c.ID != spawnedCheckID && c.ID != httpConnectsCheckID {
		res.Verdict, res.Message = reports.Skip, "the client never started the server in this scenario"
		return res, nil
	}
	f := judgeSafely(func() Finding { return c.Judge(j) })
	return PriceAs(catalog.PartyClient, res, f), &f
}

// offTransport says why the check does not judge a run over its
// transport, or "".
func (c *ClientCheck) offTransport(run *evidence.ClientRun) string {
	over := evidence.TransportStdio
	if run != nil && run.Transport == evidence.TransportHTTP {
		over = evidence.TransportHTTP
	}
	switch {
	case c.Transport == "" || c.Transport == over:
		return ""
	case c.Transport == evidence.TransportStdio:
		return "stdio only: the client reached the server over Streamable HTTP"
	}
	return "Streamable HTTP only: the client reached the server over stdio"
}

// ScenarioLabels are the labels every result of a scenario carries, so
// that --only and --skip select by scenario and class: "scenario:NAME",
// "class:CLASS", and "variant:NAME" or "fault:NAME" for the mock's.
func ScenarioLabels(sc *evidence.ScenarioRun) []string {
	out := []string{"scenario:" + sc.Name}
	if sc.Class != "" {
		out = append(out, "class:"+sc.Class)
	}
	if sc.Variant != "" {
		out = append(out, "variant:"+sc.Variant)
	}
	if sc.Fault != "" {
		out = append(out, "fault:"+sc.Fault)
	}
	return out
}

// JudgeClientRun judges every scenario of a client run: each client check
// under each version the scenario's spawns used (a scenario whose client
// never spawned the server is judged under the version it asked for, and
// fails client-spawned-server). Results come per scenario, in the run's
// order, each labelled with its scenario (ScenarioLabels).
func JudgeClientRun(run *evidence.ClientRun) []reports.Result {
	var out []reports.Result
	for _, sc := range run.Scenarios {
		out = append(out, JudgeScenario(run, sc)...)
	}
	return out
}

// JudgeScenario judges one scenario of a client run.
func JudgeScenario(run *evidence.ClientRun, sc *evidence.ScenarioRun) []reports.Result {
	var out []reports.Result
	for _, v := range ScenarioVersions(sc) {
		j := &ClientJ{Run: run, Scenario: sc, Version: v}
		for _, sp := range sc.Spawns {
			if SpawnVersion(sc, sp) == v {
				j.Spawns = append(j.Spawns, sp)
			}
		}
		for _, c := range ClientChecks() {
			out = append(out, c.Result(j))
		}
	}
	return out
}

// ScenarioVersions are the versions a scenario is judged under: those its
// spawns used, in the order they first appear, or, with no spawn, the
// version the run asked the client to use (the newest handshake version
// when it asked for none).
func ScenarioVersions(sc *evidence.ScenarioRun) []string {
	var vs []string
	for _, sp := range sc.Spawns {
		if v := SpawnVersion(sc, sp); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		v := sc.Version
		if !wire.KnownVersion(v) {
			v = wire.Newest
		}
		vs = []string{v}
	}
	return vs
}

// SpawnVersion is the version a spawn is judged under: the one its
// traffic used. That is the version negotiated (Spawn.Version, or the
// initialize result's), or the 2026-07-28 envelope of its requests; when
// the negotiated version is one no revision defines (a counter-offer the
// client should have refused), the version the client offered; with
// nothing on the wire, the scenario's.
func SpawnVersion(sc *evidence.ScenarioRun, sp *evidence.Spawn) string {
	if wire.KnownVersion(sp.Version) {
		return sp.Version
	}
	v := newSpawnView(sp)
	for _, cand := range []string{v.negotiated(), v.offered(), sc.Version} {
		if wire.KnownVersion(cand) {
			return cand
		}
	}
	return wire.Newest
}

// applies returns why a rule filed under requirement, narrowed to
// versions, is not judged under v, or "".
func applies(requirement string, versions []string, v string) string {
	if why := catalog.NotIn(requirement, v); why != "" {
		return why
	}
	if len(versions) > 0 && !slices.Contains(versions, v) {
		return fmt.Sprintf("judged in %s only, not in %s", strings.Join(versions, ", "), v)
	}
	return ""
}
