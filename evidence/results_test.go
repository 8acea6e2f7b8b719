package evidence

import (
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/wire"
)

// exchange builds an answered exchange of process p from a request's
// params and the response's result.
func exchange(t *testing.T, p *Process, tag, method, params, result string) *Exchange {
	t.Helper()
	req, err := wire.DecodeMessage(json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := wire.DecodeMessage(json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return &Exchange{Process: p, Tag: tag, Method: method, Request: req, Response: resp}
}

func TestKindOf(t *testing.T) {
	p := &Process{}
	for _, tt := range []struct {
		version, method, params, result string
		kind                            ResultKind
		allowed                         bool
	}{
		{wire.V20260728, "tools/call", `{"name":"t"}`, `{"resultType":"complete","content":[]}`, ResultComplete, true},
		{wire.V20260728, "tools/call", `{"name":"t"}`, `{"content":[]}`, ResultComplete, true},
		{wire.V20260728, "prompts/get", `{"name":"p"}`, `{"resultType":"input_required","requestState":"s"}`, ResultInputRequired, true},
		{wire.V20260728, "completion/complete", `{}`, `{"resultType":"input_required","requestState":"s"}`, ResultInputRequired, false},
		{wire.V20260728, "tools/call", `{"name":"t"}`, `{"resultType":"com.example/later"}`, ResultOther, false},
		// Before 2026-07-28 resultType means nothing: the method's own result.
		{wire.V20251125, "prompts/get", `{"name":"p"}`, `{"resultType":"input_required"}`, ResultComplete, true},
		{wire.V20251125, "tools/call", `{"name":"t","task":{"ttl":1000}}`, `{"task":{"taskId":"1","status":"working"}}`, ResultTask, true},
		{wire.V20251125, "tools/call", `{"name":"t"}`, `{"task":{"taskId":"1"}}`, ResultComplete, true},
	} {
		x := exchange(t, p, "x", tt.method, tt.params, tt.result)
		if kind, allowed := KindOf(tt.version, x); kind != tt.kind || allowed != tt.allowed {
			t.Errorf("%s %s %s: got %s (allowed %v), want %s (allowed %v)", tt.version, tt.method, tt.result, kind, allowed, tt.kind, tt.allowed)
		}
	}
}

func TestRetryState(t *testing.T) {
	p := &Process{}
	for _, tt := range []struct {
		method, result, state string
		ok                    bool
	}{
		{"prompts/get", `{"resultType":"input_required","requestState":"s"}`, "s", true},
		{"prompts/get", `{"resultType":"input_required","requestState":"s","inputRequests":{}}`, "s", true},
		{"prompts/get", `{"resultType":"input_required","requestState":"s","inputRequests":{"a":{"method":"roots/list"}}}`, "", false},
		{"prompts/get", `{"resultType":"input_required"}`, "", false},
		{"prompts/get", `{"resultType":"complete","messages":[]}`, "", false},
		{"resources/list", `{"resultType":"input_required","requestState":"s"}`, "", false},
	} {
		x := exchange(t, p, "x", tt.method, `{}`, tt.result)
		if state, ok := RetryState(wire.V20260728, x.Method, x.Request.Params, x.Response); state != tt.state || ok != tt.ok {
			t.Errorf("%s %s: got %q %v, want %q %v", tt.method, tt.result, state, ok, tt.state, tt.ok)
		}
	}
}

// TestRetryChains: a retry joins the request it retries (same process,
// tag, method and params, with the requestState handed out); the same
// state on another request, tag or process starts a chain of its own.
func TestRetryChains(t *testing.T) {
	p, q := &Process{}, &Process{}
	ask := `{"resultType":"input_required","requestState":"s"}`
	done := `{"resultType":"complete","messages":[]}`
	a1 := exchange(t, p, "g", "prompts/get", `{"name":"a"}`, ask)
	b1 := exchange(t, p, "g", "prompts/get", `{"name":"b"}`, ask)
	a2 := exchange(t, p, "g", "prompts/get", `{"name":"a","requestState":"s","_meta":{"k":1}}`, done)
	other := exchange(t, p, "h", "prompts/get", `{"name":"b","requestState":"s"}`, done)
	elsewhere := exchange(t, q, "g", "prompts/get", `{"name":"b","requestState":"s"}`, done)
	b2 := exchange(t, p, "g", "prompts/get", `{"name":"b","requestState":"s"}`, done)
	again := exchange(t, p, "g", "prompts/get", `{"name":"a","requestState":"s"}`, done)
	got := RetryChains(wire.V20260728, []*Exchange{a1, b1, a2, other, elsewhere, b2, again})
	want := [][]*Exchange{{a1, a2}, {b1, b2}, {other}, {elsewhere}, {again}}
	if len(got) != len(want) {
		t.Fatalf("got %d chains, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("chain %d: %d exchanges, want %d", i, len(got[i]), len(want[i]))
			continue
		}
		for k := range want[i] {
			if got[i][k] != want[i][k] {
				t.Errorf("chain %d, attempt %d: another exchange", i, k)
			}
		}
	}
}
