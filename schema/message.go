package schema

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
)

// Verdict is what the schema says of one message.
type Verdict struct {
	// Definitions are the definitions the message was judged by, the
	// envelope first ("JSONRPCRequest", "CallToolRequest").
	Definitions []string
	// Breaches are the ways it breaks them (none: it keeps them all).
	Breaches []Breach
}

// Answered is the request a response answers, as far as the judge knows.
type Answered struct {
	Method string
	Params json.RawMessage
}

// Message judges a JSON-RPC message against the schema: its envelope by
// the version's JSON-RPC definition of its kind, and its contents by the
// definition of its method (a request, a notification), of the result of
// the request it answers (answered, when known), or of the error object
// and the typed error of its code. A message that fits no kind, or a
// response with both a result and an error, is left to the JSON-RPC
// checks: the schema has nothing more to say of it.
func (s *Schema) Message(m *wire.Message, answered *Answered) (Verdict, error) {
	if err := s.Load(); err != nil {
		return Verdict{}, err
	}
	var v Verdict
	judge := func(def string, value json.RawMessage, prefix string) error {
		if def == "" {
			return nil
		}
		v.Definitions = append(v.Definitions, def)
		bs, err := s.Validate(def, value, prefix)
		if err != nil {
			return fmt.Errorf("%s: %v", def, err)
		}
		v.Breaches = append(v.Breaches, bs...)
		return nil
	}
	var err error
	switch m.Kind() {
	case wire.KindRequest:
		err = first(judge(s.some("JSONRPCRequest"), m.Raw, ""), judge(s.requests[m.Method], m.Raw, ""))
	case wire.KindNotification:
		err = first(judge(s.some("JSONRPCNotification"), m.Raw, ""), judge(s.notifications[m.Method], m.Raw, ""))
	case wire.KindResponse:
		hasResult, hasError := m.Has("result"), m.Has("error")
		switch {
		case hasResult && !hasError:
			err = judge(s.some("JSONRPCResultResponse", "JSONRPCResponse"), m.Raw, "")
			if answered != nil && err == nil {
				err = judge(s.Result(answered.Method, answered.Params, m.Result), m.Result, "/result")
			}
		case hasError && !hasResult:
			err = judge(s.some("JSONRPCErrorResponse", "JSONRPCError"), m.Raw, "")
			if code, ok := errorCode(m.Error); ok && err == nil {
				err = first(judge(s.errorResponses[code], m.Raw, ""), judge(s.errorObjects[code], m.Error, "/error"))
			}
		}
	}
	v.Breaches = dedupe(v.Breaches)
	return v, err
}

// some returns the first of the names the schema defines.
func (s *Schema) some(names ...string) string {
	for _, n := range names {
		if _, ok := s.defs[n]; ok {
			return n
		}
	}
	return ""
}

func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func errorCode(raw json.RawMessage) (int64, bool) {
	var e struct {
		Code *json.Number `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Code == nil {
		return 0, false
	}
	n, err := e.Code.Int64()
	return n, err == nil
}
