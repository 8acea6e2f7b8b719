package checks

import (
	"encoding/json"
	"fmt"
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

var resourceFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "size": {"integer", ""},
	"annotations": {"object", ""}, "title": {"string", wire.V20250618}, "icons": {"array", wire.V20251125},
	"_meta": {"object", wire.V20250618},
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
