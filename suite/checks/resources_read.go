package checks

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/wire"
)

// resourcesReadChecks judge resources/read of every listed resource
// (RES-READ-*); the error cases are vector tests.
func resourcesReadChecks() []*Check {
	return []*Check{
		{
			ID: "resources-read-listed", Requirement: "RES-READ-02", Area: "resources",
			Description: "reading each listed resource gives a contents array whose items have a uri and exactly one of text and blob",
			Requires:    []string{"resources"},
			Judge:       checkReadContents,
		},
		{
			ID: "read-listed-not-empty", Requirement: "RES-READ-06", Area: "resources",
			Description: "reading a listed resource gives at least one contents item, not an empty contents array",
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Judge:       checkListedNotEmpty,
		},
		{
			ID: "read-contents-uri-matches", Requirement: "RES-READ-17", Area: "resources",
			Description: "a read answered with a single contents item names the resource read (or a part of it), not another resource; several items may name sub-resources",
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Judge:       checkContentsURIMatches,
		},
		{
			ID: "resources-read-blob-base64", Requirement: "RES-READ-03", Area: "resources",
			Description: "every blob is strict RFC 4648 base64 (standard alphabet, padding, no line breaks)",
			Requires:    []string{"resources"},
			Judge:       checkBlobs,
		},
		{
			ID: "resources-text-is-text", Requirement: "RES-READ-04", Area: "resources",
			Description: "text contents are really text: not an image, audio or octet-stream type, no NUL or replacement characters",
			Requires:    []string{"resources"},
			Flags:       []string{"heuristic"},
			Judge:       checkTextIsText,
		},
		{
			ID: "input-required-shape", Requirement: "RES-READ-16", Area: "resources",
			Description: "an input_required read result has inputRequests or requestState (at least one)",
			Requires:    []string{"resources"},
			Judge:       checkReadInputRequired,
		},
		{
			ID: "read-cache-hints", Requirement: "RES-READ-14", Area: "resources",
			Description: "every complete 2026-07-28 resources/read result carries resultType, ttlMs and cacheScope",
			Requires:    []string{"resources"},
			Judge: func(j *J) Finding {
				// Reads of expanded templates are resources/read too.
				var xs []*evidence.Exchange
				for _, rd := range reads(j.Session) {
					xs = append(xs, rd.X)
				}
				return checkCacheHints(xs, "resources/read")
			},
		},
		{
			ID: "contents-meta-object", Requirement: "RES-READ-15", Area: "resources",
			Description: "_meta on contents items is an object",
			Requires:    []string{"resources"},
			Judge:       checkContentsMeta,
		},
	}
}

// reads returns the reads of discovery: listed resources, then template
// expansions.
func reads(s *evidence.Session) []*evidence.Read {
	return append(append([]*evidence.Read(nil), s.Reads()...), s.TemplateReads()...)
}

func checkReadContents(j *J) Finding {
	t := &tally{}
	for _, rd := range j.Session.Reads() {
		if rd.X.Stopped() {
			continue
		}
		w := At(rd.X.Process, max(rd.X.RecvSeq, rd.X.SentSeq))
		items, prob := contentsOf(j.Version, rd)
		switch {
		case prob == notCompleteProb:
			// No contents yet: another kind of result, judged by its checks.
			t.unexercise("%s", notComplete(j.Version, rd.X, len(rd.Earlier)))
			continue
		case prob == "clipped", !rd.X.OK():
			// Contents cut by the transcript's budget, or no answer
			// (every-request-answered judges the silence).
			continue
		case strings.HasPrefix(prob, "error"):
			// A listed resource may fail to read (a permission, a backend
			// down): recorded; the error codes are judged elsewhere.
			t.judged()
			t.record(w, "reading listed resource %q gave %s", clipString(rd.URI, 60), prob)
			continue
		case prob != "":
			t.judged()
			t.violate(w, "reading %q: %s", clipString(rd.URI, 60), prob)
			continue
		}
		t.judged()
		for k, m := range items {
			where := fmt.Sprintf("reading %q: contents[%d]", clipString(rd.URI, 60), k)
			if m == nil {
				t.violate(w, "%s is not an object", where)
				continue
			}
			if _, ok := wire.String(m["uri"]); !ok {
				t.violate(w, "%s: uri is %s, want a string", where, describeType(m["uri"]))
			}
			_, hasText := m["text"]
			_, hasBlob := m["blob"]
			switch {
			case hasText && hasBlob:
				t.violate(w, "%s has both text and blob", where)
			case !hasText && !hasBlob:
				t.violate(w, "%s has neither text nor blob", where)
			case hasText && wire.Type(m["text"]) != "string":
				t.violate(w, "%s: text is %s, want a string", where, describeType(m["text"]))
			case hasBlob && wire.Type(m["blob"]) != "string":
				t.violate(w, "%s: blob is %s, want a string", where, describeType(m["blob"]))
			}
			if v, ok := m["mimeType"]; ok && wire.Type(v) != "string" {
				t.violate(w, "%s: mimeType is %s, want a string", where, describeType(v))
			}
		}
	}
	nothing := "the server lists no resources to read"
	if len(j.Session.Reads()) > 0 {
		nothing = "no read of a listed resource returned contents (or an error) to judge"
	}
	return t.finding(fmt.Sprintf("%d listed resource(s) read with well-formed contents", t.n), nothing)
}

// checkReadInputRequired judges the input_required results of
// resources/read (RES-READ-16) by the rules of every InputRequiredResult;
// those of other methods are judged by input-required-result-shape
// (MRTR-01), which quotes the same sentence.
func checkReadInputRequired(j *J) Finding {
	return inputRequiredShapes(j, func(method string) bool { return method == "resources/read" }, "no read asked for input")
}

// requestedURI is the uri a resources/read asked for.
func requestedURI(x *evidence.Exchange) string {
	if x.Request == nil {
		return ""
	}
	u, _ := wire.String(wire.Object(x.Request.Params)["uri"])
	return u
}

func checkBlobs(j *J) Finding {
	t := &tally{}
	for _, rd := range reads(j.Session) {
		items, _ := contentsOf(j.Version, rd)
		for k, m := range items {
			b, ok := wire.String(m["blob"])
			if !ok {
				continue
			}
			t.judged()
			if err := wire.StrictBase64(b); err != nil {
				t.violate(At(rd.X.Process, rd.X.RecvSeq), "reading %q: contents[%d].blob: %v", clipString(rd.URI, 60), k, err)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d blob(s) are strict base64", t.n), "no read returned a blob")
}

func checkTextIsText(j *J) Finding {
	t := &tally{}
	for _, rd := range reads(j.Session) {
		items, _ := contentsOf(j.Version, rd)
		for k, m := range items {
			s, ok := wire.String(m["text"])
			if !ok {
				continue
			}
			t.judged()
			w := At(rd.X.Process, rd.X.RecvSeq)
			where := fmt.Sprintf("reading %q: contents[%d]", clipString(rd.URI, 60), k)
			mt, _ := wire.String(m["mimeType"])
			mt = strings.ToLower(mt)
			switch {
			case strings.HasPrefix(mt, "image/") && !strings.HasPrefix(mt, "image/svg"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"), mt == "application/octet-stream":
				t.violate(w, "%s: the binary type %s is sent as text; binary data belongs in blob", where, mt)
			case strings.ContainsRune(s, 0):
				t.violate(w, "%s: text holds NUL characters; binary data belongs in blob", where)
			case strings.ContainsRune(s, utf8.RuneError):
				t.violate(w, "%s: text holds U+FFFD replacement characters (binary decoded as text?)", where)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d text item(s) look like text", t.n), "no read returned text")
}

func checkContentsMeta(j *J) Finding {
	t := &tally{}
	for _, rd := range reads(j.Session) {
		items, _ := contentsOf(j.Version, rd)
		for k, m := range items {
			if v, ok := m["_meta"]; ok {
				t.judged()
				if wire.Type(v) != "object" {
					t.violate(At(rd.X.Process, rd.X.RecvSeq), "reading %q: contents[%d]._meta is %s, want an object", clipString(rd.URI, 60), k, describeType(v))
				}
			}
		}
	}
	return t.finding(fmt.Sprintf("%d contents _meta object(s) are objects", t.n), "no contents item carries _meta")
}

// checkListedNotEmpty judges reads of listed resources answered with an
// empty contents array. No version forbids that for a resource that
// exists: 2026-07-28 forbids it for one that does not ("Servers MUST NOT
// return an empty contents array for a non-existent resource. An empty
// array is ambiguous—it could mean the resource exists but has no
// content, or that it doesn't exist at all."), and before it the
// not-found error is a SHOULD. A resource the server itself listed
// presumably exists, so the empty answer is that ambiguity, not a proven
// breach of the MUST NOT: a warning (heuristic) in every version, and a
// record for a listed directory (inode/directory), which may be empty.
func checkListedNotEmpty(j *J) Finding {
	t := &tally{}
	types := listedTypes(j.Session)
	for _, rd := range j.Session.Reads() {
		items, prob := contentsOf(j.Version, rd)
		if prob != "" {
			continue // an error, no answer, input_required: judged elsewhere
		}
		t.judged()
		if len(items) > 0 {
			continue
		}
		w := At(rd.X.Process, rd.X.RecvSeq)
		if mt := types[rd.URI]; strings.HasPrefix(strings.ToLower(mt), "inode/") {
			t.record(w, "reading listed resource %q (%s) gave contents: [] (an empty directory, presumably)", clipString(rd.URI, 60), mt)
			continue
		}
		t.dispute(w, "reading listed resource %q gave contents: []: an empty array cannot tell a resource with no content from one that does not exist (2026-07-28 forbids it for a resource that does not exist; a listed one should say what it holds, e.g. one item with empty text)", clipString(rd.URI, 60))
	}
	return t.finding(fmt.Sprintf("%d read(s) of listed resources, each with at least one contents item", t.n), "no read of a listed resource returned contents")
}

// listedTypes maps each listed resource's uri to its mimeType.
func listedTypes(s *evidence.Session) map[string]string {
	out := map[string]string{}
	for _, it := range s.Resources().Items {
		m := wire.Object(it)
		if u, ok := wire.String(m["uri"]); ok {
			out[u], _ = wire.String(m["mimeType"])
		}
	}
	return out
}

// checkContentsURIMatches judges reads answered with a single contents
// item. The schema documents ResourceContents.uri as "The URI of this
// resource." and every read of § Reading Resources answers with the URI
// it was asked for; ResourceContents is "The contents of a specific
// resource or sub-resource", so several items may each name a
// sub-resource (a directory read, RES-READ-09), and one item may be a
// part of the resource read (a path below it, or a fragment). A single
// item naming an unrelated resource breaks no keyword, but suggests the
// server answered for another resource than the one asked for: a warning
// at most (heuristic).
func checkContentsURIMatches(j *J) Finding {
	t := &tally{}
	several := 0
	for _, rd := range reads(j.Session) {
		items, prob := contentsOf(j.Version, rd)
		if prob != "" || len(items) == 0 {
			continue
		}
		if len(items) > 1 {
			t.judged()
			several++
			continue
		}
		u, ok := wire.String(items[0]["uri"])
		if pu, err := url.Parse(u); !ok || err != nil || pu.Scheme == "" {
			continue // not a URI: resources-read-listed and contents-uri-syntax judge it
		}
		t.judged()
		w := At(rd.X.Process, rd.X.RecvSeq)
		switch {
		case sameURI(u, rd.URI):
		case underURI(u, rd.URI):
			t.record(w, "reading %q returned one item, for %q: a part of the resource read", clipString(rd.URI, 60), clipString(u, 60))
		default:
			t.dispute(w, "reading %q returned one contents item, naming another resource, %q: a read answers with the resource asked for (\"The URI of this resource.\"); several items may name sub-resources, but a single one renamed suggests the server answered for another resource", clipString(rd.URI, 60), clipString(u, 60))
		}
	}
	ok := fmt.Sprintf("%d single-item read(s), each naming the resource read", t.n-several)
	if several > 0 {
		ok += fmt.Sprintf(" (%d read(s) returned several items, which may name sub-resources)", several)
	}
	return t.finding(ok, "no read returned contents")
}

// sameURI compares two URIs as the same resource: equal, or equal in the
// normal form of RFC 3986 § 6 (scheme and host lower-cased,
// percent-encoding decoded, an empty path under an authority as "/", a
// scheme's default port left out).
func sameURI(a, b string) bool {
	if a == b {
		return true
	}
	na, okA := normalURI(a)
	nb, okB := normalURI(b)
	return okA && okB && na == nb
}

func normalURI(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" && !(scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		host += ":" + port
	}
	path := u.Path
	if path == "" && u.Host != "" {
		path = "/"
	}
	query, err := url.QueryUnescape(u.RawQuery)
	if err != nil {
		query = u.RawQuery
	}
	return strings.Join([]string{scheme, u.User.String(), host, u.Opaque, path, query, u.Fragment}, "\x00"), true
}
