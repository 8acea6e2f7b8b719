package mockserver

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mcpconform/mcpconform/wire"
)

// placeholder is a {{name}} in a prompt message or a tool's format.
var placeholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// placeholders lists the names of the {{name}} placeholders of text.
func placeholders(text string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// fill replaces each {{name}} of text with value(name).
func fill(text string, value func(name string) string) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		return value(m[2 : len(m)-2])
	})
}

// findPrompt finds a prompt by name; the first of several wins.
func (s *server) findPrompt(name string) *Prompt {
	for _, p := range s.prompts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// listPrompts answers prompts/list: a prompts array (PROMPTS-04) of
// prompts with a name (PROMPTS-06), paged like resources/list.
func (s *server) listPrompts(params json.RawMessage) (any, *rpcError) {
	pg, rerr := s.page(listPrompts, params, len(s.prompts), s.cat.pagePrm)
	if rerr != nil {
		return nil, rerr
	}
	items := make([]any, 0, pg.end-pg.start)
	for i := pg.start; i < pg.end; i++ {
		items = append(items, s.promptJSON(s.prompts[i], i == 0))
	}
	if pg.start == 0 && len(items) > 0 && s.faults.has("duplicate-prompt-names") {
		// A second entry under the first prompt's name, on the same page.
		dup := s.promptJSON(s.prompts[0], false)
		dup["description"] = "Listed a second time under the same name."
		items = append(items, dup)
	}
	result := object{"prompts": items}
	if s.faults.has("prompts-not-array") {
		byName := object{}
		for i := pg.start; i < pg.end; i++ {
			byName[s.prompts[i].Name] = items[i-pg.start]
		}
		result["prompts"] = byName
	}
	pg.addTo(result)
	return result, nil
}

// promptJSON renders a Prompt for the version served: title exists from
// 2025-06-18. first marks the first prompt of the list, which the list
// faults pick on.
func (s *server) promptJSON(p *Prompt, first bool) object {
	o := object{"name": p.Name}
	if p.Title != "" && s.atLeast(v20250618) {
		o["title"] = p.Title
	}
	if p.Description != "" {
		o["description"] = p.Description
	}
	if len(p.Arguments) > 0 {
		args := make([]any, 0, len(p.Arguments))
		for _, a := range p.Arguments {
			ao := object{"name": a.Name}
			if a.Description != "" {
				ao["description"] = a.Description
			}
			if a.Required {
				ao["required"] = true
			}
			args = append(args, ao)
		}
		o["arguments"] = args
	}
	if first && s.faults.has("prompt-no-name") {
		delete(o, "name")
	}
	if first && s.faults.has("prompt-title-not-string") && s.atLeast(v20250618) {
		o["title"] = 7
	}
	return o
}

// getPrompt answers prompts/get: "Servers SHOULD return standard JSON-RPC
// errors for common failure cases: Invalid prompt name: -32602 (Invalid
// params); Missing required arguments: -32602 (Invalid params)" (PROMPTS-14,
// PROMPTS-15). An optional argument left out fills its placeholders with "".
func (s *server) getPrompt(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      *string           `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Name == nil {
		return nil, invalidParams("Invalid params: prompts/get needs name, a string, and optional arguments, an object of strings.")
	}
	name := *p.Name
	pr := s.findPrompt(name)
	if pr == nil {
		if s.faults.has("unknown-prompt-result") {
			return object{"messages": []any{}}, nil
		}
		return nil, &rpcError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("Unknown prompt %q.", short(name)), Data: object{"name": name}}
	}
	for _, a := range pr.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok && !s.faults.has("prompt-missing-argument-accepted") {
			return nil, &rpcError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("Missing required argument %q of prompt %q.", short(a.Name), short(name)),
				Data: object{"name": name, "argument": a.Name}}
		}
	}
	if s.askInput("prompts/get", name, params) {
		return object{}, nil
	}
	msgs := make([]any, 0, len(pr.Messages))
	for i, m := range pr.Messages {
		var content any
		switch {
		case m.Image != nil:
			content = object{"type": "image", "data": m.Image.Data, "mimeType": m.Image.MimeType}
		case m.Audio != nil && !s.atLeast(v20250326):
			continue // 2024-11-05 has no audio content
		case m.Audio != nil:
			content = object{"type": "audio", "data": m.Audio.Data, "mimeType": m.Audio.MimeType}
		default:
			content = object{"type": "text", "text": fill(m.Text, func(arg string) string { return p.Arguments[arg] })}
		}
		role := m.Role
		if i == 0 && s.faults.has("prompt-content-array") {
			content = []any{content}
		}
		if i == 0 && s.faults.has("prompt-bad-role") {
			role = "system"
		}
		msgs = append(msgs, object{"role": role, "content": content})
	}
	if s.faults.has("prompt-image-bad-data") {
		// An image message whose data is not base64 and whose MIME type
		// has no subtype.
		msgs = append(msgs, object{"role": "user", "content": object{"type": "image", "data": "not base64!", "mimeType": "png"}})
	}
	result := object{"messages": msgs}
	if s.faults.has("prompt-no-messages") {
		delete(result, "messages")
	}
	if pr.Description != "" {
		result["description"] = pr.Description
	}
	return result, nil
}
