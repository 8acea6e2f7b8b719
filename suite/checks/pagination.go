package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
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
			Requires:    []string{"resources"},
			Judge:       checkCursorStable,
		},
		{
			ID: "pagination-cache-scope", Requirement: "PAG-08", Area: "pagination",
			Description: "each page of a 2026-07-28 list has its own ttlMs, and all pages of one list share one cacheScope",
			Requires:    []string{"resources"},
			Judge:       checkPageScopes,
		},
		{
			ID: "pagination-params-optional", Requirement: "PAG-09", Area: "pagination",
			Description: "resources/list succeeds without params and with params {} alike",
			Requires:    []string{"resources"},
			Judge:       checkParamsOptional,
		},
	}
}

// listTerminates judges a list walk: a cursor that comes back is a loop;
// a list still going where the harness stops following is recorded.
func listTerminates(l evidence.ListObs) Finding {
	if len(l.Pages) == 0 {
		return skipped(l.Method + " was not called")
	}
	last := l.Pages[len(l.Pages)-1]
	switch {
	case l.Cycle:
		return exchangeFinding(broken(l.Method+": "+l.Stopped), last)
	case l.Capped:
		return Finding{Outcome: Recorded, Message: l.Method + ": " + l.Stopped + " (a harness limit, not a fault)"}
	}
	return passed(fmt.Sprintf("%s ended after %d page(s)", l.Method, len(l.Pages)))
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
		u, _ := wire.String(wire.Object(it)[key])
		out = append(out, u)
	}
	return out, true
}

// listChangedBetween reports whether the process received a list_changed
// notification for method's list between two sequence numbers.
func listChangedBetween(p *evidence.Process, from, to int, notification string) bool {
	if to < 0 {
		to = p.Transcript.Len()
	}
	for _, e := range p.Transcript.Slice(from, to+1) {
		if e.Dir != transcript.Recv {
			continue
		}
		for _, m := range e.Msgs {
			if m.Method == notification {
				return true
			}
		}
	}
	return false
}

func checkCursorStable(j *J) Finding {
	res := j.Session.Resources()
	repeats := j.Session.Tagged(evidence.ProbeTag("cursor-repeat"))
	if len(res.Pages) < 2 || len(repeats) == 0 {
		return skipped("resources/list has a single page, so there is no cursor to repeat")
	}
	first, again := res.Pages[1], repeats[0]
	if !again.OK() {
		return skipped("not judged: the repeated page got no response (every-request-answered judges it)")
	}
	a, okA := listItemURIs(first, "resources", "uri")
	b, okB := listItemURIs(again, "resources", "uri")
	f := exchangeFinding(Finding{}, again)
	switch {
	case !okA:
		return skipped("page 2 of resources/list was not a list (the list checks judge it)")
	case !okB:
		f.Outcome, f.Message = Violation, "repeating the cursor of page 2 did not give a list: "+shortGot(again)
	case slices.Equal(a, b):
		return passed("the cursor of page 2 gives the same resources again")
	case listChangedBetween(first.Process, first.RecvSeq, again.RecvSeq, "notifications/resources/list_changed"):
		return Finding{Outcome: Recorded, Message: "the same cursor gave other resources, after the server announced a list change"}
	default:
		f.Outcome, f.Message = Violation, "the same cursor gave other resources the second time, with no list change announced"
		f.Expected, f.Actual = a, b
	}
	return f
}

func checkParamsOptional(j *J) Finding {
	res := j.Session.Resources()
	probes := j.Session.Tagged(evidence.ProbeTag("list-empty-params"))
	if len(res.Pages) == 0 || len(probes) == 0 {
		return skipped("resources/list was not called both ways")
	}
	bare, empty := res.Pages[0], probes[0]
	if !bare.OK() || !empty.OK() {
		return skipped("not judged: resources/list got no response one of the ways (every-request-answered judges it)")
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
	case !slices.Equal(a, b):
		return Finding{Outcome: Recorded, Message: fmt.Sprintf("the first pages differ (%d and %d resources; a list may change over time)", len(a), len(b)), Expected: a, Actual: b}
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
			res := x.Result()
			if res == nil {
				continue
			}
			t.judged()
			w = At(x.Process, x.RecvSeq)
			if _, ok := wire.Int(res["ttlMs"]); !ok {
				t.violate(w, "%s: a page without an integer ttlMs", l.Method)
			}
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
	return t.finding("every page has a ttlMs and each list one cacheScope", "no list page to judge")
}
