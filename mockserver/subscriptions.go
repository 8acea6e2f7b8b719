package mockserver

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/wire"
)

// subscriptionURI reads and checks the uri of subscribe and unsubscribe.
func subscriptionURI(params json.RawMessage) (string, *rpcError) {
	uri, rerr := uriParam(params)
	if rerr != nil {
		return "", rerr
	}
	if rerr := validRequestURI(uri); rerr != nil {
		return "", rerr
	}
	return uri, nil
}

// subscribe records a subscription (RES-SUB-01). Any valid URI may be
// subscribed to, also one not (yet) listed.
func (s *server) subscribe(params json.RawMessage) (any, *rpcError) {
	uri, rerr := subscriptionURI(params)
	if rerr != nil {
		return nil, rerr
	}
	s.subscriptions[uri] = true
	if s.faults.has("updated-missing-uri") {
		s.notify("notifications/resources/updated", object{})
	}
	if s.variants.has("fragment-sub-resources") {
		s.notify("notifications/resources/updated", s.updatedParams(subResource(uri)))
	}
	return object{}, nil
}

// unsubscribe ends a subscription; unsubscribing a URI that has none is
// not an error (RES-SUB-02).
func (s *server) unsubscribe(params json.RawMessage) (any, *rpcError) {
	uri, rerr := subscriptionURI(params)
	if rerr != nil {
		return nil, rerr
	}
	if s.faults.has("unsubscribe-error") {
		return nil, &rpcError{Code: wire.CodeInternalError, Message: "Internal error: unsubscribing failed."}
	}
	delete(s.subscriptions, uri)
	return object{}, nil
}

func (s *server) updatedParams(uri string) object {
	if s.faults.has("updated-missing-uri") {
		return object{}
	}
	return object{"uri": uri}
}

// fireTriggers runs the fixture's triggers after a successful read of uri:
// updates go to subscribers only (RES-SUB-03), legacy ones and listen
// streams that asked for the URI; list changes happen once and are
// announced only when listChanged is declared (RES-LC-01, RES-LC-02), in
// 2026-07-28 only on streams that asked for resourcesListChanged.
func (s *server) fireTriggers(uri string) {
	for _, t := range s.cat.fx.SubscriptionTriggers {
		if t.On.Read != uri {
			continue
		}
		if s.subscriptions[t.Updates] {
			s.notify("notifications/resources/updated", s.updatedParams(t.Updates))
		}
		for _, st := range s.streams {
			if slices.Contains(st.uris, t.Updates) {
				s.streamNotify(st, "notifications/resources/updated", s.updatedParams(t.Updates))
			}
		}
	}
	for i, t := range s.cat.fx.ListChangeTriggers {
		if t.On.Read != uri || s.fired[i] {
			continue
		}
		if s.req != nil && !slices.ContainsFunc(s.streams, func(st *stream) bool { return st.listChanged }) {
			// 2026-07-28: the list may not change as a side effect of a
			// request unless a stream that asked for list changes is there
			// to announce it (RES-CAP-03); the trigger waits for one.
			continue
		}
		s.fired[i] = true
		for _, gone := range s.cat.listRemove[i] {
			for j, e := range s.listed {
				if e.URI == gone {
					s.listed = append(s.listed[:j:j], s.listed[j+1:]...)
					break
				}
			}
		}
		s.listed = append(s.listed, s.cat.listAdds[i]...)
		if !s.listChanged() {
			continue
		}
		if s.req == nil {
			s.notify("notifications/resources/list_changed", nil)
		}
		for _, st := range s.streams {
			if st.listChanged {
				s.streamNotify(st, "notifications/resources/list_changed", nil)
			}
		}
	}
}

// stream is an open subscriptions/listen request (2026-07-28): what its
// filter asked for and the server agreed to.
type stream struct {
	id          json.RawMessage
	uris        []string // resourceSubscriptions
	listChanged bool     // resourcesListChanged
	tools       bool     // toolsListChanged
	prompts     bool     // promptsListChanged
}

// asked reports whether the stream asked for, and was granted, list
// changes of kind (tools or prompts).
func (st *stream) asked(kind string) bool {
	if kind == "tools" {
		return st.tools
	}
	return st.prompts
}

// listen opens a stream (RES-SUB-07 … RES-SUB-09). The request is not
// answered while the stream is open; its first message is the
// acknowledgement, with the subset of the filter the capabilities allow.
func (s *server) listen(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Notifications *struct {
			ResourcesListChanged  *bool     `json:"resourcesListChanged"`
			ResourceSubscriptions *[]string `json:"resourceSubscriptions"`
			ToolsListChanged      *bool     `json:"toolsListChanged"`
			PromptsListChanged    *bool     `json:"promptsListChanged"`
		} `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil || p.Notifications == nil {
		return nil, invalidParams("Invalid params: subscriptions/listen needs notifications, a SubscriptionFilter object.")
	}
	for _, st := range s.streams {
		if wire.IDKey(st.id) == wire.IDKey(s.req.id) {
			return nil, &rpcError{Code: wire.CodeInvalidRequest, Message: "Invalid request: a listen stream with this id is still open."}
		}
	}
	f := p.Notifications
	st := &stream{id: safeID(s.req.id)}
	agreed := object{}
	res := s.cat.fx.Capabilities.Resources
	if f.ResourceSubscriptions != nil && res != nil && res.Subscribe {
		st.uris = []string{}
		for _, u := range *f.ResourceSubscriptions {
			if validRequestURI(u) == nil && !slices.Contains(st.uris, u) && (!s.variants.has("ack-known-uris-only") || s.knownURI(u)) {
				st.uris = append(st.uris, u)
			}
		}
		agreed["resourceSubscriptions"] = st.uris
	}
	if f.ResourcesListChanged != nil && *f.ResourcesListChanged && s.listChanged() {
		st.listChanged = true
		agreed["resourcesListChanged"] = true
	}
	// The tool and prompt lists change when a reveal tool is called; a
	// server that declares their listChanged agrees to say so.
	if tools := s.declaredList("tools"); f.ToolsListChanged != nil && *f.ToolsListChanged && tools != nil && tools.ListChanged {
		st.tools = true
		agreed["toolsListChanged"] = true
	}
	if prompts := s.declaredList("prompts"); f.PromptsListChanged != nil && *f.PromptsListChanged && prompts != nil && prompts.ListChanged {
		st.prompts = true
		agreed["promptsListChanged"] = true
	}
	if s.faults.has("ack-grants-more") {
		if f.ResourcesListChanged == nil || !*f.ResourcesListChanged {
			agreed["resourcesListChanged"] = true
		}
		if f.ResourceSubscriptions == nil {
			agreed["resourceSubscriptions"] = []string{}
		}
	}
	s.streams = append(s.streams, st)
	if s.faults.has("list-varies") && !s.varied {
		s.varied = true
		extra := &entry{Resource: Resource{URI: "test://mcpconform-mock/appeared.txt", Name: "appeared", MimeType: "text/plain"},
			data: []byte("This resource appeared when a stream was opened.\n"), isText: true}
		s.listed = append([]*entry{extra}, s.listed...)
	}
	if s.faults.has("ack-after-update") && len(st.uris) > 0 {
		s.streamNotify(st, "notifications/resources/updated", s.updatedParams(st.uris[0]))
	}
	if !s.faults.has("no-ack") {
		s.streamNotify(st, "notifications/subscriptions/acknowledged", object{"notifications": agreed})
	}
	if s.variants.has("fragment-sub-resources") {
		for _, u := range st.uris {
			s.streamNotify(st, "notifications/resources/updated", s.updatedParams(subResource(u)))
		}
	}
	if s.faults.has("list-changed-unrequested") && !st.listChanged {
		s.streamNotify(st, "notifications/resources/list_changed", nil)
	}
	s.req.noAnswer = true
	return nil, nil
}

// streamNotify queues a notification on a stream: its _meta carries the
// listen request's id, same JSON type and value (RES-SUB-09).
func (s *server) streamNotify(st *stream, method string, params object) {
	p := object{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = object{metaSubscriptionID: s.subscriptionID(st)}
	s.notify(method, p)
}

func (s *server) subscriptionID(st *stream) any {
	if s.faults.has("subscription-id-as-string") && wire.IsIntegerLiteral(st.id) {
		return string(st.id)
	}
	return st.id
}

// cancelStream ends the stream a notifications/cancelled names: nothing
// more is sent for it, not even a response to the listen request
// (STDIO-11). Cancelling anything else is ignored.
func (s *server) cancelStream(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	for i, st := range s.streams {
		if wire.IDKey(st.id) == wire.IDKey(p.RequestID) {
			s.streams = slices.Delete(s.streams, i, i+1)
			if s.faults.has("stream-after-cancel") {
				// After the next response: a result written at once could
				// have crossed the cancellation in flight, which is legal.
				s.afterNext = append(s.afterNext, s.listenResult(st))
			}
			return
		}
	}
}

// listenResult is the response that ends a stream gracefully: resultType
// complete and the stream's subscriptionId in _meta.
func (s *server) listenResult(st *stream) *outMsg {
	meta := s.resultMeta(nil)
	meta[metaSubscriptionID] = s.subscriptionID(st)
	return &outMsg{kind: kindResponse, method: "subscriptions/listen", id: st.id,
		result: object{"resultType": "complete", "_meta": meta}}
}

// closeStreams ends every open stream at stdin EOF. Of the two closures
// the spec names (catalogue A-9), the mock answers the listen request, as
// the subscriptions page describes, rather than sending
// notifications/cancelled.
func (s *server) closeStreams() {
	var group []*outMsg
	for _, st := range s.streams {
		if s.variants.has("streams-end-cancelled") {
			// The cancellation page's way to tear a stream down.
			group = append(group, &outMsg{kind: kindNotification, method: "notifications/cancelled",
				params: s.dressParams(object{"requestId": st.id, "reason": "The server is shutting down."})})
			continue
		}
		group = append(group, s.listenResult(st))
	}
	s.streams = nil
	s.emit(group)
}
