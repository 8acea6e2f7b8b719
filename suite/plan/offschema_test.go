package plan_test

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// TestOffSchemaNamesRealTests: every vector test marked as breaking the
// schema on purpose exists, and a tag with its item and step is matched.
func TestOffSchemaNamesRealTests(t *testing.T) {
	files, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, f := range files {
		for _, tt := range f.Tests {
			ids["v:"+tt.ID] = true
		}
	}
	for _, tag := range plan.OffSchemaTags() {
		if strings.HasPrefix(tag, "v:") && !ids[tag] {
			t.Errorf("%s: no such vector test", tag)
		}
		if !plan.OffSchema(tag + "#0.0") {
			t.Errorf("%s#0.0 is not off the schema", tag)
		}
	}
	if plan.OffSchema("v:resources-read-unknown-uri#0.0") || plan.OffSchema("") {
		t.Error("a test that keeps the schema is taken for one that breaks it")
	}
}
