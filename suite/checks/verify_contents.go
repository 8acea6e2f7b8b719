package checks

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// Verifiers of what results carry, shared by the families of resources,
// prompts and tools: the contents of a read, the content block types of
// a version, base64 data, and the URIs items name.

// notCompleteProb is contentsOf's problem for a read answered with a
// result of another kind than ReadResourceResult (an InputRequiredResult
// still asking after the suite's retries, say): it has no contents yet.
const notCompleteProb = "not complete"

// contentsOf returns the contents items of a read, or why it has none.
// Only a complete result (under version v) has contents.
func contentsOf(v string, rd *evidence.Read) ([]map[string]json.RawMessage, string) {
	x := rd.X
	switch {
	case !x.OK():
		return nil, gotOf(x)
	case x.Clipped:
		// Kept only in part (a flood, or the transcript's budget): the
		// checks of contents cannot judge it.
		return nil, "clipped"
	case x.Response.Has("error"):
		return nil, "error " + clipJSON(x.Response.Error, 160)
	}
	res := wire.Object(x.Response.Result)
	if res != nil && evidence.Complete(v, x) == nil {
		return nil, notCompleteProb
	}
	items, ok := wire.Array(res["contents"])
	if !ok {
		return nil, "contents is " + describeType(res["contents"]) + ", want an array"
	}
	var out []map[string]json.RawMessage
	for _, it := range items {
		out = append(out, wire.Object(it))
	}
	return out, ""
}

// promptContentTypes are the content block types a prompt message may
// hold, by version.
func promptContentTypes(v string) []string {
	switch {
	case v == wire.V20241105:
		return []string{"text", "image", "resource"}
	case v == wire.V20250326:
		return []string{"text", "image", "audio", "resource"}
	}
	return []string{"text", "image", "audio", "resource_link", "resource"}
}

// checkBase64Data judges the data member of an image or audio block:
// a string of strict RFC 4648 base64.
func checkBase64Data(t *tally, w *Where, at string, raw json.RawMessage) {
	if data, ok := wire.String(raw); !ok {
		t.violate(w, "%s: data is %s, want a base64 string", at, describeType(raw))
	} else if err := wire.StrictBase64(data); err != nil {
		t.violate(w, "%s: data is not base64: %v", at, err)
	}
}

// uriProblem judges a URI by RFC 3986. A URI whose only fault is raw
// non-ASCII text is an IRI (RFC 3987), which maps to a URI by encoding
// those bytes and which clients commonly accept: a warning, not a failure.
func uriProblem(t *tally, w *Where, what, u string) {
	err := wire.AbsoluteURI(u)
	if err == nil {
		return
	}
	if isIRI(u) {
		t.dispute(w, "%s: %v", what, err)
		return
	}
	t.violate(w, "%s: %v", what, err)
}
