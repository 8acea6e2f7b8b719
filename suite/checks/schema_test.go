package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/checks"
)

// schemaBreachCases are the recorded cases of other checks where the
// server breaks its schema while the case's own check passes: each is a
// real breach, which that check does not judge.
var schemaBreachCases = map[string]string{
	// Tool.inputSchema.required is string[] in 2025-06-18; the check
	// judges inputSchema as a JSON Schema only from 2025-11-25 on.
	"tools-input-schema/invalid-schema-2025-06-18.txtar": "/result/tools/0/inputSchema/required: got string, want array",
}

// TestSchemaValidOnEveryCase: the schema check fails a recorded case of
// another check only where that case is about a defect (its own check
// does not pass), or where the breach is listed above: a server the
// other checks find right draws no schema finding.
func TestSchemaValidOnEveryCase(t *testing.T) {
	var schemaValid *checks.Check
	for _, c := range checks.All() {
		if c.ID == "schema-valid" {
			schemaValid = c
		}
	}
	seen := map[string]bool{}
	for id, paths := range allCases(t) {
		if id == "schema-valid" {
			continue
		}
		for _, path := range paths {
			c := loadCase(t, path)
			name := id + "/" + filepath.Base(path)
			for _, w := range c.wants {
				res := schemaValid.Result(checks.NewJ(c.run, w.version))
				if res.Verdict != reports.Fail || w.verdict != reports.Pass {
					continue
				}
				want, ok := schemaBreachCases[name]
				if !ok || !strings.Contains(res.Message, want) {
					t.Errorf("%s under %s: the case's check passes, and the schema check says %s: %s", name, w.version, res.Verdict, res.Message)
				}
				seen[name] = true
			}
		}
	}
	for name := range schemaBreachCases {
		if !seen[name] {
			t.Errorf("%s: listed as a schema breach, but the schema check does not fail it", name)
		}
	}
}

// TestSchemaLeavesHugeMessages: a message over the size the schema check
// decodes is not judged by it, and the result says so.
func TestSchemaLeavesHugeMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.txtar")
	body := `-- p1 shared 2025-11-25 --
>@init {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpconform","version":"dev"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"` + strings.Repeat("x", 400) + `"}]}}
-- want --
2025-11-25 pass: every message
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	defer checks.SetMaxSchemaMessage(300)()
	c := loadCase(t, path)
	res := c.judge(t, "schema-valid", "2025-11-25")
	// The tool lacks its inputSchema, but the message is over the size.
	if res.Verdict != reports.Pass || !strings.Contains(res.Message, "not judged: 1 message(s) over") {
		t.Errorf("got %s: %s", res.Verdict, res.Message)
	}
}
