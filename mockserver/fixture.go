package mockserver

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Fixture is the parsed fixture file: what the mock server serves. The
// fields mirror the file format documented in README.md and checked by
// fixture.schema.json. After LoadFixture or ParseFixture, textFile and
// blobFile contents are already read into Text and Blob.
type Fixture struct {
	Schema               string                `json:"$schema,omitempty"`
	Description          string                `json:"description,omitempty"`
	Server               Implementation        `json:"server"`
	Instructions         string                `json:"instructions,omitempty"`
	ProtocolVersions     []string              `json:"protocolVersions,omitempty"`
	Eras                 []string              `json:"eras,omitempty"`
	Cache                *CacheHints           `json:"cache,omitempty"`
	Capabilities         Capabilities          `json:"capabilities"`
	PageSize             PageSize              `json:"pageSize,omitzero"`
	Resources            []Resource            `json:"resources,omitempty"`
	Templates            []Template            `json:"templates,omitempty"`
	Tools                []Tool                `json:"tools,omitempty"`
	Prompts              []Prompt              `json:"prompts,omitempty"`
	SubscriptionTriggers []SubscriptionTrigger `json:"subscriptionTriggers,omitempty"`
	ListChangeTriggers   []ListChangeTrigger   `json:"listChangeTriggers,omitempty"`

	// name is the file the fixture came from, for error messages.
	name string
}

// Name returns the file the fixture was read from.
func (f *Fixture) Name() string { return f.name }

// The protocol eras a fixture can serve: the initialize handshake
// (2024-11-05 … 2025-11-25) and the per-request _meta of 2026-07-28.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// CacheHints are the ttlMs and cacheScope of 2026-07-28 results
// (server/discover, the lists and reads). Nil fields take the defaults,
// DefaultTTLMs and "public".
type CacheHints struct {
	TTLMs *int   `json:"ttlMs,omitempty"`
	Scope string `json:"scope,omitempty"`
}

// DefaultTTLMs is the ttlMs of 2026-07-28 results when the fixture gives none.
const DefaultTTLMs = 60000

// Implementation is the serverInfo the mock announces.
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an icon of a resource, a template or the server.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Capabilities are the server capabilities the mock declares. A nil
// Resources, Tools or Prompts means the server has none of them at all.
type Capabilities struct {
	Resources *ResourcesCapability `json:"resources,omitempty"`
	Tools     *ListCapability      `json:"tools,omitempty"`
	Prompts   *ListCapability      `json:"prompts,omitempty"`
	Logging   *struct{}            `json:"logging,omitempty"`
	// Completions serves completion/complete (declared from 2025-03-26;
	// 2024-11-05 has no capability for it).
	Completions  *struct{}                 `json:"completions,omitempty"`
	Experimental map[string]map[string]any `json:"experimental,omitempty"`
}

// ResourcesCapability is capabilities.resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ListCapability is capabilities.tools or capabilities.prompts. The mock
// never changes those lists, so listChanged only says that it may.
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// PageSize sets how many items one page of each list holds; zero means
// DefaultPageSize.
type PageSize struct {
	Resources int `json:"resources,omitempty"`
	Templates int `json:"templates,omitempty"`
	Tools     int `json:"tools,omitempty"`
	Prompts   int `json:"prompts,omitempty"`
}

// DefaultPageSize is the page size of a list the fixture gives none for.
const DefaultPageSize = 50

// Resource is a concrete resource. Exactly one of Text, TextFile, Blob and
// BlobFile is set in the file; after loading, Text or Blob holds the content.
type Resource struct {
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Size        *int64         `json:"size,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
	Text        *string        `json:"text,omitempty"`
	TextFile    string         `json:"textFile,omitempty"`
	Blob        *string        `json:"blob,omitempty"` // standard, padded base64 (RFC 4648 § 4)
	BlobFile    string         `json:"blobFile,omitempty"`
}

// Annotations are the client hints of a resource or template.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// Template is a resource template and the rule that answers reads of the
// URIs it matches.
type Template struct {
	URITemplate string         `json:"uriTemplate"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	MimeType    string         `json:"mimeType,omitempty"`
	Annotations *Annotations   `json:"annotations,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
	Read        TemplateRead   `json:"read"`
	// Completions are the values completion/complete offers for each
	// variable (a table's variable offers its rows' keys when left out).
	Completions map[string][]string `json:"completions,omitempty"`
}

// The read rules of a template.
const (
	RuleEcho     = "echo"     // the text shows the variables (JSON of their values, or Format filled in)
	RuleTable    = "table"    // the text is Rows[value of Variable]; a missing row is not found
	RuleNotFound = "notFound" // every matching URI is not found
)

// TemplateRead says how reads of URIs matching a template are answered.
type TemplateRead struct {
	Rule string `json:"rule"`
	// Format is the echo text with {name} replaced by each variable's
	// value; empty means a JSON object of the variables.
	Format string `json:"format,omitempty"`
	// Variable keys the table; empty means the template's first variable.
	Variable string            `json:"variable,omitempty"`
	Rows     map[string]string `json:"rows,omitempty"`
}

// Tool is a tool and the rule that answers calls of it. InputSchema,
// OutputSchema and Annotations are kept as the fixture writes them.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Call         *ToolCall       `json:"call,omitempty"` // nil: {"rule": "echo"}
}

// The call rules of a tool.
const (
	CallEcho  = "echo"  // the text is Format with {{argument}} filled in, or the arguments as JSON
	CallSum   = "sum"   // structuredContent {"sum": the sum of the number arguments}, and its JSON as text
	CallError = "error" // a tool execution error (isError true) whose text is Format filled in
	CallImage = "image" // one image block: a 1x1 PNG, base64
)

// ToolCall says how calls of a tool that pass its inputSchema are
// answered.
type ToolCall struct {
	Rule   string `json:"rule"`
	Format string `json:"format,omitempty"`
	// Progress is how many notifications/progress a call whose request
	// carries _meta.progressToken gets before its result (progress 1 to
	// Progress, of total Progress); none when zero.
	Progress int `json:"progress,omitempty"`
}

// Prompt is a prompt template: its messages' texts may hold {{argument}}
// placeholders, filled in by prompts/get (an optional argument left out
// fills in as "").
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Messages    []PromptMessage  `json:"messages"`
}

// PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Completions are the values completion/complete offers for it.
	Completions []string `json:"completions,omitempty"`
}

// PromptMessage is one message of a prompt: a text content block.
type PromptMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// SubscriptionTrigger sends notifications/resources/updated for Updates to
// the clients subscribed to it, every time the event happens.
type SubscriptionTrigger struct {
	On      TriggerEvent `json:"on"`
	Updates string       `json:"updates"`
}

// ListChangeTrigger changes the resource list the first time the event
// happens, and then sends notifications/resources/list_changed when
// listChanged is declared.
type ListChangeTrigger struct {
	On     TriggerEvent `json:"on"`
	Add    []Resource   `json:"add,omitempty"`
	Remove []string     `json:"remove,omitempty"`
}

// TriggerEvent is what sets a trigger off: a successful resources/read of
// the URI Read.
type TriggerEvent struct {
	Read string `json:"read"`
}

//go:embed testdata/default.json
var defaultFixtureData []byte

//go:embed fixture.schema.json
var fixtureSchemaData []byte

// DefaultFixture returns a fresh copy of the embedded default fixture
// (testdata/default.json).
//
// Its schema validation is left to the tests (TestDefaultFixtureIsValid):
// compiling the schema would cost every start of the mock several
// milliseconds, for a document fixed at build time.
func DefaultFixture() *Fixture {
	f, err := parseFixtureAs("default.json", defaultFixtureData, ".", false)
	if err != nil {
		panic("mockserver: embedded default fixture: " + err.Error())
	}
	return f
}

// LoadFixture reads, validates and loads the fixture file at path. textFile
// and blobFile entries are read relative to the fixture's directory. Errors
// name the file, the JSON path inside it and the problem.
func LoadFixture(path string) (*Fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading fixture: %w", err)
	}
	return parseFixture(path, data, filepath.Dir(path))
}

// ParseFixture validates and loads fixture data; name is used in error
// messages, and textFile and blobFile entries are read relative to its
// directory.
func ParseFixture(name string, data []byte) (*Fixture, error) {
	return parseFixture(name, data, filepath.Dir(name))
}

func parseFixture(name string, data []byte, dir string) (*Fixture, error) {
	return parseFixtureAs(name, data, dir, true)
}

// FixtureError is one problem in a fixture file.
type FixtureError struct {
	File    string // the fixture file as named to LoadFixture or ParseFixture
	Path    string // a JSONPath into the file, e.g. $.resources[2].blob
	Problem string
}

func (e *FixtureError) Error() string {
	return e.File + ": " + e.Path + ": " + e.Problem
}

// problems collects FixtureErrors for one file.
type problems struct {
	file string
	errs []error
}

func (p *problems) add(path, format string, args ...any) {
	p.errs = append(p.errs, &FixtureError{File: p.file, Path: path, Problem: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// parseFixtureAs is parseFixture, validating against the schema only when
// validate is set.
func parseFixtureAs(name string, data []byte, dir string, validate bool) (*Fixture, error) {
	p := &problems{file: name}
	if validate {
		if err := checkSchema(p, data); err != nil {
			return nil, err
		}
		if err := p.err(); err != nil {
			return nil, err
		}
	}
	f := &Fixture{name: name}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		// The schema accepted the document, so this is a type the schema
		// and the Go types disagree on: report it plainly.
		return nil, &FixtureError{File: name, Path: "$", Problem: err.Error()}
	}
	loadFiles(p, f, dir)
	if err := p.err(); err != nil {
		return nil, err
	}
	if _, err := compile(f); err != nil {
		return nil, err
	}
	return f, nil
}

// loadFiles reads textFile and blobFile contents into Text and Blob.
func loadFiles(p *problems, f *Fixture, dir string) {
	load := func(path string, r *Resource) {
		if r.TextFile != "" {
			b, ok := readLocal(p, path+".textFile", dir, r.TextFile)
			if ok {
				s := string(b)
				r.Text = &s
			}
		}
		if r.BlobFile != "" {
			b, ok := readLocal(p, path+".blobFile", dir, r.BlobFile)
			if ok {
				s := base64.StdEncoding.EncodeToString(b)
				r.Blob = &s
			}
		}
	}
	for i := range f.Resources {
		load(fmt.Sprintf("$.resources[%d]", i), &f.Resources[i])
	}
	for i := range f.ListChangeTriggers {
		for j := range f.ListChangeTriggers[i].Add {
			load(fmt.Sprintf("$.listChangeTriggers[%d].add[%d]", i, j), &f.ListChangeTriggers[i].Add[j])
		}
	}
}

func readLocal(p *problems, path, dir, rel string) ([]byte, bool) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		p.add(path, "%q must be a relative path inside the fixture's directory", rel)
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		p.add(path, "cannot read %q: %v", rel, err)
		return nil, false
	}
	return b, true
}
