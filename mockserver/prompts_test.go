package mockserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

func TestPromptsList(t *testing.T) {
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			prompts, pages := s.walkAt(version, "prompts/list", "prompts")
			// review is hidden until enable_extras is called.
			if len(pages) != 3 || len(prompts) != 3 {
				t.Fatalf("%d pages, %d prompts; want 3 and 3", len(pages), len(prompts))
			}
			want := map[string]any{
				"name": "summarize", "description": "Asks for a summary of a topic, in a style if one is given.",
				"arguments": []any{
					map[string]any{"name": "topic", "description": "What to summarize.", "required": true},
					map[string]any{"name": "style", "description": `How to write it, e.g. "brief".`},
				},
			}
			if version >= v20250618 {
				want["title"] = "Summarize"
			}
			if diff := cmp.Diff(want, prompts[0]); diff != "" {
				t.Errorf("summarize (-want +got):\n%s", diff)
			}
			if _, ok := prompts[1]["arguments"]; ok {
				t.Errorf("greeting lists arguments: %v", prompts[1])
			}
			if _, cached := pages[0]["ttlMs"]; cached != (version == modernVersion) {
				t.Errorf("ttlMs %v in a %s session", pages[0]["ttlMs"], version)
			}
		})
	}
}

func TestPromptsGet(t *testing.T) {
	msg := func(role, text string) any {
		return map[string]any{"role": role, "content": map[string]any{"type": "text", "text": text}}
	}
	tests := []struct {
		name   string
		params map[string]any
		code   int    // the error code, or 0 for a result
		text   string // a part of the error message
		want   []any  // the messages of a result
	}{
		{"all arguments", map[string]any{"name": "summarize", "arguments": map[string]any{"topic": "MCP", "style": "brief"}}, 0, "",
			[]any{msg("user", "Summarize MCP. Style: brief"), msg("assistant", "Here is a summary of MCP:")}},
		{"optional argument left out", map[string]any{"name": "summarize", "arguments": map[string]any{"topic": "MCP"}}, 0, "",
			[]any{msg("user", "Summarize MCP. Style: "), msg("assistant", "Here is a summary of MCP:")}},
		{"no arguments", map[string]any{"name": "greeting"}, 0, "", []any{msg("user", "Hello! What can you help me with?")}},
		{"unknown argument ignored", map[string]any{"name": "greeting", "arguments": map[string]any{"x": "1"}}, 0, "", []any{msg("user", "Hello! What can you help me with?")}},
		{"required argument missing", map[string]any{"name": "summarize", "arguments": map[string]any{"style": "brief"}}, wire.CodeInvalidParams, `Missing required argument "topic"`, nil},
		{"unknown prompt", map[string]any{"name": "nope"}, wire.CodeInvalidParams, `Unknown prompt "nope"`, nil},
		{"no name", map[string]any{}, wire.CodeInvalidParams, "needs name", nil},
		{"argument not a string", map[string]any{"name": "summarize", "arguments": map[string]any{"topic": 1}}, wire.CodeInvalidParams, "an object of strings", nil},
	}
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			for _, tt := range tests {
				m := s.callAt(version, "prompts/get", tt.params)
				if tt.code != 0 {
					if m.Error == nil || m.Error.Code != tt.code || !strings.Contains(m.Error.Message, tt.text) {
						t.Errorf("%s: %s %+v, want error %d with %q", tt.name, m.Result, m.Error, tt.code, tt.text)
					}
					continue
				}
				if m.Error != nil {
					t.Errorf("%s: error %+v", tt.name, m.Error)
					continue
				}
				res := decode(t, m.Result)
				if diff := cmp.Diff(tt.want, res["messages"]); diff != "" {
					t.Errorf("%s: messages (-want +got):\n%s", tt.name, diff)
				}
				if _, ok := res["description"].(string); !ok {
					t.Errorf("%s: no description", tt.name)
				}
				if version == modernVersion && (res["resultType"] != "complete" || res["ttlMs"] != nil) {
					t.Errorf("%s: resultType %v, ttlMs %v; want complete and no cache hints", tt.name, res["resultType"], res["ttlMs"])
				}
			}
		})
	}
}

// TestPromptsUndeclared: without the prompts capability, prompts/* are
// -32601.
func TestPromptsUndeclared(t *testing.T) {
	fx := DefaultFixture()
	fx.Capabilities.Prompts, fx.Prompts = nil, nil
	for _, version := range []string{"2024-11-05", modernVersion} {
		s := startAt(t, Options{Fixture: fx}, version)
		for _, method := range []string{"prompts/list", "prompts/get"} {
			if m := s.callAt(version, method, map[string]any{"name": "greeting"}); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
				t.Errorf("%s %s: %s %+v, want -32601", version, method, m.Result, m.Error)
			}
		}
	}
}

// TestPromptsGetMedia: describe-media renders its image and audio messages
// as content blocks; 2024-11-05, which has no audio content, gets the
// image only.
func TestPromptsGetMedia(t *testing.T) {
	for _, version := range allVersions {
		t.Run(version, func(t *testing.T) {
			s := startAt(t, Options{}, version)
			m := s.callAt(version, "prompts/get", map[string]any{"name": "describe-media"})
			if m.Error != nil {
				t.Fatalf("prompts/get: %+v", m.Error)
			}
			var res struct {
				Messages []struct {
					Content map[string]any `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, msg := range res.Messages {
				types = append(types, msg.Content["type"].(string))
				if msg.Content["type"] != "text" && (msg.Content["data"] == "" || !strings.Contains(msg.Content["mimeType"].(string), "/")) {
					t.Errorf("%v block without data or a MIME type: %v", msg.Content["type"], msg.Content)
				}
			}
			want := []string{"text", "image", "audio"}
			if version == "2024-11-05" {
				want = want[:2]
			}
			if !slices.Equal(types, want) {
				t.Errorf("content types %v, want %v", types, want)
			}
		})
	}
}
