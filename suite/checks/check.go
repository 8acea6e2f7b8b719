// Package checks holds every procedural check of mcpconform, one file per
// requirement family (lifecycle.go judges LIFE-*, resources_read.go
// RES-READ-*, ...), and the judge of vector tests. A check is a pure
// function of the evidence of a run: it never talks to a server, so each
// one is tested on recorded transcripts (testdata/<family>/<check>/).
//
// A check says what it saw: the rule is kept, broken (a Violation), or it
// judged nothing (Skip). What a broken rule costs comes from the
// catalogue, at the rule's level in the version judged.
package checks

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// Check is a procedural check: a rule judged in Go over what a run
// observed, for what cannot be said as one request and its response.
type Check struct {
	ID          string
	Requirement string
	Area        string
	Description string
	// Flags label the check: disputed, heuristic, sdk-divergence.
	Flags []string
	// Requires lists capability paths the session must declare; otherwise
	// the check is skipped.
	Requires []string
	// Versions narrows the versions the check judges (nil: every version
	// whose catalogue has the requirement).
	Versions []string
	// Also lists the requirements a result of the check may be reported
	// under besides its own (Finding.Requirement), for listings and
	// selection.
	Also []string
	// Needs lists the probes whose traffic the check judges, or that
	// provoke what it judges: the executor sends a probe only when a
	// selected check needs it. A check that needs none judges discovery,
	// the shared traffic and the vector tests' traffic only.
	Needs []plan.Probe
	// Trigger says what the server must do on its own initiative for the
	// check to judge anything, when no traffic of the suite can make an
	// arbitrary server do it (mcpconform list shows it).
	Trigger string
	// Opening marks a check of the request that opens a session: it is
	// judged even when the server does not serve the version asked for.
	Opening bool
	// Transport, when set, is the only transport whose runs the check
	// judges (evidence.TransportStdio: what it judges exists only there).
	// A check of the stdio area judges stdio runs only in any case.
	Transport string
	// Judge decides.
	Judge func(j *J) Finding
}

// J is what a judge sees: the run, the version judged, the session opened
// under it (nil when none was), and every process whose traffic is judged
// under it.
type J struct {
	Run       *evidence.Run
	Version   string
	Session   *evidence.Session
	Processes []*evidence.Process
}

// JudgedVersions returns the versions results are reported under: the
// ones the run judged, or, when it established no session, the version it
// offered, so that what the processes wrote is still judged.
func JudgedVersions(r *evidence.Run) []string {
	if len(r.Versions) > 0 {
		return r.Versions
	}
	if wire.KnownVersion(r.SpecVersion) {
		return []string{r.SpecVersion}
	}
	return []string{wire.Newest}
}

// NewJ returns what checks see under version v of a run: its session and
// every process judged under it (a process of a version not judged is
// judged under the first one, so no evidence goes unread).
func NewJ(r *evidence.Run, v string) *J {
	versions := JudgedVersions(r)
	j := &J{Run: r, Version: v, Session: r.Session(v)}
	for _, p := range r.AllProcesses() {
		if p.Version == v || (!slices.Contains(versions, p.Version) && v == versions[0]) {
			j.Processes = append(j.Processes, p)
		}
	}
	return j
}

// Caps returns the capabilities the session declared.
func (j *J) Caps() evidence.Capabilities {
	if j.Session == nil {
		return evidence.Capabilities{}
	}
	return j.Session.Caps()
}

// Outcome is what a check saw, before the catalogue level prices it.
type Outcome string

// Outcomes.
const (
	Pass Outcome = "pass"
	// Violation: the rule is broken; the verdict is the rule's severity in
	// the version judged (fail, warn or info).
	Violation Outcome = "violation"
	// Disputed: broken only by one reading of a spec that contradicts
	// itself, or by a heuristic: a warning at most.
	Disputed Outcome = "disputed"
	// Recorded: behaviour worth reporting that no rule judges.
	Recorded Outcome = "info"
	Skip     Outcome = "skip"
	// Error: the harness could not judge.
	Error Outcome = "error"
)

// Finding is a check's outcome with its evidence.
type Finding struct {
	Outcome  Outcome
	Message  string
	Expected any
	Actual   any
	// Where locates the evidence in a transcript; Sent and Got show it.
	Where *Where
	Sent  string
	Got   string
	// Schema, on a violation, is the text of the version's schema the
	// server broke (a required member, a type): the result is then priced
	// at the "schema" level and quotes it, whatever the requirement's own
	// level.
	Schema string
	// Requirement, when set, is the requirement the verdict rests on when
	// it is not the check's own (a wrong error code that only a SHOULD
	// names): the result carries it, with its level and quote.
	Requirement string
	// Wheres locate every violation found (Where is the first): the
	// schema check leaves a message another check failed to that check.
	Wheres []*Where
}

// Where is a stretch of one process's transcript.
type Where struct {
	Process  *evidence.Process
	From, To int
	// Seq is the entry the stretch is about, when one is (at: a Where
	// made by At).
	Seq int
	at  bool
}

// At returns a Where around one entry.
func At(p *evidence.Process, seq int) *Where {
	return &Where{Process: p, From: seq - 3, To: seq + 3, Seq: seq, at: true}
}

func passed(msg string) Finding  { return Finding{Outcome: Pass, Message: msg} }
func skipped(msg string) Finding { return Finding{Outcome: Skip, Message: msg} }
func broken(msg string) Finding  { return Finding{Outcome: Violation, Message: msg} }
func harness(msg string) Finding { return Finding{Outcome: Error, Message: msg} }

// All returns every procedural check, in report order.
func All() []*Check {
	var all []*Check
	for _, family := range [][]*Check{
		lifecycleChecks(), stdioChecks(), httpChecks(), jsonrpcChecks(), httpJSONRPCChecks(), pingChecks(), errorsChecks(),
		paginationChecks(), resourcesCapabilityChecks(), resourcesListChecks(),
		resourcesReadChecks(), resourcesTemplatesChecks(), resourcesSubscriptionsChecks(),
		resourcesListChangedChecks(), resourcesAnnotationsChecks(), metaChecks(), loggingChecks(),
		toolsChecks(), toolCallChecks(), promptsChecks(), completionChecks(), mrtrChecks(), schemaChecks(),
	} {
		all = append(all, family...)
	}
	return all
}

// File returns the base name of the file that defines the check's judge.
func (c *Check) File() string { return funcFile(c.Judge) }

// funcFile returns the base name of the file that defines fn.
func funcFile(fn any) string {
	pc := reflect.ValueOf(fn).Pointer()
	f := runtime.FuncForPC(pc)
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(pc)
	return file[strings.LastIndexByte(file, '/')+1:]
}

// Applies returns why the check does not judge version v, or "".
func (c *Check) Applies(v string) string { return applies(c.Requirement, c.Versions, v) }

// Result judges the check under j.
func (c *Check) Result(j *J) reports.Result {
	res, _ := c.judge(j)
	return res
}

// judge judges the check under j: its result, and the finding it priced
// (nil when the check did not judge: a version, transport, capability or
// session it needs is missing).
func (c *Check) judge(j *J) (res reports.Result, f *Finding) {
	res = BaseResult(c.ID, c.Requirement, c.Area, j.Version, c.Flags)
	res.Expect = c.Description
	if why := c.Applies(j.Version); why != "" {
		res.Verdict, res.Message = reports.Skip, why
		return res, nil
	}
	if j.Run != nil {
		if why := plan.TransportGate(c.Area, c.Transport, j.Run.Transport); why != "" {
			res.Verdict, res.Message = reports.Skip, why
			return res, nil
		}
	}
	if why := NotServed(j.Run, j.Version, j.Session); why != "" && !c.Opening {
		res.Verdict, res.Message = reports.Skip, why
		return res, nil
	}
	if why := behindToken(j); why != "" && c.Area != "http" {
		res.Verdict, res.Message = reports.Skip, why
		return res, nil
	}
	for _, cap := range c.Requires {
		if j.Session == nil {
			res.Verdict, res.Message = reports.Skip, "no session was opened under "+j.Version
			return res, nil
		}
		if !j.Caps().Has(cap) {
			res.Verdict, res.Message = reports.Skip, fmt.Sprintf("the server does not declare the %s capability", cap)
			return res, nil
		}
	}
	found := judgeSafely(func() Finding { return c.Judge(j) })
	return Price(res, found), &found
}

// judgeSafely runs a judge: a judge that panics is a harness error, not
// a crash of the run.
func judgeSafely(judge func() Finding) (f Finding) {
	defer func() {
		if p := recover(); p != nil {
			f = harness(fmt.Sprintf("the check itself failed: %v", p))
		}
	}()
	return judge()
}

// NotServed says why nothing but the opening of a session is judged under
// v: the server answered, but does not serve v, the version the user
// asked for (a run whose Fatal is at the "version" stage). "" otherwise.
func NotServed(r *evidence.Run, v string, s *evidence.Session) string {
	if s != nil || r == nil || r.Fatal == nil || r.Fatal.Stage != "version" || v != r.SpecVersion {
		return ""
	}
	return r.Fatal.Message
}

// Price turns a finding of server mode into the result's verdict, at the
// level the catalogue gives the requirement in the result's version.
func Price(res reports.Result, f Finding) reports.Result {
	return PriceAs(catalog.PartyServer, res, f)
}

// PriceAs prices a finding about party (catalog.PartyServer or
// catalog.PartyClient): a rule that binds the party costs its level in
// the result's version; the other party's obligation, which the harness
// keeps, is recorded at most.
func PriceAs(party string, res reports.Result, f Finding) reports.Result {
	if f.Requirement != "" && f.Requirement != res.Requirement {
		res = Rebase(res, f.Requirement)
	}
	sev := catalog.Info
	if req, ok := catalog.Get(res.Requirement); ok {
		if st, ok := req.In(res.ProtocolVersion); ok && req.Binds(party) {
			sev = catalog.SeverityOf(st.Level)
		}
	}
	if f.Outcome == Violation && f.Schema != "" && sev != catalog.Info {
		// The schema binds whatever the prose's level: the quote is the
		// schema's text.
		sev, res.Level, res.Quote = catalog.SeverityOf("schema"), "schema", f.Schema
	}
	switch f.Outcome {
	case Pass:
		res.Verdict = reports.Pass
	case Violation:
		res.Verdict = reports.Verdict(sev)
	case Disputed:
		res.Verdict = reports.Warn
		if sev == catalog.Info {
			res.Verdict = reports.Info
		}
	case Recorded:
		res.Verdict = reports.Info
	case Skip:
		res.Verdict = reports.Skip
	default:
		res.Verdict = reports.Error
	}
	res.Message, res.Expected, res.Actual, res.Sent, res.Got = f.Message, f.Expected, f.Actual, f.Sent, f.Got
	if f.Where != nil && res.Verdict != reports.Pass && res.Verdict != reports.Skip {
		res.Transcript = Excerpt(f.Where.Process, f.Where.From, f.Where.To)
	}
	return res
}

// BaseResult is a result carrying a requirement's level, quote and link as
// the catalogue gives them for version v.
func BaseResult(id, requirement, area, v string, flags []string) reports.Result {
	res := reports.Result{ID: id, Requirement: requirement, ProtocolVersion: v, Area: area}
	if req, ok := catalog.Get(requirement); ok {
		if st, ok := req.In(v); ok {
			res.Level, res.Spec, res.Quote = st.Level, catalog.URL(v, st), st.Quote
		}
	}
	res.Labels = append([]string{"level:" + res.Level, "area:" + area}, flags...)
	return res
}

// Rebase returns res reported under requirement instead of its own: that
// requirement's level, quote and link in the result's version, and the
// label "requirement:" with the check's own requirement, which still
// selects the result (--only, --skip). A requirement the version does not
// have leaves res as it is.
func Rebase(res reports.Result, requirement string) reports.Result {
	if _, ok := catalogIn(requirement, res.ProtocolVersion); !ok {
		return res
	}
	by := BaseResult(res.ID, requirement, res.Area, res.ProtocolVersion, nil)
	own := res.Requirement
	res.Requirement, res.Level, res.Spec, res.Quote = by.Requirement, by.Level, by.Spec, by.Quote
	labels := []string{"level:" + by.Level}
	for _, l := range res.Labels {
		if !strings.HasPrefix(l, "level:") {
			labels = append(labels, l)
		}
	}
	res.Labels = append(labels, "requirement:"+own)
	return res
}

// statement returns requirement id as version v states it.
func statement(id, v string) (catalog.Statement, bool) {
	r, ok := catalog.Get(id)
	if !ok {
		return catalog.Statement{}, false
	}
	return r.In(v)
}

// versionsFrom is the versions from v on, to narrow a check.
func versionsFrom(v string) []string { return wire.Since(v) }

var legacyOnly = wire.LegacyVersions
var modernOnly = []string{wire.Modern}

// FileFamily names the file (and testdata folder) of a requirement's
// family: JSONRPC-05 is jsonrpc, LIFE-03 lifecycle, RES-READ-05
// resources_read, RES-ANN-01 and RES-ICON-01 resources_annotations.
func FileFamily(requirement string) string {
	switch f := catalog.Family(requirement); f {
	case "life":
		return "lifecycle"
	case "err":
		return "errors"
	case "pag":
		return "pagination"
	case "log":
		return "logging"
	case "comp":
		return "completion"
	case "res_cap":
		return "resources_capability"
	case "res_list":
		return "resources_list"
	case "res_read":
		return "resources_read"
	case "res_tpl":
		return "resources_templates"
	case "res_sub":
		return "resources_subscriptions"
	case "res_lc":
		return "resources_list_changed"
	case "res_ann", "res_icon", "res_link", "res_emb":
		return "resources_annotations"
	case "samp":
		return "sampling"
	case "elic":
		return "elicitation"
	case "cancel":
		return "cancellation"
	default:
		return f
	}
}
