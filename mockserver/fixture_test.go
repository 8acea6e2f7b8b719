package mockserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/large.json")

func TestExampleFixturesLoad(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"default.json": true, "fastmcp-tutorial.json": true, "large.json": true, "triggers.json": true}
	for _, p := range paths {
		delete(want, filepath.Base(p))
		t.Run(filepath.Base(p), func(t *testing.T) {
			fx, err := LoadFixture(p)
			if err != nil {
				t.Fatal(err)
			}
			// Every example serves: a session lists and reads everything.
			s := start(t, Options{Fixture: fx})
			s.initialize("2025-11-25")
			_, resources := walk(t, s, "resources/list")
			if len(resources) != len(fx.Resources) {
				t.Errorf("listed %d resources, the fixture has %d", len(resources), len(fx.Resources))
			}
			for _, r := range resources {
				m, _ := s.call("resources/read", map[string]any{"uri": r["uri"]})
				if m.Error != nil {
					t.Errorf("read %v: %+v", r["uri"], m.Error)
				}
			}
			walk(t, s, "resources/templates/list")
		})
	}
	for name := range want {
		t.Errorf("example fixture %s is missing", name)
	}
}

// TestDefaultFixtureIsValid: the embedded fixture, loaded at every start
// without its schema, keeps the schema.
func TestDefaultFixtureIsValid(t *testing.T) {
	if _, err := ParseFixture("default.json", defaultFixtureData); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultFixture(t *testing.T) {
	fx := DefaultFixture()
	if fx.Name() != "default.json" {
		t.Errorf("Name() = %q", fx.Name())
	}
	if len(fx.Resources) < 7 || len(fx.Templates) < 3 {
		t.Errorf("default fixture has %d resources and %d templates", len(fx.Resources), len(fx.Templates))
	}
	if len(fx.SubscriptionTriggers)+len(fx.ListChangeTriggers) != 0 {
		t.Errorf("the default fixture must keep its list stable: no triggers")
	}
	// DefaultFixture returns a copy: changing one does not change the next.
	fx.Resources = nil
	if len(DefaultFixture().Resources) == 0 {
		t.Errorf("DefaultFixture shares state between calls")
	}
}

func TestFileContentLoaded(t *testing.T) {
	fx, err := LoadFixture(filepath.Join("testdata", "fastmcp-tutorial.json"))
	if err != nil {
		t.Fatal(err)
	}
	png, _ := os.ReadFile("testdata/files/logo.png")
	notes, _ := os.ReadFile("testdata/files/notes.md")
	for _, r := range fx.Resources {
		switch r.URI {
		case "docs://notes":
			if r.Text == nil || *r.Text != string(notes) {
				t.Errorf("textFile not loaded: %v", r.Text)
			}
		case "images://logo":
			if r.Blob == nil || *r.Blob != base64.StdEncoding.EncodeToString(png) {
				t.Errorf("blobFile not loaded: %v", r.Blob)
			}
		}
	}
}

func TestFixtureErrors(t *testing.T) {
	base := func(resources, templates string) string {
		return `{"server":{"name":"x","version":"1"},"capabilities":{"resources":{}},"resources":[` + resources + `],"templates":[` + templates + `]}`
	}
	ok := `{"uri":"test://a","name":"a","text":"a"}`
	tools := func(tools string) string {
		return `{"server":{"name":"x","version":"1"},"capabilities":{"tools":{}},"tools":[` + tools + `]}`
	}
	okTool := `{"name":"t","inputSchema":{"type":"object"}}`
	prompts := func(prompts string) string {
		return `{"server":{"name":"x","version":"1"},"capabilities":{"prompts":{}},"prompts":[` + prompts + `]}`
	}
	okPrompt := `{"name":"p","arguments":[{"name":"a"}],"messages":[{"role":"user","text":"{{a}}"}]}`
	tests := []struct {
		name, data string
		path       string // the JSON path the error must name
		problem    string // a part of the problem it must state
	}{
		{"syntax", `{"server": {`, "$", "not valid JSON"},
		{"syntax position", "{\n  \"server\": {\"name\": \"x\",,}\n}", "$", "line 2"},
		{"unknown top-level field", `{"server":{"name":"x","version":"1"},"capabilities":{},"colour":"red"}`, "$.colour", "unknown field"},
		{"unknown resource field", base(ok+`,{"uri":"test://b","name":"b","text":"b","sise":3}`, ""), "$.resources[1].sise", "unknown field"},
		{"missing name", base(`{"uri":"test://b","text":"b"}`, ""), "$.resources[0].name", "required"},
		{"wrong type", base(`{"uri":"test://b","name":"b","text":"b","size":"3"}`, ""), "$.resources[0].size", "want integer"},
		{"bad base64", base(ok+`,{"uri":"test://b","name":"b","blob":"not*base64"}`, ""), "$.resources[1].blob", "base64"},
		{"url-safe base64", base(`{"uri":"test://b","name":"b","blob":"-_8="}`, ""), "$.resources[0].blob", "base64"},
		{"unpadded base64", base(`{"uri":"test://b","name":"b","blob":"AAE"}`, ""), "$.resources[0].blob", "padding"},
		{"wrapped base64", base(`{"uri":"test://b","name":"b","blob":"AAAA\nAAAA"}`, ""), "$.resources[0].blob", "line breaks"},
		{"text and blob", base(`{"uri":"test://b","name":"b","text":"x","blob":"AAAA"}`, ""), "$.resources[0]", "both text and blob"},
		{"no content", base(`{"uri":"test://b","name":"b"}`, ""), "$.resources[0]", "no content"},
		{"duplicate URI", base(ok+","+ok, ""), "$.resources[1].uri", "duplicate URI"},
		{"bad uri", base(`{"uri":"test://a b","name":"b","text":"x"}`, ""), "$.resources[0].uri", "raw space"},
		{"relative uri", base(`{"uri":"a/b","name":"b","text":"x"}`, ""), "$.resources[0].uri", "no scheme"},
		{"size mismatch", base(`{"uri":"test://b","name":"b","text":"abc","size":4}`, ""), "$.resources[0].size", "does not match"},
		{"priority", base(`{"uri":"test://b","name":"b","text":"x","annotations":{"priority":1.5}}`, ""), "$.resources[0].annotations.priority", "maximum"},
		{"audience", base(`{"uri":"test://b","name":"b","text":"x","annotations":{"audience":["robot"]}}`, ""), "$.resources[0].annotations.audience[0]", "value must be one of"},
		{"lastModified", base(`{"uri":"test://b","name":"b","text":"x","annotations":{"lastModified":"yesterday"}}`, ""), "$.resources[0].annotations.lastModified", "RFC 3339"},
		{"icon scheme", base(`{"uri":"test://b","name":"b","text":"x","icons":[{"src":"javascript:alert(1)"}]}`, ""), "$.resources[0].icons[0].src", "https: or data:"},
		{"meta key", base(`{"uri":"test://b","name":"b","text":"x","_meta":{"bad key!":1}}`, ""), "$.resources[0]._meta['bad key!']", "key grammar"},
		{"reserved meta key", base(`{"uri":"test://b","name":"b","text":"x","_meta":{"io.modelcontextprotocol/x":1}}`, ""), "$.resources[0]._meta['io.modelcontextprotocol/x']", "reserved"},
		{"unbalanced template", base(ok, `{"uriTemplate":"file:///{path","name":"t","read":{"rule":"echo"}}`), "$.templates[0].uriTemplate", "unbalanced braces"},
		{"bad template operator", base(ok, `{"uriTemplate":"test://{!x}","name":"t","read":{"rule":"echo"}}`), "$.templates[0].uriTemplate", "invalid URI template"},
		{"template without scheme", base(ok, `{"uriTemplate":"{+base}/x","name":"t","read":{"rule":"echo"}}`), "$.templates[0].uriTemplate", "literal scheme"},
		{"unknown rule", base(ok, `{"uriTemplate":"test://{x}","name":"t","read":{"rule":"guess"}}`), "$.templates[0].read.rule", "value must be one of"},
		{"table variable", base(ok, `{"uriTemplate":"test://{x}","name":"t","read":{"rule":"table","variable":"y","rows":{"1":"a"}}}`), "$.templates[0].read.variable", "no variable"},
		{"table rows", base(ok, `{"uriTemplate":"test://{x}","name":"t","read":{"rule":"table"}}`), "$.templates[0].read.rows", "needs rows"},
		{"unknown version", `{"server":{"name":"x","version":"1"},"capabilities":{},"protocolVersions":["2099-01-01"]}`, "$.protocolVersions[0]", "value must be one of"},
		{"resources without capability", `{"server":{"name":"x","version":"1"},"capabilities":{},"resources":[` + ok + `]}`, "$.capabilities", "capabilities.resources is absent"},
		{"trigger without subscribe", `{"server":{"name":"x","version":"1"},"capabilities":{"resources":{}},"resources":[` + ok + `],"subscriptionTriggers":[{"on":{"read":"test://a"},"updates":"test://a"}]}`, "$.subscriptionTriggers[0]", "subscribe"},
		{"remove unknown", `{"server":{"name":"x","version":"1"},"capabilities":{"resources":{"listChanged":true}},"resources":[` + ok + `],"listChangeTriggers":[{"on":{"read":"test://a"},"remove":["test://zzz"]}]}`, "$.listChangeTriggers[0].remove[0]", "not a resource"},
		{"missing textFile", base(`{"uri":"test://b","name":"b","textFile":"files/none.txt"}`, ""), "$.resources[0].textFile", "cannot read"},
		{"textFile outside", base(`{"uri":"test://b","name":"b","textFile":"../secret.txt"}`, ""), "$.resources[0].textFile", "relative path inside"},
		{"modern era without its version", `{"server":{"name":"x","version":"1"},"capabilities":{},"eras":["legacy","modern"],"protocolVersions":["2025-11-25"]}`, "$.eras", "needs protocol version 2026-07-28"},
		{"legacy era without a version", `{"server":{"name":"x","version":"1"},"capabilities":{},"eras":["legacy"],"protocolVersions":["2026-07-28"]}`, "$.eras", "needs a handshake version"},
		{"legacy version, modern era only", `{"server":{"name":"x","version":"1"},"capabilities":{},"eras":["modern"],"protocolVersions":["2025-11-25","2026-07-28"]}`, "$.protocolVersions", "which eras leaves out"},
		{"unknown era", `{"server":{"name":"x","version":"1"},"capabilities":{},"eras":["future"]}`, "$.eras[0]", "value must be one of"},
		{"no era", `{"server":{"name":"x","version":"1"},"capabilities":{},"eras":[]}`, "$.eras", "minItems"},
		{"negative ttl", `{"server":{"name":"x","version":"1"},"capabilities":{},"cache":{"ttlMs":-1}}`, "$.cache.ttlMs", "minimum"},
		{"cache scope", `{"server":{"name":"x","version":"1"},"capabilities":{},"cache":{"scope":"shared"}}`, "$.cache.scope", "value must be one of"},
		{"tools without capability", `{"server":{"name":"x","version":"1"},"capabilities":{},"tools":[` + okTool + `]}`, "$.capabilities", "capabilities.tools is absent"},
		{"tool without inputSchema", tools(`{"name":"t"}`), "$.tools[0].inputSchema", "required"},
		{"inputSchema not of type object", tools(`{"name":"t","inputSchema":{"type":"string"}}`), "$.tools[0].inputSchema.type", `must be "object"`},
		{"invalid inputSchema", tools(`{"name":"t","inputSchema":{"type":"object","properties":5}}`), "$.tools[0].inputSchema", "not a valid JSON Schema"},
		{"inputSchema with an external $ref", tools(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}}`), "$.tools[0].inputSchema", "not a valid JSON Schema"},
		{"tool name syntax", tools(`{"name":"echo text!","inputSchema":{"type":"object"}}`), "$.tools[0].name", "not 1 to 128 characters"},
		{"duplicate tool", tools(okTool + "," + okTool), "$.tools[1].name", "duplicate tool name"},
		{"outputSchema without sum", tools(`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`), "$.tools[0].outputSchema", "needs the sum rule"},
		{"outputSchema refusing the sum", tools(`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["total"]},"call":{"rule":"sum"}}`), "$.tools[0].outputSchema", "does not conform"},
		{"format placeholder", tools(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{}}},"call":{"rule":"echo","format":"{{b}}"}}`), "$.tools[0].call.format", "{{b}} names no property"},
		{"format with sum", tools(`{"name":"t","inputSchema":{"type":"object"},"call":{"rule":"sum","format":"x"}}`), "$.tools[0].call.format", "echo and error rules only"},
		{"unknown call rule", tools(`{"name":"t","inputSchema":{"type":"object"},"call":{"rule":"guess"}}`), "$.tools[0].call.rule", "value must be one of"},
		{"annotation type", tools(`{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}`), "$.tools[0].annotations.readOnlyHint", "want boolean"},
		{"prompts without capability", `{"server":{"name":"x","version":"1"},"capabilities":{},"prompts":[` + okPrompt + `]}`, "$.capabilities", "capabilities.prompts is absent"},
		{"prompt placeholder", prompts(`{"name":"p","messages":[{"role":"user","text":"Hi {{who}}"}]}`), "$.prompts[0].messages[0].text", "{{who}} names no argument"},
		{"prompt role", prompts(`{"name":"p","messages":[{"role":"system","text":"x"}]}`), "$.prompts[0].messages[0].role", "value must be one of"},
		{"prompt without messages", prompts(`{"name":"p","messages":[]}`), "$.prompts[0].messages", "minItems"},
		{"duplicate prompt", prompts(okPrompt + "," + okPrompt), "$.prompts[1].name", "duplicate prompt name"},
		{"duplicate argument", prompts(`{"name":"p","arguments":[{"name":"a"},{"name":"a"}],"messages":[{"role":"user","text":"x"}]}`), "$.prompts[0].arguments[1].name", "duplicate argument"},
		{"meta key with quote", base(`{"uri":"test://b","name":"b","text":"x","_meta":{"it's":1}}`, ""), `$.resources[0]._meta['it\'s']`, "key grammar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFixture(filepath.Join("testdata", "broken.json"), []byte(tt.data))
			if err == nil {
				t.Fatalf("no error, want one at %s", tt.path)
			}
			msg := err.Error()
			want := filepath.Join("testdata", "broken.json") + ": " + tt.path + ": "
			if !strings.Contains(msg, want) || !strings.Contains(msg, tt.problem) {
				t.Errorf("error %q\nwant it to contain %q and %q", msg, want, tt.problem)
			}
			var fe *FixtureError
			if !errors.As(err, &fe) {
				t.Errorf("error is not a *FixtureError")
			}
		})
	}
}

func TestLoadFixtureMissingFile(t *testing.T) {
	_, err := LoadFixture(filepath.Join("testdata", "no-such.json"))
	if err == nil || !strings.Contains(err.Error(), "no-such.json") {
		t.Errorf("error %v does not name the file", err)
	}
}

func TestServeRejectsInvalidFixture(t *testing.T) {
	fx := DefaultFixture()
	fx.Templates[0].URITemplate = "test://{oops"
	err := Serve(t.Context(), strings.NewReader(""), &bytes.Buffer{}, nil, Options{Fixture: fx})
	if err == nil || !strings.Contains(err.Error(), "$.templates[0].uriTemplate") {
		t.Errorf("Serve with a broken fixture: %v", err)
	}
}

// TestLargeFixture keeps testdata/large.json in step with its generator;
// run with -update to rewrite it.
func TestLargeFixture(t *testing.T) {
	want := generateLarge()
	path := filepath.Join("testdata", "large.json")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date; run go test ./mockserver -run TestLargeFixture -update", path)
	}
	fx, err := ParseFixture(path, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Resources) != 1000 {
		t.Errorf("large.json has %d resources, want 1000", len(fx.Resources))
	}
}

// generateLarge writes large.json: 1,000 resources, every fifth a binary
// blob, and a few templates, paginated 50 and 2 per page.
func generateLarge() []byte {
	type res struct {
		URI      string `json:"uri"`
		Name     string `json:"name"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
		Blob     string `json:"blob,omitempty"`
	}
	var b bytes.Buffer
	b.WriteString(`{
  "$schema": "../fixture.schema.json",
  "description": "1,000 resources (every fifth binary) to exercise long pagination. Generated by generateLarge in fixture_test.go; rewrite with go test -run TestLargeFixture -update.",
  "server": {"name": "mcpconform-mock-large", "version": "1.0.0"},
  "capabilities": {"resources": {"listChanged": true}},
  "pageSize": {"resources": 50, "templates": 2},
  "resources": [
`)
	for i := range 1000 {
		r := res{URI: fmt.Sprintf("test://large/item-%04d", i), Name: fmt.Sprintf("item-%04d", i)}
		if i%5 == 4 {
			data := make([]byte, 16+i%48)
			for j := range data {
				data[j] = byte(i*31 + j*7)
			}
			r.URI += ".bin"
			r.MimeType = "application/octet-stream"
			r.Blob = base64.StdEncoding.EncodeToString(data)
		} else {
			r.URI += ".txt"
			r.MimeType = "text/plain"
			r.Text = fmt.Sprintf("Item %d of 1000.\n", i)
		}
		line, _ := json.Marshal(r)
		b.WriteString("    ")
		b.Write(line)
		if i < 999 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(`  ],
  "templates": [
    {"uriTemplate": "test://large/item-{n}.txt", "name": "item-text", "mimeType": "text/plain", "read": {"rule": "notFound"}},
    {"uriTemplate": "test://large/echo/{a}/{b}", "name": "echo-two", "mimeType": "application/json", "read": {"rule": "echo"}},
    {"uriTemplate": "test://large/search{?q,page}", "name": "search", "mimeType": "application/json", "read": {"rule": "echo"}}
  ]
}
`)
	return b.Bytes()
}
