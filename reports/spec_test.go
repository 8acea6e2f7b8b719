package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestEveryFormatNamesTheSpec: a report judged against a spec commit
// names it in every format, with the schema of each version judged.
func TestEveryFormatNamesTheSpec(t *testing.T) {
	r := sampleReport()
	r.Spec = &Spec{Repository: "https://github.com/modelcontextprotocol/modelcontextprotocol", Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", Date: "2026-08-22",
		Schemas: []string{"schema/2025-11-25/schema.json"}}
	writers := map[string]func(*bytes.Buffer) error{
		"console":  func(b *bytes.Buffer) error { return WriteConsole(b, r, ConsoleOptions{}) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
		"junit":    func(b *bytes.Buffer) error { return WriteJUnit(b, r) },
		"html":     func(b *bytes.Buffer) error { return WriteHTML(b, r) },
		"sarif":    func(b *bytes.Buffer) error { return WriteSARIF(b, r, SARIFOptions{}) },
	}
	for name, write := range writers {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(b.String(), "b0f60ba5") {
			t.Errorf("%s does not name the spec commit", name)
		}
		if name != "junit" && !strings.Contains(b.String(), "schema/2025-11-25/schema.json") {
			t.Errorf("%s does not name the schema", name)
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Commit  string   `json:"commit"`
			Schemas []string `json:"schemas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := reportSchema(t).Validate(inst); err != nil {
		t.Errorf("a report with its spec does not match report.schema.json: %v", err)
	}
	if doc.Spec.Commit != r.Spec.Commit || len(doc.Spec.Schemas) != 1 {
		t.Errorf("report.json spec: got %+v, want the commit and one schema", doc.Spec)
	}
	if (*Spec)(nil).Text() != "" {
		t.Error("a report without a spec names one")
	}
}
