package evidence

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/wire"
	"github.com/yosida95/uritemplate/v3"
)

// Tags the executor puts on what it sends, so that judging finds it.
const (
	// TagInit is the request that opened a session: initialize, or
	// server/discover in the 2026-07-28 era.
	TagInit = "init"
	// TagEraProbe is the server/discover a process got before its
	// initialize, to learn whether the server serves 2026-07-28.
	TagEraProbe = "era"
	// TagInitialized is the notifications/initialized of the handshake.
	TagInitialized = "initialized"
	// TagRead is each read of a listed resource during discovery.
	TagRead = "d:read"
	// TagTemplateRead is each read of a template expanded with sample values.
	TagTemplateRead = "d:template-read"
	// TagPromptGet is each prompts/get of a listed prompt, with its
	// required arguments filled with placeholders.
	TagPromptGet = "d:prompt-get"
	// TagToolCall is each tools/call of a listed tool the user's policy
	// allows, with arguments built from its inputSchema; TagToolCallInvalid
	// is the same call with those arguments broken.
	TagToolCall        = "t:tool-call"
	TagToolCallInvalid = "t:tool-call-invalid"
)

// ListTag is the tag of each page of a list during discovery.
func ListTag(method string) string { return "d:" + method }

// VectorTag is the tag of one step of one item of a vector test.
func VectorTag(test string, item, step int) string {
	return fmt.Sprintf("v:%s#%d.%d", test, item, step)
}

// AliveTag is the tag of the liveness request after a vector test item.
func AliveTag(test string, item int) string { return fmt.Sprintf("v:%s#%d.alive", test, item) }

// MaxPages bounds how many pages of one list discovery follows; a list
// still going there is the harness's limit, never the server's fault.
const MaxPages = 200

// MaxReads bounds how many listed resources (and templates) discovery reads.
const MaxReads = 200

// ListObs is a paginated list followed to its end, or to where it stopped.
type ListObs struct {
	Method string
	Pages  []*Exchange
	// Items are the items of every page, each valid JSON.
	Items []json.RawMessage
	// Stopped says why paging ended early ("" when nextCursor ran out).
	Stopped string
	// Cycle is set when a cursor came back.
	Cycle bool
	// Capped is set when the harness stopped following at MaxPages.
	Capped bool
}

// Read is one read of discovery, with the listed item it read.
type Read struct {
	URI string
	// Item is the listed resource (or, for a template read, the template).
	Item json.RawMessage
	// X is what the read came to: its last attempt, when it was retried
	// with a requestState; Earlier are the attempts answered
	// input_required before it, in order.
	X       *Exchange
	Earlier []*Exchange
}

type view struct {
	init          *Exchange
	initResult    map[string]json.RawMessage
	caps          Capabilities
	resources     ListObs
	templates     ListObs
	reads         []*Read
	templateReads []*Read
	tools         ListObs
	prompts       ListObs
	promptGets    []*PromptGet
	toolCalls     []*ToolCall
}

func (s *Session) v() *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.All() {
		if p.Transcript != nil {
			n += p.Transcript.Len()
		}
	}
	if s.view == nil || s.vn != n && s.holds == 0 {
		s.view, s.vn = buildView(s), n
	}
	return s.view
}

// Hold keeps the session's view (the handshake and what discovery found)
// as it is now until release is called. The executor asks the view before
// every test, while the transcripts keep growing, and rebuilding it each
// time made a run's planning quadratic in its length; judging, after the
// run, never holds it.
func (s *Session) Hold() (release func()) {
	s.v()
	s.mu.Lock()
	s.holds++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.holds--
			s.mu.Unlock()
		})
	}
}

// Init returns the exchange that opened the session.
func (s *Session) Init() *Exchange { return s.v().init }

// InitResult returns the members of the initialize (or server/discover)
// result.
func (s *Session) InitResult() map[string]json.RawMessage { return s.v().initResult }

// Caps returns what the server declared.
func (s *Session) Caps() Capabilities { return s.v().caps }

// Resources returns resources/list as discovery followed it.
func (s *Session) Resources() ListObs { return s.v().resources }

// Templates returns resources/templates/list as discovery followed it.
func (s *Session) Templates() ListObs { return s.v().templates }

// Tools returns tools/list as discovery followed it.
func (s *Session) Tools() ListObs { return s.v().tools }

// Prompts returns prompts/list as discovery followed it.
func (s *Session) Prompts() ListObs { return s.v().prompts }

// PromptGets returns the prompts/get of listed prompts.
func (s *Session) PromptGets() []*PromptGet { return s.v().promptGets }

// ToolCalls returns the tools/call of listed tools, in the order sent.
func (s *Session) ToolCalls() []*ToolCall { return s.v().toolCalls }

// ToolCall is one tools/call of a listed tool.
type ToolCall struct {
	Name string
	// Item is the listed tool (nil when no listed tool has the name).
	Item json.RawMessage
	// X is what the call came to, Earlier its attempts answered
	// input_required before it (see Read).
	X       *Exchange
	Earlier []*Exchange
	// Invalid is set for the call whose arguments break the inputSchema.
	Invalid bool
}

// PromptGet is one prompts/get of discovery, with the listed prompt.
type PromptGet struct {
	Name string
	// Item is the listed prompt (nil when no listed prompt has the name).
	Item json.RawMessage
	// X is what the get came to, Earlier its attempts answered
	// input_required before it (see Read).
	X       *Exchange
	Earlier []*Exchange
}

// Reads returns the reads of listed resources.
func (s *Session) Reads() []*Read { return s.v().reads }

// TemplateReads returns the reads of templates expanded with sample values.
func (s *Session) TemplateReads() []*Read { return s.v().templateReads }

// Tagged returns the exchanges with the tag in every process of the
// session, in order.
func (s *Session) Tagged(tag string) []*Exchange {
	var out []*Exchange
	for _, p := range s.All() {
		out = append(out, p.Tagged(tag)...)
	}
	return out
}

func buildView(s *Session) *view {
	v := &view{}
	p := s.Shared()
	if p == nil {
		return v
	}
	if xs := p.Tagged(TagInit); len(xs) > 0 {
		v.init = xs[len(xs)-1]
		v.initResult = v.init.Result()
		if v.initResult != nil {
			v.caps = ParseCapabilities(v.initResult["capabilities"])
		}
	}
	v.resources = FollowList(s.Tagged(ListTag("resources/list")), "resources/list", p)
	v.templates = FollowList(s.Tagged(ListTag("resources/templates/list")), "resources/templates/list", p)
	v.tools = FollowList(s.Tagged(ListTag("tools/list")), "tools/list", p)
	v.prompts = FollowList(s.Tagged(ListTag("prompts/list")), "prompts/list", p)
	gets := RetryChains(s.Version, s.Tagged(TagPromptGet))
	byName := firstBy(v.prompts.Items, "name", chainParams(gets, "name"))
	for _, c := range gets {
		x := c[len(c)-1]
		n := paramString(c[0], "name")
		v.promptGets = append(v.promptGets, &PromptGet{Name: n, Item: item(v.prompts.Items, byName, n), X: x, Earlier: c[:len(c)-1]})
	}
	var chains [][]*Exchange
	for _, x := range s.All() {
		var calls []*Exchange
		for _, ex := range x.Exchanges() {
			if ex.Tag == TagToolCall || ex.Tag == TagToolCallInvalid {
				calls = append(calls, ex)
			}
		}
		chains = append(chains, RetryChains(s.Version, calls)...)
	}
	// Calls run concurrently: they are judged in the order the tools are
	// listed, each call before its call with broken arguments.
	order := firstBy(v.tools.Items, "name", chainParams(chains, "name"))
	for _, c := range chains {
		ex := c[len(c)-1]
		n := paramString(c[0], "name")
		v.toolCalls = append(v.toolCalls, &ToolCall{Name: n, Item: item(v.tools.Items, order, n), X: ex, Earlier: c[:len(c)-1], Invalid: ex.Tag == TagToolCallInvalid})
	}
	slices.SortStableFunc(v.toolCalls, func(a, b *ToolCall) int {
		if c := cmp.Compare(order[a.Name], order[b.Name]); c != 0 {
			return c
		}
		switch {
		case !a.Invalid && b.Invalid:
			return -1
		case a.Invalid && !b.Invalid:
			return 1
		}
		return 0
	})
	reads := RetryChains(s.Version, s.Tagged(TagRead))
	byURI := firstBy(v.resources.Items, "uri", chainParams(reads, "uri"))
	for _, c := range reads {
		u := requestURI(c[0])
		v.reads = append(v.reads, &Read{URI: u, Item: item(v.resources.Items, byURI, u), X: c[len(c)-1], Earlier: c[:len(c)-1]})
	}
	byExpansion := map[string]json.RawMessage{}
	for _, it := range v.templates.Items {
		if t, ok := wire.String(wire.Member(it, "uriTemplate")); ok {
			if u, _, err := ExpandSample(t); err == nil {
				if _, dup := byExpansion[u]; !dup {
					byExpansion[u] = it
				}
			}
		}
	}
	for _, c := range RetryChains(s.Version, s.Tagged(TagTemplateRead)) {
		u := requestURI(c[0])
		v.templateReads = append(v.templateReads, &Read{URI: u, Item: byExpansion[u], X: c[len(c)-1], Earlier: c[:len(c)-1]})
	}
	return v
}

// firstBy returns the index of the first list item whose string member
// key has each wanted value (those of no item are left out): a list of
// 200,000 resources of which a few were read is indexed for those few.
func firstBy(items []json.RawMessage, key string, wanted map[string]bool) map[string]int {
	out := map[string]int{}
	if len(wanted) == 0 {
		return out
	}
	for i, it := range items {
		if k, ok := wire.String(wire.Member(it, key)); ok && wanted[k] {
			if _, dup := out[k]; !dup {
				out[k] = i
				if len(out) == len(wanted) {
					break
				}
			}
		}
	}
	return out
}

// item returns the item firstBy found for value, or nil.
func item(items []json.RawMessage, index map[string]int, value string) json.RawMessage {
	if i, ok := index[value]; ok {
		return items[i]
	}
	return nil
}

// chainParams returns the string params member key of the first request
// of each chain.
func chainParams(chains [][]*Exchange, key string) map[string]bool {
	out := map[string]bool{}
	for _, c := range chains {
		out[paramString(c[0], key)] = true
	}
	return out
}

func requestURI(x *Exchange) string { return paramString(x, "uri") }

// paramString returns a string member of a request's params ("" when the
// request was never written or has none).
func paramString(x *Exchange, key string) string {
	if x.Request == nil {
		return ""
	}
	s, _ := wire.String(wire.Object(x.Request.Params)[key])
	return s
}

// ListMember names the array of items in a list result.
func ListMember(method string) string {
	switch method {
	case "resources/list":
		return "resources"
	case "resources/templates/list":
		return "resourceTemplates"
	case "tools/list":
		return "tools"
	case "prompts/list":
		return "prompts"
	}
	return ""
}

// NextPage judges one page of a list walk: the cursor to ask for next, or
// why the walk stops there (stop is "" and more is false at the natural
// end). resp is the page's response (nil: failure says why there is
// none); seen holds the cursors already followed.
func NextPage(resp *wire.Message, failure, member string, seen map[string]bool) (cursor string, more bool, stop string, cycle bool) {
	switch {
	case resp == nil && failure != "":
		return "", false, failure, false
	case resp == nil:
		return "", false, "no response", false
	case resp.Has("error"):
		return "", false, "error: " + clip(string(resp.Error), 200), false
	}
	res := wire.Object(resp.Result)
	if res == nil {
		return "", false, "result is not an object", false
	}
	if _, ok := wire.Array(res[member]); !ok {
		return "", false, fmt.Sprintf("result has no %s array", member), false
	}
	next, ok := res["nextCursor"]
	if !ok {
		return "", false, "", false
	}
	c, isString := wire.String(next)
	if !isString {
		return "", false, "nextCursor is not a string: " + clip(string(next), 80), false
	}
	if seen[c] {
		return "", false, fmt.Sprintf("cursor %q came back", clip(c, 60)), true
	}
	return c, true, "", false
}

// FollowList rebuilds a list walk from its pages, in order.
func FollowList(pages []*Exchange, method string, p *Process) ListObs {
	obs := ListObs{Method: method, Pages: pages}
	member := ListMember(method)
	seen := map[string]bool{}
	for i, x := range pages {
		if items, ok := wire.Array(x.Result()[member]); ok {
			obs.Items = append(obs.Items, items...)
		}
		failure := ""
		if x.NoResponse != nil {
			failure = x.NoResponse.String()
		}
		c, more, stop, cycle := NextPage(x.Response, failure, member, seen)
		if !more {
			obs.Stopped, obs.Cycle = stop, cycle
			if cycle {
				obs.Stopped = fmt.Sprintf("%s after %d pages", stop, i+1)
			}
			return obs
		}
		seen[c] = true
	}
	if len(pages) > 0 {
		// The last page still pointed further: the harness stopped there.
		obs.Capped = true
		obs.Stopped = fmt.Sprintf("still returning nextCursor after %d pages, where the harness stops following", len(pages))
		if p != nil {
			for _, e := range p.Entries() {
				if e.Event != nil && e.Event.Budget != nil && e.Event.Budget.What == "pages of "+method {
					obs.Stopped = e.Event.Budget.String()
				}
			}
		}
	}
	return obs
}

// ExpandSample expands a URI template with plain sample values, one per
// variable ("1" suits numeric ids and names alike), so that a read can be
// attempted. It returns the expansion and the template's first variable.
func ExpandSample(tpl string) (expanded, firstVar string, err error) {
	t, err := uritemplate.New(tpl)
	if err != nil {
		return "", "", err
	}
	vals := uritemplate.Values{}
	for _, name := range t.Varnames() {
		vals.Set(name, uritemplate.String("1"))
	}
	if names := t.Varnames(); len(names) > 0 {
		firstVar = names[0]
	}
	expanded, err = t.Expand(vals)
	return expanded, firstVar, err
}

// TemplateVars returns the variable names of a URI template, in order,
// or nil when it does not parse.
func TemplateVars(tpl string) []string {
	t, err := uritemplate.New(tpl)
	if err != nil {
		return nil
	}
	return t.Varnames()
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
