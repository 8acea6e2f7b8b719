package mockserver

import "encoding/json"

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
	if s.faults.has("subscribe-not-empty") {
		return object{"subscribed": true}, nil
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
		return nil, &rpcError{Code: codeInternalError, Message: "Internal error: unsubscribing failed."}
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
// updates go to subscribers only (RES-SUB-03); list changes happen once and
// are announced only when listChanged is declared (RES-LC-01, RES-LC-02).
func (s *server) fireTriggers(uri string) {
	for _, t := range s.cat.fx.SubscriptionTriggers {
		if t.On.Read == uri && s.subscriptions[t.Updates] {
			s.notify("notifications/resources/updated", s.updatedParams(t.Updates))
		}
	}
	for i, t := range s.cat.fx.ListChangeTriggers {
		if t.On.Read != uri || s.fired[i] {
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
		if s.listChanged() {
			s.notify("notifications/resources/list_changed", nil)
		}
	}
}
