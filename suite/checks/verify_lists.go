package checks

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// Verifiers of lists, shared by the families of resources, templates,
// tools and prompts: every page a result with the array, the walk
// terminating, items unique and their optional members typed, cache
// hints, and list changes announced only as declared.

// checkListPages judges every page of a list: a result with the array.
func checkListPages(v string, l evidence.ListObs) Finding { return listPages(v, l, false) }

// listPages judges every page of a list: a result with the array. With
// lenient set, an error answer is recorded rather than failed (the
// schema shapes results; nothing forbids an error such as an internal
// one), and a page without an answer is left to every-request-answered.
func listPages(v string, l evidence.ListObs, lenient bool) Finding {
	t := &tally{}
	member := evidence.ListMember(l.Method)
	for i, x := range l.Pages {
		if x.Stopped() || !x.OK() {
			continue // not answered: every-request-answered judges that
		}
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		res := wire.Object(x.Response.Result)
		switch {
		case !x.Response.Has("result"):
			t.judged()
			if lenient {
				t.record(w, "page %d: an error instead of a result: %s", i+1, clipJSON(x.Response.Error, 160))
			} else {
				t.violate(w, "page %d: an error instead of a result: %s", i+1, clipJSON(x.Response.Error, 160))
			}
		case res == nil:
			t.judged() // the type is judged by jsonrpc-result-object
		case evidence.Complete(v, x) == nil:
			t.unexercise("page %d: %s", i+1, notComplete(v, x, 0))
		default:
			t.judged()
			if wire.Type(res[member]) != "array" {
				t.violate(w, "page %d: %s is %s, want an array", i+1, member, describeType(res[member]))
			}
		}
	}
	nothing := l.Method + " was not called"
	if len(l.Pages) > 0 {
		nothing = "no " + l.Method + " page was answered (every-request-answered judges that)"
	}
	return t.finding(fmt.Sprintf("%d page(s), %d item(s)", len(l.Pages), len(l.Items)), nothing)
}

// listTerminates judges a list walk: a cursor that comes back is a loop;
// a list still going where the harness stops following is recorded.
func listTerminates(l evidence.ListObs) Finding {
	if len(l.Pages) == 0 {
		return skipped(l.Method + " was not called")
	}
	last := l.Pages[len(l.Pages)-1]
	switch {
	case last.Stopped():
		// The run ended while a page was awaited: whether the list ends
		// is not known.
		return harness("not judged: " + last.NoResponse.String())
	case l.Cycle:
		return exchangeFinding(broken(l.Method+": "+l.Stopped), last)
	case l.Capped:
		return Finding{Outcome: Recorded, Message: l.Method + ": " + l.Stopped + " (a harness limit, not a fault)"}
	}
	return passed(fmt.Sprintf("%s ended after %d page(s)", l.Method, len(l.Pages)))
}

// itemsOf yields the members of each item of a list, with its index (nil
// for an item that is no object). Each item is split as it is reached
// and let go after: a list of 200,000 resources, split whole, held
// 200,000 maps at once in each of the checks that walk it.
func itemsOf(l evidence.ListObs) iter.Seq2[int, map[string]json.RawMessage] {
	return func(yield func(int, map[string]json.RawMessage) bool) {
		for i, it := range l.Items {
			// The list's items were split from a valid value.
			if !yield(i, wire.ObjectOfValid(it)) {
				return
			}
		}
	}
}

func label(m map[string]json.RawMessage, i int, key string) string {
	if s, ok := wire.String(m[key]); ok {
		return fmt.Sprintf("%q", clipString(s, 60))
	}
	return fmt.Sprintf("#%d", i+1)
}

// firstPage locates the first page of a list, for excerpts.
func firstPage(l evidence.ListObs) *Where {
	if len(l.Pages) == 0 {
		return nil
	}
	x := l.Pages[0]
	return At(x.Process, x.RecvSeq)
}

// checkUnique judges that no item of a list walk repeats another's key
// (a resource's uri, a tool's or prompt's name): on one page always; on
// two pages only when the server could have announced a change between
// them (announces) and did not.
func checkUnique(l evidence.ListObs, key, changed string, announces bool, what, nothing string) Finding {
	if l.Cycle {
		return skipped("the list cycles, so pages repeat (pagination-terminates judges it)")
	}
	if pagesChanged(l, changed) {
		return skipped("the list changed while it was paged, so an item may show on two pages")
	}
	t := &tally{}
	seen := map[string]int{}
	page := map[string]int{}
	n := 0
	for p, x := range l.Pages {
		w := At(x.Process, x.RecvSeq)
		items, _ := wire.Array(x.Result()[evidence.ListMember(l.Method)])
		for _, it := range items {
			n++
			u, ok := wire.String(wire.Member(it, key))
			if !ok {
				continue
			}
			t.judged()
			k, dup := seen[u]
			switch {
			case !dup:
				seen[u], page[u] = n, p
			case page[u] == p:
				t.violate(w, "%q is listed as item %d and again as item %d, on one page", clipString(u, 80), k, n)
			case announces:
				t.violate(w, "%q is listed as item %d and again as item %d, with no list change announced between the pages", clipString(u, 80), k, n)
			default:
				t.record(w, "%q is listed as item %d and again as item %d, on pages %d and %d: the list may have changed between them (no change could be announced)", clipString(u, 80), k, n, page[u]+1, p+1)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d distinct %s", len(seen), what), nothing)
}

// fieldSpec is an optional member of an MCP object: its JSON type and the
// first version that has it.
type fieldSpec struct {
	typ   string
	since string
}

// optionalFields judges the optional members of an item: a wrong type is
// a violation; a member the version does not define is recorded, whatever
// its type, since objects are open and the version gives it none.
func optionalFields(t *tally, w *Where, what string, m map[string]json.RawMessage, fields map[string]fieldSpec, version string) {
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		f := fields[name]
		v, ok := m[name]
		if !ok {
			continue
		}
		if f.since != "" && !wire.AtLeast(version, f.since) {
			t.record(w, "%s: %s exists only from %s; the session negotiated %s (allowed: objects are open)", what, name, f.since, version)
			continue
		}
		if wire.Type(v) != f.typ {
			t.violate(w, "%s: %s is %s, want %s", what, name, describeType(v), article(f.typ))
			continue
		}
		if name == "size" {
			if n, ok := wire.Int(v); !ok || n < 0 {
				t.violate(w, "%s: size %s is not a non-negative integer", what, clipJSON(v, 30))
			}
		}
	}
}

// checkCacheHints judges the cache hints of 2026-07-28 results.
func checkCacheHints(xs []*evidence.Exchange, what string) Finding {
	t := &tally{}
	for i, x := range xs {
		if x.Request == nil {
			continue
		}
		if v, _ := wire.EnvelopeVersion(x.Request); v != wire.Modern {
			continue
		}
		res := x.Result()
		if res == nil || evidence.Complete(wire.Modern, x) == nil {
			continue // only a complete result carries cache hints
		}
		t.judged()
		cacheHints(t, At(x.Process, x.RecvSeq), fmt.Sprintf("%s #%d", what, i+1), res)
	}
	return t.finding(fmt.Sprintf("%d %s result(s) carry the cache hints", t.n, what), "no "+what+" result of the 2026-07-28 era to judge")
}

// cacheHints judges resultType, ttlMs and cacheScope of a complete result.
func cacheHints(t *tally, w *Where, what string, res map[string]json.RawMessage) {
	rt, _ := wire.String(res["resultType"])
	if rt == "input_required" {
		return
	}
	if rt != "complete" {
		t.violate(w, "%s: resultType is %s, want \"complete\"", what, describeType(res["resultType"]))
	}
	// Any integer of at least 0, however large (1e20 is one): compared by
	// sign, not as an int64.
	if n, ok := wire.Number(res["ttlMs"]); wire.Type(res["ttlMs"]) != "integer" || !ok || n < 0 {
		t.violate(w, "%s: ttlMs is %s, want an integer of at least 0", what, describeType(res["ttlMs"]))
	}
	if cs, _ := wire.String(res["cacheScope"]); cs != "public" && cs != "private" {
		t.violate(w, "%s: cacheScope is %s, want \"public\" or \"private\"", what, describeType(res["cacheScope"]))
	}
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

// listChangedDeclared judges notifications/<kind>/list_changed (kind is
// resources, tools or prompts): in a legacy session only after the server
// declared <kind>.listChanged, in a 2026-07-28 one only on a listen stream
// that asked for <kind>ListChanged.
func listChangedDeclared(j *J, kind string) Finding {
	t := &tally{}
	method := "notifications/" + kind + "/list_changed"
	for _, p := range j.Processes {
		listChanged := false
		listens := map[string]bool{} // listen ids that asked for <kind>ListChanged
		for _, x := range p.Exchanges() {
			if res := x.Result(); res != nil && (x.Method == "initialize" || x.Method == "server/discover") {
				listChanged = string(wire.Object(wire.Object(res["capabilities"])[kind])["listChanged"]) == "true"
			}
			if x.Method == "subscriptions/listen" && x.Request != nil {
				if string(wire.Object(wire.Object(x.Request.Params)["notifications"])[kind+"ListChanged"]) == "true" {
					listens[wire.IDKey(x.ID)] = true
				}
			}
		}
		eachMessage(&J{Processes: []*evidence.Process{p}}, func(p *evidence.Process, e transcript.Entry, m *wire.Message) {
			if m.Method != method {
				return
			}
			t.judged()
			switch era, _ := p.EraAt(e.Seq); {
			case era == wire.EraModern:
				if id := wire.SubscriptionID(m); id == nil || !listens[wire.IDKey(id)] {
					t.violate(At(p, e.Seq), "%s outside a stream that asked for %sListChanged", method, kind)
				}
			case !listChanged:
				t.violate(At(p, e.Seq), "%s, but the server does not declare %s.listChanged", method, kind)
			}
		})
	}
	return t.finding(fmt.Sprintf("%d list_changed notification(s), each where the client can expect one", t.n), fmt.Sprintf("the server sent no %s (outside traffic the suite provoked)", method))
}
