package plan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/suite/plan"
)

// TestToolArguments builds arguments from inputSchemas: the required
// properties only, from the schema's own values where it gives them, and
// refuses what it cannot fill in safely.
func TestToolArguments(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         map[string]any
		refused      string // a word of why, when refused
	}{
		{"no properties", `{"type":"object"}`, map[string]any{}, ""},
		{"optional left out", `{"type":"object","properties":{"a":{"type":"string"}}}`, map[string]any{}, ""},
		{"plain types", `{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"a":{"type":"array"},"o":{"type":"object"}},"required":["s","n","i","b","a","o"]}`,
			map[string]any{"s": "example", "n": 1.0, "i": float64(1), "b": false, "a": []any{}, "o": map[string]any{}}, ""},
		{"schema's own values", `{"type":"object","properties":{"e":{"enum":["x","y"]},"c":{"const":3},"d":{"type":"string","default":"dd"},"x":{"type":"string","examples":["ex"]}},"required":["e","c","d","x"]}`,
			map[string]any{"e": "x", "c": 3.0, "d": "dd", "x": "ex"}, ""},
		{"bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9},"m":{"type":"number","exclusiveMaximum":0},"s":{"type":"string","minLength":10,"maxLength":12}},"required":["n","m","s"]}`,
			map[string]any{"n": float64(5), "m": -1.0, "s": "examplexxx"}, ""},
		{"nested and items", `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},"a":{"type":"array","items":{"type":"integer"},"minItems":2}},"required":["o","a"]}`,
			map[string]any{"o": map[string]any{"k": "example"}, "a": []any{float64(1), float64(1)}}, ""},
		{"safe format", `{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"]}`, map[string]any{"d": "2024-01-01"}, ""},
		{"nullable type list", `{"type":"object","properties":{"s":{"type":["string","null"]}},"required":["s"]}`, map[string]any{"s": "example"}, ""},
		{"uri format", `{"type":"object","properties":{"u":{"type":"string","format":"uri"}},"required":["u"]}`, nil, "format"},
		{"pattern", `{"type":"object","properties":{"p":{"type":"string","pattern":"^[0-9]+$"}},"required":["p"]}`, nil, "pattern"},
		{"reference", `{"type":"object","properties":{"r":{"$ref":"#/$defs/r"}},"required":["r"],"$defs":{"r":{"type":"string"}}}`, nil, "$ref"},
		{"unmeetable bounds", `{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":2}},"required":["n"]}`, nil, "bounds"},
		{"not an object", `{"type":"string"}`, nil, "object"},
		{"rejected by the schema", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false,"minProperties":2}`, nil, "satisfy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := plan.ToolArguments(json.RawMessage(tc.schema))
			if tc.refused != "" {
				if got != nil || !strings.Contains(why, tc.refused) {
					t.Fatalf("got %v, %q; want a refusal saying %q", got, why, tc.refused)
				}
				return
			}
			if why != "" {
				t.Fatalf("refused: %s", why)
			}
			// Compare as JSON values: numbers are numbers, whatever Go type.
			var norm map[string]any
			b, _ := json.Marshal(got)
			_ = json.Unmarshal(b, &norm)
			if d := cmp.Diff(tc.want, norm); d != "" {
				t.Fatalf("arguments (-want +got):\n%s", d)
			}
		})
	}
}

func TestBrokenArguments(t *testing.T) {
	required := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)
	args, _ := plan.ToolArguments(required)
	broken, what, ok := plan.BrokenArguments(required, args)
	if !ok || len(broken) != 1 || !strings.Contains(what, `"a" left out`) {
		t.Fatalf("got %v, %q, %v; want a left out", broken, what, ok)
	}
	typed := json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"}}}`)
	broken, what, ok = plan.BrokenArguments(typed, map[string]any{})
	if !ok || broken["s"] == nil || !strings.Contains(what, "type string") {
		t.Fatalf("got %v, %q, %v; want s of another type", broken, what, ok)
	}
	if _, _, ok := plan.BrokenArguments(json.RawMessage(`{"type":"object"}`), map[string]any{}); ok {
		t.Fatal("a schema that constrains nothing was broken")
	}
}

// TestToolPolicy: by default no tool is called; readonly calls the tools
// annotated readOnlyHint: true (the boolean, not a string saying so), all
// every one, and names those named.
func TestToolPolicy(t *testing.T) {
	tools := map[string]string{
		"reader":      `{"name":"reader","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		"destroyer":   `{"name":"destroyer","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}`,
		"unannotated": `{"name":"unannotated","inputSchema":{"type":"object"}}`,
		"stringy":     `{"name":"stringy","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"true"}}`,
	}
	for _, tc := range []struct {
		flag   string
		called []string
	}{
		{"none", nil},
		{" none ", nil},
		{"readonly", []string{"reader"}},
		{"all", []string{"destroyer", "reader", "stringy", "unannotated"}},
		{"destroyer, unannotated", []string{"destroyer", "unannotated"}},
	} {
		p, err := plan.ParseToolPolicy(tc.flag)
		if err != nil {
			t.Fatal(err)
		}
		if got := called(p, tools); !cmp.Equal(tc.called, got) {
			t.Errorf("--call-tools %q (-want +got):\n%s", tc.flag, cmp.Diff(tc.called, got))
		}
	}
	if got := called(plan.ToolPolicy{}, tools); got != nil {
		t.Errorf("the zero policy calls %v, want none", got)
	}
	for _, bad := range []string{"", " , ", "ALL", "None", "read-only", "Read_Only", "*", "true", "echo,,add", "echo,", "all,echo", "echo,readonly", "echo\x00"} {
		if p, err := plan.ParseToolPolicy(bad); err == nil {
			t.Errorf("--call-tools %q was accepted as %+v", bad, p)
		}
	}
	p, _ := plan.ParseToolPolicy("b, a, b")
	if d := cmp.Diff([]string{"b", "a"}, p.Names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	if got := p.Unlisted([]json.RawMessage{json.RawMessage(`{"name":"a"}`)}); !cmp.Equal(got, []string{"b"}) {
		t.Errorf("unlisted: got %v, want [b]", got)
	}
	if got := plan.RecordedToolPolicy("").String(); got != "readonly" {
		t.Errorf("evidence that recorded no policy: got %s, want readonly, the default then", got)
	}
}

// called returns the names of tools, sorted, that the policy calls.
func called(p plan.ToolPolicy, tools map[string]string) []string {
	var out []string
	for _, name := range []string{"destroyer", "reader", "stringy", "unannotated"} {
		if _, _, why := plan.ToolCall(json.RawMessage(tools[name]), p); why == "" {
			out = append(out, name)
		}
	}
	return out
}

// TestToolPolicyNamesAKeyword: a tool named like a keyword is selected
// with name:, and the policy, saved in the evidence as String spells it,
// reads back the same.
func TestToolPolicyNamesAKeyword(t *testing.T) {
	for _, tc := range []struct {
		flag  string
		names []string
	}{
		{"name:all", []string{"all"}},
		{"echo, name:none,name:readonly", []string{"echo", "none", "readonly"}},
		{"name:name:x", []string{"name:x"}},
		{"name:ALL", []string{"ALL"}},
	} {
		p, err := plan.ParseToolPolicy(tc.flag)
		if err != nil {
			t.Fatalf("--call-tools %q: %v", tc.flag, err)
		}
		if d := cmp.Diff(tc.names, p.Names); d != "" || p.Mode != "names" {
			t.Errorf("--call-tools %q: mode %s, names (-want +got):\n%s", tc.flag, p.Mode, d)
		}
		again, err := plan.ParseToolPolicy(p.String())
		if err != nil || !cmp.Equal(again, p) {
			t.Errorf("--call-tools %q saved as %q reads back as %+v, %v", tc.flag, p.String(), again, err)
		}
		tool := json.RawMessage(`{"name":"` + tc.names[len(tc.names)-1] + `","inputSchema":{"type":"object"}}`)
		if _, _, why := plan.ToolCall(tool, p); why != "" {
			t.Errorf("--call-tools %q does not call %s: %s", tc.flag, tool, why)
		}
	}
	for _, bad := range []string{"name:", "echo,name:", "name:a\x01"} {
		if p, err := plan.ParseToolPolicy(bad); err == nil {
			t.Errorf("--call-tools %q was accepted as %+v", bad, p)
		}
	}
}

// TestToolCallAmongDuplicates: a name listed twice is called once, and
// under readonly not at all unless every listing of it is read-only.
func TestToolCallAmongDuplicates(t *testing.T) {
	reader := json.RawMessage(`{"name":"twice","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	destroyer := json.RawMessage(`{"name":"twice","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}`)
	other := json.RawMessage(`{"name":"other","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	readonly := plan.ToolPolicy{Mode: plan.CallReadOnly}
	for _, tc := range []struct {
		name   string
		tools  []json.RawMessage
		policy plan.ToolPolicy
		want   []bool
	}{
		{"read-only, then destructive", []json.RawMessage{reader, other, destroyer}, readonly, []bool{false, true, false}},
		{"destructive, then read-only", []json.RawMessage{destroyer, reader}, readonly, []bool{false, false}},
		{"read-only twice", []json.RawMessage{reader, reader}, readonly, []bool{true, false}},
		{"all: once", []json.RawMessage{reader, destroyer}, plan.ToolPolicy{Mode: plan.CallAll}, []bool{true, false}},
	} {
		var got []bool
		for i := range tc.tools {
			_, _, why := plan.ToolCallAmong(tc.tools, i, tc.policy)
			got = append(got, why == "")
		}
		if !cmp.Equal(tc.want, got) {
			t.Errorf("%s: called %v, want %v", tc.name, got, tc.want)
		}
	}
}
