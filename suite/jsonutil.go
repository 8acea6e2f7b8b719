package suite

import (
	"bytes"
	"encoding/json"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/vectors"
)

// obj decodes a JSON object into its members, or nil.
func obj(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	m, _ := mockclient.SplitObject(raw)
	return m
}

// jtype names the JSON type of raw: string, integer, number, boolean,
// object, array, null, or "" when raw is empty.
func jtype(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if vectors.IsInteger(string(raw)) {
		return "integer"
	}
	return "number"
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if jtype(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func arr(raw json.RawMessage) ([]json.RawMessage, bool) {
	if jtype(raw) != "array" {
		return nil, false
	}
	return mockclient.SplitArray(raw)
}

// maxEvidence bounds a JSON value kept as a result's Expected or Actual:
// a report shows evidence, it does not archive a 50 MB response.
const maxEvidence = 64 * 1024

// toAny decodes raw for a report. A value over maxEvidence is kept as the
// start of its text with its full size.
func toAny(raw json.RawMessage) any {
	if len(raw) > maxEvidence {
		return map[string]any{"truncated": string(raw[:4096]), "bytes": len(raw)}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}
