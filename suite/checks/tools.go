package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// toolsChecks judge tools/list and the tools it lists (TOOLS-*), from the
// walk discovery made when the server declared tools. No tool is called
// here: calling one may change the server's world.
func toolsChecks() []*Check {
	return []*Check{
		{
			ID: "tools-list-result-shape", Requirement: "TOOLS-04", Area: "tools",
			Description: "every tools/list page is a result with a tools array",
			Requires:    []string{"tools"},
			Judge:       func(j *J) Finding { return listPages(j.Session.Tools(), true) },
		},
		{
			ID: "tools-list-item-fields", Requirement: "TOOLS-06", Area: "tools",
			Description: "every listed tool is an object with a string name and an inputSchema; description, when present, is a string",
			Requires:    []string{"tools"},
			Judge:       checkToolFields,
		},
		{
			ID: "tools-input-schema", Requirement: "TOOLS-07", Area: "tools",
			Description: `every tool's inputSchema is a JSON Schema object whose type is "object"; from 2025-11-25 a valid schema of its dialect (2020-12 unless $schema says otherwise)`,
			Requires:    []string{"tools"},
			Judge:       checkInputSchemas,
		},
		{
			ID: "tools-unique-names", Requirement: "TOOLS-13", Area: "tools",
			Description: "no tool name is listed twice in one walk of tools/list, unless the list changed meanwhile",
			Requires:    []string{"tools"},
			Judge: func(j *J) Finding {
				announces := j.Caps().Has("tools.listChanged") && !j.Session.Modern
				return checkUnique(j.Session.Tools(), "name", "notifications/tools/list_changed", announces, "tool names", "the server lists no tools")
			},
		},
		{
			ID: "tools-list-cache-hints", Requirement: "TOOLS-17", Area: "tools",
			Description: `every 2026-07-28 tools/list page has resultType "complete", an integer ttlMs of at least 0 and cacheScope public or private`,
			Requires:    []string{"tools"},
			Judge:       func(j *J) Finding { return checkCacheHints(j.Session.Tools().Pages, "tools/list") },
		},
		{
			ID: "tools-name-syntax", Requirement: "TOOLS-12", Area: "tools",
			Description: "every tool name is 1 to 128 characters of ASCII letters, digits, _, - and .",
			Requires:    []string{"tools"},
			Judge:       checkToolNames,
		},
	}
}

// eachTool calls f with every listed tool that is an object, labelled.
func eachTool(j *J, f func(tool map[string]json.RawMessage, what string, w *Where)) {
	l := j.Session.Tools()
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		f(m, "tool "+label(m, i, "name"), w)
	}
}

func checkToolFields(j *J) Finding {
	t := &tally{}
	l := j.Session.Tools()
	w := firstPage(l)
	for i, m := range itemsOf(l) {
		t.judged()
		what := "tool " + label(m, i, "name")
		if m == nil {
			t.violate(w, "tool #%d is %s, want an object", i+1, describeType(l.Items[i]))
			continue
		}
		if _, ok := wire.String(m["name"]); !ok {
			t.violate(w, "%s: name is %s, want a string", what, describeType(m["name"]))
		}
		if _, ok := m["inputSchema"]; !ok {
			t.violate(w, "%s has no inputSchema", what)
		}
		if d, ok := m["description"]; ok && wire.Type(d) != "string" {
			t.violate(w, "%s: description is %s, want a string", what, describeType(d))
		}
	}
	return t.finding(fmt.Sprintf("%d tool(s), each with a name and an inputSchema", t.n), "the server lists no tools")
}

func checkInputSchemas(j *J) Finding {
	t := &tally{}
	strict := wire.AtLeast(j.Version, wire.V20251125)
	eachTool(j, func(m map[string]json.RawMessage, what string, w *Where) {
		raw, ok := m["inputSchema"]
		if m == nil || !ok {
			return // tools-list-item-fields judges a missing one
		}
		t.judged()
		schema := wire.Object(raw)
		if schema == nil {
			t.violate(w, "%s: inputSchema is %s, want a JSON Schema object", what, describeType(raw))
			return
		}
		if typ, _ := wire.String(schema["type"]); typ != "object" {
			t.violate(w, "%s: inputSchema.type is %s, want \"object\"", what, clipJSON(schema["type"], 40))
			return
		}
		if !strict {
			return
		}
		if err := compileSchema(raw); err != nil {
			if url, ok := notFetched(err); ok {
				t.record(w, "%s: inputSchema refers to %s, which the suite does not fetch: not judged further", what, clipString(url, 80))
				return
			}
			t.violate(w, "%s: inputSchema is not a valid JSON Schema: %s", what, clipString(schemaProblem(err), 240))
		}
	})
	return t.finding(fmt.Sprintf("%d inputSchema(s) of type object", t.n), "the server lists no tools")
}

// notFetched reports whether compiling failed only for a document the
// suite refused to fetch, and which.
func notFetched(err error) (string, bool) {
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) {
		return load.URL, true
	}
	var u *unloadable
	if errors.As(err, &u) {
		return u.url, true
	}
	return "", false
}

// unloadable is a reference to a document the suite does not fetch.
type unloadable struct{ url string }

func (u *unloadable) Error() string { return "not fetched: " + u.url }

// noFetch refuses every external document: a schema is judged as
// written, and the suite never reaches out to the network.
type noFetch struct{}

func (noFetch) Load(url string) (any, error) { return nil, &unloadable{url: url} }

// compileSchema compiles a schema as its dialect says (2020-12 when it
// names none), with every external reference refused.
func compileSchema(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noFetch{})
	const loc = "mcpconform:///inputSchema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return err
	}
	_, err = c.Compile(loc)
	return err
}

// schemaProblem says what the meta-schema found wrong: the innermost
// causes of the error, at most three ("at '/required': got string, want
// array").
func schemaProblem(err error) string {
	type row struct {
		depth int
		text  string
	}
	var rows []row
	for _, l := range strings.Split(err.Error(), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if text, ok := strings.CutPrefix(trimmed, "- "); ok {
			rows = append(rows, row{len(l) - len(trimmed), text})
		}
	}
	var leaves []string
	for i, r := range rows {
		if (i+1 == len(rows) || rows[i+1].depth <= r.depth) && len(leaves) < 3 {
			leaves = append(leaves, r.text)
		}
	}
	if len(leaves) == 0 {
		s, _, _ := strings.Cut(err.Error(), "\n")
		return s
	}
	return strings.Join(leaves, "; ")
}

// toolName is the syntax 2025-11-25 recommends for tool names.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func checkToolNames(j *J) Finding {
	t := &tally{}
	eachTool(j, func(m map[string]json.RawMessage, what string, w *Where) {
		name, ok := wire.String(m["name"])
		if !ok {
			return // tools-list-item-fields judges it
		}
		t.judged()
		switch {
		case name == "":
			t.violate(w, "a tool has the empty name")
		case len(name) > 128:
			t.violate(w, "%s: the name is %d characters long, over 128", what, len(name))
		case !toolName.MatchString(name):
			t.violate(w, "%s: the name holds characters other than ASCII letters, digits, _, - and .", what)
		}
	})
	return t.finding(fmt.Sprintf("%d tool name(s) of the recommended syntax", t.n), "the server lists no tools")
}
