package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// ToolPolicy says which listed tools the suite may call. Calling a tool
// may change the world the server acts on, and the tools page says
// clients "MUST consider tool annotations to be untrusted unless they come
// from trusted servers": no tool is called unless the user asks. The zero
// value calls none.
type ToolPolicy struct {
	// Mode is "none" (the default), "readonly" (the tools annotated
	// readOnlyHint: true, the user vouching for the annotations), "all"
	// or "names".
	Mode string
	// Names are the tools "names" allows.
	Names []string
}

// Keywords of --call-tools; anything else is a list of tool names.
const (
	CallNone     = "none"
	CallReadOnly = "readonly"
	CallAll      = "all"
)

var toolKeywords = []string{CallNone, CallReadOnly, CallAll}

// NamePrefix marks a --call-tools item as a tool name, never a keyword.
const NamePrefix = "name:"

// ParseToolPolicy reads --call-tools: none, readonly or all (exactly so,
// in lower case), or a comma-separated list of tool names, spaces around
// each ignored. A name written name:NAME is NAME, whatever it spells: a
// tool named all, none or readonly is selected as name:all, and a name
// that starts with "name:" as name:name:... A value that is neither is
// an error: a keyword in another case or spelling (ALL, read-only) is no
// tool name anyone meant, and a list with an empty name, a keyword or a
// control character is a typo.
func ParseToolPolicy(s string) (ToolPolicy, error) {
	v := strings.TrimSpace(s)
	if slices.Contains(toolKeywords, v) {
		return ToolPolicy{Mode: v}, nil
	}
	if v == "" {
		return ToolPolicy{}, fmt.Errorf("--call-tools %q: empty; want none, readonly, all or tool names separated by commas; write e.g. --call-tools readonly", s)
	}
	var names []string
	for _, raw := range strings.Split(v, ",") {
		n := strings.TrimSpace(raw)
		if literal, ok := strings.CutPrefix(n, NamePrefix); ok {
			if literal == "" || strings.IndexFunc(literal, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
				return ToolPolicy{}, fmt.Errorf("--call-tools %q: %s needs the tool's name after it, with no control character, e.g. --call-tools %sall", s, NamePrefix, NamePrefix)
			}
			if !slices.Contains(names, literal) {
				names = append(names, literal)
			}
			continue
		}
		switch {
		case n == "":
			return ToolPolicy{}, fmt.Errorf("--call-tools %q: an empty tool name in the list; write the names separated by single commas, e.g. --call-tools echo,add", s)
		case slices.Contains(toolKeywords, n):
			return ToolPolicy{}, fmt.Errorf("--call-tools %q: %s is a keyword and cannot be combined with tool names; write --call-tools %s alone, or only names (a tool named %s is %s%s)", s, n, n, n, NamePrefix, n)
		case strings.IndexFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
			return ToolPolicy{}, fmt.Errorf("--call-tools %q: a tool name holds a control character; write the names the server lists, e.g. --call-tools echo,add", s)
		}
		if kw := nearKeyword(n); kw != "" {
			return ToolPolicy{}, fmt.Errorf("--call-tools %q: keywords are lower case and exact; did you mean --call-tools %s?", s, kw)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return ToolPolicy{Mode: "names", Names: names}, nil
}

// nearKeyword returns the keyword n spells in another case or with
// separators (ALL, Read-Only, read_only) or means (*, true, no), or "".
func nearKeyword(n string) string {
	squeezed := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(n))
	for _, kw := range toolKeywords {
		if squeezed == kw {
			return kw
		}
	}
	switch squeezed {
	case "*", "true", "yes", "on":
		return CallAll
	case "false", "no", "off":
		return CallNone
	}
	return ""
}

// RecordedToolPolicy is the policy a run recorded (evidence.Run.CallTools).
// Evidence recorded before the default became none says nothing when the
// policy was readonly, the default then.
func RecordedToolPolicy(s string) ToolPolicy {
	if s == "" {
		return ToolPolicy{Mode: CallReadOnly}
	}
	p, err := ParseToolPolicy(s)
	if err != nil {
		return ToolPolicy{Mode: CallNone}
	}
	return p
}

// String is the policy as --call-tools spells it.
func (p ToolPolicy) String() string {
	switch p.Mode {
	case "names":
		names := make([]string, len(p.Names))
		for i, n := range p.Names {
			names[i] = n
			if slices.Contains(toolKeywords, n) || strings.HasPrefix(n, NamePrefix) || nearKeyword(n) != "" {
				names[i] = NamePrefix + n
			}
		}
		return strings.Join(names, ",")
	case "":
		return CallNone
	}
	return p.Mode
}

// Unlisted returns the names the policy names that no listed tool has.
func (p ToolPolicy) Unlisted(tools []json.RawMessage) []string {
	if p.Mode != "names" {
		return nil
	}
	listed := map[string]bool{}
	for _, it := range tools {
		if n, ok := wire.String(wire.Member(it, "name")); ok {
			listed[n] = true
		}
	}
	var out []string
	for _, n := range p.Names {
		if !listed[n] {
			out = append(out, n)
		}
	}
	return out
}

// Allows says whether the policy lets the suite call a listed tool, and
// why not when it does not.
func (p ToolPolicy) Allows(tool map[string]json.RawMessage) (bool, string) {
	name, _ := wire.String(tool["name"])
	switch p.Mode {
	case CallAll:
		return true, ""
	case "names":
		if slices.Contains(p.Names, name) {
			return true, ""
		}
		return false, "not named in --call-tools"
	case CallReadOnly:
		if string(wire.Object(tool["annotations"])["readOnlyHint"]) == "true" {
			return true, "" // the same test as ReadOnly
		}
		return false, "its annotations do not say readOnlyHint: true (--call-tools readonly; --call-tools all or --call-tools NAME calls it)"
	}
	return false, "--call-tools none (no tool is called unless --call-tools names it, or says readonly or all)"
}

// ReadOnly reports whether a listed tool's annotations say readOnlyHint:
// true, "the tool does not modify its environment".
func ReadOnly(tool json.RawMessage) bool {
	return string(wire.Object(wire.Object(tool)["annotations"])["readOnlyHint"]) == "true"
}

// ToolCall says whether the suite calls a listed tool under the
// policy, and with which arguments: args is nil and why says why when it
// does not.
func ToolCall(tool json.RawMessage, p ToolPolicy) (name string, args map[string]any, why string) {
	m := wire.Object(tool)
	name, ok := wire.String(m["name"])
	if !ok {
		return "", nil, "it has no name"
	}
	if ok, why := p.Allows(m); !ok {
		return name, nil, why
	}
	args, why = ToolArguments(m["inputSchema"])
	return name, args, why
}

// ToolArguments builds arguments that satisfy an inputSchema, filling in
// only the required properties, from the schema's own const, enum,
// default or examples where it gives them, else the plainest value of the
// type. It refuses (why says so) wherever a value cannot be built safely:
// a pattern, a format other than date, time, date-time, email or uuid (a
// URI may be fetched), references, or arguments the schema, compiled,
// does not accept.
func ToolArguments(raw json.RawMessage) (map[string]any, string) {
	schema := wire.Object(raw)
	if schema == nil {
		return nil, "its inputSchema is not an object"
	}
	v, why := sampleValue(raw, 0)
	if why != "" {
		return nil, why
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, "its inputSchema does not describe an object"
	}
	if err := validateArgs(raw, args); err != nil {
		return nil, "the arguments the suite could build do not satisfy its inputSchema: " + clip(SchemaProblem(err), 160)
	}
	return args, ""
}

// BrokenArguments returns args with one rule of the inputSchema broken: a
// required property left out, else a declared property given a value of
// another type. what says which; ok is false when the schema constrains
// nothing that can be broken.
func BrokenArguments(raw json.RawMessage, args map[string]any) (broken map[string]any, what string, ok bool) {
	schema := wire.Object(raw)
	req, _ := wire.Array(schema["required"])
	for _, r := range req {
		if n, ok := wire.String(r); ok {
			broken = map[string]any{}
			for k, v := range args {
				if k != n {
					broken[k] = v
				}
			}
			if validateArgs(raw, broken) != nil {
				return broken, fmt.Sprintf("the required property %q left out", n), true
			}
		}
	}
	props := wire.Object(schema["properties"])
	for _, k := range slices.Sorted(maps.Keys(props)) {
		typ, _ := wire.String(wire.Object(props[k])["type"])
		var wrong any
		switch typ {
		case "string":
			wrong = 12345
		case "number", "integer", "boolean", "array", "object":
			wrong = "mcpconform: not a " + typ
		default:
			continue
		}
		broken = map[string]any{}
		for kk, v := range args {
			broken[kk] = v
		}
		broken[k] = wrong
		if validateArgs(raw, broken) != nil {
			return broken, fmt.Sprintf("the property %q given a value that is not of type %s", k, typ), true
		}
	}
	return nil, "", false
}

// validateArgs checks arguments against an inputSchema, compiled as its
// dialect says with every external reference refused.
func validateArgs(raw json.RawMessage, args map[string]any) error {
	sch, err := CompileSchema(raw)
	if err != nil {
		return err
	}
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	v, err := DecodeSchemaValue(b)
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// safeFormats are the string formats the suite fills in, with the value.
var safeFormats = map[string]string{
	"date":      "2024-01-01",
	"time":      "12:00:00Z",
	"date-time": "2024-01-01T12:00:00Z",
	"email":     "someone@example.com",
	"uuid":      "00000000-0000-4000-8000-000000000000",
}

// sampleValue builds the plainest value a schema accepts, or says why it
// will not.
func sampleValue(raw json.RawMessage, depth int) (any, string) {
	if depth > 8 {
		return nil, "its inputSchema nests too deeply to fill in"
	}
	if string(raw) == "true" || len(raw) == 0 {
		return "example", ""
	}
	s := wire.Object(raw)
	if s == nil {
		return nil, "a part of its inputSchema is not an object"
	}
	for _, k := range []string{"$ref", "$dynamicRef", "allOf", "not", "if", "dependentSchemas", "dependentRequired"} {
		if _, ok := s[k]; ok {
			return nil, "its inputSchema uses " + k + ", which the suite does not fill in"
		}
	}
	for _, k := range []string{"const", "default"} {
		if v, ok := s[k]; ok {
			return decode(v), ""
		}
	}
	for _, k := range []string{"enum", "examples"} {
		if vs, ok := wire.Array(s[k]); ok && len(vs) > 0 {
			return decode(vs[0]), ""
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := wire.Array(s[k]); ok && len(alts) > 0 {
			return sampleValue(alts[0], depth+1)
		}
	}
	typ, _ := wire.String(s["type"])
	if types, ok := wire.Array(s["type"]); ok {
		for _, t := range types {
			if n, _ := wire.String(t); n != "null" || typ == "" {
				typ = n
			}
		}
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		} else {
			return "example", ""
		}
	}
	switch typ {
	case "null":
		return nil, ""
	case "boolean":
		return false, ""
	case "string":
		return sampleString(s)
	case "number", "integer":
		return sampleNumber(s, typ == "integer")
	case "array":
		n, _ := wire.Int(s["minItems"])
		out := []any{}
		for i := int64(0); i < n; i++ {
			v, why := sampleValue(s["items"], depth+1)
			if why != "" {
				return nil, why
			}
			out = append(out, v)
		}
		return out, ""
	case "object":
		out := map[string]any{}
		props := wire.Object(s["properties"])
		req, _ := wire.Array(s["required"])
		for _, r := range req {
			n, ok := wire.String(r)
			if !ok {
				continue
			}
			v, why := sampleValue(props[n], depth+1)
			if why != "" {
				return nil, why
			}
			out[n] = v
		}
		return out, ""
	}
	return nil, fmt.Sprintf("its inputSchema has the type %q", typ)
}

func sampleString(s map[string]json.RawMessage) (any, string) {
	if _, ok := s["pattern"]; ok {
		return nil, "a string property of its inputSchema has a pattern, which the suite does not fill in"
	}
	if f, ok := wire.String(s["format"]); ok {
		v, safe := safeFormats[f]
		if !safe {
			return nil, fmt.Sprintf("a string property of its inputSchema has the format %q, which the suite does not fill in", f)
		}
		return v, ""
	}
	v := "example"
	if n, ok := wire.Int(s["minLength"]); ok && int64(len(v)) < n {
		if n > 1024 {
			return nil, "a string property of its inputSchema needs more than 1024 characters"
		}
		v += strings.Repeat("x", int(n)-len(v))
	}
	if n, ok := wire.Int(s["maxLength"]); ok && int64(len(v)) > n {
		v = v[:max(n, 0)]
	}
	return v, ""
}

func sampleNumber(s map[string]json.RawMessage, integer bool) (any, string) {
	fits := func(v float64) bool {
		if integer && v != math.Trunc(v) {
			return false
		}
		for _, b := range []struct {
			key string
			bad func(v, b float64) bool
		}{
			{"minimum", func(v, b float64) bool { return v < b }},
			{"exclusiveMinimum", func(v, b float64) bool { return v <= b }},
			{"maximum", func(v, b float64) bool { return v > b }},
			{"exclusiveMaximum", func(v, b float64) bool { return v >= b }},
		} {
			if f, ok := wire.Number(s[b.key]); ok && b.bad(v, f) {
				return false
			}
		}
		if m, ok := wire.Number(s["multipleOf"]); ok && m > 0 && math.Abs(v/m-math.Round(v/m)) > 1e-9 {
			return false
		}
		return true
	}
	// The plainest numbers first, then ones near the bounds.
	candidates := []float64{1, 0}
	for _, key := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf"} {
		if f, ok := wire.Number(s[key]); ok {
			candidates = append(candidates, f, f+1, f-1, math.Ceil(f), math.Floor(f))
		}
	}
	lo, okLo := wire.Number(s["exclusiveMinimum"])
	hi, okHi := wire.Number(s["exclusiveMaximum"])
	if okLo && okHi {
		candidates = append(candidates, (lo+hi)/2)
	}
	for _, v := range candidates {
		if fits(v) {
			if integer {
				return int64(v), ""
			}
			return v, ""
		}
	}
	return nil, "a number property of its inputSchema has bounds the suite cannot meet"
}

func decode(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// clip shortens s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ToolCallAmong is ToolCall for the i-th of the tools a server listed. A
// call names a tool, not a listing: a name listed twice is called once, as
// its first listing, and under readonly only when every listing of it says
// readOnlyHint: true (a server listing one name as read-only and as
// destructive gets no call that may reach the destructive one).
func ToolCallAmong(tools []json.RawMessage, i int, p ToolPolicy) (name string, args map[string]any, why string) {
	name, args, why = ToolCall(tools[i], p)
	if name == "" {
		return name, args, why
	}
	for j, other := range tools {
		if n, _ := wire.String(wire.Object(other)["name"]); n != name || j == i {
			continue
		}
		switch {
		case j < i:
			return name, nil, "listed again (a call names a tool, so only its first listing is called)"
		case why == "" && p.Mode == CallReadOnly && !ReadOnly(other):
			return name, nil, "listed more than once, not every time with readOnlyHint: true (--call-tools readonly calls no tool that may not be read-only)"
		}
	}
	return name, args, why
}
