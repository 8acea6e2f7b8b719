package reports

import (
	_ "embed"
	"encoding/json"
	"io"
	"slices"
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
	spent := 0
	for i, res := range r.Results {
		res.Expected = jsonValue(res.Expected)
		res.Actual = jsonValue(res.Actual)
		if spent > jsonEvidenceBudget {
			// Past the budget a result keeps its verdict and message, and
			// only the start of its evidence.
			res = clippedEvidence(res)
		}
		spent += evidenceSize(res)
		c.Results[i] = res
	}
	return &c
}

// jsonEvidenceBudget bounds the evidence (values, excerpts, messages sent
// and got) report.json gives in full, so that the file stays under 8 MB
// however many results carry large values; the results past it keep the
// start of each.
const jsonEvidenceBudget = 6 << 20

// clippedEvidenceBytes is what a result past the budget keeps of each
// piece of evidence.
const clippedEvidenceBytes = 256

// evidenceSize estimates the bytes res adds to report.json.
func evidenceSize(res Result) int {
	n := len(res.Message) + len(res.Sent) + len(res.Got) + len(res.Quote) + len(res.Expect)
	for _, tl := range res.Transcript {
		n += len(tl.Text) + 48
	}
	for _, v := range []any{res.Expected, res.Actual} {
		if v != nil {
			b, _ := json.Marshal(v)
			n += indentedSize(b, len("  "), reportDepth)
		}
	}
	return n
}

// clippedEvidence returns res with each piece of its evidence cut to its
// start.
func clippedEvidence(res Result) Result {
	res.Sent = truncateBytes(res.Sent, clippedEvidenceBytes)
	res.Got = truncateBytes(res.Got, clippedEvidenceBytes)
	res.Transcript = slices.Clone(res.Transcript)
	for i := range res.Transcript {
		res.Transcript[i].Text = truncateBytes(res.Transcript[i].Text, clippedEvidenceBytes)
	}
	for _, v := range []*any{&res.Expected, &res.Actual} {
		if *v == nil {
			continue
		}
		if b, _ := json.Marshal(*v); len(b) > clippedEvidenceBytes {
			*v = map[string]any{"truncated": truncateBytes(string(b[:clippedEvidenceBytes]), clippedEvidenceBytes), "bytes": len(b)}
		}
	}
	return res
}
