package plan

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// NotFetched reports whether compiling failed only for a document the
// suite refused to fetch, and which.
func NotFetched(err error) (string, bool) {
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) {
		return load.URL, true
	}
	var u *unloadable
	if errors.As(err, &u) {
		return u.url, true
	}
	return "", false
}

// unloadable is a reference to a document the suite does not fetch.
type unloadable struct{ url string }

func (u *unloadable) Error() string { return "not fetched: " + u.url }

// noFetch refuses every external document: a schema is judged as
// written, and the suite never reaches out to the network.
type noFetch struct{}

func (noFetch) Load(url string) (any, error) { return nil, &unloadable{url: url} }

// SchemaProblem says what the meta-schema found wrong: the innermost
// causes of the error, at most three ("at '/required': got string, want
// array").
func SchemaProblem(err error) string {
	type row struct {
		depth int
		text  string
	}
	var rows []row
	for _, l := range strings.Split(err.Error(), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if text, ok := strings.CutPrefix(trimmed, "- "); ok {
			rows = append(rows, row{len(l) - len(trimmed), text})
		}
	}
	var leaves []string
	for i, r := range rows {
		if (i+1 == len(rows) || rows[i+1].depth <= r.depth) && len(leaves) < 3 {
			leaves = append(leaves, r.text)
		}
	}
	if len(leaves) == 0 {
		s, _, _ := strings.Cut(err.Error(), "\n")
		return s
	}
	return strings.Join(leaves, "; ")
}

// CompileSchema compiles a schema as its dialect says (2020-12 when it names
// none), with every external reference refused.
func CompileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noFetch{})
	const loc = "mcpconform:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// DecodeSchemaValue decodes JSON the way the schema library validates it
// (numbers kept exact).
func DecodeSchemaValue(raw json.RawMessage) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
}

// offSchema are the probes and vector tests whose requests break the
// version's published schema on purpose, each to see the server refuse
// invalid params: a logging level no version defines, resources/read
// without a string uri, 2026-07-28 requests without the envelope. What
// they send is no harness error; what the server answers is judged as
// any answer is.
var offSchema = map[string]bool{
	ProbeSetLevelUnknown.Tag():               true,
	"v:log-unknown-level-meta":               true,
	"v:resources-read-missing-uri-param":     true,
	"v:resources-read-uri-not-string":        true,
	"v:envelope-missing-params":              true,
	"v:envelope-empty-params":                true,
	"v:envelope-missing-client-capabilities": true,
	"v:envelope-missing-protocol-version":    true,
}

// OffSchema reports whether the line tagged tag was sent outside the
// version's schema on purpose (a vector test's tag carries its item and
// step after "#").
func OffSchema(tag string) bool {
	base, _, _ := strings.Cut(tag, "#")
	return offSchema[base]
}

// OffSchemaTags lists the tags OffSchema accepts, for tests.
func OffSchemaTags() []string {
	var out []string
	for t := range offSchema {
		out = append(out, t)
	}
	return out
}
