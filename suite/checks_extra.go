package suite

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/vectors"
)

func extraChecks() []*Check {
	return []*Check{
		{
			ID: "initialize-completes", Requirement: "LIFE-01", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#initialization",
			Description: "the initialize exchange completes first on a connection, and the session is judged under the negotiated version",
			Run: func(r *Run) Finding {
				if r.Fatal != "" && r.Config.SpecVersion == Modern {
					return skip("2026-07-28 has no initialize; see discover-completes (LIFE-23)")
				}
				if r.Fatal != "" {
					return Finding{Verdict: reports.Fail, Message: r.Fatal}
				}
				var parts []string
				for _, v := range r.Versions {
					parts = append(parts, fmt.Sprintf("offered %s, answered %s", r.Sessions[v].Requested, r.Sessions[v].Negotiated))
				}
				return pass("initialize completed: " + strings.Join(parts, "; "))
			},
		},
		{
			ID: "discover-completes", Requirement: "LIFE-23", Level: "MUST", Area: "lifecycle",
			Spec:        "server/discover",
			Description: "a server of the 2026-07-28 era answers server/discover in the per-request envelope",
			Run:         checkDiscoverCompletes,
		},
		{
			ID: "server-speaks-stdio", Requirement: "STDIO-01", Level: "MUST", Area: "stdio",
			Spec:        "basic/transports#stdio",
			Description: "the server, started as a child process, reads JSON-RPC on stdin and answers on stdout",
			Run:         checkSpeaksStdio,
		},
		{
			ID: "every-request-answered", Requirement: "LIFE-15", Level: "MUST", Area: "lifecycle",
			Spec:        "basic/lifecycle#timeouts",
			Description: "every well-formed request gets a response within the request deadline",
			Run:         checkAllAnswered,
		},
		{
			ID: "no-requests-before-initialized", Requirement: "LIFE-09", Level: "SHOULD NOT", Area: "lifecycle",
			Spec:        "basic/lifecycle#initialization",
			Description: "until notifications/initialized arrives, the server sends no requests other than ping",
			Versions:    LegacyVersions,
			Run:         checkNoEarlyRequests,
		},
		{
			ID: "jsonrpc-server-request-ids-unique", Requirement: "JSONRPC-04", Level: "MUST NOT", Area: "jsonrpc",
			Spec:        "basic#requests",
			Description: "the server never reuses the id of one of its own requests within a session",
			Run:         checkServerIDsUnique,
		},
		{
			ID: "stderr-utf8", Requirement: "STDIO-05", Level: "MAY", Area: "stdio",
			Spec:        "basic/transports#stdio",
			Description: "what the server logs to stderr is UTF-8 (stderr content itself is never an error)",
			Run:         checkStderrUTF8,
		},
		{
			ID: "exits-on-stdin-eof", Requirement: "STDIO-08", Level: "SHOULD", Area: "stdio",
			Spec:        "basic/lifecycle#shutdown",
			Description: "the server exits when its stdin closes, or at least on SIGTERM",
			Session:     checkShutdown,
		},
		{
			ID: "resources-capability-flags", Requirement: "RES-CAP-02", Level: "schema", Area: "resources",
			Spec:        "server/resources#capabilities",
			Description: "capabilities.resources.subscribe and listChanged, when present, are booleans",
			Requires:    []string{"resources"},
			Session:     checkResourceFlags,
		},
		{
			ID: "undeclared-resources-method-not-found", Requirement: "RES-CAP-04", Level: "SHOULD", Area: "resources",
			Spec:        "basic#error-codes",
			Description: "without the resources capability, resources/list gets -32601 method not found",
			Session:     checkUndeclaredResources,
		},
		{
			ID: "resources-title-and-name", Requirement: "RES-LIST-10", Level: "schema", Area: "resources",
			Spec:        "server/resources#resource",
			Description: "name is the programmatic id and title the display label: both strings, title non-empty when given",
			Versions:    since("2025-06-18"),
			Requires:    []string{"resources"},
			Session:     checkTitles,
		},
		{
			ID: "contents-uri-valid", Requirement: "RES-READ-09", Level: "MAY", Area: "resources",
			Spec:        "server/resources#reading-resources",
			Description: "each contents item names a valid URI (it may be a sub-resource of the one read)",
			Requires:    []string{"resources"},
			Session:     checkContentsURIs,
		},
		{
			ID: "template-mimetype-matches", Requirement: "RES-TPL-03", Level: "schema", Area: "templates",
			Spec:        "server/resources#resource-templates",
			Description: "a template's mimeType is the mimeType of what reading its expansions returns",
			Requires:    []string{"resources"},
			Session:     checkTemplateMimeTypes,
		},
		{
			ID: "templates-pagination-terminates", Requirement: "RES-TPL-05", Level: "derived", Area: "templates",
			Spec:        "server/utilities/pagination",
			Description: "following nextCursor through resources/templates/list ends",
			Requires:    []string{"resources"},
			Session: func(s *Session) Finding {
				if s.Templates.Cycle || strings.HasPrefix(s.Templates.Stopped, "still returning") {
					return Finding{Verdict: reports.Fail, Message: "resources/templates/list: " + s.Templates.Stopped}
				}
				return pass(fmt.Sprintf("ended after %d page(s)", len(s.Templates.Pages)))
			},
		},
		{
			ID: "subscribe-without-capability", Requirement: "RES-SUB-05", Level: "unspecified", Area: "subscriptions",
			Spec:        "server/resources#subscriptions",
			Description: "resources/subscribe to a server that does not declare subscribe gets an error (-32601 recommended)",
			Versions:    LegacyVersions,
			Requires:    []string{"resources"},
			Session:     checkSubscribeUndeclared,
		},
		{
			ID: "annotations-not-on-contents", Requirement: "RES-ANN-04", Level: "schema", Area: "resources",
			Spec:        "server/resources#annotations",
			Description: "annotations belong on resources, templates and content blocks, not inside text or blob contents",
			Requires:    []string{"resources"},
			Flags:       []string{"disputed"},
			Session:     checkContentsAnnotations,
		},
		{
			ID: "meta-reverse-dns", Requirement: "META-04", Level: "SHOULD", Area: "meta",
			Spec:        "basic#meta",
			Description: "_meta prefixes use reverse DNS (com.example/), not a domain as written (example.com/)",
			Versions:    since("2025-11-25"),
			Flags:       []string{"heuristic"},
			Session:     func(s *Session) Finding { return checkMeta(s, "reverse-dns") },
		},
		{
			ID: "not-found-code-only-for-resources", Requirement: "ERR-06", Level: "SHOULD", Area: "errors",
			Spec:        "server/resources#error-handling",
			Description: "-32002 (resource not found) answers only resources/read and resource requests",
			Run:         checkNotFoundCodeUse,
		},
		{
			ID: "url-elicitation-code-version", Requirement: "ERR-11", Level: "MUST NOT", Area: "errors",
			Spec:        "basic#error-codes",
			Description: "-32042 (URL elicitation required) appears only in 2025-11-25 sessions",
			Versions:    LegacyVersions,
			Run:         checkElicitationCode,
		},
	}
}

func countResponses(c *mockclient.Client) int {
	n := 0
	for _, e := range c.Transcript().Entries() {
		if e.Dir == mockclient.Recv {
			for _, m := range e.Msgs {
				if m.Kind() == mockclient.KindResponse {
					n++
				}
			}
		}
	}
	return n
}

// cleanClients are the processes that saw only well-formed traffic.
func cleanClients(r *Run) map[*mockclient.Client]bool {
	clean := map[*mockclient.Client]bool{}
	for _, s := range r.Sessions {
		clean[s.Client] = true
	}
	for _, n := range r.Negotiation {
		if n.Session.Client != nil {
			clean[n.Session.Client] = true
		}
	}
	return clean
}

func checkAllAnswered(r *Run) Finding {
	var vs []violation
	for c := range cleanClients(r) {
		for _, e := range c.Transcript().Entries() {
			if e.Dir == mockclient.Event && strings.HasPrefix(string(e.Data), "no response to ") && !aboutBeyondSafeID(string(e.Data)) {
				vs = append(vs, violation{c, e.Seq, string(e.Data), false})
			}
		}
	}
	return findingOf(vs, "every request was answered in time", len(vs))
}

func checkNoEarlyRequests(r *Run) Finding {
	var vs []violation
	total := 0
	for c := range cleanClients(r) {
		initialized := false
		for _, e := range c.Transcript().Entries() {
			for _, m := range e.Msgs {
				switch {
				case e.Dir == mockclient.Send && m.Method == "notifications/initialized":
					initialized = true
				case e.Dir == mockclient.Recv && m.Kind() == mockclient.KindRequest:
					total++
					if !initialized && m.Method != "ping" {
						vs = append(vs, violation{c, e.Seq, "a " + clipString(m.Method, 40) + " request before notifications/initialized", true})
					}
				}
			}
		}
	}
	return findingOf(vs, "no server request before initialized", total)
}

func checkServerIDsUnique(r *Run) Finding {
	var vs []violation
	total := 0
	for c := range cleanClients(r) {
		seen := map[string]bool{}
		for _, e := range c.Transcript().Entries() {
			if e.Dir != mockclient.Recv {
				continue
			}
			for _, m := range e.Msgs {
				if m.Kind() != mockclient.KindRequest {
					continue
				}
				total++
				k := string(m.ID)
				if seen[k] {
					vs = append(vs, violation{c, e.Seq, "the server reused its request id " + clipString(k, 40), false})
				}
				seen[k] = true
			}
		}
	}
	if total == 0 {
		return skip("the server sent no requests")
	}
	return findingOf(vs, "every server request id is new", total)
}

func checkStderrUTF8(r *Run) Finding {
	var vs []violation
	total := 0
	for _, c := range r.Clients() {
		for _, e := range c.Transcript().Entries() {
			if e.Dir == mockclient.Stderr {
				total++
				if !utf8.Valid(e.Data) {
					vs = append(vs, violation{c, e.Seq, "a stderr line that is not UTF-8: " + quoteBytes(e.Data, 60), true})
				}
			}
		}
	}
	if total == 0 {
		return skip("the server wrote nothing to stderr")
	}
	return findingOf(vs, "stderr is UTF-8", total)
}

func checkShutdown(s *Session) Finding {
	e := s.Exit
	switch {
	case !e.Exited:
		return Finding{Verdict: reports.Error, Message: "the shared session was not shut down"}
	case e.Stage == "before-shutdown":
		return info("the server exited on its own before shutdown began (" + e.String() + ")")
	case e.Stage == "stdin-eof":
		return pass(fmt.Sprintf("exited %s after stdin closed (%s)", e.AfterShutdown.Round(1e6), e))
	case e.Stage == "sigterm":
		return info(fmt.Sprintf("ignored stdin EOF; exited on SIGTERM after %s", e.AfterShutdown.Round(1e6)))
	}
	return Finding{Verdict: reports.Warn, Message: fmt.Sprintf("ignored both stdin EOF and SIGTERM; killed with SIGKILL after %s", e.AfterShutdown.Round(1e6))}
}

func checkResourceFlags(s *Session) Finding {
	r := obj(obj(s.Caps.Raw)["resources"])
	p := &problems{actual: toAny(obj(s.Caps.Raw)["resources"])}
	for _, f := range []string{"subscribe", "listChanged"} {
		if v, ok := r[f]; ok && jtype(v) != "boolean" {
			p.fail("capabilities.resources.%s is %s, want a boolean", f, describeType(v))
		}
	}
	return p.finding("subscribe and listChanged are booleans where present")
}

func checkUndeclaredResources(s *Session) Finding {
	if s.Caps.Resources {
		return skip("the server declares the resources capability")
	}
	if len(s.Resources.Pages) == 0 {
		return Finding{Verdict: reports.Error, Message: "resources/list was not called"}
	}
	x := s.Resources.Pages[0]
	f := Finding{Actual: describe(x.Response, x.Err), Expected: map[string]any{"error": map[string]any{"code": -32601}}}
	switch {
	case x.Err != nil:
		f.Verdict, f.Message = reports.Fail, "resources/list: "+x.Err.Error()
	case x.Response.Has("result"):
		f.Verdict, f.Message = reports.Warn, "resources/list succeeded without the capability (RES-CAP-01 judges the missing declaration)"
	default:
		if code, _ := x.Response.DecodeError().IntCode(); code == -32601 {
			return pass("resources/list gets -32601 without the capability")
		}
		f.Verdict, f.Message = reports.Warn, "resources/list got "+clipJSON(x.Response.Error, 120)+"; -32601 is the code for a method behind an undeclared capability"
	}
	return f
}

func checkTitles(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, l := range []ListObs{s.Resources, s.Templates} {
		for i, m := range itemsOf(l) {
			if m == nil {
				continue
			}
			if v, ok := m["title"]; ok {
				n++
				if t, ok := str(v); ok && strings.TrimSpace(t) == "" {
					p.warn("item %s has an empty title; leave it out to show the name", label(m, i, "name"))
				}
			}
		}
	}
	if n == 0 {
		return skip("no listed resource or template has a title")
	}
	return p.finding(fmt.Sprintf("%d title(s) are display labels", n))
}

func checkContentsURIs(s *Session) Finding {
	p := &problems{}
	n, differ := 0, 0
	for _, rd := range s.Reads {
		items, _ := contentsOf(rd)
		for j, m := range items {
			u, ok := str(m["uri"])
			if !ok {
				continue
			}
			n++
			if u != rd.URI {
				differ++
			}
			if err := vectors.AbsoluteURI(u); err != nil && !isIRI(u) {
				p.fail("reading %q: contents[%d].uri: %v", clipString(rd.URI, 60), j, err)
			}
		}
	}
	if n == 0 {
		return skip("no contents items to judge")
	}
	return p.finding(fmt.Sprintf("%d contents uri(s) are valid; %d differ from the URI read (allowed)", n, differ))
}

func checkTemplateMimeTypes(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, rd := range s.TemplateReads {
		want, ok := str(obj(rd.Resource)["mimeType"])
		if !ok {
			continue
		}
		items, prob := contentsOf(rd)
		if prob != "" {
			continue
		}
		for j, m := range items {
			got, ok := str(m["mimeType"])
			if !ok {
				continue
			}
			n++
			if !sameMediaType(got, want) {
				p.warn("template mimeType %s, but reading %q gives contents[%d].mimeType %s", want, clipString(rd.URI, 60), j, got)
			}
		}
	}
	if n == 0 {
		return skip("no template with a mimeType could be read with sample values")
	}
	return p.finding(fmt.Sprintf("%d read(s) match their template's mimeType", n))
}

// sameMediaType compares media types without parameters, case-insensitively.
func sameMediaType(a, b string) bool {
	base := func(s string) string {
		s, _, _ = strings.Cut(s, ";")
		return strings.ToLower(strings.TrimSpace(s))
	}
	return base(a) == base(b)
}

func checkSubscribeUndeclared(s *Session) Finding {
	x := s.SubscribeUndeclared
	if x == nil {
		if s.Caps.Subscribe {
			return skip("the server declares subscribe")
		}
		return skip("the server lists no resource to subscribe to")
	}
	f := Finding{Actual: describe(x.Response, x.Err)}
	switch {
	case x.Err != nil:
		f.Verdict, f.Message = reports.Fail, "resources/subscribe: "+x.Err.Error()
	case x.Response.Has("result"):
		f.Verdict, f.Message = reports.Warn, "resources/subscribe succeeded although subscribe is not declared; declare it, or refuse with -32601"
	default:
		if code, _ := x.Response.DecodeError().IntCode(); code == -32601 {
			return pass("resources/subscribe gets -32601 without the capability")
		}
		f.Verdict, f.Message = reports.Info, "refused with "+clipJSON(x.Response.Error, 120)+" (no code is specified; -32601 is recommended)"
	}
	return f
}

func checkContentsAnnotations(s *Session) Finding {
	p := &problems{}
	n := 0
	for _, rd := range s.Reads {
		items, _ := contentsOf(rd)
		for j, m := range items {
			n++
			if _, ok := m["annotations"]; ok {
				p.warn("reading %q: contents[%d] carries annotations, which the schema puts on the resource, not its contents (catalogue A-7)", clipString(rd.URI, 60), j)
			}
		}
	}
	if n == 0 {
		return skip("no contents items to judge")
	}
	return p.finding("no annotations inside contents")
}

// errorCodes yields every error code in the responses of clean sessions,
// with the method of the request it answered.
func errorCodes(r *Run, yield func(c *mockclient.Client, s *Session, seq int, method string, code int64)) {
	for _, s := range allSessions(r) {
		codesOf(s.Client, func(seq int, method string, code int64) { yield(s.Client, s, seq, method, code) })
	}
}

// codesOf yields the integer error codes a process sent, each with the
// method of the request it answered.
func codesOf(c *mockclient.Client, yield func(seq int, method string, code int64)) {
	methods := map[string]string{}
	for _, e := range c.Transcript().Entries() {
		for _, m := range e.Msgs {
			if e.Dir == mockclient.Send && m.Kind() == mockclient.KindRequest {
				methods[string(m.ID)] = m.Method
			}
			if e.Dir == mockclient.Recv && m.Kind() == mockclient.KindResponse && m.Has("error") {
				if er := m.DecodeError(); er != nil {
					if code, ok := er.IntCode(); ok {
						yield(e.Seq, methods[string(m.ID)], code)
					}
				}
			}
		}
	}
}

func allSessions(r *Run) []*Session {
	var out []*Session
	seen := map[*Session]bool{}
	for _, v := range r.Versions {
		if s := r.Sessions[v]; s != nil && !seen[s] {
			out, seen[s] = append(out, s), true
		}
	}
	for _, n := range r.Negotiation {
		if n.Session.Client != nil && !seen[n.Session] {
			out, seen[n.Session] = append(out, n.Session), true
		}
	}
	return out
}

func checkNotFoundCodeUse(r *Run) Finding {
	var vs []violation
	total := 0
	errorCodes(r, func(c *mockclient.Client, _ *Session, seq int, method string, code int64) {
		total++
		if code == -32002 && !strings.HasPrefix(method, "resources/") {
			vs = append(vs, violation{c, seq, fmt.Sprintf("-32002 (resource not found) answered %s", clipString(method, 40)), true})
		}
	})
	return findingOf(vs, "-32002 only answers resource requests", total)
}

func checkElicitationCode(r *Run) Finding {
	var vs []violation
	total := 0
	errorCodes(r, func(c *mockclient.Client, s *Session, seq int, method string, code int64) {
		total++
		if code == -32042 && s.Version() != "2025-11-25" {
			vs = append(vs, violation{c, seq, fmt.Sprintf("-32042 in a %s session answering %s; the code exists only in 2025-11-25", s.Version(), clipString(method, 40)), false})
		}
	})
	return findingOf(vs, "no -32042 outside 2025-11-25", total)
}

// aboutBeyondSafeID reports whether a "no response to M (id X)" event is
// about an id beyond 2^53, which the E-08 probe records instead.
func aboutBeyondSafeID(event string) bool {
	_, rest, ok := strings.Cut(event, "(id ")
	if !ok {
		return false
	}
	id, _, _ := strings.Cut(rest, ")")
	return beyondSafeInteger(json.RawMessage(id))
}

func checkDiscoverCompletes(r *Run) Finding {
	for _, n := range r.Negotiation {
		if n.Offered != Modern || n.ExtraCapabilities {
			continue
		}
		s := n.Session
		switch {
		case s.Client == nil:
			return Finding{Verdict: reports.Error, Message: "the era probe did not start: " + s.InitErr}
		case s.InitErr == "":
			return pass("server/discover lists " + Modern)
		case r.Config.SpecVersion == Modern:
			f := Finding{Verdict: reports.Fail, Message: s.InitErr, Client: s.Client, From: 0, To: -1}
			if s.Init != nil && s.Init.Response != nil {
				f.Actual = toAny(s.Init.Response.Raw)
			}
			return f
		}
		return skip("the server does not serve " + Modern + " (" + s.InitErr + ")")
	}
	return Finding{Verdict: reports.Error, Message: "no era probe was run"}
}

// checkSpeaksStdio fails when no process the run started ever answered a
// request on stdout: the server talks some other way (stderr, a socket) or
// not at all.
func checkSpeaksStdio(r *Run) Finding {
	started, answered := 0, 0
	for _, c := range r.Clients() {
		started++
		if countResponses(c) > 0 {
			answered++
		}
	}
	switch {
	case started == 0:
		return Finding{Verdict: reports.Error, Message: "no server process was started"}
	case answered == 0:
		return Finding{Verdict: reports.Fail, Message: fmt.Sprintf("none of the %d processes answered a request on stdout", started)}
	}
	return pass(fmt.Sprintf("%d of %d processes answered on stdout", answered, started))
}
