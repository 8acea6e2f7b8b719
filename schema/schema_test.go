package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

func TestForCompilesNothing(t *testing.T) {
	// A fresh handle, so that other tests of the package cannot have
	// loaded it.
	s := &Schema{Version: "2025-06-18"}
	if s.compiled != nil || s.doc != nil {
		t.Fatal("a handle holds a compiled schema before its first use")
	}
	if err := s.Load(); err != nil {
		t.Fatal(err)
	}
	if len(s.compiled) == 0 {
		t.Fatal("Load compiled nothing")
	}
	if For("2099-01-01") != nil {
		t.Error("For returned a schema for an unknown version")
	}
}

func TestEveryVersionLoads(t *testing.T) {
	for _, v := range Versions {
		if err := For(v).Load(); err != nil {
			t.Errorf("%s: %v", v, err)
		}
		// Each definition a message is judged by compiles (on first use
		// in a run).
		for _, name := range For(v).messageDefinitions() {
			if _, err := For(v).definition(name); err != nil {
				t.Errorf("%s: %v", v, err)
			}
		}
	}
	if !For(wire.Modern).Has("DiscoverResult") || For(wire.V20241105).Has("DiscoverResult") {
		t.Error("the versions' definitions are mixed up")
	}
}

// TestErrataHold holds each erratum to the embedded text: an erratum the
// schema does not carry is listed wrongly.
func TestErrataHold(t *testing.T) {
	for _, e := range Errata {
		s := For(e.Version)
		if s == nil {
			t.Errorf("%s: no such version", e.Version)
			continue
		}
		if err := s.Load(); err != nil {
			t.Fatal(err)
		}
		got, ok := at(s.doc, e.Pointer)
		if !ok {
			t.Errorf("%s %s: nothing at %s", e.Version, e.Commit[:8], e.Pointer)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(e.Now), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, normal(got)); diff != "" {
			t.Errorf("%s %s at %s (-want +got):\n%s", e.Version, e.Commit[:8], e.Pointer, diff)
		}
		if len(e.Commit) != 40 || e.Date > CommitDate {
			t.Errorf("%s: erratum %s is not a full commit up to %s", e.Version, e.Commit, CommitDate)
		}
	}
}

func at(doc any, ptr string) (any, bool) {
	node := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch n := node.(type) {
		case map[string]any:
			var ok bool
			if node, ok = n[tok]; !ok {
				return nil, false
			}
		case []any:
			i := 0
			for _, c := range tok {
				i = i*10 + int(c-'0')
			}
			if i >= len(n) {
				return nil, false
			}
			node = n[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// normal re-decodes a value of the validator's decoding (json.Number) as
// encoding/json decodes it.
func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestExamplesValidate: every example message the spec repository ships
// (schema/<version>/examples/<Definition>/*.json, at Commit) keeps its
// definition.
func TestExamplesValidate(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "examples", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		version, def := filepath.Base(filepath.Dir(dir)), filepath.Base(dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n++
			bs, err := For(version).Validate(def, raw, "")
			if err != nil {
				t.Errorf("%s: %v", f, err)
			}
			for _, b := range bs {
				t.Errorf("%s: %s", f, b)
			}
		}
	}
	if n != 129 {
		t.Errorf("judged %d examples, want the 129 of 2026-07-28", n)
	}
}

// exampleNotAMessage are the examples that keep their definition but not
// the definition of their message: upstream validates each example by the
// definition of its folder only.
var exampleNotAMessage = map[string]string{
	// ReadResourceResultResponse.result is anyOf(InputRequiredResult,
	// ReadResourceResult); this complete result lacks ReadResourceResult's
	// required ttlMs and cacheScope and passes only as an
	// InputRequiredResult, whose resultType is any string.
	"ReadResourceResultResponse/read-resource-result-response.json": "/result: missing properties 'cacheScope', 'ttlMs'",
}

func TestExamplesAsMessages(t *testing.T) {
	// The examples that are whole messages validate as messages too,
	// judged as a response is (by the result type of its method).
	files, _ := filepath.Glob(filepath.Join("testdata", "examples", wire.Modern, "*", "*.json"))
	judged := 0
	for _, f := range files {
		def := filepath.Base(filepath.Dir(f))
		raw, _ := os.ReadFile(f)
		m, err := wire.DecodeMessage(raw)
		if err != nil || m.Kind() == wire.KindInvalid || !m.Has("jsonrpc") {
			continue
		}
		var answered *Answered
		if base, ok := strings.CutSuffix(def, "ResultResponse"); ok {
			answered = &Answered{Method: methodOf(t, base+"Request")}
		}
		v, err := For(wire.Modern).Message(m, answered)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		judged++
		name := def + "/" + filepath.Base(f)
		if want, ok := exampleNotAMessage[name]; ok {
			if len(v.Breaches) != 1 || !strings.HasPrefix(v.Breaches[0].String(), want) {
				t.Errorf("%s: got %v, want the one known breach %q", f, v.Breaches, want)
			}
			continue
		}
		for _, b := range v.Breaches {
			t.Errorf("%s: %s", f, b)
		}
		if len(v.Definitions) < 2 {
			t.Errorf("%s: judged by %v only", f, v.Definitions)
		}
	}
	if judged < 30 {
		t.Errorf("only %d examples are messages", judged)
	}
}

func methodOf(t *testing.T, request string) string {
	s := For(wire.Modern)
	for m, d := range s.requests {
		if d == request {
			return m
		}
	}
	t.Fatalf("no method for %s", request)
	return ""
}

func TestMessage(t *testing.T) {
	type row struct {
		name     string
		version  string
		msg      string
		answered *Answered
		want     []Breach // Pointer, Keyword and Definition only
	}
	rows := []row{
		{name: "a valid tools/list result", version: "2025-06-18",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`,
			answered: &Answered{Method: "tools/list"}},
		{name: "a tool without inputSchema", version: "2025-06-18",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}}`,
			answered: &Answered{Method: "tools/list"},
			want:     []Breach{{Definition: "ListToolsResult", Pointer: "/result/tools/0", Keyword: "required"}}},
		{name: "a bad icon deep in a tool", version: "2025-11-25",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"},"icons":[{"src":7}]}]}}`,
			answered: &Answered{Method: "tools/list"},
			want:     []Breach{{Definition: "ListToolsResult", Pointer: "/result/tools/0/icons/0/src", Keyword: "type"}}},
		{name: "an image block without its mimeType, among content alternatives", version: "2024-11-05",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"AAAA"}]}}`,
			answered: &Answered{Method: "tools/call"},
			want:     []Breach{{Definition: "CallToolResult", Pointer: "/result/content/0", Keyword: "required"}}},
		{name: "a content block of a type the version does not define", version: "2024-11-05",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"},{"type":"resource_link","uri":"x://y","name":"y"}]}}`,
			answered: &Answered{Method: "tools/call"},
			want:     []Breach{{Definition: "CallToolResult", Pointer: "/result/content/1", Keyword: "anyOf"}}},
		{name: "a wrong type deep in capabilities", version: "2025-03-26",
			msg:      `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{"listChanged":"yes"}},"serverInfo":{"name":"s","version":"1"}}}`,
			answered: &Answered{Method: "initialize"},
			want:     []Breach{{Definition: "InitializeResult", Pointer: "/result/capabilities/tools/listChanged", Keyword: "type"}}},
		{name: "a null Task.ttl (an erratum)", version: "2025-11-25",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttl":null}}}`,
			answered: &Answered{Method: "tools/call", Params: json.RawMessage(`{"name":"x","task":{}}`)}},
		{name: "a result of a method the schema does not have: envelope only", version: "2025-06-18",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"anything":1}}`,
			answered: &Answered{Method: "x/unknown"}},
		{name: "a format is an annotation, in draft-07 too", version: "2025-06-18",
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"name":"t","uriTemplate":"{scheme}://{+path}"}],"nextCursor":"c"}}`,
			answered: &Answered{Method: "resources/templates/list"}},
		{name: "a logging notification without its level", version: "2025-06-18",
			msg:  `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`,
			want: []Breach{{Definition: "LoggingMessageNotification", Pointer: "/params", Keyword: "required"}}},
		{name: "an error with a string code", version: "2025-06-18",
			msg:  `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"no"}}`,
			want: []Breach{{Definition: "JSONRPCError", Pointer: "/error/code", Keyword: "type"}}},
		{name: "a typed 2026-07-28 error without its data", version: wire.Modern,
			msg:  `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported"}}`,
			want: []Breach{{Definition: "UnsupportedProtocolVersionError", Pointer: "/error", Keyword: "required"}}},
		{name: "a 2026-07-28 result needing input", version: wire.Modern,
			msg:      `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}`,
			answered: &Answered{Method: "tools/call"}},
		{name: "a server request of sampling without messages", version: "2025-06-18",
			msg:  `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":10}}`,
			want: []Breach{{Definition: "CreateMessageRequest", Pointer: "/params", Keyword: "required"}}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			m, err := wire.DecodeMessage([]byte(r.msg))
			if err != nil {
				t.Fatal(err)
			}
			v, err := For(r.version).Message(m, r.answered)
			if err != nil {
				t.Fatal(err)
			}
			var got []Breach
			for _, b := range v.Breaches {
				got = append(got, Breach{Definition: b.Definition, Pointer: b.Pointer, Keyword: b.Keyword})
				if b.Excerpt == "" || !strings.HasPrefix(b.Rule, "#/") || b.Problem == "" {
					t.Errorf("breach without its rule, excerpt or problem: %+v", b)
				}
			}
			if diff := cmp.Diff(r.want, got); diff != "" {
				t.Errorf("breaches (-want +got):\n%s\nall: %+v", diff, v.Breaches)
			}
		})
	}
}

// BenchmarkLoad measures compiling one version's schema (what the first
// message judged under it costs), where a run compiles it ("trusted": no
// check against the meta-schema) and at an ordinary location ("checked").
func BenchmarkLoad(b *testing.B) {
	for _, v := range Versions {
		for _, place := range []struct{ name, base string }{{"trusted", trustedBase}, {"checked", "mcpconform:///"}} {
			b.Run(v+"/"+place.name, func(b *testing.B) {
				for b.Loop() {
					s := &Schema{Version: v}
					if err := s.compile(place.base + Path(v)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestSchemasKeepTheirMetaSchema: compiled at an ordinary location, where
// the validator checks a document against its meta-schema (draft-07 or
// 2020-12), every embedded schema compiles. A run compiles them where
// that check is skipped (Schema.URL).
func TestSchemasKeepTheirMetaSchema(t *testing.T) {
	for _, v := range Versions {
		s := &Schema{Version: v}
		if err := s.compile("mcpconform:///" + Path(v)); err != nil {
			t.Errorf("%s: %v", v, err)
		}
		for _, name := range s.messageDefinitions() {
			if _, err := s.definition(name); err != nil {
				t.Errorf("%s: %v", v, err)
			}
		}
	}
	// And the check is real: a schema that breaks its meta-schema does
	// not compile there.
	bad := &Schema{Version: "2025-06-18"}
	if err := bad.compileDoc("mcpconform:///bad.json", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#",
		"definitions": map[string]any{"JSONRPCRequest": map[string]any{"type": json.Number("7")}}}); err == nil {
		t.Error("a schema whose type is 7 compiled at an ordinary location")
	}
}

// TestConcurrentJudging: messages judged at once, each compiling the
// definitions it needs, agree with each other (run with -race).
func TestConcurrentJudging(t *testing.T) {
	s := &Schema{Version: "2025-11-25"}
	msgs := []struct {
		raw    string
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"src":7}]}]}}`, "tools/list"},
		{`{"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"a://b"}]}}`, "resources/list"},
		{`{"jsonrpc":"2.0","id":3,"result":{"messages":[{"role":"robot","content":{"type":"text","text":"x"}}]}}`, "prompts/get"},
		{`{"jsonrpc":"2.0","id":4,"result":{"completion":{"values":[1]}}}`, "completion/complete"},
	}
	done := make(chan int, 4*len(msgs))
	for range 4 {
		for _, m := range msgs {
			go func() {
				msg, _ := wire.DecodeMessage([]byte(m.raw))
				v, err := s.Message(msg, &Answered{Method: m.method})
				if err != nil {
					t.Error(err)
				}
				done <- len(v.Breaches)
			}()
		}
	}
	for range 4 * len(msgs) {
		if n := <-done; n != 1 {
			t.Errorf("a message drew %d breaches, want 1", n)
		}
	}
}

// TestPrepareThenJudge: a message judged while Prepare compiles in the
// background gets the same verdict; an unknown version is passed over.
func TestPrepareThenJudge(t *testing.T) {
	Prepare("2099-01-01", "2025-03-26")
	m, _ := wire.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`))
	v, err := For("2025-03-26").Message(m, &Answered{Method: "tools/list"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Breaches) != 1 || v.Breaches[0].Pointer != "/result/tools/0" {
		t.Errorf("got %v, want the missing inputSchema", v.Breaches)
	}
}
