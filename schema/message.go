package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
	// One decoding of the message serves every definition it is judged
	// by: the result or error is a member of it.
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.Raw))
	if err != nil {
		return v, fmt.Errorf("not JSON: %v", err)
	}
	obj, _ := doc.(map[string]any)
	judge := func(def string, value any, prefix string) error {
		if def == "" {
			return nil
		}
		v.Definitions = append(v.Definitions, def)
		bs, err := s.validate(def, value, prefix)
		if err != nil {
			return fmt.Errorf("%s: %v", def, err)
		}
		v.Breaches = append(v.Breaches, bs...)
		return nil
	}
	switch m.Kind() {
	case wire.KindRequest:
		err = first(judge(s.some("JSONRPCRequest"), doc, ""), judge(s.requests[m.Method], doc, ""))
	case wire.KindNotification:
		err = first(judge(s.some("JSONRPCNotification"), doc, ""), judge(s.notifications[m.Method], doc, ""))
	case wire.KindResponse:
		hasResult, hasError := m.Has("result"), m.Has("error")
		switch {
		case hasResult && !hasError:
			err = judge(s.some("JSONRPCResultResponse", "JSONRPCResponse"), doc, "")
			if answered != nil && err == nil {
				resultType, _ := memberOf(obj["result"], "resultType").(string)
				def := s.resultOf(answered.Method, hasMember(answered.Params, "task"), resultType)
				err = judge(def, obj["result"], "/result")
			}
		case hasError && !hasResult:
			err = judge(s.some("JSONRPCErrorResponse", "JSONRPCError"), doc, "")
			if code, ok := errorCode(m.Error); ok && err == nil {
				err = first(judge(s.errorResponses[code], doc, ""), judge(s.errorObjects[code], obj["error"], "/error"))
			}
		}
	}
	v.Breaches = dedupe(v.Breaches)
	return v, err
}

// memberOf returns the member of a decoded object, or nil.
func memberOf(v any, name string) any {
	o, _ := v.(map[string]any)
	return o[name]
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
