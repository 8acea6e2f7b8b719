package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

// TestCompletionContext: the arguments a completion request says are
// resolved (context.arguments, from 2025-06-18) narrow the values: one
// already given to another argument is not offered again.
func TestCompletionContext(t *testing.T) {
	fx := DefaultFixture()
	fx.Prompts = []Prompt{{Name: "pair", Arguments: []PromptArgument{
		{Name: "first", Required: true, Completions: []string{"alpha", "beta", "gamma"}},
		{Name: "second", Completions: []string{"alpha", "beta", "gamma"}},
	}, Messages: []PromptMessage{{Role: "user", Text: "{{first}} and {{second}}"}}}}
	complete := func(context any) map[string]any {
		p := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "pair"}, "argument": map[string]any{"name": "second", "value": ""}}
		if context != nil {
			p["context"] = context
		}
		return p
	}
	for _, version := range []string{"2025-06-18", modernVersion} {
		s := startAt(t, Options{Fixture: fx}, version)
		for _, tt := range []struct {
			name    string
			context any
			want    []any
		}{
			{"no context", nil, []any{"alpha", "beta", "gamma"}},
			{"another argument resolved", map[string]any{"arguments": map[string]any{"first": "Beta"}}, []any{"alpha", "gamma"}},
			{"the argument itself", map[string]any{"arguments": map[string]any{"second": "beta"}}, []any{"alpha", "beta", "gamma"}},
			{"no arguments", map[string]any{}, []any{"alpha", "beta", "gamma"}},
		} {
			m := s.callAt(version, "completion/complete", complete(tt.context))
			if m.Error != nil {
				t.Errorf("%s %s: %+v", version, tt.name, m.Error)
				continue
			}
			c := decode(t, m.Result)["completion"].(map[string]any)
			if diff := cmp.Diff(tt.want, c["values"]); diff != "" {
				t.Errorf("%s %s: values (-want +got):\n%s", version, tt.name, diff)
			}
		}
		m := s.callAt(version, "completion/complete", complete(map[string]any{"arguments": map[string]any{"first": 1}}))
		if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("%s: context.arguments holding a number: %s %+v, want -32602", version, m.Result, m.Error)
		}
	}
}
