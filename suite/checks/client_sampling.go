package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// clientSamplingChecks judge a client's answers to sampling/createMessage
// (SAMP-*).
func clientSamplingChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-sampling-declared", Requirement: "SAMP-01", Area: "sampling",
			Description: "a client that answers sampling/createMessage with a message declared the sampling capability",
			Judge:       func(j *ClientJ) Finding { return declaredFinding(j, "sampling/createMessage", "sampling") },
		},
		{
			ID: "client-sampling-result", Requirement: "SAMP-02", Area: "sampling",
			Description: `a sampling/createMessage result has role "user" or "assistant", content, and a string model`,
			Judge:       func(j *ClientJ) Finding { return resultFinding(j, "sampling/createMessage", samplingRule) },
		},
	}
}

func samplingRule(res map[string]json.RawMessage, _ json.RawMessage) []string {
	var bad []string
	if role, _ := wire.String(res["role"]); role != "user" && role != "assistant" {
		bad = append(bad, "role is "+describeType(res["role"])+`, want "user" or "assistant"`)
	}
	switch wire.Type(res["content"]) {
	case "object", "array": // an array of blocks from 2025-11-25; the blocks' types are not judged here
	default:
		bad = append(bad, "content is "+describeType(res["content"])+", want a content block")
	}
	if _, ok := wire.String(res["model"]); !ok {
		bad = append(bad, fmt.Sprintf("model is %s, want a string", describeType(res["model"])))
	}
	return bad
}
