package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// toolEntry is a tool of the fixture, ready to be called.
type toolEntry struct {
	Tool
	input    *jsonschema.Schema // validates the arguments of every call
	rule     string
	format   string
	progress int // notifications/progress for a call with a token
}

// badToolName is the name bad-tool-name gives the first tool: a space and
// a "!", outside the syntax 2025-11-25 recommends (TOOLS-12).
const badToolName = "echo text!"

// toolName is the name a tool is listed and called by in the version
// served.
func (s *server) toolName(t *toolEntry) string {
	if len(s.tools) > 0 && t == s.tools[0] && s.faults.has("bad-tool-name") && s.atLeast(v20251125) {
		return badToolName
	}
	if len(s.tools) > 0 && t == s.tools[0] && s.faults.has("ci-commands") {
		return "::error::" + t.Name
	}
	return t.Name
}

// findTool finds a tool by the name it is listed under; the first of
// several wins.
func (s *server) findTool(name string) *toolEntry {
	for _, t := range s.tools {
		if s.toolName(t) == name {
			return t
		}
	}
	return nil
}

// listTools answers tools/list: a tools array (TOOLS-04) of tools with a
// name and an inputSchema (TOOLS-06, TOOLS-07), paged like resources/list.
func (s *server) listTools(params json.RawMessage) (any, *rpcError) {
	pg, rerr := s.page(listTools, params, len(s.tools), s.cat.pageTools)
	if rerr != nil {
		return nil, rerr
	}
	items := make([]any, 0, pg.end-pg.start)
	for i := pg.start; i < pg.end; i++ {
		items = append(items, s.toolJSON(s.tools[i], i == 0))
	}
	if pg.start == 0 && len(items) > 0 && s.faults.has("duplicate-tool-names") {
		// A second entry under the first tool's name, on the same page,
		// said to destroy what the first only reads: a client that calls
		// by name cannot know which one runs.
		dup := s.toolJSON(s.tools[0], false)
		dup["description"] = "Listed a second time under the same name."
		if s.atLeast(v20250326) {
			dup["annotations"] = object{"readOnlyHint": false, "destructiveHint": true}
		}
		items = append(items, dup)
	}
	result := object{"tools": items}
	if s.faults.has("tools-not-array") {
		byName := object{}
		for i := pg.start; i < pg.end; i++ {
			byName[s.toolName(s.tools[i])] = items[i-pg.start]
		}
		result["tools"] = byName
	}
	pg.addTo(result)
	return result, nil
}

// toolJSON renders a Tool for the version served: annotations exist from
// 2025-03-26, title and outputSchema from 2025-06-18. first marks the
// first tool of the list, which the list faults pick on.
func (s *server) toolJSON(t *toolEntry, first bool) object {
	o := object{"name": s.toolName(t), "inputSchema": t.InputSchema}
	if t.Title != "" && s.atLeast(v20250618) {
		o["title"] = t.Title
	}
	if t.Description != "" {
		o["description"] = t.Description
	}
	if len(t.OutputSchema) > 0 && s.atLeast(v20250618) {
		o["outputSchema"] = t.OutputSchema
	}
	if len(t.Annotations) > 0 && s.atLeast(v20250326) {
		o["annotations"] = t.Annotations
	}
	if first && s.faults.has("tool-title-not-string") && s.atLeast(v20250618) {
		o["title"] = 7
	}
	if first && s.faults.has("tool-annotations-bad-hint") && s.atLeast(v20250326) {
		o["annotations"] = object{"readOnlyHint": "yes"}
	}
	if _, ok := o["outputSchema"]; ok && s.faults.has("output-schema-bad-required") {
		o["outputSchema"] = object{"type": "object", "properties": object{"sum": object{"type": "number"}}, "required": "sum"}
	}
	if first && s.faults.has("tool-no-input-schema") {
		delete(o, "inputSchema")
	}
	if first && s.faults.has("tool-input-schema-not-object") {
		o["inputSchema"] = object{"type": "string"}
	}
	return o
}

// callTool answers tools/call. A request that does not have the shape of
// CallToolRequest and an unknown tool are protocol errors (-32602);
// arguments that break the tool's inputSchema are -32602 up to 2025-06-18
// ("Invalid arguments" is a protocol error there) and a tool execution
// error from 2025-11-25 ("Input validation errors" are reported "in tool
// results with isError: true").
func (s *server) callTool(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Name == nil {
		return nil, invalidParams("Invalid params: tools/call needs name, a string.")
	}
	args := map[string]any{}
	if raw := bytes.TrimSpace(p.Arguments); len(raw) > 0 && string(raw) != "null" {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return nil, invalidParams("Invalid params: arguments must be an object.")
		}
		args = m
	}
	name := *p.Name
	t := s.findTool(name)
	if t == nil {
		return s.unknownTool(name)
	}
	if t.input != nil && !s.faults.has("tool-ignores-invalid-arguments") {
		if err := t.input.Validate(args); err != nil {
			msg := fmt.Sprintf("Invalid arguments for tool %q: %s.", short(name), argumentProblem(args, err))
			if s.atLeast(v20251125) {
				return toolResult(msg, true), nil
			}
			return nil, &rpcError{Code: wire.CodeInvalidParams, Message: msg}
		}
	}
	if s.askInput("tools/call", name, params) {
		return object{}, nil
	}
	s.toolProgress(t, name, requestMeta(params)["progressToken"])
	return s.runTool(t, args), nil
}

// toolProgress queues the notifications/progress of a call of a tool that
// reports progress, when its request carried a progress token: progress 1
// to n of total n, each before the result ("Progress notifications MUST
// only reference tokens that: Were provided in an active request"), each
// higher than the last ("The progress value MUST increase with each
// notification"). The progress faults break one of those.
func (s *server) toolProgress(t *toolEntry, name string, token json.RawMessage) {
	n := t.progress
	if n == 0 || !wire.IsIDLiteral(token) || s.variants.has("progress-notifications") {
		// Under progress-notifications the request has its progress
		// already: one reporter per request, or the values would repeat.
		return
	}
	if s.faults.has("progress-unknown-token") {
		token = marshal("mock-other-" + strings.Trim(string(token), `"`))
	}
	for i := 1; i <= n; i++ {
		var progress any = s.fraction(float64(i))
		switch {
		case s.faults.has("progress-decreasing"):
			progress = s.fraction(float64(n + 1 - i))
		case s.faults.has("progress-not-number"):
			progress = fmt.Sprintf("%d/%d", i, n)
		}
		params := object{"progressToken": token, "progress": progress, "total": s.fraction(float64(n))}
		if s.atLeast(v20250326) {
			params["message"] = fmt.Sprintf("%s: step %d of %d", short(name), i, n)
		}
		m := &outMsg{kind: kindNotification, method: "notifications/progress", params: s.dressParams(params)}
		if i == n && s.faults.has("progress-after-response") {
			s.pending = append(s.pending, m) // after the response
			continue
		}
		s.pre = append(s.pre, m)
	}
}

// unknownTool answers a call of a tool the server does not have: -32602
// naming it, as the tools page's example does ("Unknown tool:
// invalid_tool_name"), unless a fault or variant says otherwise (TOOLS-21).
func (s *server) unknownTool(name string) (any, *rpcError) {
	switch {
	case s.faults.has("unknown-tool-result"):
		return toolResult("unknown tool", true), nil
	case s.variants.has("unknown-tool-other-error"):
		return nil, &rpcError{Code: wire.CodeMethodNotFound, Message: fmt.Sprintf("Unknown tool %q: no such tool to call.", short(name)), Data: object{"name": name}}
	}
	return nil, &rpcError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("Unknown tool %q.", short(name)), Data: object{"name": name}}
}

// runTool applies a tool's call rule to arguments that passed its
// inputSchema, then the result faults and variants.
func (s *server) runTool(t *toolEntry, args map[string]any) object {
	if t.Name == purgeTool && s.variants.has("readonly-hint-untrue") {
		// What a client that trusted the annotation would have done.
		fmt.Fprintf(s.errOut, "mockserver: %s ran: every note deleted (readonly-hint-untrue)\n", purgeTool)
	}
	var result object
	switch t.rule {
	case CallSum:
		var sum float64
		for _, k := range slices.Sorted(maps.Keys(args)) {
			if n, ok := args[k].(json.Number); ok {
				f, _ := n.Float64()
				sum += f
			}
		}
		result = s.structuredResult(sum)
	case CallError:
		result = toolResult(fillArguments(t.format, args), true)
	case CallReveal:
		result = toolResult(s.reveal(), false)
	case CallImage:
		data := pixelPNG
		if s.faults.has("tool-image-bad-base64") {
			data = data[:20] + "\n" + data[20:]
		}
		result = object{"content": []any{object{"type": "image", "data": data, "mimeType": "image/png"}}}
	default:
		text := string(marshal(args))
		if t.format != "" {
			text = fillArguments(t.format, args)
		}
		result = toolResult(text, false)
	}
	if s.variants.has("tool-result-mixed-blocks") {
		result["content"] = append(result["content"].([]any), s.extraBlocks()...)
	}
	if s.faults.has("tool-text-not-string") {
		for _, b := range result["content"].([]any) {
			if b := b.(object); b["type"] == "text" {
				b["text"] = 42
			}
		}
	}
	if s.faults.has("tool-result-no-content") {
		delete(result, "content")
	}
	return result
}

// pixelPNG is a 1x1 transparent PNG, base64.
const pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// structuredResult is the sum rule's result: structuredContent {"sum": n}
// (from 2025-06-18, where it exists) and, as the tools page asks "for
// backwards compatibility", its JSON in a text block.
func (s *server) structuredResult(sum float64) object {
	var structured any = object{"sum": sum}
	text := string(marshal(structured))
	switch {
	case s.faults.has("structured-not-object"):
		structured = []any{sum}
		text = string(marshal(structured))
	case s.faults.has("structured-invalid"):
		structured = object{"sum": fmt.Sprint(sum)}
		text = string(marshal(structured))
	case s.faults.has("structured-no-text"):
		text = fmt.Sprintf("The sum is %v.", sum)
	case s.variants.has("structured-text-reformatted"):
		// The same JSON value, written differently: members spaced out
		// and the number with a fraction.
		text = fmt.Sprintf("{ \"sum\" : %.1f }", sum)
	}
	result := toolResult(text, false)
	if s.atLeast(v20250618) {
		result["structuredContent"] = structured
	}
	return result
}

// extraBlocks are the content blocks tool-result-mixed-blocks adds, each
// of a type the version defines: audio from 2025-03-26, resource_link from
// 2025-06-18, and an embedded resource in every version.
func (s *server) extraBlocks() []any {
	blocks := []any{object{"type": "resource", "resource": object{"uri": "test://mixed/embedded", "mimeType": "text/plain", "text": "embedded"}}}
	if s.atLeast(v20250326) {
		blocks = append(blocks, object{"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"})
	}
	if s.atLeast(v20250618) {
		blocks = append(blocks, object{"type": "resource_link", "uri": "test://mixed/linked", "name": "linked"})
	}
	return blocks
}

// toolResult is a CallToolResult holding one text block.
func toolResult(text string, isError bool) object {
	r := object{"content": []any{object{"type": "text", "text": text}}}
	if isError {
		r["isError"] = true
	}
	return r
}

// fillArguments replaces each {{name}} of format with the argument's
// value: a string as it is, anything else as JSON, a missing one as "".
func fillArguments(format string, args map[string]any) string {
	return fill(format, func(name string) string {
		switch v := args[name].(type) {
		case nil:
			return ""
		case string:
			return v
		default:
			return string(marshal(v))
		}
	})
}

// argumentProblem says, in a few words, why arguments break a tool's
// inputSchema: the first problem the validator found.
func argumentProblem(args map[string]any, err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	where := "arguments" + strings.TrimPrefix(jsonPath(args, ve.InstanceLocation), "$")
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		quoted := make([]string, len(k.Missing))
		for i, m := range k.Missing {
			quoted[i] = fmt.Sprintf("%q", short(m))
		}
		missing := strings.Join(quoted, ", ")
		switch {
		case len(ve.InstanceLocation) > 0:
			return where + " lacks the required " + missing
		case len(k.Missing) > 1:
			return "the required arguments " + missing + " are missing"
		}
		return "the required argument " + missing + " is missing"
	case *kind.Type:
		return fmt.Sprintf("%s is %s, want %s", where, k.Got, strings.Join(k.Want, " or "))
	}
	return where + ": " + ve.ErrorKind.LocalizedString(printer)
}

// reveal adds the fixture's hidden tools and prompts to their lists, once
// per list, and announces each change: in a handshake session with
// notifications/<kind>/list_changed when <kind>.listChanged is declared;
// in 2026-07-28 on each listen stream that asked for <kind>ListChanged.
// In 2026-07-28 a list changes only while such a stream is open: "MUST
// NOT vary ... as a side effect of other requests on the connection"
// otherwise (the tools and prompts pages). It returns the text of the
// call's result.
func (s *server) reveal() string {
	var changed []string
	for _, kind := range []string{"tools", "prompts"} {
		added := 0
		if s.req != nil && !slices.ContainsFunc(s.streams, func(st *stream) bool { return st.asked(kind) }) {
			continue
		}
		switch kind {
		case "tools":
			for _, t := range s.cat.tools {
				if t.Hidden && !slices.Contains(s.tools, t) {
					s.tools = append(s.tools, t)
					added++
				}
			}
		case "prompts":
			for _, p := range s.cat.prompts {
				if p.Hidden && !slices.Contains(s.prompts, p) {
					s.prompts = append(s.prompts, p)
					added++
				}
			}
		}
		if added == 0 {
			continue
		}
		changed = append(changed, fmt.Sprintf("%d %s", added, strings.TrimSuffix(kind, "s")+"(s)"))
		lc := s.declaredList(kind)
		if lc == nil || !lc.ListChanged {
			continue
		}
		method := "notifications/" + kind + "/list_changed"
		if s.req == nil {
			s.notify(method, nil)
		}
		for _, st := range s.streams {
			if st.asked(kind) {
				s.streamNotify(st, method, nil)
			}
		}
	}
	if len(changed) == 0 {
		return "Nothing more to enable."
	}
	return "Enabled " + strings.Join(changed, " and ") + "."
}
