package checks

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// httpSecurityChecks judge what protects an HTTP server: the Origin it
// accepts, how a protected server tells a client where to authorize, and
// the deprecated HTTP+SSE transport a server may still speak (HTTP-18,
// HTTP-31, HTTP-32).
func httpSecurityChecks() []*Check {
	return []*Check{
		{
			ID: "http-origin-validated", Requirement: "HTTP-18", Area: "http",
			Description: "a request from a foreign Origin is refused (from 2025-11-25 with 403 Forbidden); judged on loopback targets",
			Needs:       []plan.Probe{plan.ProbeHTTPOrigin},
			Judge:       overHTTP(checkHTTPOrigin),
		},
		{
			ID: "http-protected-resource-metadata", Requirement: "HTTP-31", Area: "http",
			Description: "a protected server's 401 leads to its protected-resource metadata (resource_metadata in WWW-Authenticate, or a well-known URI), which names authorization_servers",
			Needs:       []plan.Probe{plan.ProbeHTTPProtectedResource},
			Trigger:     "a request answered 401 Unauthorized (a server that wants a token the run did not give)",
			Judge:       overHTTP(checkHTTPProtected),
		},
		{
			ID: "http-sse-endpoint-event", Requirement: "HTTP-32", Area: "http",
			Description: "a server on the deprecated HTTP+SSE transport (2024-11-05) starts its stream with an endpoint event",
			Needs:       []plan.Probe{plan.ProbeHTTPLegacySSE},
			Judge:       overHTTP(checkHTTPLegacySSE),
		},
	}
}

// behindToken says why nothing of a protected server can be judged: it
// answered 401 and served nothing else (a token is needed, and the run
// gave none), or "". Only the HTTP checks judge such a run, each saying
// what the 401 hid.
func behindToken(j *J) string {
	unauthorized := false
	for _, x := range httpExchanges(j) {
		switch {
		case x.Status() == 401:
			unauthorized = true
		case success(x.Status()) && !strings.HasPrefix(x.Tag, httpProbePrefix):
			return ""
		}
	}
	if !unauthorized {
		return ""
	}
	return "the server answered 401 Unauthorized and served nothing: needs a token (--header)"
}

// notLoopback says why the target is not one whose foreign origins are
// foreign beyond doubt, or "" when it listens on a loopback address.
func notLoopback(j *J) string {
	if len(j.Run.Command) > 0 && strings.HasPrefix(j.Run.Command[0], "unix:") {
		return "the target is a Unix socket, which no web page reaches: there is no Origin to check"
	}
	for _, x := range httpExchanges(j) {
		if x.Request == nil {
			continue
		}
		u, err := url.Parse(x.Request.URL)
		if err != nil {
			continue
		}
		if u.Scheme == "unix" || u.Scheme == "http+unix" {
			return "the target is a Unix socket, which no web page reaches: there is no Origin to check"
		}
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return ""
		}
		return fmt.Sprintf("the target %s is not on a loopback address: which origins it accepts is its own policy", u.Host)
	}
	return "no HTTP request was recorded"
}

func checkHTTPOrigin(j *J) Finding {
	if why := notLoopback(j); why != "" {
		return skipped(why)
	}
	t := &tally{}
	for _, x := range probeHTTP(j, plan.ProbeHTTPOrigin) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		t.judged()
		switch s := x.Status(); {
		case s == 403:
		case success(s):
			t.violate(httpWhere(x), "a request with Origin: %s was served (%s)", plan.OriginForeign, statusText(x))
		case s >= 400 && s < 500 && (j.Version == wire.V20251125 || j.Version == wire.Modern):
			t.dispute(httpWhere(x), "a request with Origin: %s was refused with %d: it protects the server, but the rule names 403 Forbidden", plan.OriginForeign, s)
		case s >= 400 && s < 500:
		default:
			t.record(httpWhere(x), "a request with Origin: %s was answered %d", plan.OriginForeign, s)
		}
	}
	return t.finding(fmt.Sprintf("a request with Origin: %s was refused", plan.OriginForeign), "no request with a foreign Origin was sent")
}

// documentOf returns the JSON document a GET's body held.
func documentOf(x *evidence.HTTPExchange) map[string]json.RawMessage {
	for _, r := range x.Received {
		for _, m := range r.Msgs {
			if m != nil {
				return wire.Object(m.Raw)
			}
		}
	}
	return wire.Object(x.Body)
}

// resourceMetadata returns the resource_metadata a WWW-Authenticate
// header names ("" for none).
func resourceMetadata(x *evidence.HTTPExchange) string {
	for _, v := range x.Response.Header.Values("WWW-Authenticate") {
		i := strings.Index(strings.ToLower(v), "resource_metadata=")
		if i < 0 {
			continue
		}
		rest := v[i+len("resource_metadata="):]
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return rest[1:]
			}
			return rest[1 : end+1]
		}
		end := strings.IndexAny(rest, ", ")
		if end < 0 {
			return rest
		}
		return rest[:end]
	}
	return ""
}

func checkHTTPProtected(j *J) Finding {
	all := httpExchanges(j)
	i := slices.IndexFunc(all, func(x *evidence.HTTPExchange) bool {
		return x.Status() == 401 && !strings.HasPrefix(x.Tag, plan.ProbeHTTPProtectedResource.Tag())
	})
	if i < 0 {
		return skipped("no request was answered 401 Unauthorized: the server asked for no token")
	}
	x401 := all[i]
	t := &tally{}
	t.judged()
	named := resourceMetadata(x401)
	if j.Version == wire.V20250618 && named == "" {
		t.violate(httpWhere(x401), "a 401 Unauthorized without resource_metadata in WWW-Authenticate")
		return t.finding("", "")
	}
	var found []string
	for _, x := range probeHTTP(j, plan.ProbeHTTPProtectedResource) {
		if x.Request == nil {
			continue
		}
		if !success(x.Status()) {
			found = append(found, fmt.Sprintf("%s answered %d", x.Request.URL, x.Status()))
			continue
		}
		servers, _ := wire.Array(documentOf(x)["authorization_servers"])
		if len(servers) == 0 {
			t.violate(httpWhere(x), "the protected-resource metadata at %s names no authorization_servers", x.Request.URL)
			return t.finding("", "")
		}
		return t.finding(fmt.Sprintf("a 401 led to protected-resource metadata naming %d authorization server(s) (%s)", len(servers), x.Request.URL), "")
	}
	if named != "" {
		return t.finding(fmt.Sprintf("the 401 names its protected-resource metadata: %s", named), "")
	}
	t.violate(httpWhere(x401), "a 401 Unauthorized names no resource_metadata in WWW-Authenticate, and no protected-resource metadata was found at a well-known URI (%s)", strings.Join(found, "; "))
	return t.finding("", "")
}

func checkHTTPLegacySSE(j *J) Finding {
	t := &tally{}
	endpoint := ""
	for _, x := range probeHTTP(j, plan.ProbeHTTPLegacySSE) {
		if x.Response == nil || needsToken(t, x) {
			continue
		}
		if !success(x.Status()) || !x.SSE() {
			t.unexercise("the URL serves no HTTP+SSE stream either (a GET answered %d)", x.Status())
			continue
		}
		t.judged()
		if len(x.Events) == 0 || x.Events[0].Event != "endpoint" || x.Events[0].Data == "" {
			first := "no event"
			if len(x.Events) > 0 {
				first = fmt.Sprintf("an event named %q", x.Events[0].Event)
			}
			t.violate(httpWhere(x), "the server speaks the deprecated HTTP+SSE transport, but its stream began with %s, not an endpoint event holding a URI", first)
			continue
		}
		endpoint = x.Events[0].Data
	}
	return t.finding(fmt.Sprintf("the server speaks the deprecated HTTP+SSE transport (2024-11-05), not Streamable HTTP; its stream began with the endpoint event %q", clipString(endpoint, 120)),
		"the URL was not probed for the deprecated HTTP+SSE transport")
}
