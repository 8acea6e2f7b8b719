package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/evidence"
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
			Requires:    []string{"resources"},
			Judge:       checkListStable,
		},
		{
			ID: "undeclared-resources-method-not-found", Requirement: "RES-CAP-04", Area: "resources",
			Description: "without the resources capability, resources/list gets -32601 method not found",
			Judge:       checkUndeclaredResources,
		},
	}
}

// servesResources reports whether a resources/* request succeeded in the
// session.
func servesResources(s *evidence.Session) *evidence.Exchange {
	for _, l := range []evidence.ListObs{s.Resources(), s.Templates()} {
		for _, x := range l.Pages {
			if x.Result() != nil {
				return x
			}
		}
	}
	for _, rd := range s.Reads() {
		if rd.X.Result() != nil {
			return rd.X
		}
	}
	return nil
}

func checkResourcesDeclared(j *J) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	served := servesResources(j.Session)
	switch {
	case j.Caps().Resources:
		return passed("the resources capability is declared")
	case served != nil:
		f := exchangeFinding(broken(served.Method+" succeeded, but the server does not declare the resources capability"), served)
		f.Actual = toAny(j.Caps().Raw)
		return f
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
	after := evidence.FollowList(j.Session.Tagged(evidence.ProbeTag("list-after")), "resources/list", j.Session.Shared())
	if len(res.Pages) == 0 || len(after.Pages) == 0 {
		return skipped("resources/list was not repeated")
	}
	first, last := res.Pages[0], after.Pages[len(after.Pages)-1]
	switch {
	case res.Stopped != "" || res.Capped:
		return skipped("the first walk of resources/list did not end normally: " + res.Stopped)
	case after.Stopped != "" || after.Capped:
		return skipped("the second walk of resources/list did not end normally: " + after.Stopped)
	case listChangedBetween(first.Process, first.SentSeq, last.RecvSeq, "notifications/resources/list_changed"):
		return skipped("the server announced a list change, so the list may differ")
	}
	a, b := uriSet(res.Items), uriSet(after.Items)
	// The set may not change; the order may (only the set is the rule).
	if !slices.Equal(a, b) {
		f := exchangeFinding(broken("resources/list gives other resources after other requests, with no list change announced"), last)
		f.Expected, f.Actual = a, b
		return f
	}
	return passed(fmt.Sprintf("the same %d resources before and after all other traffic", len(a)))
}

// uriSet returns the sorted, distinct uris of list items.
func uriSet(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		if u, ok := wire.String(wire.Object(it)["uri"]); ok {
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
		f.Outcome, f.Message = Violation, fmt.Sprintf("resources/list got %d; -32601 is the code for a method behind an undeclared capability", code)
	}
	return f
}
