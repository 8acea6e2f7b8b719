package checks

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// paginationChecks judge paginated lists (PAG-*).
func paginationChecks() []*Check {
	return []*Check{
		{
			ID: "pagination-cursor-string", Requirement: "PAG-01", Area: "pagination",
			Description: "nextCursor, when present, is a string",
			Requires:    []string{"resources"},
			Judge:       checkCursorType,
		},
		{
			ID: "pagination-terminates", Requirement: "PAG-03", Area: "pagination",
			Description: "following nextCursor through resources/list ends: no cursor comes back",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return listTerminates(j.Session.Resources()) },
		},
		{
			ID: "pagination-cursor-stable", Requirement: "PAG-04", Area: "pagination",
			Description: "asking again with the same cursor returns the same resources, unless the list changed",
			Needs:       []plan.Probe{plan.ProbeCursorRepeat, plan.ProbeEmptyParams},
			Requires:    []string{"resources"},
			Judge:       checkCursorStable,
		},
		{
			ID: "pagination-cache-scope", Requirement: "PAG-08", Area: "pagination",
			Description: "all pages of one 2026-07-28 list share one cacheScope (their ttlMs may differ)",
			Requires:    []string{"resources"},
			Judge:       checkPageScopes,
		},
		{
			ID: "pagination-params-optional", Requirement: "PAG-09", Area: "pagination",
			Description: "resources/list succeeds without params and with params {} alike",
			Needs:       []plan.Probe{plan.ProbeEmptyParams},
			Requires:    []string{"resources"},
			// 2026-07-28 list requests must carry params (with _meta): the
			// rule that they may go without is a rule of the handshake era.
			Versions: legacyOnly,
			Judge:    checkParamsOptional,
		},
	}
}

func checkCursorType(j *J) Finding {
	t := &tally{}
	for _, l := range []evidence.ListObs{j.Session.Resources(), j.Session.Templates()} {
		for i, x := range l.Pages {
			res := x.Result()
			if res == nil {
				continue
			}
			c, ok := res["nextCursor"]
			if !ok {
				continue
			}
			t.judged()
			if wire.Type(c) != "string" {
				t.violate(At(x.Process, x.RecvSeq), "%s page %d: nextCursor is %s, want a string", l.Method, i+1, describeType(c))
			}
		}
	}
	return t.finding(fmt.Sprintf("%d nextCursor values are strings", t.n), "no page carried a nextCursor")
}

// listItemURIs returns the uris of the items of a list page, in order.
func listItemURIs(x *evidence.Exchange, member, key string) ([]string, bool) {
	items, ok := wire.Array(x.Result()[member])
	if !ok {
		return nil, false
	}
	var out []string
	for _, it := range items {
		u, _ := wire.String(wire.Member(it, key))
		out = append(out, u)
	}
	return out, true
}

// checkCursorStable judges the cursor of page 2 asked for again after
// discovery (PAG-04). A cursor need only be stable while the list is: a
// list may change at any time, announced or not, so another page is
// a fault only when nothing suggests the list changed — no list_changed,
// no resource the walk did not have, and a first page asked again
// (list-empty-params) that is still the first page of the walk.
func checkCursorStable(j *J) Finding {
	res := j.Session.Resources()
	repeats := j.Session.Tagged(plan.ProbeCursorRepeat.Tag())
	switch {
	case len(res.Pages) < 2:
		return skipped("resources/list has a single page, so there is no cursor to repeat")
	case len(repeats) == 0:
		return skipped("the cursor of page 2 was not asked for again")
	}
	first, again := res.Pages[1], repeats[0]
	switch {
	case again.Stopped():
		return harness("not judged: " + again.NoResponse.String())
	case again.NotSent():
		return skipped("the repeat was never sent: " + again.NoResponse.String())
	case !again.OK():
		return skipped("not judged: the repeated page got no response (every-request-answered judges it)")
	case again.Process != first.Process:
		// Clients must not keep cursors across sessions: a cursor asked
		// for in a replacement process says nothing of the server.
		return skipped("the cursor was repeated in another process than the one that gave it")
	}
	a, okA := listItemURIs(first, "resources", "uri")
	b, okB := listItemURIs(again, "resources", "uri")
	f := exchangeFinding(Finding{}, again)
	switch {
	case !okA:
		return skipped("page 2 of resources/list was not a list (the list checks judge it)")
	case !okB:
		f.Outcome, f.Message = Violation, "repeating the cursor of page 2 did not give a list: "+shortGot(again)
		return f
	case sameSet(a, b):
		return passed("the cursor of page 2 gives the same resources again")
	case listChangedBetween(first.Process, first.RecvSeq, again.RecvSeq, "notifications/resources/list_changed"):
		return Finding{Outcome: Recorded, Message: "the same cursor gave other resources, after the server announced a list change", Expected: a, Actual: b}
	}
	if why := listChangedSigns(j.Session, res, b); why != "" {
		return Finding{Outcome: Recorded, Message: "the same cursor gave other resources; the list itself changed meanwhile (" + why + "), which it may do", Expected: a, Actual: b}
	}
	f.Outcome, f.Message = Violation, "the same cursor gave other resources the second time, with no sign that the list changed"
	f.Expected, f.Actual = a, b
	return f
}

// listChangedSigns says why the list evidently changed after the walk l,
// given the uris of a page asked for later: a resource the walk did not
// list, or a first page asked again that is not the walk's first page.
func listChangedSigns(s *evidence.Session, l evidence.ListObs, later []string) string {
	walked := map[string]bool{}
	for _, it := range l.Items {
		u, _ := wire.String(wire.Member(it, "uri"))
		walked[u] = true
	}
	for _, u := range later {
		if !walked[u] {
			return fmt.Sprintf("%q was not on any page of the walk", clipString(u, 60))
		}
	}
	if probes := s.Tagged(plan.ProbeEmptyParams.Tag()); len(probes) > 0 && len(l.Pages) > 0 {
		a, okA := listItemURIs(l.Pages[0], "resources", "uri")
		b, okB := listItemURIs(probes[0], "resources", "uri")
		if okA && okB && !sameSet(a, b) {
			return "the first page asked again holds other resources"
		}
	}
	return ""
}

// sameSet reports whether two lists of uris hold the same uris, whatever
// their order: no rule orders a list.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func checkParamsOptional(j *J) Finding {
	res := j.Session.Resources()
	probes := j.Session.Tagged(plan.ProbeEmptyParams.Tag())
	if len(res.Pages) == 0 || len(probes) == 0 {
		return skipped("resources/list was not called both ways")
	}
	bare, empty := res.Pages[0], probes[0]
	switch {
	case bare.Stopped() || empty.Stopped():
		return harness("not judged: the run was stopped")
	case bare.NotSent() || empty.NotSent():
		return skipped("resources/list was not sent both ways (it had gone unanswered before)")
	case !bare.OK() || !empty.OK():
		return skipped("not judged: resources/list got no response one of the ways (every-request-answered judges it)")
	}
	if ra := bare.Result()["resources"]; wire.Type(ra) == "array" && bytes.Equal(ra, empty.Result()["resources"]) {
		// The same text is the same list: 200,000 listed resources need
		// not be gathered and sorted twice to say so.
		return passed("resources/list answers alike without params and with params {}")
	}
	a, okA := listItemURIs(bare, "resources", "uri")
	b, okB := listItemURIs(empty, "resources", "uri")
	switch {
	case !okA && !okB:
		return skipped("resources/list does not succeed either way (the list checks judge it)")
	case okA != okB:
		which, x := "with params {}", empty
		if !okA {
			which, x = "without params", bare
		}
		return exchangeFinding(broken("resources/list fails "+which+" but not the other way; params are optional in list requests"), x)
	case !sameSet(a, b):
		return Finding{Outcome: Recorded, Message: fmt.Sprintf("the first pages differ (%d and %d resources; a list may change or reorder between requests, and the server chooses the page size)", len(a), len(b)), Expected: a, Actual: b}
	}
	return passed("resources/list answers alike without params and with params {}")
}

func checkPageScopes(j *J) Finding {
	if !j.Session.Modern {
		return skipped("cache hints exist in 2026-07-28 only")
	}
	t := &tally{}
	for _, l := range []evidence.ListObs{j.Session.Resources(), j.Session.Templates()} {
		scopes := map[string]bool{}
		var w *Where
		for _, x := range l.Pages {
			res := evidence.Complete(j.Version, x)
			if res == nil {
				continue
			}
			// Only the scope is judged here: a ttlMs may differ from page
			// to page, and each page's hints are judged by the cache-hint
			// checks (RES-LIST-09, RES-TPL-07).
			t.judged()
			w = At(x.Process, x.RecvSeq)
			cs, _ := wire.String(res["cacheScope"])
			scopes[cs] = true
		}
		if len(scopes) > 1 {
			var names []string
			for k := range scopes {
				names = append(names, fmt.Sprintf("%q", k))
			}
			slices.Sort(names)
			t.violate(w, "%s: the pages of one list disagree on cacheScope: %s", l.Method, strings.Join(names, ", "))
		}
	}
	return t.finding("the pages of each list share one cacheScope", "no list page to judge")
}
