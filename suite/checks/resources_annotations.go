package checks

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesAnnotationsChecks judge annotations and icons on resources,
// templates and the server's Implementation (RES-ANN-*, RES-ICON-*).
func resourcesAnnotationsChecks() []*Check {
	return []*Check{
		{
			ID: "annotations-audience", Requirement: "RES-ANN-01", Area: "resources",
			Description: `annotations.audience is an array of "user" and "assistant"`,
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return checkAnnotations(j, "audience") },
		},
		{
			ID: "annotations-priority", Requirement: "RES-ANN-02", Area: "resources",
			Description: "annotations.priority is a number from 0 to 1",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return checkAnnotations(j, "priority") },
		},
		{
			ID: "annotations-last-modified", Requirement: "RES-ANN-03", Area: "resources",
			Description: "annotations.lastModified is an ISO 8601 timestamp string",
			Requires:    []string{"resources"},
			Judge:       func(j *J) Finding { return checkAnnotations(j, "lastModified") },
		},
		{
			ID: "annotations-not-on-contents", Requirement: "RES-ANN-04", Area: "resources",
			Description: "annotations belong on resources, templates and content blocks, not inside text or blob contents",
			Requires:    []string{"resources"},
			Flags:       []string{"disputed"},
			Judge:       checkContentsAnnotations,
		},
		{
			ID: "icons-shape", Requirement: "RES-ICON-01", Area: "resources",
			Description: "icons on resources, templates, tools, prompts and serverInfo have a src string and well-typed mimeType, sizes and theme",
			Judge:       func(j *J) Finding { return checkIcons(j, false) },
		},
		{
			ID: "icons-safe-scheme", Requirement: "RES-ICON-02", Area: "resources",
			Description: "icon sources use https: or data: URIs, the only schemes clients must accept (recorded: the rule binds clients)",
			Judge:       func(j *J) Finding { return checkIcons(j, true) },
		},
	}
}

// annotated yields every annotations object on listed resources and
// templates.
func annotated(s *evidence.Session, yield func(w *Where, where string, ann map[string]json.RawMessage)) {
	for _, l := range []struct {
		kind string
		obs  evidence.ListObs
		key  string
	}{{"resource", s.Resources(), "uri"}, {"template", s.Templates(), "uriTemplate"}} {
		w := firstPage(l.obs)
		for i, m := range itemsOf(l.obs) {
			if a := wire.Object(m["annotations"]); a != nil {
				yield(w, l.kind+" "+label(m, i, l.key), a)
			}
		}
	}
}

// iso8601 accepts the ISO 8601 representations of a date, alone or with a
// time of day: calendar, ordinal and week dates in the extended
// (2025-01-12) or basic (20250112) format, a reduced year-month or year, a
// time to the hour, minute or second with an optional decimal fraction, and
// a UTC designator or offset. Fields must lie in their ranges.
var iso8601 = func() *regexp.Regexp {
	const (
		mm, dd = `(?:0[1-9]|1[0-2])`, `(?:0[1-9]|[12]\d|3[01])`
		ddd    = `(?:00[1-9]|0[1-9]\d|[12]\d\d|3[0-5]\d|36[0-6])`
		ww     = `W(?:0[1-9]|[1-4]\d|5[0-3])`
		hh, mi = `(?:[01]\d|2[0-4])`, `[0-5]\d`
		sec    = `(?:[0-5]\d|60)`
		frac   = `(?:[.,]\d+)?`
		zone   = `(?:[Zz]|[+-]` + hh + `(?::?` + mi + `)?)?`
	)
	extended := `\d{4}-(?:` + mm + `-` + dd + `|` + ddd + `|` + ww + `(?:-[1-7])?)` +
		`(?:[Tt ]` + hh + `(?::` + mi + `(?::` + sec + `)?)?` + frac + zone + `)?`
	basic := `\d{4}(?:` + mm + dd + `|` + ddd + `|` + ww + `[1-7]?)` +
		`(?:[Tt]` + hh + `(?:` + mi + `(?:` + sec + `)?)?` + frac + zone + `)?`
	reduced := `\d{4}(?:-` + mm + `)?`
	return regexp.MustCompile(`^(?:` + extended + `|` + basic + `|` + reduced + `)$`)
}()

// inUnitRange reports whether a JSON number lies in [0, 1], judged on its
// decimal text (1.00000000000000000001 is above 1 although a float64 is not).
func inUnitRange(raw json.RawMessage) bool {
	lit := strings.TrimSpace(string(raw))
	f, _, err := big.ParseFloat(lit, 10, uint(len(lit))*4+64, big.ToNearestEven)
	if err != nil {
		return false
	}
	return f.Sign() >= 0 && f.Cmp(big.NewFloat(1)) <= 0
}

func checkAnnotations(j *J, field string) Finding {
	t := &tally{}
	annotated(j.Session, func(w *Where, where string, ann map[string]json.RawMessage) {
		v, ok := ann[field]
		if !ok {
			return
		}
		t.judged()
		switch field {
		case "audience":
			items, ok := wire.Array(v)
			if !ok {
				t.violate(w, "%s: audience is %s, want an array", where, describeType(v))
				return
			}
			for _, it := range items {
				if a, _ := wire.String(it); a != "user" && a != "assistant" {
					t.violate(w, "%s: audience holds %s, want \"user\" or \"assistant\"", where, clipJSON(it, 40))
				}
			}
		case "priority":
			if tp := wire.Type(v); tp != "number" && tp != "integer" {
				t.violate(w, "%s: priority is %s, want a number", where, describeType(v))
			} else if !inUnitRange(v) {
				t.violate(w, "%s: priority %s is outside [0, 1]", where, clipJSON(v, 40))
			}
		case "lastModified":
			ts, ok := wire.String(v)
			if !ok {
				t.violateSchema(w, "Annotations: lastModified?: string", "%s: lastModified is %s, want a string", where, describeType(v))
			} else if !iso8601.MatchString(ts) {
				t.violate(w, "%s: lastModified %q is not an ISO 8601 timestamp", where, clipString(ts, 40))
			}
		}
	})
	return t.finding(fmt.Sprintf("%d annotations.%s value(s) are valid", t.n, field), "no listed resource or template has annotations."+field)
}

func checkContentsAnnotations(j *J) Finding {
	t := &tally{}
	for _, rd := range reads(j.Session) {
		items, _ := contentsOf(j.Version, rd)
		for k, m := range items {
			t.judged()
			if _, ok := m["annotations"]; ok {
				t.dispute(At(rd.X.Process, rd.X.RecvSeq), "reading %q: contents[%d] carries annotations, which the schema puts on the resource, not its contents (the spec's own tools example does it too)", clipString(rd.URI, 60), k)
			}
		}
	}
	return t.finding("no annotations inside contents", "no contents item to judge")
}

var iconSize = regexp.MustCompile(`^(any|[0-9]+x[0-9]+)$`)

func checkIcons(j *J, schemes bool) Finding {
	if j.Session == nil {
		return skipped("no session was opened under " + j.Version)
	}
	t := &tally{}
	visit := func(w *Where, where string, raw json.RawMessage) {
		icons, ok := wire.Array(raw)
		if !ok {
			return // the member's type is judged by the list checks
		}
		for k, ic := range icons {
			t.judged()
			at := fmt.Sprintf("%s icons[%d]", where, k)
			m := wire.Object(ic)
			if m == nil {
				if !schemes {
					t.violate(w, "%s is not an object", at)
				}
				continue
			}
			src, ok := wire.String(m["src"])
			if schemes {
				if ok {
					scheme, _, _ := strings.Cut(src, ":")
					switch strings.ToLower(scheme) {
					case "https", "data":
					default:
						t.violate(w, "%s: src scheme %q; clients must reject anything but https: and data:, so the icon will not show", at, clipString(scheme, 20))
					}
				}
				continue
			}
			if !ok {
				t.violate(w, "%s: src is %s, want a string", at, describeType(m["src"]))
			} else {
				uriProblem(t, w, at+": src", src) // the schema gives src the uri format
			}
			if v, has := m["mimeType"]; has && wire.Type(v) != "string" {
				t.violate(w, "%s: mimeType is %s, want a string", at, describeType(v))
			}
			if v, has := m["sizes"]; has {
				sizes, ok := wire.Array(v)
				if !ok {
					t.violate(w, "%s: sizes is %s, want an array of strings", at, describeType(v))
				}
				for _, sz := range sizes {
					s, isString := wire.String(sz)
					switch {
					case !isString:
						t.violate(w, "%s: size is %s, want a string", at, describeType(sz))
					case !iconSize.MatchString(s):
						// The format is a lower-case "should" of the schema (RES-ICON-01).
						t.dispute(w, "%s: size %s is not \"WxH\" or \"any\", as the schema says it should be", at, clipJSON(sz, 30))
					}
				}
			}
			if v, has := m["theme"]; has {
				if s, _ := wire.String(v); s != "light" && s != "dark" {
					t.violate(w, "%s: theme is %s, want \"light\" or \"dark\"", at, clipJSON(v, 30))
				}
			}
		}
	}
	if x := j.Session.Init(); x != nil {
		res := j.Session.InitResult()
		si := wire.Object(res["serverInfo"])
		if si == nil {
			// server/discover names the server in the result's _meta.
			si = wire.Object(wire.Object(res["_meta"])[wire.MetaServerInfo])
		}
		if si != nil {
			visit(At(x.Process, x.RecvSeq), "serverInfo", si["icons"])
		}
	}
	for _, l := range []struct {
		obs evidence.ListObs
		key string
	}{{j.Session.Resources(), "uri"}, {j.Session.Templates(), "uriTemplate"}, {j.Session.Tools(), "name"}, {j.Session.Prompts(), "name"}} {
		w := firstPage(l.obs)
		for i, m := range itemsOf(l.obs) {
			visit(w, label(m, i, l.key), m["icons"])
		}
	}
	ok := fmt.Sprintf("%d icon(s) are valid", t.n)
	if schemes {
		ok = fmt.Sprintf("%d icon(s) use https: or data: sources", t.n)
	}
	return t.finding(ok, "the server sends no icons")
}
