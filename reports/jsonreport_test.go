package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ReportSchema))
	if err != nil {
		t.Fatalf("parsing report.schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatalf("compiling report.schema.json: %v", err)
	}
	return s
}

func TestWriteJSONValidates(t *testing.T) {
	schema := reportSchema(t)
	for name, r := range map[string]*Report{
		"sample":  sampleReport(),
		"hostile": hostileReport(),
		"empty":   {},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b.Bytes()) {
				t.Fatal("output is not valid JSON")
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("report does not match its schema: %v", err)
			}
			if !strings.HasPrefix(b.String(), "{\n  \"schemaVersion\": 2,\n") {
				t.Errorf("not two-space indented with schemaVersion first: %.60q", b.String())
			}
		})
	}
}

func TestWriteJSONCountsSummary(t *testing.T) {
	r := sampleReport()
	r.Summary = Summary{Pass: 99, Verdict: "conformant"} // stale: the writer recounts
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got Report
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := Summary{Pass: 3, Fail: 1, Warn: 1, Info: 1, Skip: 1, Error: 1, XFail: 1, Verdict: Nonconformant}
	if diff := cmp.Diff(want, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(r.Results[0], got.Results[0]); diff != "" {
		t.Errorf("round trip of a result (-want +got):\n%s", diff)
	}
}

func TestSummarizeKeepsRaisedVerdict(t *testing.T) {
	for _, tc := range []struct {
		recorded string
		results  []Result
		want     string
	}{
		{"", nil, Conformant},
		{ErrorVerdict, nil, ErrorVerdict},                        // target never started
		{Conformant, []Result{{Verdict: Fail}}, Nonconformant},   // never hide a failure
		{ErrorVerdict, []Result{{Verdict: Fail}}, Nonconformant}, // failure outranks error
		{Conformant, []Result{{Verdict: Error}, {Verdict: Pass}}, ErrorVerdict},
		{"bogus", []Result{{Verdict: Pass}}, Conformant},
	} {
		got := summarize(&Report{Summary: Summary{Verdict: tc.recorded}, Results: tc.results}).Verdict
		if got != tc.want {
			t.Errorf("recorded %q with %v: got %q, want %q", tc.recorded, tc.results, got, tc.want)
		}
	}
}

// TestSchemaCoversModel keeps report.schema.json in step with the model: a
// field added to a struct must be described in the schema (which forbids
// unknown properties).
func TestSchemaCoversModel(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(ReportSchema, &schema); err != nil {
		t.Fatal(err)
	}
	props := func(path ...string) map[string]any {
		var v any = schema
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(map[string]any)["properties"].(map[string]any)
	}
	for _, tc := range []struct {
		typ  reflect.Type
		path []string
	}{
		{reflect.TypeFor[Report](), nil},
		{reflect.TypeFor[Tool](), []string{"properties", "tool"}},
		{reflect.TypeFor[Target](), []string{"properties", "target"}},
		{reflect.TypeFor[Summary](), []string{"properties", "summary"}},
		{reflect.TypeFor[Result](), []string{"$defs", "result"}},
		{reflect.TypeFor[TranscriptLine](), []string{"$defs", "transcriptLine"}},
	} {
		p := props(tc.path...)
		var fields []string
		for f := range tc.typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields = append(fields, name)
			if _, ok := p[name]; !ok {
				t.Errorf("%s.%s (%q) is not in report.schema.json", tc.typ.Name(), f.Name, name)
			}
		}
		for name := range p {
			if !strings.Contains(","+strings.Join(fields, ",")+",", ","+name+",") {
				t.Errorf("report.schema.json describes %q, which %s does not have", name, tc.typ.Name())
			}
		}
	}
}

// TestJSONReportStaysUnder8MB: many results with large evidence give a
// report.json under 8 MB whose later results keep the start of theirs; a
// small report keeps all of it.
func TestJSONReportStaysUnder8MB(t *testing.T) {
	value := json.RawMessage(`"` + strings.Repeat("v", 60<<10) + `"`)
	r := &Report{}
	for i := range 400 {
		r.Results = append(r.Results, Result{ID: fmt.Sprintf("c%d", i), Verdict: Fail, Message: "m",
			Got: strings.Repeat("g", 60<<10), Actual: value,
			Transcript: []TranscriptLine{{Dir: "recv", Text: strings.Repeat("t", 2000)}}})
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, r); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 8<<20 {
		t.Errorf("report.json is %d bytes, over 8 MB", out.Len())
	}
	var got struct{ Results []Result }
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	first, last := got.Results[0], got.Results[len(got.Results)-1]
	if len(first.Got) != 60<<10 || len(last.Got) > 1024 || !strings.Contains(fmt.Sprint(last.Actual), "truncated") {
		t.Errorf("first result keeps %d bytes got, last %d (%v); want the first whole and the last cut", len(first.Got), len(last.Got), last.Actual)
	}
}
