package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/yosida95/uritemplate/v3"
)

func resourceChecks() []*Check {
	return []*Check{
		{
			ID: "resources-capability-declared", Requirement: "RES-CAP-01", Level: "MUST", Area: "resources",
			Spec:        "server/resources#capabilities",
			Description: "a server that serves resources declares the resources capability",
			Session:     checkResourcesDeclared,
		},
		{
			ID: "resources-list-result-shape", Requirement: "RES-LIST-01", Level: "schema", Area: "resources",
			Spec:        "server/resources#listing-resources",
			Description: "every resources/list page is a result with a resources array",
			Requires:    []string{"resources"},
			Session:     func(s *Session) Finding { return checkListPages(s.Resources, "resources") },
		},
		{
			ID: "resources-list-item-fields", Requirement: "RES-LIST-02", Level: "schema", Area: "resources",
			Spec:        "server/resources#resource",
			Description: "every listed resource has a string uri and a string name",
			Requires:    []string{"resources"},
			Session:     checkResourceRequired,
		},
		{
			ID: "resources-list-optional-fields", Requirement: "RES-LIST-03", Level: "schema", Area: "resources",
			Spec:        "server/resources#resource",
			Description: "optional resource fields have the right types and exist in the negotiated version",
			Requires:    []string{"resources"},
			Session:     checkResourceOptional,
		},
		{
			ID: "resources-list-unique-uris", Requirement: "RES-LIST-04", Level: "derived", Area: "resources",
			Spec:        "server/resources",
			Description: "no URI is listed twice across all pages",
			Requires:    []string{"resources"},
			Session:     checkUniqueURIs,
		},
		{
			ID: "resources-list-uri-syntax", Requirement: "RES-LIST-05", Level: "MUST", Area: "resources",
			Spec:        "server/resources#common-uri-schemes",
			Description: "every listed URI is an absolute RFC 3986 URI",
			Requires:    []string{"resources"},
			Session:     checkURISyntax,
		},
		{
			ID: "pagination-terminates", Requirement: "PAG-03", Level: "derived", Area: "pagination",
			Spec:        "server/utilities/pagination#operations-supporting-pagination",
			Description: "following nextCursor ends: no cursor comes back, no list goes on for ever",
			Requires:    []string{"resources"},
			Session:     checkPaginationEnds,
		},
		{
			ID: "pagination-cursor-string", Requirement: "PAG-01", Level: "schema", Area: "pagination",
			Spec:        "server/utilities/pagination#response-format",
			Description: "nextCursor, when present, is a string",
			Requires:    []string{"resources"},
			Session:     checkCursorType,
		},
		{
			ID: "resources-templates-list-result-shape", Requirement: "RES-TPL-01", Level: "schema", Area: "templates",
			Spec:        "server/resources#resource-templates",
			Description: "every resources/templates/list page is a result with a resourceTemplates array",
			Requires:    []string{"resources"},
			Flags:       []string{"sdk-divergence"},
			Session:     checkTemplatesPages,
		},
		{
			ID: "resources-templates-fields", Requirement: "RES-TPL-02", Level: "schema", Area: "templates",
			Spec:        "server/resources#resource-templates",
			Description: "every template has a name and an RFC 6570 uriTemplate; optional fields have the right types",
			Requires:    []string{"resources"},
			Session:     checkTemplateFields,
		},
		{
			ID: "resources-read-listed", Requirement: "RES-READ-02", Level: "schema", Area: "resources",
			Spec:        "server/resources#reading-resources",
			Description: "reading each listed resource gives a contents array whose items have a uri and exactly one of text and blob",
			Requires:    []string{"resources"},
			Session:     checkReadContents,
		},
		{
			ID: "resources-read-blob-base64", Requirement: "RES-READ-03", Level: "MUST", Area: "resources",
			Spec:        "server/resources#security-considerations",
			Description: "every blob is strict RFC 4648 base64 (standard alphabet, padding, no line breaks)",
			Requires:    []string{"resources"},
			Session:     checkBlobs,
		},
	}
}

// resourceOps reports whether any resources/* request succeeded in s.
func resourceOps(s *Session) bool {
	for _, l := range []ListObs{s.Resources, s.Templates} {
		for _, x := range l.Pages {
			if x.Response != nil && x.Response.Has("result") && !x.Response.Has("error") {
				return true
			}
		}
	}
	for _, rd := range s.Reads {
		if rd.X.Response != nil && rd.X.Response.Has("result") {
			return true
		}
	}
	return false
}

func checkResourcesDeclared(s *Session) Finding {
	served := resourceOps(s)
	switch {
	case s.Caps.Resources:
		return pass("the resources capability is declared")
	case served:
		return Finding{Verdict: reports.Fail, Message: "resources/list or resources/templates/list succeeded, but the server does not declare the resources capability", Actual: toAny(s.Caps.Raw)}
	}
	return skip("the server offers no resources (no capability, and resources/list does not succeed)")
}

func checkListPages(l ListObs, member string) Finding {
	p := &problems{}
	for i, x := range l.Pages {
		switch {
		case x.Err != nil:
			p.fail("page %d: %v", i+1, x.Err)
		case !x.Response.Has("result"):
			p.fail("page %d: an error instead of a result: %s", i+1, clipJSON(x.Response.Error, 160))
		default:
			res := obj(x.Response.Result)
			if res == nil {
				continue // judged by jsonrpc-result-object
			}
			if jtype(res[member]) != "array" {
				p.fail("page %d: %s is %s, want an array", i+1, member, describeType(res[member]))
			}
		}
	}
	return p.finding(fmt.Sprintf("%d page(s), %d item(s)", len(l.Pages), len(l.Items)))
}

func checkTemplatesPages(s *Session) Finding {
	if len(s.Templates.Pages) == 1 && s.Templates.Pages[0].Response != nil {
		if e := s.Templates.Pages[0].Response.DecodeError(); e != nil {
			if code, _ := e.IntCode(); code == -32601 {
				return Finding{Verdict: reports.Warn, Message: "resources/templates/list is not implemented (-32601); a server with the resources capability should answer it, even with an empty list (TypeScript McpServer installs it only when templates exist)"}
			}
		}
	}
	return checkListPages(s.Templates, "resourceTemplates")
}

func itemsOf(l ListObs) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, it := range l.Items {
		out = append(out, obj(it))
	}
	return out
}

func label(m map[string]json.RawMessage, i int, key string) string {
	if s, ok := str(m[key]); ok {
		return fmt.Sprintf("%q", clipString(s, 60))
	}
	return fmt.Sprintf("#%d", i+1)
}

func checkResourceRequired(s *Session) Finding {
	p := &problems{}
	for i, m := range itemsOf(s.Resources) {
		if m == nil {
			p.fail("resource #%d is not an object", i+1)
			continue
		}
		l := label(m, i, "uri")
		if _, ok := str(m["uri"]); !ok {
			p.fail("resource %s: uri is %s, want a string", l, describeType(m["uri"]))
		}
		name, ok := str(m["name"])
		switch {
		case !ok:
			p.fail("resource %s: name is %s, want a string", l, describeType(m["name"]))
		case name == "":
			p.warn("resource %s: name is empty", l)
		}
	}
	if len(s.Resources.Items) == 0 {
		return skip("the server lists no resources")
	}
	return p.finding(fmt.Sprintf("%d resource(s) have uri and name", len(s.Resources.Items)))
}

// fieldSpec is an optional member of an MCP object: its JSON type and the
// first version that has it.
type fieldSpec struct {
	typ   string
	since string
}

var resourceFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "size": {"integer", ""},
	"annotations": {"object", ""}, "title": {"string", "2025-06-18"}, "icons": {"array", "2025-11-25"},
	"_meta": {"object", "2025-06-18"},
}

var templateFields = map[string]fieldSpec{
	"description": {"string", ""}, "mimeType": {"string", ""}, "annotations": {"object", ""},
	"title": {"string", "2025-06-18"}, "icons": {"array", "2025-11-25"}, "_meta": {"object", "2025-06-18"},
}

func checkOptionalFields(p *problems, what string, m map[string]json.RawMessage, fields map[string]fieldSpec, version string) {
	for name, f := range fields {
		v, ok := m[name]
		if !ok {
			continue
		}
		if jtype(v) != f.typ {
			p.fail("%s: %s is %s, want %s", what, name, describeType(v), article(f.typ))
			continue
		}
		if f.since != "" && !atLeast(version, f.since) {
			p.warn("%s: %s exists only from %s, but the session negotiated %s", what, name, f.since, version)
		}
		if name == "size" {
			var n int64
			if json.Unmarshal(v, &n) != nil || n < 0 {
				p.fail("%s: size %s is not a non-negative integer", what, clipJSON(v, 30))
			}
		}
	}
}

func checkResourceOptional(s *Session) Finding {
	if len(s.Resources.Items) == 0 {
		return skip("the server lists no resources")
	}
	p := &problems{}
	for i, m := range itemsOf(s.Resources) {
		if m != nil {
			checkOptionalFields(p, "resource "+label(m, i, "uri"), m, resourceFields, s.Version())
		}
	}
	return p.finding("every optional field has the right type for " + s.Version())
}

func checkUniqueURIs(s *Session) Finding {
	if len(s.Resources.Items) == 0 {
		return skip("the server lists no resources")
	}
	if s.Resources.Cycle {
		return skip("the list cycles, so pages repeat; judged by pagination-terminates (PAG-03)")
	}
	p := &problems{}
	seen := map[string]int{}
	for i, m := range itemsOf(s.Resources) {
		u, ok := str(m["uri"])
		if !ok {
			continue
		}
		if j, dup := seen[u]; dup {
			p.fail("%q is listed as item %d and again as item %d", clipString(u, 80), j+1, i+1)
		} else {
			seen[u] = i
		}
	}
	return p.finding(fmt.Sprintf("%d distinct URIs", len(seen)))
}

func checkURISyntax(s *Session) Finding {
	if len(s.Resources.Items) == 0 {
		return skip("the server lists no resources")
	}
	p := &problems{}
	for _, m := range itemsOf(s.Resources) {
		u, ok := str(m["uri"])
		if !ok {
			continue
		}
		if err := vectors.AbsoluteURI(u); err != nil {
			if isIRI(u) {
				p.warn("%v", err)
			} else {
				p.fail("%v", err)
			}
		}
	}
	return p.finding("every listed URI is an absolute URI")
}

// isIRI reports whether the only fault of u is raw non-ASCII text.
func isIRI(u string) bool {
	ascii := strings.Map(func(r rune) rune {
		if r >= 0x80 {
			return 'x'
		}
		return r
	}, u)
	return ascii != u && vectors.AbsoluteURI(ascii) == nil
}

func checkPaginationEnds(s *Session) Finding {
	p := &problems{}
	for _, l := range []struct {
		name string
		obs  ListObs
	}{{"resources/list", s.Resources}, {"resources/templates/list", s.Templates}} {
		if l.obs.Cycle || strings.HasPrefix(l.obs.Stopped, "still returning") {
			p.fail("%s: %s", l.name, l.obs.Stopped)
		}
	}
	return p.finding(fmt.Sprintf("resources/list ended after %d page(s), resources/templates/list after %d", len(s.Resources.Pages), len(s.Templates.Pages)))
}

func checkCursorType(s *Session) Finding {
	p := &problems{}
	for _, l := range []ListObs{s.Resources, s.Templates} {
		for i, x := range l.Pages {
			if x.Response == nil {
				continue
			}
			if res := obj(x.Response.Result); res != nil {
				if c, ok := res["nextCursor"]; ok && jtype(c) != "string" {
					p.fail("%s page %d: nextCursor is %s, want a string", x.Method, i+1, describeType(c))
				}
			}
		}
	}
	return p.finding("every nextCursor is a string")
}

func checkTemplateFields(s *Session) Finding {
	if len(s.Templates.Items) == 0 {
		return skip("the server lists no resource templates")
	}
	p := &problems{}
	for i, m := range itemsOf(s.Templates) {
		if m == nil {
			p.fail("template #%d is not an object", i+1)
			continue
		}
		l := "template " + label(m, i, "uriTemplate")
		if t, ok := str(m["uriTemplate"]); !ok {
			p.fail("%s: uriTemplate is %s, want a string", l, describeType(m["uriTemplate"]))
		} else if _, err := uritemplate.New(t); err != nil {
			p.fail("%s: not an RFC 6570 template: %v", l, err)
		}
		if _, ok := str(m["name"]); !ok {
			p.fail("%s: name is %s, want a string", l, describeType(m["name"]))
		}
		checkOptionalFields(p, l, m, templateFields, s.Version())
	}
	return p.finding(fmt.Sprintf("%d template(s) are well formed", len(s.Templates.Items)))
}

// contentsOf returns the contents items of a read, or a problem.
func contentsOf(rd *ReadObs) ([]map[string]json.RawMessage, string) {
	x := rd.X
	switch {
	case x.Err != nil:
		return nil, x.Err.Error()
	case x.Response.Has("error"):
		return nil, "error " + clipJSON(x.Response.Error, 160)
	}
	res := obj(x.Response.Result)
	if rt, _ := str(res["resultType"]); rt == "input_required" {
		return nil, "" // no contents yet; judged by input-required-shape (RES-READ-13)
	}
	items, ok := arr(res["contents"])
	if !ok {
		return nil, "contents is " + describeType(res["contents"]) + ", want an array"
	}
	var out []map[string]json.RawMessage
	for _, it := range items {
		out = append(out, obj(it))
	}
	return out, ""
}

func checkReadContents(s *Session) Finding {
	if len(s.Reads) == 0 {
		return skip("the server lists no resources to read")
	}
	p := &problems{}
	for _, rd := range s.Reads {
		items, prob := contentsOf(rd)
		if prob != "" {
			if strings.HasPrefix(prob, "error") {
				p.warn("reading listed resource %q gave %s", clipString(rd.URI, 60), prob)
			} else {
				p.fail("reading %q: %s", clipString(rd.URI, 60), prob)
			}
			continue
		}
		for j, m := range items {
			where := fmt.Sprintf("reading %q: contents[%d]", clipString(rd.URI, 60), j)
			if m == nil {
				p.fail("%s is not an object", where)
				continue
			}
			if _, ok := str(m["uri"]); !ok {
				p.fail("%s: uri is %s, want a string", where, describeType(m["uri"]))
			}
			_, hasText := m["text"]
			_, hasBlob := m["blob"]
			switch {
			case hasText && hasBlob:
				p.fail("%s has both text and blob", where)
			case !hasText && !hasBlob:
				p.fail("%s has neither text nor blob", where)
			case hasText && jtype(m["text"]) != "string":
				p.fail("%s: text is %s, want a string", where, describeType(m["text"]))
			case hasBlob && jtype(m["blob"]) != "string":
				p.fail("%s: blob is %s, want a string", where, describeType(m["blob"]))
			}
			if v, ok := m["mimeType"]; ok && jtype(v) != "string" {
				p.fail("%s: mimeType is %s, want a string", where, describeType(v))
			}
		}
	}
	return p.finding(fmt.Sprintf("%d listed resource(s) read with well-formed contents", len(s.Reads)))
}

func checkBlobs(s *Session) Finding {
	n := 0
	p := &problems{}
	for _, rd := range s.Reads {
		items, _ := contentsOf(rd)
		for j, m := range items {
			b, ok := str(m["blob"])
			if !ok {
				continue
			}
			n++
			if err := vectors.StrictBase64(b); err != nil {
				p.fail("reading %q: contents[%d].blob: %v", clipString(rd.URI, 60), j, err)
			}
		}
	}
	if n == 0 {
		return skip("no listed resource returned a blob")
	}
	return p.finding(fmt.Sprintf("%d blob(s) are strict base64", n))
}
