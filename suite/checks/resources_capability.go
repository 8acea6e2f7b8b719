package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesCapabilityChecks judge the resources capability (RES-CAP-*).
func resourcesCapabilityChecks() []*Check {
	return []*Check{
		{
			ID: "resources-capability-declared", Requirement: "RES-CAP-01", Area: "resources",
			Description: "a server that serves resources declares the resources capability",
			Judge:       checkResourcesDeclared,
		},
		{
			ID: "resources-capability-flags", Requirement: "RES-CAP-02", Area: "resources",
			Description: "capabilities.resources.subscribe and listChanged, when present, are booleans",
			Requires:    []string{"resources"},
			Judge:       checkResourceFlags,
		},
		{
			ID: "list-stable-across-traffic", Requirement: "RES-CAP-03", Area: "resources",
			Description: "resources/list gives the same resources after reads and listen streams, unless a change was announced",
			Needs:       []plan.Probe{plan.ProbeListen, plan.ProbeListAfter},
			Requires:    []string{"resources"},
			Judge:       checkListStable,
		},
		{
			ID: "undeclared-resources-method-not-found", Requirement: "RES-CAP-04", Area: "resources",
			Description: "without the resources capability, resources/list gets -32601 method not found",
			Also:        []string{StandardCodes},
			Judge:       checkUndeclaredResources,
		},
	}
}

// servesResources returns a resources/* request of discovery that served
// something: a list page with items, or a successful read. The second
// result is an empty list page that succeeded, when nothing was served.
func servesResources(s *evidence.Session) (served, empty *evidence.Exchange) {
	for _, l := range []evidence.ListObs{s.Resources(), s.Templates()} {
		for _, x := range l.Pages {
			items, ok := wire.Array(x.Result()[evidence.ListMember(l.Method)])
			switch {
			case ok && len(items) > 0:
				return x, nil
			case x.Result() != nil && empty == nil:
				empty = x
			}
		}
	}
	for _, rd := range append(append([]*evidence.Read(nil), s.Reads()...), s.TemplateReads()...) {
		if rd.X.Result() != nil {
			return rd.X, nil
		}
	}
	return nil, empty
}

func checkResourcesDeclared(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	served, empty := servesResources(j.Session)
	switch {
	case j.Caps().Resources:
		return passed("the resources capability is declared")
	case served != nil:
		f := exchangeFinding(broken(served.Method+" succeeded, but the server does not declare the resources capability"), served)
		f.Actual = toAny(j.Caps().Raw)
		return f
	case empty != nil:
		// An empty list offers no resource: the server does not support
		// resources in any sense the rule could mean. Worth reporting,
		// since the capability says where resources/* is served.
		return exchangeFinding(Finding{Outcome: Recorded, Message: empty.Method + " answers an empty list although the resources capability is not declared; the server offers no resource"}, empty)
	}
	return skipped("the server offers no resources (no capability, and no resources request succeeds)")
}

func checkResourceFlags(j *J) Finding {
	r := wire.Object(wire.Object(j.Caps().Raw)["resources"])
	x := j.Session.Init()
	t := &tally{actual: toAny(wire.Object(j.Caps().Raw)["resources"])}
	t.judged()
	for _, f := range []string{"subscribe", "listChanged"} {
		if v, ok := r[f]; ok && wire.Type(v) != "boolean" {
			t.violate(At(x.Process, x.RecvSeq), "capabilities.resources.%s is %s, want a boolean", f, describeType(v))
		}
	}
	return t.finding("subscribe and listChanged are booleans where present", "")
}

func checkListStable(j *J) Finding {
	if !j.Session.Modern {
		return skipped("2026-07-28 forbids the list to change with other traffic; before, it may")
	}
	res := j.Session.Resources()
	after := evidence.FollowList(j.Session.Tagged(plan.ProbeListAfter.Tag()), "resources/list", j.Session.Shared())
	if len(res.Pages) == 0 || len(after.Pages) == 0 {
		return skipped("resources/list was not repeated")
	}
	first, last := res.Pages[0], after.Pages[len(after.Pages)-1]
	other := "after other requests"
	if last.Process != first.Process {
		other = "on another connection"
	}
	switch {
	case last.NotSent():
		return skipped("the second resources/list was never sent: " + last.NoResponse.String())
	case !last.OK():
		return skipped("not judged: the second resources/list got no response (every-request-answered judges it)")
	case last.Response.Has("error"):
		// With the capability declared, resources/list always answers.
		return exchangeFinding(broken("resources/list did not answer the second time: "+shortGot(last)), last)
	case res.Stopped != "" || res.Capped:
		return skipped("the first walk of resources/list did not end normally: " + res.Stopped)
	case after.Stopped != "" || after.Capped:
		return skipped("the second walk of resources/list did not end normally: " + after.Stopped)
	case announcedBetween(first, last, "notifications/resources/list_changed"):
		return skipped("the server announced a list change, so the list may differ")
	}
	a, b := uriSet(res.Items), uriSet(after.Items)
	// The set may not change; the order may (only the set is the rule).
	if !slices.Equal(a, b) {
		f := exchangeFinding(broken("resources/list gives other resources "+other+", with no list change announced"), last)
		f.Expected, f.Actual = a, b
		return f
	}
	return passed(fmt.Sprintf("the same %d resources before and after all other traffic", len(a)))
}

// uriSet returns the sorted, distinct uris of list items.
func uriSet(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		if u, ok := wire.String(wire.Member(it, "uri")); ok {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func checkUndeclaredResources(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	if j.Caps().Resources {
		return skipped("the server declares the resources capability")
	}
	pages := j.Session.Resources().Pages
	if len(pages) == 0 {
		return skipped("resources/list was not called")
	}
	x := pages[0]
	f := exchangeFinding(Finding{Expected: map[string]any{"error": map[string]any{"code": wire.CodeMethodNotFound}}}, x)
	code, isErr := x.ErrorCode()
	switch {
	case x.Stopped():
		return harness("not judged: " + x.NoResponse.String())
	case !x.OK():
		return skipped("resources/list got no response (every-request-answered judges it)")
	case !isErr:
		f.Outcome, f.Message = Violation, "resources/list succeeded without the capability (resources-capability-declared judges the missing declaration)"
	case code == wire.CodeMethodNotFound:
		return passed("resources/list gets -32601 without the capability")
	default:
		// 2026-07-28 names -32601 here in a definition with no keyword: a
		// wrong code is then graded as every wrong standard code.
		f.Outcome, f.Message = Violation, fmt.Sprintf("resources/list got %d; -32601 is the code for a method behind an undeclared capability", code)
		f = wrongCode(f, "RES-CAP-04", j.Version)
	}
	return f
}

// announcedBetween reports whether the server sent the notification after
// the response to a and before the response to b, which may have come in
// another process: then from a to the end of a's process, and from the
// start of b's process to b.
func announcedBetween(a, b *evidence.Exchange, notification string) bool {
	if a.Process == b.Process {
		return listChangedBetween(a.Process, a.RecvSeq, b.RecvSeq, notification)
	}
	return listChangedBetween(a.Process, a.RecvSeq, -1, notification) ||
		listChangedBetween(b.Process, 0, b.RecvSeq, notification)
}
