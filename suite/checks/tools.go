package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// toolsChecks judge tools/list and the tools it lists (TOOLS-*), from the
// walk discovery made when the server declared tools. Tools are called
// only at the end of the shared session, and only those the --call-tools
// policy allows (toolCallChecks): calling one may change the server's
// world.
func toolsChecks() []*Check {
	return []*Check{
		{
			ID: "tools-list-result-shape", Requirement: "TOOLS-04", Area: "tools",
			Description: "every tools/list page is a result with a tools array",
			Requires:    []string{"tools"},
			Judge:       func(j *J) Finding { return listPages(j.Version, j.Session.Tools(), true) },
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
		{
			ID: "tools-list-changed-only-if-declared", Requirement: "TOOLS-28", Area: "tools",
			Description: "notifications/tools/list_changed comes only after the server declared tools.listChanged (2026-07-28: only on a listen stream that asked for toolsListChanged)",
			Needs:       []plan.Probe{plan.ProbeToolCall, plan.ProbeListenHeld},
			Requires:    []string{"tools"},
			Trigger:     "a tool list that changes during the run: a tool call that changes it (only tools --call-tools allows are called; the reference server's enable_extras does), or a change from outside the session",
			Judge:       func(j *J) Finding { return listChangedDeclared(j, "tools") },
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
		if _, err := plan.CompileSchema(raw); err != nil {
			if url, ok := plan.NotFetched(err); ok {
				t.record(w, "%s: inputSchema refers to %s, which the suite does not fetch: not judged further", what, clipString(url, 80))
				return
			}
			t.violate(w, "%s: inputSchema is not a valid JSON Schema: %s", what, clipString(plan.SchemaProblem(err), 240))
		}
	})
	return t.finding(fmt.Sprintf("%d inputSchema(s) of type object", t.n), "the server lists no tools")
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

// toolCallChecks judge the results of the tools the suite called (only
// those the --call-tools policy allows: by default the ones annotated
// readOnlyHint: true), and the tools' own declarations that only matter
// to a caller (outputSchema, annotations, title).
func toolCallChecks() []*Check {
	return []*Check{
		{
			ID: "tools-call-result-shape", Requirement: "TOOLS-18", Area: "tools",
			Description: "every tools/call result has a content array of blocks of types the version defines; isError, when present, is a boolean",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkToolResultShape,
		},
		{
			ID: "tools-call-text-blocks", Requirement: "TOOLS-19", Area: "tools",
			Description: "every text block of a tools/call result has a string text",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkToolTextBlocks,
		},
		{
			ID: "tools-call-binary-blocks", Requirement: "TOOLS-20", Area: "tools",
			Description: "every image or audio block of a tools/call result has strict base64 data and a string mimeType",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkToolBinaryBlocks,
		},
		{
			ID: "tools-structured-content-type", Requirement: "TOOLS-24", Area: "tools",
			Description: "structuredContent, when a tools/call result has it, is a JSON object",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Versions:    []string{wire.V20250618, wire.V20251125},
			Judge:       checkStructuredType,
		},
		{
			ID: "tools-structured-content-valid", Requirement: "TOOLS-25", Area: "tools",
			Description: "a tool that declares an outputSchema returns structuredContent valid against it (unless the result is an error)",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkStructuredValid,
		},
		{
			ID: "tools-structured-content-text", Requirement: "TOOLS-26", Area: "tools",
			Description: "a tools/call result with structuredContent also has a text block holding the same JSON",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkStructuredText,
		},
		{
			ID: "tools-call-invalid-arguments", Requirement: "TOOLS-22", Area: "tools",
			Description: "a tools/call whose arguments break the tool's inputSchema, when refused, is refused as the version says: a JSON-RPC error up to 2025-06-18, a result with isError true (or an error) from 2025-11-25",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkInvalidArguments,
		},
		{
			ID: "tools-call-validates-input", Requirement: "TOOLS-29", Area: "tools",
			Description: "a tools/call whose arguments break the tool's own inputSchema does not run the tool to a result without isError (Validate all tool inputs); only with --call-tools selecting the tool",
			Needs:       []plan.Probe{plan.ProbeToolCall},
			Requires:    []string{"tools"},
			Judge:       checkValidatesInput,
		},
		{
			ID: "tools-output-schema", Requirement: "TOOLS-08", Area: "tools",
			Description: `every outputSchema is a JSON Schema object; up to 2025-11-25 of type "object", with properties an object and required an array of strings when present`,
			Requires:    []string{"tools"},
			Judge:       checkOutputSchemas,
		},
		{
			ID: "tools-annotations", Requirement: "TOOLS-10", Area: "tools",
			Description: "every tool's annotations, when present, is an object whose title is a string and whose hints are booleans",
			Requires:    []string{"tools"},
			Judge:       checkToolAnnotations,
		},
		{
			ID: "tools-title", Requirement: "TOOLS-09", Area: "tools",
			Description: "every tool's title, when present, is a string",
			Requires:    []string{"tools"},
			Judge:       checkToolTitles,
		},
	}
}

// eachToolResult calls f with every tools/call the suite made that got a
// result, as the call came to after the suite's retries: a
// CallToolResult. An error answer is legal (the tool may fail on the
// arguments the suite built): with record set it is recorded. A result of
// another kind (input_required, a task) is judged by the checks of that
// kind. Silence is left to every-request-answered.
func eachToolResult(j *J, t *tally, record bool, f func(c *evidence.ToolCall, res map[string]json.RawMessage, w *Where)) {
	for _, c := range j.Session.ToolCalls() {
		x := c.X
		if x.Stopped() || !x.OK() {
			continue
		}
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		if !x.Response.Has("result") {
			if record && !c.Invalid {
				t.judged()
				t.record(w, "tool %q: an error: %s", clipString(c.Name, 60), clipJSON(x.Response.Error, 160))
			}
			continue
		}
		res := wire.Object(x.Response.Result)
		if res == nil {
			continue // judged by jsonrpc-result-object
		}
		if evidence.Complete(j.Version, x) == nil {
			t.unexercise("%s", notComplete(j.Version, x, len(c.Earlier)))
			continue
		}
		f(c, res, w)
	}
}

// eachBlock calls f with every content block of every tools/call result.
func eachBlock(j *J, t *tally, f func(c *evidence.ToolCall, k int, b map[string]json.RawMessage, w *Where)) {
	eachToolResult(j, t, false, func(c *evidence.ToolCall, res map[string]json.RawMessage, w *Where) {
		blocks, _ := wire.Array(res["content"])
		for k, raw := range blocks {
			if b := wire.Object(raw); b != nil {
				f(c, k, b, w)
			}
		}
	})
}

func checkToolResultShape(j *J) Finding {
	t := &tally{}
	types := promptContentTypes(j.Version)
	eachToolResult(j, t, true, func(c *evidence.ToolCall, res map[string]json.RawMessage, w *Where) {
		t.judged()
		what := fmt.Sprintf("tool %q", clipString(c.Name, 60))
		if e, ok := res["isError"]; ok && wire.Type(e) != "boolean" {
			t.violate(w, "%s: isError is %s, want a boolean", what, describeType(e))
		}
		blocks, ok := wire.Array(res["content"])
		if !ok {
			t.violate(w, "%s: content is %s, want an array of content blocks", what, describeType(res["content"]))
			return
		}
		for k, raw := range blocks {
			b := wire.Object(raw)
			if b == nil {
				t.violate(w, "%s: content[%d] is %s, want a content block (an object)", what, k, describeType(raw))
				continue
			}
			if typ, _ := wire.String(b["type"]); !slices.Contains(types, typ) {
				t.violate(w, "%s: content[%d] has the type %s, which %s does not define (it has %v)", what, k, clipJSON(b["type"], 40), j.Version, types)
			}
		}
	})
	return t.finding(fmt.Sprintf("%d tools/call result(s), each with a content array of known block types", t.n), noToolResult(j, "no tools/call answered with a result"))
}

func checkToolTextBlocks(j *J) Finding {
	t := &tally{}
	eachBlock(j, t, func(c *evidence.ToolCall, k int, b map[string]json.RawMessage, w *Where) {
		if typ, _ := wire.String(b["type"]); typ != "text" {
			return
		}
		t.judged()
		if _, ok := wire.String(b["text"]); !ok {
			t.violate(w, "tool %q: content[%d] is a text block whose text is %s, want a string", clipString(c.Name, 60), k, describeType(b["text"]))
		}
	})
	return t.finding(fmt.Sprintf("%d text block(s), each with a string text", t.n), noToolResult(j, "no tools/call result held a text block"))
}

func checkToolBinaryBlocks(j *J) Finding {
	t := &tally{}
	eachBlock(j, t, func(c *evidence.ToolCall, k int, b map[string]json.RawMessage, w *Where) {
		typ, _ := wire.String(b["type"])
		if typ != "image" && typ != "audio" {
			return
		}
		t.judged()
		at := fmt.Sprintf("tool %q: content[%d] (%s)", clipString(c.Name, 60), k, typ)
		checkBase64Data(t, w, at, b["data"])
		if _, ok := wire.String(b["mimeType"]); !ok {
			t.violate(w, "%s: mimeType is %s, want a string", at, describeType(b["mimeType"]))
		}
	})
	return t.finding(fmt.Sprintf("%d image or audio block(s), each with base64 data and a mimeType", t.n), noToolResult(j, "no tools/call result held an image or audio block"))
}

// eachStructured calls f with every tools/call result that holds
// structuredContent, counted as judged.
func eachStructured(j *J, t *tally, f func(c *evidence.ToolCall, res map[string]json.RawMessage, sc json.RawMessage, w *Where)) {
	eachToolResult(j, t, false, func(c *evidence.ToolCall, res map[string]json.RawMessage, w *Where) {
		if sc, ok := res["structuredContent"]; ok {
			t.judged()
			f(c, res, sc, w)
		}
	})
}

func checkStructuredType(j *J) Finding {
	t := &tally{}
	eachStructured(j, t, func(c *evidence.ToolCall, _ map[string]json.RawMessage, sc json.RawMessage, w *Where) {
		if wire.Object(sc) == nil {
			t.violate(w, "tool %q: structuredContent is %s, want an object", clipString(c.Name, 60), describeType(sc))
		}
	})
	return t.finding(fmt.Sprintf("%d structuredContent value(s), each an object", t.n), noToolResult(j, "no tools/call result held structuredContent"))
}

func checkStructuredValid(j *J) Finding {
	t := &tally{}
	eachToolResult(j, t, false, func(c *evidence.ToolCall, res map[string]json.RawMessage, w *Where) {
		schema, ok := wire.Object(c.Item)["outputSchema"]
		if !ok || c.Invalid || string(res["isError"]) == "true" {
			return
		}
		what := fmt.Sprintf("tool %q", clipString(c.Name, 60))
		sch, err := plan.CompileSchema(schema)
		if err != nil {
			t.judged()
			t.record(w, "%s: its outputSchema does not compile (%s): not judged", what, clipString(plan.SchemaProblem(err), 160))
			return
		}
		t.judged()
		sc, ok := res["structuredContent"]
		if !ok {
			t.violate(w, "%s declares an outputSchema, and its result has no structuredContent", what)
			return
		}
		v, err := plan.DecodeSchemaValue(sc)
		if err == nil {
			err = sch.Validate(v)
		}
		if err != nil {
			t.violate(w, "%s: structuredContent does not conform to its outputSchema: %s", what, clipString(plan.SchemaProblem(err), 240))
		}
	})
	return t.finding(fmt.Sprintf("%d structured result(s), each valid against its outputSchema", t.n), noToolResult(j, "no tool with an outputSchema was called, or none answered with a result"))
}

func checkStructuredText(j *J) Finding {
	t := &tally{}
	eachStructured(j, t, func(c *evidence.ToolCall, res map[string]json.RawMessage, sc json.RawMessage, w *Where) {
		blocks, _ := wire.Array(res["content"])
		for _, raw := range blocks {
			b := wire.Object(raw)
			if typ, _ := wire.String(b["type"]); typ != "text" {
				continue
			}
			if text, ok := wire.String(b["text"]); ok && json.Valid([]byte(text)) && wire.Equal(json.RawMessage(text), sc) {
				return
			}
		}
		t.violate(w, "tool %q returns structuredContent, and no text block holds the same JSON", clipString(c.Name, 60))
	})
	return t.finding(fmt.Sprintf("%d structured result(s), each also serialised in a text block", t.n), noToolResult(j, "no tools/call result held structuredContent"))
}

// eachInvalidCall calls f with every call the suite made with arguments
// it broke against the tool's inputSchema that was sent and not stopped
// by the run, as it came to after the suite's retries, with where it was
// and what it sent. A call answered with another kind of result than a
// CallToolResult (input_required still, after the retries; a task) was
// neither refused nor run: it is not judged, and t says why.
func eachInvalidCall(j *J, t *tally, f func(c *evidence.ToolCall, w *Where, what string)) {
	for _, c := range j.Session.ToolCalls() {
		x := c.X
		if !c.Invalid || x.Stopped() || x.NotSent() {
			continue
		}
		if x.Result() != nil && evidence.Complete(j.Version, x) == nil {
			t.unexercise("%s", notComplete(j.Version, x, len(c.Earlier)))
			continue
		}
		w := At(x.Process, max(x.RecvSeq, x.SentSeq))
		f(c, w, fmt.Sprintf("tool %q called with %s", clipString(c.Name, 60), clipJSON(argumentsOf(x), 120)))
	}
}

// checkInvalidArguments judges how a call with arguments breaking the
// tool's inputSchema was refused; whether it was refused at all is
// tools-call-validates-input's (TOOLS-29).
func checkInvalidArguments(j *J) Finding {
	t := &tally{}
	protocolError := !wire.AtLeast(j.Version, wire.V20251125)
	ran := 0
	eachInvalidCall(j, t, func(c *evidence.ToolCall, w *Where, what string) {
		x := c.X
		switch {
		case x.Response == nil:
			// Silence or an exit: nothing refused, nothing to judge here.
		case !refused(x):
			ran++
		case x.Response.Has("error"):
			t.judged() // a protocol error refuses the call in every version
		case string(wire.Object(x.Response.Result)["isError"]) == "true":
			t.judged()
			if protocolError {
				t.record(w, "%s: a tool result with isError true; %s calls invalid arguments a protocol error", what, j.Version)
			}
		}
	})
	nothing := noToolResult(j, "no tool the suite called has an inputSchema it could break")
	if ran > 0 {
		nothing = fmt.Sprintf("no call with broken arguments was refused (%d ran): tools-call-validates-input (TOOLS-29) judges that", ran)
	}
	return t.finding(fmt.Sprintf("%d call(s) with arguments breaking the inputSchema, each refused in the form %s uses", t.n, j.Version), nothing)
}

// checkValidatesInput judges whether the server refused the call the
// suite made with arguments it broke against the tool's own inputSchema:
// "Servers MUST: Validate all tool inputs". A finished result without
// isError means the tool ran on input it should have refused.
func checkValidatesInput(j *J) Finding {
	t := &tally{}
	eachInvalidCall(j, t, func(c *evidence.ToolCall, w *Where, what string) {
		x := c.X
		t.judged()
		switch {
		case x.Response == nil:
			if why, ok := timedOut(x); ok {
				t.undecide(w, "%s: %s", what, why)
			}
			// An exit is judged by the checks of the process's end.
		case refused(x):
		default:
			t.violate(w, "%s: the tool ran and succeeded (a result without isError) on arguments that break its inputSchema", what)
		}
	})
	return t.finding(fmt.Sprintf("%d call(s) with arguments breaking the inputSchema, each refused", t.n), noToolResult(j, "no tool the suite called has an inputSchema it could break"))
}

func argumentsOf(x *evidence.Exchange) json.RawMessage {
	if x.Request == nil {
		return nil
	}
	return wire.Object(x.Request.Params)["arguments"]
}

// NoToolCalled is the reason a check of tool results gives when the
// policy let the suite call no tool.
const NoToolCalled = "no tool called: --call-tools none; pass --call-tools readonly|all|NAMES to judge tool results"

// noToolResult says why a check of tool results judged nothing: when the
// suite called no listed tool, what kept it from calling them (the
// --call-tools policy, or no tools listed); otherwise why.
func noToolResult(j *J, why string) string {
	switch {
	case len(j.Session.ToolCalls()) > 0:
		return why
	case len(j.Session.Tools().Items) == 0:
		return "the server lists no tools"
	}
	p := plan.RecordedToolPolicy(j.Run.CallTools)
	if p.String() == plan.CallNone {
		return NoToolCalled
	}
	return fmt.Sprintf("no listed tool was called (--call-tools %s)", p)
}

func checkOutputSchemas(j *J) Finding {
	t := &tally{}
	modern := wire.AtLeast(j.Version, wire.V20260728)
	eachTool(j, func(m map[string]json.RawMessage, what string, w *Where) {
		raw, ok := m["outputSchema"]
		if m == nil || !ok {
			return
		}
		t.judged()
		schema := wire.Object(raw)
		if schema == nil {
			t.violate(w, "%s: outputSchema is %s, want a JSON Schema object", what, describeType(raw))
			return
		}
		if modern {
			return // any schema object, whatever its root type
		}
		if typ, _ := wire.String(schema["type"]); typ != "object" {
			t.violate(w, "%s: outputSchema.type is %s, want \"object\"", what, clipJSON(schema["type"], 40))
		}
		if p, ok := schema["properties"]; ok && wire.Object(p) == nil {
			t.violate(w, "%s: outputSchema.properties is %s, want an object", what, describeType(p))
		}
		if r, ok := schema["required"]; ok {
			names, isArray := wire.Array(r)
			for _, n := range names {
				isArray = isArray && wire.Type(n) == "string"
			}
			if !isArray {
				t.violate(w, "%s: outputSchema.required is %s, want an array of strings", what, clipJSON(r, 60))
			}
		}
	})
	return t.finding(fmt.Sprintf("%d outputSchema(s) of the version's shape", t.n), "no listed tool has an outputSchema")
}

// toolHints are the boolean hints of ToolAnnotations.
var toolHints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

func checkToolAnnotations(j *J) Finding {
	t := &tally{}
	eachTool(j, func(m map[string]json.RawMessage, what string, w *Where) {
		raw, ok := m["annotations"]
		if m == nil || !ok {
			return
		}
		t.judged()
		a := wire.Object(raw)
		if a == nil {
			t.violate(w, "%s: annotations is %s, want an object", what, describeType(raw))
			return
		}
		if v, ok := a["title"]; ok && wire.Type(v) != "string" {
			t.violate(w, "%s: annotations.title is %s, want a string", what, describeType(v))
		}
		for _, h := range toolHints {
			if v, ok := a[h]; ok && wire.Type(v) != "boolean" {
				t.violate(w, "%s: annotations.%s is %s, want a boolean", what, h, describeType(v))
			}
		}
	})
	return t.finding(fmt.Sprintf("%d tool annotation object(s) of the right types", t.n), "no listed tool has annotations")
}

func checkToolTitles(j *J) Finding {
	t := &tally{}
	eachTool(j, func(m map[string]json.RawMessage, what string, w *Where) {
		raw, ok := m["title"]
		if m == nil || !ok {
			return
		}
		t.judged()
		if wire.Type(raw) != "string" {
			t.violate(w, "%s: title is %s, want a string", what, describeType(raw))
		}
	})
	return t.finding(fmt.Sprintf("%d tool title(s), each a string", t.n), "no listed tool has a title")
}

// ToolCallsOf says, for every tool listed in each session of the run,
// whether the run called it and, when it did not, why (the policy, or a
// schema the suite could not fill in safely).
func ToolCallsOf(run *evidence.Run) []reports.ToolCall {
	p := plan.RecordedToolPolicy(run.CallTools)
	var out []reports.ToolCall
	for _, v := range run.Versions {
		s := run.Session(v)
		if s == nil {
			continue
		}
		called, unanswered := map[string]bool{}, map[string]string{}
		for _, c := range s.ToolCalls() {
			if c.Invalid {
				continue
			}
			called[c.Name] = true
			if why, ok := timedOut(c.X); ok {
				unanswered[c.Name] = "called, but " + strings.TrimPrefix(why, "not judged: ") + ": its result was not judged"
			}
		}
		items := s.Tools().Items
		for i := range items {
			name, _, why := plan.ToolCallAmong(items, i, p)
			if name == "" {
				continue
			}
			tc := reports.ToolCall{Name: name, ProtocolVersion: v, Called: called[name], Why: unanswered[name]}
			if !tc.Called {
				if why == "" {
					why = "not reached (the session ended, or the budget of calls was spent)"
				}
				tc.Why = why
				// What --call-tools readonly would do, so that a default
				// run tells how to have the tool judged.
				_, args, _ := plan.ToolCallAmong(items, i, plan.ToolPolicy{Mode: plan.CallReadOnly})
				tc.WouldCallReadonly = p.Mode != plan.CallReadOnly && args != nil
			}
			out = append(out, tc)
		}
	}
	return out
}
