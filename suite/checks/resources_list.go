package checks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesListChecks judge resources/list and the fields of its items
// (RES-LIST-*).
func resourcesListChecks() []*Check {
	return []*Check{
		{
			ID: "resources-list-result-shape", Requirement: "RES-LIST-01", Area: "resources",
			Description: "every resources/list page is a result with a resources array",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return listPages(j.Version, j.Session.Resources(), true) },
		},
		{
			ID: "resources-list-item-fields", Requirement: "RES-LIST-02", Area: "resources",
			Description: "every listed resource has a string uri and a string name",
			Requires:    []string{"resources"},
			Judge:       checkResourceRequired,
		},
		{
			ID: "resources-list-optional-fields", Requirement: "RES-LIST-03", Area: "resources",
			Description: "optional resource fields have the right types (fields of newer versions are recorded)",
			Requires:    []string{"resources"},
			Judge:       checkResourceOptional,
		},
		{
			ID: "resources-list-unique-uris", Requirement: "RES-LIST-04", Area: "resources",
			Description: "no URI is listed twice across the pages of one walk, unless the list changed meanwhile",
			Requires:    []string{"resources"},
			Judge:       checkUniqueURIs,
		},
		{
			ID: "resources-list-uri-syntax", Requirement: "RES-LIST-05", Area: "resources",
			Description: "every listed URI is an absolute URI by the grammar of RFC 3986",
			Requires:    []string{"resources"},
			Judge:       checkURISyntax,
		},
		{
			ID: "contents-uri-syntax", Requirement: "RES-LIST-05", Area: "resources",
			Description: "each contents item of a read names a URI by the grammar of RFC 3986 (it may be a sub-resource of the one read)",
			Requires:    []string{"resources"},
			Judge:       checkContentsURIs,
		},
		{
			ID: "resources-size-matches", Requirement: "RES-LIST-08", Area: "resources",
			Description: "a listed size equals the bytes a read returns (decoded blob, or UTF-8 text), when the content is stable",
			Needs:       []plan.Probe{plan.ProbeSubscribe},
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Judge:       checkSizes,
		},
		{
			ID: "list-cache-hints", Requirement: "RES-LIST-09", Area: "resources",
			Description: `every 2026-07-28 resources/list page has resultType "complete", an integer ttlMs of at least 0 and cacheScope public or private`,
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return checkCacheHints(j.Session.Resources().Pages, "resources/list") },
		},
		{
			ID: "resources-title-and-name", Requirement: "RES-LIST-10", Area: "resources",
			Description: "name is the programmatic id and title the display label: both strings",
			Requires:    []string{"resources"},
			Judge:       checkTitles,
		},
	}
}

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

// itemsOf decodes the items of a list (nil for an item that is no object).
func itemsOf(l evidence.ListObs) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, it := range l.Items {
		out = append(out, wire.Object(it))
	}
	return out
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

func checkResourceRequired(j *J) Finding {
	l := j.Session.Resources()
	t := &tally{}
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		t.judged()
		if m == nil {
			t.violate(w, "resource #%d is not an object", i+1)
			continue
		}
		lb := label(m, i, "uri")
		if _, ok := wire.String(m["uri"]); !ok {
			t.violate(w, "resource %s: uri is %s, want a string", lb, describeType(m["uri"]))
		}
		if _, ok := wire.String(m["name"]); !ok {
			t.violate(w, "resource %s: name is %s, want a string", lb, describeType(m["name"]))
		}
	}
	return t.finding(fmt.Sprintf("%d resource(s) have a uri and a name", t.n), "the server lists no resources")
}

// fieldSpec is an optional member of an MCP object: its JSON type and the
// first version that has it.
type fieldSpec struct {
	typ   string
	since string
}

var resourceFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "size": {"integer", ""},
	"annotations": {"object", ""}, "title": {"string", wire.V20250618}, "icons": {"array", wire.V20251125},
	"_meta": {"object", wire.V20250618},
}

var templateFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "annotations": {"object", ""},
	"title": {"string", wire.V20250618}, "icons": {"array", wire.V20251125}, "_meta": {"object", wire.V20250618},
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

func checkResourceOptional(j *J) Finding {
	l := j.Session.Resources()
	t := &tally{}
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		if m != nil {
			t.judged()
			optionalFields(t, w, "resource "+label(m, i, "uri"), m, resourceFields, j.Version)
		}
	}
	return t.finding("every optional field has the right type", "the server lists no resources")
}

// pagesChanged reports whether the server announced a list change while
// the walk was paging.
func pagesChanged(l evidence.ListObs, notification string) bool {
	if len(l.Pages) < 2 {
		return false
	}
	first, last := l.Pages[0], l.Pages[len(l.Pages)-1]
	return first.Process == last.Process && listChangedBetween(first.Process, first.SentSeq, last.RecvSeq, notification)
}

// checkUniqueURIs looks for a URI listed twice in one walk. Twice on one
// page is a duplicate. On two pages it may be the trace of a list that
// changed between them (an item added before the cursor's position shifts
// the rest along): a server that announces changes (listChanged, in the
// handshake era) and announced none is taken at its word that the list
// did not change; where no change could be announced the duplicate is
// recorded.
func checkUniqueURIs(j *J) Finding {
	// A 2026-07-28 walk comes before any listen stream could carry an
	// announcement, and that version promises no consistency across pages.
	announces := j.Caps().ListChanged && !j.Session.Modern
	return checkUnique(j.Session.Resources(), "uri", "notifications/resources/list_changed", announces, "URIs", "the server lists no resources")
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
			u, ok := wire.String(wire.Object(it)[key])
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

// uriProblem judges a URI by RFC 3986. A URI whose only fault is raw
// non-ASCII text is an IRI (RFC 3987), which maps to a URI by encoding
// those bytes and which clients commonly accept: a warning, not a failure.
func uriProblem(t *tally, w *Where, what, u string) {
	err := wire.AbsoluteURI(u)
	if err == nil {
		return
	}
	if isIRI(u) {
		t.dispute(w, "%s: %v", what, err)
		return
	}
	t.violate(w, "%s: %v", what, err)
}

// isIRI reports whether the only fault of u is raw non-ASCII text.
func isIRI(u string) bool {
	ascii := strings.Map(func(r rune) rune {
		if r >= 0x80 {
			return 'x'
		}
		return r
	}, u)
	return ascii != u && wire.AbsoluteURI(ascii) == nil
}

func checkURISyntax(j *J) Finding {
	l := j.Session.Resources()
	t := &tally{}
	w := firstPage(l)
	for _, m := range itemsOf(l) {
		if u, ok := wire.String(m["uri"]); ok {
			t.judged()
			uriProblem(t, w, "listed resource", u)
		}
	}
	return t.finding(fmt.Sprintf("%d listed URIs are absolute RFC 3986 URIs", t.n), "the server lists no resources")
}

// notCompleteProb is contentsOf's problem for a read answered with a
// result of another kind than ReadResourceResult (an InputRequiredResult
// still asking after the suite's retries, say): it has no contents yet.
const notCompleteProb = "not complete"

// contentsOf returns the contents items of a read, or why it has none.
// Only a complete result (under version v) has contents.
func contentsOf(v string, rd *evidence.Read) ([]map[string]json.RawMessage, string) {
	x := rd.X
	switch {
	case !x.OK():
		return nil, gotOf(x)
	case x.Clipped:
		// Kept only in part (a flood, or the transcript's budget): the
		// checks of contents cannot judge it.
		return nil, "clipped"
	case x.Response.Has("error"):
		return nil, "error " + clipJSON(x.Response.Error, 160)
	}
	res := wire.Object(x.Response.Result)
	if res != nil && evidence.Complete(v, x) == nil {
		return nil, notCompleteProb
	}
	items, ok := wire.Array(res["contents"])
	if !ok {
		return nil, "contents is " + describeType(res["contents"]) + ", want an array"
	}
	var out []map[string]json.RawMessage
	for _, it := range items {
		out = append(out, wire.Object(it))
	}
	return out, ""
}

func checkContentsURIs(j *J) Finding {
	t := &tally{}
	differ := 0
	for _, rd := range append(append([]*evidence.Read(nil), j.Session.Reads()...), j.Session.TemplateReads()...) {
		items, _ := contentsOf(j.Version, rd)
		for k, m := range items {
			u, ok := wire.String(m["uri"])
			if !ok {
				continue
			}
			t.judged()
			if u != rd.URI {
				differ++
			}
			uriProblem(t, At(rd.X.Process, rd.X.RecvSeq), fmt.Sprintf("reading %q: contents[%d].uri", clipString(rd.URI, 60), k), u)
		}
	}
	return t.finding(fmt.Sprintf("%d contents uri(s) are valid; %d differ from the URI read (allowed)", t.n, differ), "no contents item to judge")
}

// contentBytes returns the bytes a single-item read returned: the UTF-8
// length of text or the decoded blob.
func contentBytes(items []map[string]json.RawMessage) (int64, bool) {
	if len(items) != 1 || items[0] == nil {
		return 0, false
	}
	if t, ok := wire.String(items[0]["text"]); ok {
		return int64(len(t)), true // UTF-8 bytes, not code points
	}
	if b, ok := wire.String(items[0]["blob"]); ok {
		if n, err := wire.Base64Len(b); err == nil {
			return int64(n), true
		}
	}
	return 0, false
}

// checkSizes compares a listed size with what a read returned. A resource
// read twice with different lengths changes over time: its size is
// recorded, not judged.
func checkSizes(j *J) Finding {
	t := &tally{}
	lengths := map[string][]int64{}
	for _, x := range j.Session.Tagged(evidence.TagRead) {
		rd := &evidence.Read{X: x}
		if items, prob := contentsOf(j.Version, rd); prob == "" {
			if n, ok := contentBytes(items); ok {
				u, _ := wire.String(wire.Object(x.Request.Params)["uri"])
				lengths[u] = append(lengths[u], n)
			}
		}
	}
	for _, x := range j.Session.Tagged(plan.ProbeSubscribe.Tag("read")) {
		rd := &evidence.Read{X: x}
		if items, prob := contentsOf(j.Version, rd); prob == "" {
			if n, ok := contentBytes(items); ok {
				u, _ := wire.String(wire.Object(x.Request.Params)["uri"])
				lengths[u] = append(lengths[u], n)
			}
		}
	}
	for _, rd := range j.Session.Reads() {
		size, ok := wire.Int(wire.Object(rd.Item)["size"])
		got := lengths[rd.URI]
		if !ok || len(got) == 0 {
			continue
		}
		t.judged()
		varies := false
		for _, g := range got {
			varies = varies || g != got[0]
		}
		switch {
		case varies:
			t.record(At(rd.X.Process, rd.X.RecvSeq), "%q returns %v bytes on successive reads; its size %d is a hint of a changing resource", clipString(rd.URI, 60), got, size)
		case got[0] != size:
			// size is a hint ("if known") and content may change between
			// the list and the read: a mismatch warns, never fails.
			t.dispute(At(rd.X.Process, rd.X.RecvSeq), "%q lists size %d, but a read returns %d bytes", clipString(rd.URI, 60), size, got[0])
		}
	}
	return t.finding(fmt.Sprintf("%d size(s) match what a read returns", t.n), "no listed resource gives a size that a single-item read can confirm")
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

func checkTitles(j *J) Finding {
	t := &tally{}
	for _, l := range []evidence.ListObs{j.Session.Resources(), j.Session.Templates()} {
		w := firstPage(l)
		for i, m := range itemsOf(l) {
			if m == nil {
				continue
			}
			if v, ok := m["title"]; ok {
				t.judged()
				s, isString := wire.String(v)
				switch {
				case !isString:
					t.violate(w, "item %s: title is %s, want a string", label(m, i, "name"), describeType(v))
				case strings.TrimSpace(s) == "":
					// Schema-valid, but a present title is shown instead of
					// name: an empty one leaves the item without a label.
					t.record(w, "item %s: title is empty, and a client shows it instead of the name", label(m, i, "name"))
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d title(s) are strings", t.n), "no listed resource or template has a title")
}
