package vectors

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Binding names a vector may use inside strings as {{name}}. Their values
// come from discovery, so vectors work on any server, not on fixture names.
var Bindings = map[string]string{
	"nonce":                "a random token, new for every run",
	"version":              "the negotiated protocol version",
	"resource.uri":         "the uri of the first listed resource",
	"resource.scheme":      "the scheme of the first listed resource",
	"item.uri":             "foreach resource: the resource's uri",
	"item.name":            "foreach resource or template: its name",
	"item.uriTemplate":     "foreach template: its uriTemplate",
	"item.expanded":        "foreach template: the template expanded with sample values",
	"item.firstVar":        "foreach template: the name of its first variable",
	"prompt.name":          "the name of the first listed prompt that takes an argument",
	"prompt.argument":      "the name of that prompt's first argument",
	"template.uriTemplate": "the uriTemplate of the first listed template with a variable",
	"template.firstVar":    "the name of that template's first variable",
}

var bindingRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.]+)\s*\}\}`)

// Expand replaces every {{name}} in raw JSON text with the binding's value,
// JSON-escaped for use inside a string. Unknown names are an error.
func Expand(raw json.RawMessage, values map[string]string) (json.RawMessage, error) {
	if raw == nil || !strings.Contains(string(raw), "{{") {
		return raw, nil
	}
	var missing []string
	out := bindingRE.ReplaceAllStringFunc(string(raw), func(m string) string {
		name := bindingRE.FindStringSubmatch(m)[1]
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		q, _ := json.Marshal(v)
		return string(q[1 : len(q)-1])
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("no value for binding %s", strings.Join(missing, ", "))
	}
	return json.RawMessage(out), nil
}

// ExpandString is Expand for plain (non-JSON) text such as a raw line.
func ExpandString(s string, values map[string]string) (string, error) {
	var missing []string
	out := bindingRE.ReplaceAllStringFunc(s, func(m string) string {
		name := bindingRE.FindStringSubmatch(m)[1]
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for binding %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func bindingNames(s string) []string {
	var names []string
	for _, m := range bindingRE.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}
