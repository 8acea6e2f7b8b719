package reports

import (
	_ "embed"
	"encoding/json"
	"io"
)

// ReportSchema is the JSON Schema (draft 2020-12) of the JSON report that
// WriteJSON writes.
//
//go:embed report.schema.json
var ReportSchema []byte

// WriteJSON writes the report as indented JSON (contract). The summary is
// counted from the results, schemaVersion is always SchemaVersion, and any
// value that encoding/json cannot encode (an invalid json.RawMessage, a NaN)
// is replaced rather than failing the whole report. Strings are written as
// they are; encoding/json makes invalid UTF-8 into U+FFFD.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReport(r))
}

// jsonReport returns a copy of r that is safe to encode and has the shape
// the schema requires (arrays never null).
func jsonReport(r *Report) *Report {
	c := *r
	c.SchemaVersion = SchemaVersion
	c.Summary = summarize(r)
	if c.Target.Command == nil {
		c.Target.Command = []string{}
	}
	c.Target.ServerInfo = rawJSON(c.Target.ServerInfo)
	c.Target.Capabilities = rawJSON(c.Target.Capabilities)
	c.Results = make([]Result, len(r.Results))
	for i, res := range r.Results {
		res.Expected = jsonValue(res.Expected)
		res.Actual = jsonValue(res.Actual)
		c.Results[i] = res
	}
	return &c
}
