package mockserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// URIs of the resources the variants add.
const (
	changingURI  = "test://variant/changing.txt"
	confirmURI   = "test://variant/confirm.txt"
	directoryURI = "file:///variant/dir/"
	afterReadURI = "test://variant/after-read.txt"
	echoTemplate = "echo://{+path}"
)

// oddURIs are unusual but valid absolute URIs (RFC 3986 § 3).
var oddURIs = []string{
	"test://ex%61mple.mock/percent-encoded-host.txt",
	"test://[2001:db8::7]:8080/ipv6.txt",
	"test://[v1.fe80::a+en1]/ipvfuture.txt",
	"test://user@host.example:1234/userinfo-and-port.txt",
	"test://empty-path.example",
	"test://host.example?x=1#frag",
	"test://host.example/query.txt?a=1&b=%20two#part-2",
	"test://host.example/a;b=c/d:e/@f!$&'()*+,=.txt",
	"test://host.example/%E2%82%AC-euro.txt",
	"test:opaque-path-without-authority",
	"urn:example:mcpconform:odd-1",
	"urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
	"tag:mcpconform.example,2025-01-02:odd",
	"x-mock+v1.2://scheme/chars.txt",
}

// denormalURIs are listed URIs that are not in RFC 3986 § 6 normal form,
// with the form contents-uri-normalised answers reads with.
var denormalURIs = [][2]string{
	{"https://Example.COM", "https://example.com/"},
	{"TEST://static/upper.txt", "test://static/upper.txt"},
	{"test://static/%7ejoe/notes.txt", "test://static/~joe/notes.txt"},
}

// directoryFiles are the files of directoryURI: name, mimeType, content.
var directoryFiles = []struct {
	name, mimeType string
	text           *string
	blob           []byte
}{
	{"a.txt", "text/plain", ptr("The first file of the directory.\n"), nil},
	{"b.md", "text/markdown", ptr("# B\n\nThe second file.\n"), nil},
	{"c.bin", "application/octet-stream", nil, []byte{0, 1, 2, 0xfe, 0xff}},
}

func ptr[T any](v T) *T { return &v }

// manyTools is the number of tools many-tools lists.
const manyTools = 130

// purgeTool is the tool readonly-hint-untrue adds: annotated read-only,
// described as deleting everything.
const purgeTool = "purge_notes"

// variantFixture returns the fixture as the variants serve it: a copy of
// fx with their resources, templates, capabilities and metadata. fx itself
// is left alone.
func (vs variantSet) fixture(fx *Fixture) (*Fixture, error) {
	if len(vs) == 0 {
		return fx, nil
	}
	b, err := json.Marshal(fx)
	if err != nil {
		return nil, fmt.Errorf("copying the fixture: %w", err)
	}
	f := &Fixture{}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("copying the fixture: %w", err)
	}
	f.name = fx.name
	caps := &f.Capabilities
	needsResources := false
	for n := range vs {
		needsResources = needsResources || variantIndex[n].resources
	}
	if needsResources && caps.Resources == nil && !vs.has("no-resources") && !vs.has("tools-only") {
		caps.Resources = &ResourcesCapability{}
	}
	text := func(uri, name, mime, body string) Resource {
		return Resource{URI: uri, Name: name, MimeType: mime, Text: ptr(body)}
	}
	switch {
	case vs.has("no-resources"):
		caps.Resources = nil
		f.Resources, f.Templates, f.SubscriptionTriggers, f.ListChangeTriggers = nil, nil, nil, nil
	case vs.has("no-listen"):
		caps.Resources.Subscribe, caps.Resources.ListChanged = false, false
		f.SubscriptionTriggers = nil
		for _, lc := range []*ListCapability{caps.Tools, caps.Prompts} {
			if lc != nil {
				lc.ListChanged = false
			}
		}
	}
	if vs.has("tools-only") {
		if len(f.Tools) == 0 {
			f.Tools = DefaultFixture().Tools
		}
		tools := caps.Tools
		if tools == nil {
			tools = &ListCapability{}
		}
		*caps = Capabilities{Tools: tools}
		f.Resources, f.Templates, f.SubscriptionTriggers, f.ListChangeTriggers, f.Prompts = nil, nil, nil, nil, nil
	}
	if vs.has("no-subscribe") && caps.Resources != nil {
		caps.Resources.Subscribe = false
		f.SubscriptionTriggers = nil
	}
	if vs.has("no-list-changed") && caps.Resources != nil {
		caps.Resources.ListChanged = false
	}
	if vs.has("list-changes-after-reads") && caps.Resources != nil {
		caps.Resources.ListChanged = true
	}
	if vs.has("log-notifications") || vs.has("ping-and-log-during-initialize") || vs.has("logging-without-set-level") {
		caps.Logging = &struct{}{}
	}
	if vs.has("tools-prompts-list-changed") {
		for _, lc := range []*ListCapability{caps.Tools, caps.Prompts} {
			if lc != nil {
				lc.ListChanged = true
			}
		}
	}
	if vs.has("no-completions") {
		caps.Completions = nil
	}
	if vs.has("experimental-capability") {
		if caps.Experimental == nil {
			caps.Experimental = map[string]map[string]any{}
		}
		caps.Experimental["com.example.mock/feature"] = map[string]any{"enabled": true}
	}
	if vs.has("cache-private") || vs.has("ttl-zero") {
		if f.Cache == nil {
			f.Cache = &CacheHints{}
		}
		if vs.has("cache-private") {
			f.Cache.Scope = "private"
		}
		if vs.has("ttl-zero") {
			f.Cache.TTLMs = ptr(0)
		}
	}
	if vs.has("templates-empty") || vs.has("templates-not-implemented") {
		f.Templates = nil
	}

	// Resources and templates the variants add.
	if vs.has("time-varying-resource") {
		f.Resources = append(f.Resources, text(changingURI, "changing", "text/plain", changingText(0)))
	}
	if vs.has("input-required-read") {
		f.Resources = append(f.Resources, text(confirmURI, "confirm", "text/plain", "Read after a round trip with requestState.\n"))
	}
	if vs.has("directory-contents") {
		// The content is a placeholder: adjust gives the entry its files.
		f.Resources = append(f.Resources, Resource{URI: directoryURI, Name: "dir", Description: "A directory of three files.", MimeType: "inode/directory", Text: ptr("")})
	}
	if vs.has("odd-uris") {
		for i, u := range oddURIs {
			f.Resources = append(f.Resources, text(u, fmt.Sprintf("odd-%02d", i+1), "text/plain", "A resource at the URI "+u+"\n"))
		}
	}
	if vs.has("contents-uri-normalised") {
		for i, u := range denormalURIs {
			f.Resources = append(f.Resources, text(u[0], fmt.Sprintf("denormal-%d", i+1), "text/plain", "Read back as "+u[1]+"\n"))
		}
	}
	if vs.has("catch-all-template") {
		f.Templates = append(f.Templates, Template{URITemplate: echoTemplate, Name: "echo", Description: "Every URI of the echo scheme; the text names it.",
			MimeType: "text/plain", Read: TemplateRead{Rule: RuleEcho, Format: "{path}"}})
	}
	if vs.has("rfc6570-templates") {
		for _, t := range []string{"test://l4/path{/segments*}", "test://l4/matrix{;x,y}", "test://l4/query{?list*}",
			"test://l4/form{?q}{&page}", "test://l4/doc{#section}", "test://l4/file{.ext}"} {
			f.Templates = append(f.Templates, Template{URITemplate: t, Name: "level4-" + strings.Trim(t[len("test://l4/"):strings.IndexByte(t, '{')], "/"),
				Description: "An RFC 6570 level 3 or 4 template; the text shows the variables.", MimeType: "application/json", Read: TemplateRead{Rule: RuleEcho}})
		}
	}
	if vs.has("many-resource-pages") {
		for i := len(f.Resources); i < 150; i++ {
			f.Resources = append(f.Resources, text(fmt.Sprintf("test://variant/page/%03d.txt", i+1), fmt.Sprintf("page-%03d", i+1), "text/plain", fmt.Sprintf("Filler resource %d.\n", i+1)))
		}
		f.PageSize.Resources = 1
	}
	if vs.has("many-template-pages") {
		for i := len(f.Templates); i < 150; i++ {
			f.Templates = append(f.Templates, Template{URITemplate: fmt.Sprintf("test://variant/t%03d/{id}", i+1), Name: fmt.Sprintf("template-%03d", i+1),
				MimeType: "application/json", Read: TemplateRead{Rule: RuleEcho}})
		}
		f.PageSize.Templates = 1
	}

	// Tools and prompts.
	if vs.has("many-tools") {
		if caps.Tools == nil {
			caps.Tools = &ListCapability{}
		}
		f.Tools = make([]Tool, 0, manyTools)
		for i := 1; i <= manyTools; i++ {
			f.Tools = append(f.Tools, Tool{Name: fmt.Sprintf("echo-%d", i), Description: fmt.Sprintf("Echo number %d of %d: returns the text it is given.", i, manyTools),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
				Annotations: json.RawMessage(`{"readOnlyHint":true}`), Call: &ToolCall{Rule: CallEcho, Format: "{{text}}"}})
		}
		f.PageSize.Tools = 20
	}
	if vs.has("readonly-hint-untrue") {
		if caps.Tools == nil {
			caps.Tools = &ListCapability{}
		}
		f.Tools = append(f.Tools, Tool{Name: purgeTool, Title: "Purge notes", Description: "Deletes every note, for good.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Annotations: json.RawMessage(`{"readOnlyHint":true}`), Call: &ToolCall{Rule: CallEcho, Format: "every note deleted"}})
	}
	if vs.has("prompt-arguments-optional-all") {
		if caps.Prompts == nil {
			caps.Prompts = &ListCapability{}
		}
		withArguments := false
		for i := range f.Prompts {
			for j := range f.Prompts[i].Arguments {
				f.Prompts[i].Arguments[j].Required = false
				withArguments = true
			}
		}
		if !withArguments {
			f.Prompts = append(f.Prompts, Prompt{Name: "optional-arguments", Description: "Two optional arguments.",
				Arguments: []PromptArgument{{Name: "topic"}, {Name: "style"}},
				Messages:  []PromptMessage{{Role: "user", Text: "Topic: {{topic}}. Style: {{style}}."}}})
		}
	}

	// Metadata.
	for i := range f.Resources {
		r := &f.Resources[i]
		if vs.has("empty-resources") {
			r.Size, r.TextFile, r.BlobFile = nil, "", ""
			if r.Blob != nil {
				r.Blob = ptr("")
			} else {
				r.Text = ptr("")
			}
		}
		vs.describe(&r.Name, &r.Title, &r.Description, &r.MimeType, "resource")
		if vs.has("minimal-metadata") {
			r.Title, r.Description, r.MimeType, r.Annotations, r.Icons, r.Meta, r.Size = "", "", "", nil, nil, nil, nil
		}
	}
	for i := range f.Templates {
		t := &f.Templates[i]
		vs.describe(&t.Name, &t.Title, &t.Description, &t.MimeType, "template")
		if vs.has("minimal-metadata") {
			t.Title, t.Description, t.MimeType, t.Annotations, t.Icons, t.Meta = "", "", "", nil, nil, nil
		}
	}
	if vs.has("minimal-metadata") {
		f.Server = Implementation{Name: f.Server.Name, Version: f.Server.Version}
		f.Instructions = ""
	}
	return f, nil
}

// describe applies the naming variants to a resource or template.
func (vs variantSet) describe(name, title, description, mimeType *string, kind string) {
	if vs.has("shared-names") {
		*name = kind
	}
	if vs.has("rich-descriptions") {
		*title = "📄 " + *name + " — ünïcödé title ✨"
		*description = richDescription(*name)
	}
	if vs.has("unusual-mime-types") {
		switch strings.ToLower(*mimeType) {
		case "text/plain":
			*mimeType = "Text/Plain; Charset=UTF-8"
		case "application/json":
			*mimeType = "application/vnd.mcpconform.mock+json; version=2"
		case "text/markdown":
			*mimeType = "text/markdown; variant=GFM"
		case "image/png":
			*mimeType = "IMAGE/PNG"
		}
	}
}

// richDescription is a multi-line Markdown description of about 2 KiB.
func richDescription(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nA *long* description with **Markdown**, `code`, and non-ASCII text: Grüße, 日本語, عربى, emoji 🎉.\n\n", name)
	for i := 1; b.Len() < 2000; i++ {
		fmt.Fprintf(&b, "- item %d: the description goes on over several lines, as descriptions of real resources do.\n", i)
	}
	b.WriteString("\n> The end.")
	return b.String()
}

// changingText is what test://variant/changing.txt holds after gen reads;
// its length changes from one generation to the next.
func changingText(gen int) string {
	return fmt.Sprintf("Generation %d of a resource that changes on every read.\n%s\n", gen, strings.Repeat("+", gen%7))
}

// adjustCatalog applies what the fixture format cannot say: the protocol
// versions the variants leave, directories, normalised contents URIs, and
// annotation values the fixture check would refuse.
func (vs variantSet) adjustCatalog(c *catalog) error {
	if allowed := vs.versions(); allowed != nil {
		c.versions = slices.DeleteFunc(slices.Clone(c.versions), func(v string) bool { return !slices.Contains(allowed, v) })
		c.legacy = c.legacy && len(c.versions) > 0
		c.modern = c.modern && slices.Contains(allowed, modernVersion)
		if !c.legacy && !c.modern {
			return fmt.Errorf("the fixture and the variants serve no protocol version in common (the variants allow %s)", strings.Join(allowed, ", "))
		}
	}
	for i, e := range c.resources {
		ne := *e
		if vs.has("contents-uri-normalised") {
			for _, u := range denormalURIs {
				if e.URI == u[0] {
					ne.contentsURI = u[1]
				}
			}
		}
		if e.URI == directoryURI && vs.has("directory-contents") {
			for _, file := range directoryFiles {
				child := &entry{Resource: Resource{URI: directoryURI + file.name, Name: file.name, MimeType: file.mimeType}}
				if file.text != nil {
					child.data, child.isText = []byte(*file.text), true
				} else {
					child.data = file.blob
				}
				ne.children = append(ne.children, child)
			}
		}
		a := Annotations{}
		if e.Annotations != nil {
			a = *e.Annotations
		}
		changed := false
		switch {
		case vs.has("last-modified-date-only"):
			a.LastModified, changed = "2025-01-02", true
		case vs.has("last-modified-offset"):
			a.LastModified, changed = "2025-01-02T03:04:05.678+05:45", true
		}
		if vs.has("priority-extremes") {
			a.Priority, changed = ptr(float64(i%2)), true
		}
		if vs.has("empty-audience") {
			a.Audience, changed = []string{}, true
		}
		if changed {
			ne.Annotations = &a
		}
		c.resources[i] = &ne
	}
	return nil
}
