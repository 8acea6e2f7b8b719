package checks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// clientRootsChecks judge a client's answers to roots/list (ROOTS-*).
func clientRootsChecks() []*ClientCheck {
	return []*ClientCheck{
		{
			ID: "client-roots-declared", Requirement: "ROOTS-01", Area: "roots",
			Description: "a client that answers roots/list with roots declared the roots capability (2026-07-28: in the retry that carries them)",
			Judge:       func(j *ClientJ) Finding { return declaredFinding(j, "roots/list", "roots") },
		},
		{
			ID: "client-roots-refused", Requirement: "ROOTS-02", Area: "roots",
			Description: "a client without the roots capability refuses roots/list with -32601 (Method not found)",
			Judge:       checkClientRootsRefused,
		},
		{
			ID: "client-roots-result", Requirement: "ROOTS-03", Area: "roots",
			Description: "a roots/list result has a roots array whose items have a file:// uri and an optional string name",
			Judge:       func(j *ClientJ) Finding { return resultFinding(j, "roots/list", rootsRule) },
		},
	}
}

func checkClientRootsRefused(j *ClientJ) Finding {
	t := &tally{}
	j.each(func(v *spawnView) {
		for _, a := range v.answers("roots/list") {
			if !a.isError || a.caps.Has("roots") {
				continue // a result is ROOTS-01's; a client with roots may fail otherwise
			}
			t.judged()
			if a.errCode != -32601 {
				t.violate(v.at(a.seq), "%s is the error code %d, want -32601 (Method not found)", a.what, a.errCode)
			}
		}
	})
	return t.finding(fmt.Sprintf("roots/list was refused with -32601 (%d)", t.n), "the client refused no roots/list without the roots capability")
}

func rootsRule(res map[string]json.RawMessage, _ json.RawMessage) []string {
	items, ok := wire.Array(res["roots"])
	if !ok {
		return []string{"roots is " + describeType(res["roots"]) + ", want an array"}
	}
	var bad []string
	for i, it := range items {
		root := wire.Object(it)
		if root == nil {
			bad = append(bad, fmt.Sprintf("roots[%d] is %s, want an object", i, describeType(it)))
			continue
		}
		uri, ok := wire.String(root["uri"])
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("roots[%d].uri is %s, want a string", i, describeType(root["uri"])))
		case !strings.HasPrefix(strings.ToLower(uri), "file://"):
			bad = append(bad, fmt.Sprintf("roots[%d].uri is %q, not a file:// URI", i, clipString(uri, 80)))
		}
		if n, ok := root["name"]; ok && wire.Type(n) != "string" {
			bad = append(bad, fmt.Sprintf("roots[%d].name is %s, want a string", i, describeType(n)))
		}
	}
	return bad
}
