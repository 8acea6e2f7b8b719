package suite_test

import (
	"context"
	"testing"

	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/execute"
)

// BenchmarkSchemaValid measures judging a default run against the reference
// server: the schema check alone (every message validated against its
// version's schema, compiled once before the clock), and the whole judging
// of the run beside it.
//
//	go test ./suite -run '^$' -bench SchemaValid -benchtime 20x
func BenchmarkSchemaValid(b *testing.B) {
	run, err := execute.Execute(context.Background(), mockConfig())
	if err != nil {
		b.Fatal(err)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		b.Fatal(err)
	}
	var schemaValid *checks.Check
	for _, c := range checks.All() {
		if c.ID == "schema-valid" {
			schemaValid = c
		}
	}
	versions := checks.JudgedVersions(run)
	judge := func() {
		for _, v := range versions {
			if res := schemaValid.Result(checks.NewJ(run, v)); res.Verdict != "pass" {
				b.Fatalf("%s: %s", res.Verdict, res.Message)
			}
		}
	}
	judge() // compiles the schema of each version judged
	b.Run("schema-valid", func(b *testing.B) {
		for b.Loop() {
			judge()
		}
	})
	b.Run("whole-judging", func(b *testing.B) {
		for b.Loop() {
			suite.Judge(run, files)
		}
	})
}
