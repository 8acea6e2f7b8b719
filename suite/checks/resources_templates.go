package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
	"github.com/yosida95/uritemplate/v3"
)

// resourcesTemplatesChecks judge resources/templates/list and reads of
// expanded templates (RES-TPL-*).
func resourcesTemplatesChecks() []*Check {
	return []*Check{
		{
			ID: "resources-templates-list-result-shape", Requirement: "RES-TPL-01", Area: "templates",
			Description: "every resources/templates/list page is a result with a resourceTemplates array",
			Requires:    []string{"resources"},
			Flags:       []string{"sdk-divergence"},
			Judge:       checkTemplatesPages,
		},
		{
			ID: "resources-templates-fields", Requirement: "RES-TPL-02", Area: "templates",
			Description: "every template has a name and an RFC 6570 uriTemplate; optional fields have the right types",
			Requires:    []string{"resources"},
			Judge:       checkTemplateFields,
		},
		{
			ID: "template-mimetype-matches", Requirement: "RES-TPL-03", Area: "templates",
			Description: "a template's mimeType is the mimeType of what reading its expansions returns",
			Requires:    []string{"resources"},
			Judge:       checkTemplateMimeTypes,
		},
		{
			ID: "templates-pagination-terminates", Requirement: "RES-TPL-05", Area: "templates",
			Description: "following nextCursor through resources/templates/list ends: no cursor comes back",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return listTerminates(j.Session.Templates()) },
		},
		{
			ID: "templates-cache-hints", Requirement: "RES-TPL-07", Area: "templates",
			Description: "every 2026-07-28 resources/templates/list page carries resultType, ttlMs and cacheScope",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return checkCacheHints(j.Session.Templates().Pages, "resources/templates/list") },
		},
	}
}

func checkTemplatesPages(j *J) Finding {
	l := j.Session.Templates()
	if len(l.Pages) == 1 {
		if code, ok := l.Pages[0].ErrorCode(); ok && code == wire.CodeMethodNotFound {
			return Finding{Outcome: Recorded, Message: "resources/templates/list is not implemented (-32601): the server offers no templates"}
		}
	}
	stopped := 0
	for _, x := range l.Pages {
		if x.Stopped() {
			stopped++
		}
	}
	if stopped > 0 && stopped == len(l.Pages) {
		return skipped("the run was stopped before resources/templates/list was answered")
	}
	return checkListPages(j.Version, l)
}

func checkTemplateFields(j *J) Finding {
	l := j.Session.Templates()
	t := &tally{}
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		t.judged()
		if m == nil {
			t.violate(w, "template #%d is not an object", i+1)
			continue
		}
		lb := "template " + label(m, i, "uriTemplate")
		if s, ok := wire.String(m["uriTemplate"]); !ok {
			t.violate(w, "%s: uriTemplate is %s, want a string", lb, describeType(m["uriTemplate"]))
		} else if _, err := uritemplate.New(s); err != nil {
			t.violate(w, "%s: not an RFC 6570 template: %v", lb, err)
		}
		if _, ok := wire.String(m["name"]); !ok {
			t.violate(w, "%s: name is %s, want a string", lb, describeType(m["name"]))
		}
		optionalFields(t, w, lb, m, templateFields, j.Version)
	}
	return t.finding(fmt.Sprintf("%d template(s) are well formed", t.n), "the server lists no resource templates")
}

func checkTemplateMimeTypes(j *J) Finding {
	t := &tally{}
	for _, rd := range j.Session.TemplateReads() {
		want, ok := wire.String(wire.Object(rd.Item)["mimeType"])
		if !ok {
			continue
		}
		items, prob := contentsOf(j.Version, rd)
		if prob != "" {
			continue
		}
		tpl, _ := wire.String(wire.Object(rd.Item)["uriTemplate"])
		for k, m := range items {
			got, ok := wire.String(m["mimeType"])
			if !ok || !matchesTemplate(m, rd.URI, tpl) {
				continue
			}
			t.judged()
			if !sameMediaType(got, want) {
				t.violate(At(rd.X.Process, rd.X.RecvSeq), "template mimeType %s, but reading %q gives contents[%d].mimeType %s", want, clipString(rd.URI, 60), k, got)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d read(s) match their template's mimeType", t.n), "no template with a mimeType could be read with sample values")
}

// matchesTemplate reports whether a contents item is a resource the
// template's mimeType speaks for: the resource read, or another one the
// template expands to. A part of it (uri#part) or a resource elsewhere is
// not bound by the template's type.
func matchesTemplate(item map[string]json.RawMessage, read, tpl string) bool {
	u, ok := wire.String(item["uri"])
	if !ok || u == read {
		return true
	}
	t, err := uritemplate.New(tpl)
	return err == nil && t.Match(u) != nil
}

// sameMediaType compares media types without parameters, case-insensitively.
func sameMediaType(a, b string) bool {
	base := func(s string) string {
		s, _, _ = strings.Cut(s, ";")
		return strings.ToLower(strings.TrimSpace(s))
	}
	return base(a) == base(b)
}

// templateMatching returns a listed template that expands to uri, if any:
// a server may serve any URI of a scheme through a catch-all template.
func templateMatching(s *evidence.Session, uri string) string {
	if s == nil {
		return ""
	}
	for _, it := range s.Templates().Items {
		tpl, ok := wire.String(wire.Member(it, "uriTemplate"))
		if !ok {
			continue
		}
		t, err := uritemplate.New(tpl)
		if err != nil {
			continue
		}
		if t.Match(uri) != nil {
			return tpl
		}
	}
	return ""
}

var templateFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "annotations": {"object", ""},
	"title": {"string", wire.V20250618}, "icons": {"array", wire.V20251125}, "_meta": {"object", wire.V20250618},
}
