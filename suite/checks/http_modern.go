package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// httpModernChecks judge what 2026-07-28 asks of Streamable HTTP: request
// metadata mirrored into headers and validated, the fixed pairs of status
// and error code, and response streams scoped to their request
// (HTTP-19 to HTTP-27).
func httpModernChecks() []*Check {
	return []*Check{
		{
			ID: "http-header-mismatch", Requirement: "HTTP-19", Area: "http",
			Description: "a request whose MCP-Protocol-Version, Mcp-Method or Mcp-Name disagrees with its body, or that lacks Mcp-Method, is refused with 400 and -32020",
			Needs:       []plan.Probe{plan.ProbeHTTPHeaderMismatch},
			Judge:       overHTTP(checkHTTPHeaderMismatch),
		},
		{
			ID: "http-unknown-method-404", Requirement: "HTTP-20", Area: "http",
			Description: "a request for a method the server does not implement gets 404 Not Found with -32601",
			Judge:       overHTTP(checkHTTPUnknownMethod),
		},
		{
			ID: "http-missing-meta-400", Requirement: "HTTP-21", Area: "http",
			Description: "a request missing a required _meta field gets 400 Bad Request",
			Judge:       overHTTP(checkHTTPMissingMeta),
		},
		{
			ID: "http-missing-capability-400", Requirement: "HTTP-22", Area: "http",
			Description: "a request refused for a client capability not declared (-32021) gets 400 Bad Request",
			Trigger:     "a request the server cannot serve without a client capability the suite's client does not declare",
			Judge:       overHTTP(checkHTTPMissingCapability),
		},
		{
			ID: "http-header-names-case", Requirement: "HTTP-23", Area: "http",
			Description: "a request whose MCP header names are in lower case is served as any other",
			Needs:       []plan.Probe{plan.ProbeHTTPHeaderCase},
			Judge:       overHTTP(checkHTTPHeaderCase),
		},
		{
			ID: "http-encoded-name", Requirement: "HTTP-24", Area: "http",
			Description: "an Mcp-Name in the Base64 sentinel form is decoded before it is compared with the body",
			Needs:       []plan.Probe{plan.ProbeHTTPEncodedName},
			Judge:       overHTTP(checkHTTPEncodedName),
		},
		{
			ID: "http-modern-get-delete-405", Requirement: "HTTP-25", Area: "http",
			Description: "a server that serves 2026-07-28 alone answers GET and DELETE with 405 Method Not Allowed",
			Needs:       []plan.Probe{plan.ProbeHTTPModernGetDelete},
			Judge:       overHTTP(checkHTTPModernGetDelete),
		},
		{
			ID: "http-sse-no-buffering", Requirement: "HTTP-26", Area: "http",
			Description: "an SSE response carries X-Accel-Buffering: no",
			Judge:       overHTTP(checkHTTPNoBuffering),
		},
		{
			ID: "http-no-requests-on-stream", Requirement: "HTTP-27", Area: "http",
			Description: "a response stream carries no request of the server's own",
			Judge:       overHTTP(checkHTTPNoRequestsOnStream),
		},
	}
}

// mismatchSteps says what each step of the header-mismatch probe sent.
var mismatchSteps = map[string]string{
	"method":  "Mcp-Method named another method than the body",
	"name":    "Mcp-Name named another item than the body",
	"version": "MCP-Protocol-Version named another version than the body's _meta",
	"missing": "Mcp-Method was missing",
}

func checkHTTPHeaderMismatch(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPHeaderMismatch) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		what := mismatchSteps[stepOf(x, plan.ProbeHTTPHeaderMismatch)]
		if what == "" {
			what = "the headers disagreed with the body"
		}
		code, _ := errorOf(x)
		switch {
		case servedResult(x):
			t.violate(httpWhere(x), "%s, and the request was served", what)
		case x.Status() != 400 || code != -32020:
			t.violate(httpWhere(x), "%s, and the request was answered %s, not 400 Bad Request with -32020 (HeaderMismatch)", what, statusText(x))
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) whose headers disagreed with the body refused with 400 and -32020", t.n), "no request with headers that disagree with its body was sent")
}

// modernPOSTs returns the POSTs of 2026-07-28 requests (their
// MCP-Protocol-Version is 2026-07-28) that no HTTP probe sent.
func modernPOSTs(j *J) []*evidence.HTTPExchange {
	return slices.DeleteFunc(httpExchanges(j), func(x *evidence.HTTPExchange) bool {
		v, _ := x.RequestHeader("MCP-Protocol-Version")
		return x.Method() != "POST" || !x.HasRequest() || v != wire.Modern || x.Response == nil || strings.HasPrefix(x.Tag, httpProbePrefix)
	})
}

func checkHTTPUnknownMethod(j *J) Finding {
	t := &tally{}
	for _, x := range modernPOSTs(j) {
		if code, ok := errorOf(x); !ok || code != -32601 || needsToken(t, x) {
			continue
		}
		t.judged()
		if x.Status() != 404 {
			t.violate(httpWhere(x), "%s was answered -32601 with status %d, not 404 Not Found", httpWhat(x), x.Status())
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) answered -32601 with 404 Not Found", t.n), "no request was answered -32601 (method not found)")
}

// missingMeta names the required _meta fields a request lacks.
func missingMeta(m *wire.Message) []string {
	meta := wire.Object(wire.Object(m.Params)["_meta"])
	var out []string
	for _, k := range []string{wire.MetaProtocolVersion, wire.MetaClientCapabilities} {
		if _, ok := meta[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func checkHTTPMissingMeta(j *J) Finding {
	t := &tally{}
	for _, x := range modernPOSTs(j) {
		reqs := x.Requests()
		if code, coded := errorOf(x); len(reqs) != 1 || len(missingMeta(reqs[0])) == 0 || coded && code != wire.CodeInvalidParams || needsToken(t, x) {
			// The status goes with the -32602 that rejects a missing
			// field; a request refused for another fault first (an array
			// of params, a removed method) is that fault's.
			continue
		}
		t.judged()
		if x.Status() != 400 {
			t.violate(httpWhere(x), "%s, missing %s in its _meta, was answered %s, not 400 Bad Request", httpWhat(x), strings.Join(missingMeta(reqs[0]), " and "), statusText(x))
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) missing a required _meta field refused with 400 Bad Request", t.n), "no request missing a required _meta field was sent")
}

func checkHTTPMissingCapability(j *J) Finding {
	t := &tally{}
	for _, x := range modernPOSTs(j) {
		if code, ok := errorOf(x); !ok || code != -32021 || needsToken(t, x) {
			continue
		}
		t.judged()
		if x.Status() != 400 {
			t.violate(httpWhere(x), "%s was refused with -32021 (MissingRequiredClientCapability) under status %d, not 400 Bad Request", httpWhat(x), x.Status())
		}
	}
	return t.finding(fmt.Sprintf("%d request(s) refused with -32021 under 400 Bad Request", t.n),
		"no request was refused for a client capability not declared (-32021): which requests need one is the server's to know")
}

func checkHTTPHeaderCase(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPHeaderCase) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		if !servedResult(x) {
			t.violate(httpWhere(x), "a request whose MCP header names were in lower case was answered %s, not served", statusText(x))
		}
	}
	return t.finding("a request whose MCP header names were in lower case was served", "no request with header names in lower case was sent")
}

func checkHTTPEncodedName(j *J) Finding {
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPEncodedName) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		name, _ := x.RequestHeader("Mcp-Name")
		if code, _ := errorOf(x); code == -32020 || x.Status() == 400 {
			t.violate(httpWhere(x), "a request whose Mcp-Name was %q, the Base64 form of the body's value, was refused: %s", clipString(name, 80), statusText(x))
		}
	}
	return t.finding("a request whose Mcp-Name was in the Base64 sentinel form was accepted", "no request with an encoded Mcp-Name was sent")
}

// modernOnly says why the session's server serves other versions than
// 2026-07-28 too, or "" when its server/discover lists 2026-07-28 alone.
func modernOnlyServer(j *J) string {
	if j.Session == nil || j.Session.Init() == nil {
		return "no server/discover was answered"
	}
	listed, _ := wire.Array(j.Session.InitResult()["supportedVersions"])
	var vs []string
	for _, v := range listed {
		s, _ := wire.String(v)
		vs = append(vs, s)
	}
	if len(vs) == 1 && vs[0] == wire.Modern {
		return ""
	}
	return fmt.Sprintf("server/discover lists %s: a server that serves the handshake era as well serves GET and DELETE as those versions define them", strings.Join(vs, ", "))
}

func checkHTTPModernGetDelete(j *J) Finding {
	if why := modernOnlyServer(j); why != "" {
		return skipped(why)
	}
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPModernGetDelete) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		if x.Status() != 405 {
			t.violate(httpWhere(x), "a %s of the MCP endpoint was answered %d, not 405 Method Not Allowed", x.Method(), x.Status())
		}
	}
	return t.finding("GET and DELETE of the MCP endpoint were answered 405", "no GET or DELETE was sent")
}

func checkHTTPNoBuffering(j *J) Finding {
	t := &tally{}
	for _, x := range httpExchanges(j) {
		if v, _ := x.RequestHeader("MCP-Protocol-Version"); v != wire.Modern || !x.SSE() || !success(x.Status()) {
			continue
		}
		t.judged()
		if v, _ := x.ResponseHeader("X-Accel-Buffering"); !strings.EqualFold(strings.TrimSpace(v), "no") {
			t.violate(httpWhere(x), "the SSE response to %s carried no X-Accel-Buffering: no", httpWhat(x))
		}
	}
	return t.finding(fmt.Sprintf("%d SSE response(s) carried X-Accel-Buffering: no", t.n), "no 2026-07-28 request was answered with an SSE stream")
}

func checkHTTPNoRequestsOnStream(j *J) Finding {
	t := &tally{}
	for _, x := range httpExchanges(j) {
		if v, _ := x.RequestHeader("MCP-Protocol-Version"); v != wire.Modern || x.Method() != "POST" || !x.SSE() {
			continue
		}
		t.judged()
		for _, m := range x.Messages() {
			if m != nil && m.Kind() == wire.KindRequest {
				t.violate(httpWhere(x), "the response stream of %s carried a request of the server's (%s, id %s)", httpWhat(x), m.Method, m.ID)
			}
		}
	}
	return t.finding(fmt.Sprintf("%d response stream(s) carried no request of the server's", t.n), "no 2026-07-28 request was answered with an SSE stream")
}
