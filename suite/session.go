package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
)

// clientInfo is what mcpconform says about itself in initialize.
var clientInfo = map[string]any{"name": "mcpconform", "version": "dev"}

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
	Resources ListObs
	Templates ListObs
	Reads     []*ReadObs
	// ListNoParams is resources/list with params {} (PAG-09): it should
	// match the first page, which was requested without params.
	ListNoParams *mockclient.Exchange
	// CursorRepeat asks again for the second page of resources/list (PAG-04).
	CursorRepeat *mockclient.Exchange
	// Sub is the subscription round trip, when subscribe is declared.
	Sub *SubObs
	// Batch is the batch probe of a 2025-03-26 session (JSONRPC-11).
	Batch *BatchObs
	// TemplateReads are reads of each template expanded with sample values.
	TemplateReads []*ReadObs
	// SubscribeUndeclared is resources/subscribe sent to a server that does
	// not declare subscribe (RES-SUB-05).
	SubscribeUndeclared *mockclient.Exchange
	Exit                mockclient.ExitInfo
	InitErr             string // why the session never got initialized
	extraCaps           bool   // offer unknown client capabilities (LIFE-13 probe)
	// Modern marks a 2026-07-28 session: no handshake, and every request
	// carries Envelope in params._meta.
	Modern   bool
	Envelope mockclient.Envelope
	// ModernObs is what only a 2026-07-28 session observes.
	ModernObs *ModernObs
	// resourcesNow is the resource list as re-read after a list change
	// (nil while discovery's list is current).
	resourcesNow  *ListObs
	startTimeout  time.Duration // the deadline of initialize
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

// SubObs is one subscribe, read, wait, unsubscribe round trip.
type SubObs struct {
	URI         string
	Subscribe   *mockclient.Exchange
	Unsubscribe *mockclient.Exchange
	// UnsubscribedSeq is the transcript position after which updates for
	// URI should stop.
	UnsubscribedSeq int
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
	params := initializeParams(s.Requested)
	if s.extraCaps {
		params["capabilities"] = map[string]any{
			"experimental":         map[string]any{"com.example.mcpconform/probe": map[string]any{}},
			"x-mcpconform-unknown": map[string]any{"nested": true},
		}
	}
	s.Init = s.Client.CallWithin(ctx, s.startTimeout, "initialize", params)
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

// call sends a request of the session: in a 2026-07-28 session params get
// the per-request envelope.
func (s *Session) call(ctx context.Context, method string, params any) *mockclient.Exchange {
	if !s.Modern {
		return s.Client.Call(ctx, method, params)
	}
	wrapped, err := s.Envelope.Wrap(params)
	if err != nil {
		return &mockclient.Exchange{Method: method, Err: err}
	}
	return s.Client.Call(ctx, method, wrapped)
}

// discover opens a 2026-07-28 session: server/discover in the modern
// envelope stands where initialize stood (LIFE-23). The session counts as
// modern only when the server lists 2026-07-28 among its versions.
func (s *Session) openModern(ctx context.Context) {
	s.Modern = true
	s.Envelope = mockclient.Envelope{ProtocolVersion: Modern, ClientCapabilities: map[string]any{}, ClientInfo: clientInfo}
	params, _ := s.Envelope.Wrap(nil)
	s.Init = s.Client.CallWithin(ctx, s.startTimeout, "server/discover", params)
	x := s.Init
	switch {
	case x.Err != nil:
		s.InitErr = "server/discover: " + x.Err.Error()
		return
	case x.Response.Result == nil:
		s.InitErr = "server/discover was refused: " + clipJSON(x.Response.Error, 300)
		return
	}
	if err := json.Unmarshal(x.Response.Result, &s.InitResult); err != nil {
		s.InitErr = "server/discover result is not an object: " + clipJSON(x.Response.Result, 300)
		return
	}
	var versions []string
	_ = json.Unmarshal(s.InitResult["supportedVersions"], &versions)
	if !slices.Contains(versions, Modern) {
		s.InitErr = fmt.Sprintf("server/discover lists supportedVersions %v, without %s", versions, Modern)
		return
	}
	s.Negotiated = Modern
	s.Caps = parseCapabilities(s.InitResult["capabilities"])
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
		x := s.call(ctx, method, params)
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
		c, isString := str(next)
		if !isString {
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
	if s.Caps.Resources || len(s.Resources.Items) > 0 {
		s.ListNoParams = s.call(ctx, "resources/list", json.RawMessage(`{}`))
	}
	if len(s.Resources.Pages) >= 2 {
		if first := obj(s.Resources.Pages[0].Response.Result); first != nil {
			if c, ok := str(first["nextCursor"]); ok {
				s.CursorRepeat = s.call(ctx, "resources/list", map[string]any{"cursor": c})
			}
		}
	}
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
		x := s.call(ctx, "resources/read", map[string]any{"uri": res.URI})
		s.Reads = append(s.Reads, &ReadObs{URI: res.URI, Resource: r, X: x})
		if x.Err != nil && !strings.Contains(x.Err.Error(), "no response") {
			break // the server is gone
		}
	}
	for i, t := range s.Templates.Items {
		if i == maxReads {
			break
		}
		var tpl struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(t, &tpl) != nil {
			continue
		}
		uri, _, err := expandSample(tpl.URITemplate)
		if err != nil {
			continue
		}
		x := s.call(ctx, "resources/read", map[string]any{"uri": uri})
		s.TemplateReads = append(s.TemplateReads, &ReadObs{URI: uri, Resource: t, X: x})
	}
	if s.Modern {
		s.discoverModern(ctx)
		return
	}
	if s.Caps.Subscribe && len(s.Reads) > 0 {
		s.subscribeRoundTrip(ctx, s.Reads[0].URI)
	}
	if s.Caps.Resources && !s.Caps.Subscribe && len(s.Reads) > 0 {
		s.SubscribeUndeclared = s.Client.Call(ctx, "resources/subscribe", map[string]any{"uri": s.Reads[0].URI})
	}
	if s.Version() == "2025-03-26" {
		s.batchProbe()
	}
}

// BatchObs is what came back for one batch line.
type BatchObs struct {
	Sent []string // ids of the requests in the batch
	// Replies are the stdout entries that held responses to those ids.
	Replies []mockclient.Entry
}

// batchProbe sends one line holding two requests and a notification, as
// 2025-03-26 allows, and collects what answers it.
func (s *Session) batchProbe() {
	ids := []string{"mcpconform-batch-1", "mcpconform-batch-2"}
	line := `[{"jsonrpc":"2.0","id":"` + ids[0] + `","method":"ping"},` +
		`{"jsonrpc":"2.0","id":"` + ids[1] + `","method":"resources/list"},` +
		`{"jsonrpc":"2.0","method":"notifications/mcpconform-batch"}]`
	b := &BatchObs{Sent: ids}
	s.Batch = b
	from := s.Client.Transcript().Len()
	if s.Client.SendRaw([]byte(line)) != nil {
		return
	}
	seen := map[string]bool{}
	deadline := time.Now().Add(s.Client.Timeout())
	for len(seen) < len(ids) && time.Now().Before(deadline) {
		in := s.Client.WaitInbound(from, time.Until(deadline), func(m *mockclient.Message) bool {
			id, _ := str(m.ID)
			return m.Kind() == mockclient.KindResponse && strings.HasPrefix(id, "mcpconform-batch-") && !seen[id]
		})
		if in == nil {
			break
		}
		id, _ := str(in.Msg.ID)
		seen[id] = true
	}
	for _, e := range s.Client.Transcript().Slice(from, -1) {
		if e.Dir != mockclient.Recv {
			continue
		}
		for _, m := range e.Msgs {
			if id, _ := str(m.ID); strings.HasPrefix(id, "mcpconform-batch-") {
				b.Replies = append(b.Replies, e)
				break
			}
		}
	}
}

// subscribeRoundTrip subscribes to uri, reads it (a read may be what
// changes it on some servers), waits briefly for updates, and unsubscribes.
func (s *Session) subscribeRoundTrip(ctx context.Context, uri string) {
	sub := &SubObs{URI: uri}
	s.Sub = sub
	sub.Subscribe = s.Client.Call(ctx, "resources/subscribe", map[string]any{"uri": uri})
	from := s.Client.Transcript().Len()
	s.Client.Call(ctx, "resources/read", map[string]any{"uri": uri})
	s.settle(context.Background(), from, 150*time.Millisecond, func(m *mockclient.Message) bool {
		return m.Method == "notifications/resources/updated"
	})
	sub.Unsubscribe = s.Client.Call(ctx, "resources/unsubscribe", map[string]any{"uri": uri})
	sub.UnsubscribedSeq = s.Client.Transcript().Len()
	// A read after unsubscribing: no update may follow for uri.
	s.Client.Call(ctx, "resources/read", map[string]any{"uri": uri})
	s.settle(context.Background(), sub.UnsubscribedSeq, 100*time.Millisecond, func(m *mockclient.Message) bool {
		return m.Method == "notifications/resources/updated"
	})
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

// settle waits for a message matching pred that arrived after transcript
// position from. A server that answers a follow-up request has handled what
// came before it, so the wait ends a short grace after that answer instead
// of lasting the whole window.
func (s *Session) settle(ctx context.Context, from int, window time.Duration, pred func(*mockclient.Message) bool) *mockclient.Inbound {
	deadline := time.Now().Add(window)
	method, params := "ping", any(nil)
	if s.Modern {
		method = "server/discover"
	}
	if x := s.call(ctx, method, params); x.OK() {
		return s.Client.WaitInbound(from, max(min(25*time.Millisecond, time.Until(deadline)), 0), pred)
	}
	return s.Client.WaitInbound(from, max(time.Until(deadline), 0), pred)
}
