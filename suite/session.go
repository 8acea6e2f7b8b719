package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
)

// clientInfo is what mcpconform says about itself in initialize.
var clientInfo = map[string]string{"name": "mcpconform", "version": "dev"}

// Session is everything observed in one initialized server process.
type Session struct {
	// Requested is the version the client offered; Negotiated what the server answered.
	Requested  string
	Negotiated string
	Client     *mockclient.Client
	Init       *mockclient.Exchange
	// InitResult holds the members of a successful initialize result.
	InitResult map[string]json.RawMessage
	Caps       Capabilities
	// Discovery of lists: every item of every page, and each page's exchange.
	Resources     ListObs
	Templates     ListObs
	Reads         []*ReadObs
	Exit          mockclient.ExitInfo
	InitErr       string // why the session never got initialized
	discoveryDone bool
}

// ListObs is a paginated list followed to its end (or to where it stopped).
type ListObs struct {
	Attempted bool
	Pages     []*mockclient.Exchange
	Items     []json.RawMessage
	// Stopped says why paging ended early ("" when nextCursor ran out).
	Stopped string
	// Cycle is set when a cursor repeated.
	Cycle bool
}

// ReadObs is the read of one listed resource during discovery.
type ReadObs struct {
	URI      string
	Resource json.RawMessage
	X        *mockclient.Exchange
}

// Capabilities is what the server declared, parsed leniently: a flag is
// true only when the member is the JSON boolean true.
type Capabilities struct {
	Raw          json.RawMessage
	Resources    bool
	Subscribe    bool
	ListChanged  bool
	Logging      bool
	Completions  bool
	declaredKeys map[string]json.RawMessage
}

func parseCapabilities(raw json.RawMessage) Capabilities {
	c := Capabilities{Raw: raw}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return c
	}
	c.declaredKeys = m
	if r, ok := m["resources"]; ok && len(r) > 0 && r[0] == '{' {
		c.Resources = true
		var rc map[string]json.RawMessage
		_ = json.Unmarshal(r, &rc)
		c.Subscribe = string(rc["subscribe"]) == "true"
		c.ListChanged = string(rc["listChanged"]) == "true"
	}
	_, c.Logging = m["logging"]
	_, c.Completions = m["completions"]
	return c
}

// Has reports whether a capability path such as "resources.subscribe" holds.
func (c Capabilities) Has(path string) bool {
	switch path {
	case "resources":
		return c.Resources
	case "resources.subscribe":
		return c.Subscribe
	case "resources.listChanged":
		return c.ListChanged
	case "logging":
		return c.Logging
	case "completions":
		return c.Completions
	}
	top, _, _ := strings.Cut(path, ".")
	_, ok := c.declaredKeys[top]
	return ok
}

func initializeParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	}
}

// initialize runs the handshake: initialize, then notifications/initialized.
func (s *Session) initialize(ctx context.Context) {
	s.Init = s.Client.Call(ctx, "initialize", initializeParams(s.Requested))
	x := s.Init
	switch {
	case x.Err != nil:
		s.InitErr = fmt.Sprintf("initialize: %v", x.Err)
		return
	case x.Response.Result == nil:
		s.InitErr = "initialize was refused: " + clipJSON(x.Response.Error, 300)
		return
	}
	if err := json.Unmarshal(x.Response.Result, &s.InitResult); err != nil {
		s.InitErr = "initialize result is not an object: " + clipJSON(x.Response.Result, 300)
		return
	}
	var v string
	if json.Unmarshal(s.InitResult["protocolVersion"], &v) != nil {
		s.InitErr = "initialize result has no protocolVersion string"
		return
	}
	s.Negotiated = v
	s.Caps = parseCapabilities(s.InitResult["capabilities"])
	_ = s.Client.Notify("notifications/initialized", nil)
}

// Version is the version this session is judged under.
func (s *Session) Version() string {
	if KnownVersion(s.Negotiated) {
		return s.Negotiated
	}
	return s.Requested
}

const maxPages = 100

// list follows a paginated list to its end, stopping at a repeated cursor,
// an error, or maxPages.
func (s *Session) list(ctx context.Context, method, member string) ListObs {
	obs := ListObs{Attempted: true}
	seen := map[string]bool{}
	var cursor *string
	for page := 0; ; page++ {
		if page == maxPages {
			obs.Stopped = fmt.Sprintf("still returning nextCursor after %d pages", maxPages)
			return obs
		}
		var params any
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		x := s.Client.Call(ctx, method, params)
		obs.Pages = append(obs.Pages, x)
		if x.Err != nil {
			obs.Stopped = x.Err.Error()
			return obs
		}
		if x.Response.Result == nil {
			obs.Stopped = "error: " + clipJSON(x.Response.Error, 200)
			return obs
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(x.Response.Result, &res) != nil {
			obs.Stopped = "result is not an object"
			return obs
		}
		var items []json.RawMessage
		if json.Unmarshal(res[member], &items) != nil {
			obs.Stopped = fmt.Sprintf("result has no %s array", member)
			return obs
		}
		obs.Items = append(obs.Items, items...)
		next, ok := res["nextCursor"]
		if !ok {
			return obs
		}
		var c string
		if json.Unmarshal(next, &c) != nil {
			obs.Stopped = "nextCursor is not a string: " + clipJSON(next, 80)
			return obs
		}
		if seen[c] {
			obs.Cycle = true
			obs.Stopped = fmt.Sprintf("cursor %q came back after %d pages", clipString(c, 60), page+1)
			return obs
		}
		seen[c] = true
		cursor = &c
	}
}

const maxReads = 200

// discover lists resources and templates and reads every listed resource.
func (s *Session) discover(ctx context.Context) {
	if s.discoveryDone {
		return
	}
	s.discoveryDone = true
	s.Resources = s.list(ctx, "resources/list", "resources")
	s.Templates = s.list(ctx, "resources/templates/list", "resourceTemplates")
	for i, r := range s.Resources.Items {
		if i == maxReads {
			break
		}
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(r, &res) != nil || res.URI == "" {
			continue
		}
		x := s.Client.Call(ctx, "resources/read", map[string]any{"uri": res.URI})
		s.Reads = append(s.Reads, &ReadObs{URI: res.URI, Resource: r, X: x})
		if x.Err != nil && !strings.Contains(x.Err.Error(), "no response") {
			break // the server is gone
		}
	}
}

func clipJSON(raw json.RawMessage, n int) string {
	return clipString(string(raw), n)
}

func clipString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
