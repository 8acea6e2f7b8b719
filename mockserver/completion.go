package mockserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// maxCompletionValues is the most values one CompleteResult may hold.
const maxCompletionValues = 100

// completionsDeclared reports whether the server declares completions in
// the version it serves: the capability exists from 2025-03-26, and
// 2024-11-05 serves completion/complete without one.
func (s *server) completionsDeclared() bool {
	if s.req == nil && s.faults.has("completion-bad-result") {
		return true
	}
	return s.cat.fx.Capabilities.Completions != nil && s.atLeast(v20250326) &&
		!s.faults.has("completion-undeclared-wrong-code") && !s.faults.has("undeclared-completions-served")
}

// completionServed reports whether completion/complete is on offer.
func (s *server) completionServed() bool {
	switch {
	case s.faults.has("completion-undeclared-wrong-code"):
		return true // only to refuse it with the wrong code
	case s.faults.has("undeclared-completions-served"):
		return s.cat.fx.Capabilities.Completions != nil
	}
	return s.completionsDeclared() || s.cat.fx.Capabilities.Completions != nil && !s.atLeast(v20250326)
}

// complete answers completion/complete: the values the fixture gives the
// prompt argument or template variable, those starting with the value
// typed (case-insensitively), at most 100. The arguments already resolved
// (context.arguments, from 2025-06-18) narrow them: a value already given
// to another argument is not offered again. An unknown prompt, template
// or argument is -32602, as the completion page lists for an invalid
// prompt name.
func (s *server) complete(params json.RawMessage) (any, *rpcError) {
	if s.faults.has("completion-undeclared-wrong-code") {
		return nil, invalidParams("Invalid params: completion is not supported.")
	}
	var p struct {
		Ref *struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument *struct {
			Name  *string `json:"name"`
			Value *string `json:"value"`
		} `json:"argument"`
		Context *completionContext `json:"context"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Ref == nil || p.Argument == nil || p.Argument.Name == nil || p.Argument.Value == nil {
		return nil, invalidParams("Invalid params: completion/complete needs ref and argument with name and value.")
	}
	if p.Context != nil && s.faults.has("completion-context-refused") {
		return nil, invalidParams("Invalid params: completion/complete does not take context.")
	}
	var candidates []string
	switch p.Ref.Type {
	case "ref/prompt":
		pr := s.findPrompt(p.Ref.Name)
		if pr == nil {
			if s.faults.has("completion-unknown-prompt-served") {
				return completionResult(nil, 0, false), nil
			}
			return nil, unknownEntity("Invalid params: no prompt named %q.", short(p.Ref.Name))
		}
		i := slices.IndexFunc(pr.Arguments, func(a PromptArgument) bool { return a.Name == *p.Argument.Name })
		if i < 0 {
			return nil, unknownEntity("Invalid params: prompt %q has no argument %q.", short(p.Ref.Name), short(*p.Argument.Name))
		}
		candidates = pr.Arguments[i].Completions
	case "ref/resource":
		te := s.findTemplateByText(p.Ref.URI)
		if te == nil {
			return nil, unknownEntity("Invalid params: no resource template %q.", short(p.Ref.URI))
		}
		if !slices.Contains(te.tmpl.Varnames(), *p.Argument.Name) {
			return nil, unknownEntity("Invalid params: template %q has no variable %q.", short(p.Ref.URI), short(*p.Argument.Name))
		}
		candidates = te.completions(*p.Argument.Name)
		if s.faults.has("completion-bad-result") {
			return object{"completion": object{"values": "none"}}, nil
		}
	default:
		return nil, invalidParams("Invalid params: unknown reference type %q.", short(p.Ref.Type))
	}
	var values []string
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(*p.Argument.Value)) && !resolvedElsewhere(c, *p.Argument.Name, p.Context) {
			values = append(values, c)
		}
	}
	total := len(values)
	switch {
	case s.faults.has("completion-too-many"):
		for i := len(values); i <= maxCompletionValues; i++ {
			values = append(values, fmt.Sprintf("%s-%d", *p.Argument.Name, i))
		}
		total = len(values)
	case s.variants.has("completion-has-more") && len(values) > 1:
		return completionResult(values[:1], total, true), nil
	case s.faults.has("completion-total-low") && total > 0:
		total--
	}
	if len(values) > maxCompletionValues && !s.faults.has("completion-too-many") {
		return completionResult(values[:maxCompletionValues], total, true), nil
	}
	return completionResult(values, total, false), nil
}

// unknownEntity is the -32602 for well-formed params naming something the
// server does not have (not malformed: invalid-params-internal leaves it).
func unknownEntity(format string, args ...any) *rpcError {
	return &rpcError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// completionResult is a CompleteResult.
func completionResult(values []string, total int, hasMore bool) object {
	if values == nil {
		values = []string{}
	}
	return object{"completion": object{"values": values, "total": total, "hasMore": hasMore}}
}

// findTemplateByText finds a listed template by its uriTemplate text.
func (s *server) findTemplateByText(tpl string) *templateEntry {
	for _, te := range s.templates {
		if te.URITemplate == tpl {
			return te
		}
	}
	return nil
}

// completions are the values offered for a variable of the template: the
// fixture's, or the keys of a table template's rows for its variable.
func (te *templateEntry) completions(variable string) []string {
	if vs, ok := te.Completions[variable]; ok {
		return vs
	}
	if te.Read.Rule == RuleTable && te.variable == variable {
		return slices.Sorted(maps.Keys(te.Read.Rows))
	}
	return nil
}

// completionContext is completion/complete's context: the arguments
// already resolved.
type completionContext struct {
	Arguments map[string]string `json:"arguments"`
}

// resolvedElsewhere reports whether context gives value to an argument
// other than name.
func resolvedElsewhere(value, name string, context *completionContext) bool {
	if context == nil {
		return false
	}
	for arg, v := range context.Arguments {
		if arg != name && strings.EqualFold(v, value) {
			return true
		}
	}
	return false
}
