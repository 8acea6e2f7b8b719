package testservers_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/internal/testservers"
	"github.com/mcpconform/mcpconform/internal/testservers/fixture"
)

// server is one of the real servers, and whether it serves package fixture's
// resources (server-everything has its own).
type server struct {
	name    string
	argv    func(testing.TB) []string
	fixture bool
}

var servers = []server{
	{"gosdk", func(tb testing.TB) []string { return testservers.GoServer(tb, "gosdk") }, true},
	{"mcpgo", func(tb testing.TB) []string { return testservers.GoServer(tb, "mcpgo") }, true},
	{"ts", testservers.TSServer, true},
	{"everything", testservers.Everything, false},
}

// TestServers starts each server and walks it through the handshake,
// discovery and a few reads. The conformance suite proper lives in suite/.
func TestServers(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			p := startPeer(t, s.argv(t))

			init := result(t, p.initialize("2025-06-18"))
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
				Capabilities    struct {
					Resources *struct{} `json:"resources"`
				} `json:"capabilities"`
				ServerInfo struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
			}
			decode(t, init, &ir)
			if ir.ProtocolVersion != "2025-06-18" {
				t.Errorf("initialize: got protocolVersion %q, want %q", ir.ProtocolVersion, "2025-06-18")
			}
			if ir.Capabilities.Resources == nil {
				t.Errorf("initialize: no resources capability in %s", init)
			}
			if ir.ServerInfo.Name == "" {
				t.Errorf("initialize: no serverInfo.name in %s", init)
			}

			uris := listAll(t, p, "resources/list", "resources", "uri")
			templates := listAll(t, p, "resources/templates/list", "resourceTemplates", "uriTemplate")
			if len(uris) == 0 || len(templates) == 0 {
				t.Fatalf("got %d resources and %d templates, want some of each", len(uris), len(templates))
			}
			if s.fixture {
				want := []string{fixture.ConfigURI, fixture.NoteURI, fixture.PixelURI}
				for _, u := range want {
					if !slices.Contains(uris, u) {
						t.Errorf("resources/list: %s missing from %v", u, uris)
					}
				}
				for _, u := range []string{fixture.GreetingTemplate, fixture.BytesTemplate} {
					if !slices.Contains(templates, u) {
						t.Errorf("resources/templates/list: %s missing from %v", u, templates)
					}
				}
			}

			// Every listed resource reads back with its own URI.
			for i, u := range uris {
				got := read(t, p, fmt.Sprintf("%d", 100+i), u)
				if len(got) == 0 || got[0].URI != u {
					t.Errorf("resources/read %s: got %+v, want contents with that uri", u, got)
				}
			}
			if !s.fixture {
				return
			}
			checks := []struct {
				uri  string
				want content
			}{
				{fixture.ConfigURI, content{URI: fixture.ConfigURI, MIMEType: fixture.ConfigMIME, Text: fixture.ConfigText}},
				{fixture.PixelURI, content{URI: fixture.PixelURI, MIMEType: fixture.PixelMIME, Blob: fixture.PixelBase64}},
				{"greeting://Ada", content{URI: "greeting://Ada", MIMEType: fixture.GreetingMIME, Text: "Hello, Ada!"}},
				{"test://bytes/3", content{URI: "test://bytes/3", MIMEType: fixture.BytesMIME, Blob: "AAEC"}},
			}
			for i, c := range checks {
				got := read(t, p, fmt.Sprintf("%d", 200+i), c.uri)
				if len(got) != 1 || got[0] != c.want {
					t.Errorf("resources/read %s: got %+v, want [%+v]", c.uri, got, c.want)
				}
			}
		})
	}
}

// content is one entry of a resources/read result.
type content struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
}

func read(t *testing.T, p *peer, id, uri string) []content {
	t.Helper()
	var r struct {
		Contents []content `json:"contents"`
	}
	decode(t, result(t, p.call(id, "resources/read", map[string]string{"uri": uri})), &r)
	return r.Contents
}

// listAll follows nextCursor to the end and returns field of every item.
func listAll(t *testing.T, p *peer, method, items, field string) []string {
	t.Helper()
	var all []string
	params := map[string]string{}
	for page := 0; ; page++ {
		if page == 10 {
			t.Fatalf("%s: more than 10 pages", method)
		}
		var r map[string]json.RawMessage
		decode(t, result(t, p.call(fmt.Sprintf(`"%s-%d"`, method, page), method, params)), &r)
		var list []map[string]any
		decode(t, r[items], &list)
		for _, it := range list {
			if s, ok := it[field].(string); ok {
				all = append(all, s)
			}
		}
		var cursor string
		if raw, ok := r["nextCursor"]; ok {
			decode(t, raw, &cursor)
		}
		if cursor == "" {
			return all
		}
		params = map[string]string{"cursor": cursor}
	}
}

func result(t *testing.T, resp map[string]json.RawMessage) json.RawMessage {
	t.Helper()
	if e, ok := resp["error"]; ok {
		t.Fatalf("got error %s, want a result", e)
	}
	r, ok := resp["result"]
	if !ok {
		t.Fatalf("response without result: %v", resp)
	}
	return r
}

func decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}
