package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// clientElicitationChecks judge a client's answers to elicitation/create
// (ELIC-*).
func clientElicitationChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-elicitation-declared", Requirement: "ELIC-01", Area: "elicitation",
			Description: "a client that answers elicitation/create with a result declared the elicitation capability",
			Judge:       func(j *ClientJ) Finding { return declaredFinding(j, "elicitation/create", "elicitation") },
		},
		{
			ID: "client-elicitation-result", Requirement: "ELIC-02", Area: "elicitation",
			Description: `an elicitation/create result has action "accept", "decline" or "cancel", and content (when given) an object of primitive values`,
			Judge:       checkClientElicitationResult,
		},
	}
}

func checkClientElicitationResult(j *ClientJ) Finding {
	lists := wire.AtLeast(j.Version, wire.V20251125) // string[] values from 2025-11-25
	return resultFinding(j, "elicitation/create", func(res map[string]json.RawMessage, _ json.RawMessage) []string {
		var bad []string
		switch a, _ := wire.String(res["action"]); a {
		case "accept", "decline", "cancel":
		default:
			bad = append(bad, "action is "+describeType(res["action"])+`, want "accept", "decline" or "cancel"`)
		}
		raw, ok := res["content"]
		if !ok {
			return bad
		}
		content := wire.Object(raw)
		if content == nil {
			return append(bad, "content is "+describeType(raw)+", want an object")
		}
		for k, val := range content {
			switch t := wire.Type(val); {
			case t == "string" || t == "integer" || t == "number" || t == "boolean":
			case t == "array" && lists && allStrings(val):
			default:
				bad = append(bad, fmt.Sprintf("content[%q] is %s, want a string, number or boolean", clipString(k, 40), describeType(val)))
			}
		}
		return bad
	})
}

func allStrings(raw json.RawMessage) bool {
	items, _ := wire.Array(raw)
	for _, it := range items {
		if wire.Type(it) != "string" {
			return false
		}
	}
	return true
}
