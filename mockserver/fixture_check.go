package mockserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/yosida95/uritemplate/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

const fixtureSchemaURL = "https://github.com/mcpconform/mcpconform/mockserver/fixture.schema.json"

var fixtureSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(fixtureSchemaData))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(fixtureSchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(fixtureSchemaURL)
})

// checkSchema validates data against fixture.schema.json, adding one
// problem per violation. A document that is not JSON is returned as an
// error at once, with its line and column.
func checkSchema(p *problems, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("invalid data after the top-level value")
		}
	}
	if err != nil {
		var se *json.SyntaxError
		pos := ""
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			pos = fmt.Sprintf(" at line %d, column %d", line, col)
		} else if errors.Is(err, io.ErrUnexpectedEOF) {
			pos = " (unexpected end of file)"
		}
		return &FixtureError{File: p.file, Path: "$", Problem: "not valid JSON" + pos + ": " + err.Error()}
	}
	sch, err := fixtureSchema()
	if err != nil {
		return fmt.Errorf("mockserver: compiling fixture schema: %w", err)
	}
	verr := sch.Validate(doc)
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return &FixtureError{File: p.file, Path: "$", Problem: verr.Error()}
	}
	type item struct{ path, problem string }
	var items []item
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := e.InstanceLocation
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, prop := range k.Properties {
				items = append(items, item{jsonPath(doc, append(slices.Clone(loc), prop)), "unknown field"})
			}
			return
		case *kind.Required:
			for _, m := range k.Missing {
				items = append(items, item{jsonPath(doc, append(slices.Clone(loc), m)), "required field is missing"})
			}
			return
		}
		items = append(items, item{jsonPath(doc, loc), e.ErrorKind.LocalizedString(printer)})
	}
	walk(ve)
	sort.SliceStable(items, func(i, j int) bool { return items[i].path < items[j].path })
	for i, it := range items {
		if i > 0 && it == items[i-1] {
			continue
		}
		p.add(it.path, "%s", it.problem)
	}
	return nil
}

func lineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

var printer = message.NewPrinter(language.English)

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// jsonPath renders a location in doc as a JSONPath such as
// $.resources[2].blob, walking doc to tell array indexes from keys.
func jsonPath(doc any, loc []string) string {
	var b strings.Builder
	b.WriteString("$")
	cur := doc
	for _, tok := range loc {
		switch v := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
				cur = v[i]
			} else {
				cur = nil
			}
			continue
		case map[string]any:
			cur = v[tok]
		default:
			cur = nil
		}
		b.WriteString(keyPath("", tok))
	}
	return b.String()
}

// keyPath appends an object key to a JSONPath.
func keyPath(path, key string) string {
	if identifier.MatchString(key) {
		return path + "." + key
	}
	return path + "['" + strings.ReplaceAll(key, "'", `\'`) + "']"
}

// The protocol versions of the handshake era the mock speaks, oldest
// first, and the version of the era without a handshake.
var knownVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

const modernVersion = "2026-07-28"

// catalog is a fixture checked and prepared for serving.
type catalog struct {
	fx         *Fixture
	versions   []string // handshake versions supported, oldest first; empty when legacy is off
	legacy     bool     // the initialize handshake is served
	modern     bool     // 2026-07-28 requests are served
	ttlMs      int
	cacheScope string
	resources  []*entry
	templates  []*templateEntry
	tools      []*toolEntry
	prompts    []*Prompt
	tag        string // ties cursors to this fixture
	pageRes    int
	pageTpl    int
	pageTools  int
	pagePrm    int
	listAdds   [][]*entry // per list-change trigger
	listRemove [][]string
}

// entry is a concrete resource with its decoded content.
type entry struct {
	Resource
	data        []byte
	isText      bool
	contentsURI string // the uri of read contents, if not the requested one
	// children are the files of a directory (directory-contents): a read
	// returns one contents item per child, and each child is readable.
	children []*entry
}

type templateEntry struct {
	Template
	tmpl     *uritemplate.Template
	variable string // the table key
}

// compile checks everything the schema cannot say (content sources, base64,
// URI syntax, templates, sizes, _meta keys, duplicates, triggers) and
// prepares the fixture for serving.
func compile(f *Fixture) (*catalog, error) {
	p := &problems{file: f.name}
	if p.file == "" {
		p.file = "fixture"
	}
	c := &catalog{fx: f}
	for _, ps := range []struct {
		size *int
		set  int
	}{{&c.pageRes, f.PageSize.Resources}, {&c.pageTpl, f.PageSize.Templates}, {&c.pageTools, f.PageSize.Tools}, {&c.pagePrm, f.PageSize.Prompts}} {
		*ps.size = ps.set
		if ps.set <= 0 {
			*ps.size = DefaultPageSize
		}
	}
	checkEras(p, c, f)
	if f.Server.Name == "" || f.Server.Version == "" {
		p.add("$.server", "name and version are required")
	}
	checkIcons(p, "$.server.icons", f.Server.Icons)
	if f.Server.WebsiteURL != "" {
		if msg := uriProblem(f.Server.WebsiteURL, false); msg != "" {
			p.add("$.server.websiteUrl", "%s", msg)
		}
	}
	for k := range f.Capabilities.Experimental {
		if k == "" {
			p.add("$.capabilities.experimental", "empty capability name")
		}
	}
	if f.Capabilities.Resources == nil && (len(f.Resources) > 0 || len(f.Templates) > 0) {
		p.add("$.capabilities", "resources are listed but capabilities.resources is absent")
	}
	if f.Capabilities.Tools == nil && len(f.Tools) > 0 {
		p.add("$.capabilities", "tools are listed but capabilities.tools is absent")
	}
	if f.Capabilities.Prompts == nil && len(f.Prompts) > 0 {
		p.add("$.capabilities", "prompts are listed but capabilities.prompts is absent")
	}
	toolSeen := make(map[string]string) // name -> path of its first definition
	for i, t := range f.Tools {
		path := fmt.Sprintf("$.tools[%d]", i)
		c.tools = append(c.tools, checkTool(p, path, t))
		if prev, dup := toolSeen[t.Name]; dup {
			p.add(path+".name", "duplicate tool name %q (first defined at %s)", t.Name, prev)
		} else {
			toolSeen[t.Name] = path
		}
	}
	promptSeen := make(map[string]string)
	for i := range f.Prompts {
		path := fmt.Sprintf("$.prompts[%d]", i)
		pr := &f.Prompts[i]
		checkPrompt(p, path, pr)
		c.prompts = append(c.prompts, pr)
		if prev, dup := promptSeen[pr.Name]; dup {
			p.add(path+".name", "duplicate prompt name %q (first defined at %s)", pr.Name, prev)
		} else {
			promptSeen[pr.Name] = path
		}
	}

	seen := make(map[string]string) // URI -> path of its first definition
	addEntry := func(path string, r Resource) *entry {
		e := checkResource(p, path, r)
		if prev, dup := seen[r.URI]; dup {
			p.add(path+".uri", "duplicate URI %q (first defined at %s)", r.URI, prev)
		} else if r.URI != "" {
			seen[r.URI] = path
		}
		return e
	}
	for i, r := range f.Resources {
		c.resources = append(c.resources, addEntry(fmt.Sprintf("$.resources[%d]", i), r))
	}
	tplSeen := make(map[string]bool)
	for i, t := range f.Templates {
		path := fmt.Sprintf("$.templates[%d]", i)
		te := checkTemplate(p, path, t)
		if tplSeen[t.URITemplate] {
			p.add(path+".uriTemplate", "duplicate URI template %q", t.URITemplate)
		}
		tplSeen[t.URITemplate] = true
		c.templates = append(c.templates, te)
	}

	subscribe := f.Capabilities.Resources != nil && f.Capabilities.Resources.Subscribe
	for i, t := range f.SubscriptionTriggers {
		path := fmt.Sprintf("$.subscriptionTriggers[%d]", i)
		if !subscribe {
			p.add(path, "subscription triggers need capabilities.resources.subscribe")
		}
		checkTriggerURI(p, path+".on.read", t.On.Read)
		checkTriggerURI(p, path+".updates", t.Updates)
	}
	for i, t := range f.ListChangeTriggers {
		path := fmt.Sprintf("$.listChangeTriggers[%d]", i)
		checkTriggerURI(p, path+".on.read", t.On.Read)
		if len(t.Add) == 0 && len(t.Remove) == 0 {
			p.add(path, "a list-change trigger must add or remove something")
		}
		var adds []*entry
		for j, r := range t.Add {
			adds = append(adds, addEntry(fmt.Sprintf("%s.add[%d]", path, j), r))
		}
		for j, u := range t.Remove {
			if _, ok := seen[u]; !ok {
				p.add(fmt.Sprintf("%s.remove[%d]", path, j), "%q is not a resource of this fixture", u)
			}
		}
		c.listAdds = append(c.listAdds, adds)
		c.listRemove = append(c.listRemove, t.Remove)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	// The tag changes whenever the fixture does, so a cursor from another
	// fixture (or a stale build) is refused rather than misread.
	canon, _ := json.Marshal(f)
	sum := sha256.Sum256(canon)
	c.tag = hex.EncodeToString(sum[:4])
	return c, nil
}

// checkEras works out which eras and versions the fixture serves. The eras
// default to those protocolVersions covers; an era listed without a
// version of it, or a version whose era is left out, is an error.
func checkEras(p *problems, c *catalog, f *Fixture) {
	all := append(slices.Clone(knownVersions), modernVersion)
	listed := f.ProtocolVersions
	if len(listed) == 0 {
		listed = all
	}
	for i, v := range f.ProtocolVersions {
		if !slices.Contains(all, v) {
			p.add(fmt.Sprintf("$.protocolVersions[%d]", i), "unknown protocol version %q; known: %s", v, strings.Join(all, ", "))
		}
	}
	var legacyVersions []string
	for _, v := range knownVersions {
		if slices.Contains(listed, v) {
			legacyVersions = append(legacyVersions, v)
		}
	}
	hasModern := slices.Contains(listed, modernVersion)
	if len(f.Eras) == 0 {
		c.legacy, c.modern = len(legacyVersions) > 0, hasModern
	} else {
		c.legacy, c.modern = slices.Contains(f.Eras, EraLegacy), slices.Contains(f.Eras, EraModern)
		switch {
		case c.modern && !hasModern:
			p.add("$.eras", "the modern era needs protocol version %s in protocolVersions", modernVersion)
		case !c.modern && hasModern && len(f.ProtocolVersions) > 0:
			p.add("$.protocolVersions", "%s belongs to the modern era, which eras leaves out", modernVersion)
		}
		switch {
		case c.legacy && len(legacyVersions) == 0:
			p.add("$.eras", "the legacy era needs a handshake version (%s) in protocolVersions", strings.Join(knownVersions, ", "))
		case !c.legacy && len(legacyVersions) > 0 && len(f.ProtocolVersions) > 0:
			p.add("$.protocolVersions", "%s belong to the legacy era, which eras leaves out", strings.Join(legacyVersions, ", "))
		}
	}
	if c.legacy {
		c.versions = legacyVersions
	}
	c.ttlMs, c.cacheScope = DefaultTTLMs, "public"
	if f.Cache != nil {
		if t := f.Cache.TTLMs; t != nil {
			if *t < 0 {
				p.add("$.cache.ttlMs", "ttlMs %d is negative", *t)
			}
			c.ttlMs = *t
		}
		if sc := f.Cache.Scope; sc != "" {
			if sc != "public" && sc != "private" {
				p.add("$.cache.scope", "scope must be \"public\" or \"private\", not %q", sc)
			}
			c.cacheScope = sc
		}
	}
}

func checkTriggerURI(p *problems, path, u string) {
	if msg := uriProblem(u, false); msg != "" {
		p.add(path, "%s", msg)
	}
}

func checkResource(p *problems, path string, r Resource) *entry {
	e := &entry{Resource: r}
	if msg := uriProblem(r.URI, false); msg != "" {
		p.add(path+".uri", "%s: %q", msg, r.URI)
	}
	if r.Name == "" {
		p.add(path+".name", "name is required")
	}
	contentOK := false
	hasText := r.Text != nil || r.TextFile != ""
	hasBlob := r.Blob != nil || r.BlobFile != ""
	switch {
	case hasText && hasBlob:
		p.add(path, "has both text and blob content; give exactly one of text, textFile, blob, blobFile")
	case !hasText && !hasBlob:
		p.add(path, "has no content; give exactly one of text, textFile, blob, blobFile")
	case hasText && r.Text == nil:
		p.add(path+".textFile", "%q was not loaded; build fixtures with LoadFixture or ParseFixture", r.TextFile)
	case hasBlob && r.Blob == nil:
		p.add(path+".blobFile", "%q was not loaded; build fixtures with LoadFixture or ParseFixture", r.BlobFile)
	case hasText:
		e.isText = true
		e.data = []byte(*r.Text)
		contentOK = true
	default:
		b, msg := strictBase64(*r.Blob)
		if msg != "" {
			p.add(path+".blob", "%s", msg)
		}
		e.data = b
		contentOK = msg == ""
	}
	if contentOK && r.Size != nil && *r.Size != int64(len(e.data)) {
		p.add(path+".size", "size %d does not match the %d bytes of the content (leave size out to have it computed)", *r.Size, len(e.data))
	}
	checkAnnotations(p, path+".annotations", r.Annotations)
	checkIcons(p, path+".icons", r.Icons)
	checkMeta(p, path+"._meta", r.Meta)
	return e
}

// strictBase64 decodes s as RFC 4648 § 4 base64: the standard alphabet,
// with padding, and no line breaks or other whitespace.
func strictBase64(s string) ([]byte, string) {
	if strings.ContainsAny(s, "\r\n\t ") {
		return nil, "invalid base64: it holds whitespace or line breaks"
	}
	if len(s)%4 != 0 {
		return nil, fmt.Sprintf("invalid base64: length %d is not a multiple of 4 (missing padding?)", len(s))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, "invalid base64: " + err.Error()
	}
	return b, ""
}

func checkAnnotations(p *problems, path string, a *Annotations) {
	if a == nil {
		return
	}
	for i, au := range a.Audience {
		if au != "user" && au != "assistant" {
			p.add(fmt.Sprintf("%s.audience[%d]", path, i), "audience must be \"user\" or \"assistant\", not %q", au)
		}
	}
	if a.Priority != nil && (*a.Priority < 0 || *a.Priority > 1) {
		p.add(path+".priority", "priority %v is outside [0, 1]", *a.Priority)
	}
	if a.LastModified != "" {
		if _, err := time.Parse(time.RFC3339Nano, a.LastModified); err != nil {
			p.add(path+".lastModified", "%q is not an RFC 3339 timestamp", a.LastModified)
		}
	}
}

var iconSize = regexp.MustCompile(`^(any|[0-9]+x[0-9]+)$`)

func checkIcons(p *problems, path string, icons []Icon) {
	for i, ic := range icons {
		ip := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case strings.HasPrefix(ic.Src, "https://"):
			if msg := uriProblem(ic.Src, false); msg != "" {
				p.add(ip+".src", "%s", msg)
			}
		case strings.HasPrefix(ic.Src, "data:"):
			comma := strings.IndexByte(ic.Src, ',')
			if comma < 0 {
				p.add(ip+".src", "a data: URI needs a comma before its data")
			} else if strings.HasSuffix(ic.Src[:comma], ";base64") {
				if _, msg := strictBase64(ic.Src[comma+1:]); msg != "" {
					p.add(ip+".src", "%s", msg)
				}
			}
		default:
			p.add(ip+".src", "icon src must be an https: or data: URI, not %q", ic.Src)
		}
		for j, s := range ic.Sizes {
			if !iconSize.MatchString(s) {
				p.add(fmt.Sprintf("%s.sizes[%d]", ip, j), "size %q is not \"WxH\" or \"any\"", s)
			}
		}
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			p.add(ip+".theme", "theme must be \"light\" or \"dark\"")
		}
	}
}

func checkMeta(p *problems, path string, meta map[string]any) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case !metaKey.MatchString(k):
			p.add(keyPath(path, k), "_meta key %q does not follow the key grammar", k)
		case reservedMetaKey(k):
			p.add(keyPath(path, k), "_meta key %q uses a prefix reserved for the protocol", k)
		}
	}
}

func checkTemplate(p *problems, path string, t Template) *templateEntry {
	te := &templateEntry{Template: t}
	if t.Name == "" {
		p.add(path+".name", "name is required")
	}
	if open, closed := strings.Count(t.URITemplate, "{"), strings.Count(t.URITemplate, "}"); open != closed {
		p.add(path+".uriTemplate", "unbalanced braces in URI template %q (%d '{', %d '}')", t.URITemplate, open, closed)
		return te
	}
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		p.add(path+".uriTemplate", "invalid URI template %q: %v", t.URITemplate, err)
		return te
	}
	te.tmpl = tmpl
	literal := t.URITemplate
	if i := strings.IndexByte(literal, '{'); i >= 0 {
		literal = literal[:i]
	}
	if colon := strings.IndexByte(literal, ':'); colon <= 0 || !isScheme(literal[:colon]) {
		p.add(path+".uriTemplate", "the template must start with a literal scheme, e.g. \"test://\"")
	}
	vars := tmpl.Varnames()
	for _, name := range slices.Sorted(maps.Keys(t.Completions)) {
		if !slices.Contains(vars, name) {
			p.add(path+".completions", "the template has no variable %q", name)
		}
		if len(t.Completions[name]) > 100 {
			p.add(path+".completions."+name, "%d values; a completion result holds at most 100", len(t.Completions[name]))
		}
	}
	switch t.Read.Rule {
	case RuleTable:
		te.variable = t.Read.Variable
		if te.variable == "" && len(vars) > 0 {
			te.variable = vars[0]
		}
		if !slices.Contains(vars, te.variable) {
			p.add(path+".read.variable", "the template has no variable %q", te.variable)
		}
		if len(t.Read.Rows) == 0 {
			p.add(path+".read.rows", "a table needs rows")
		}
	case RuleEcho, RuleNotFound:
		if t.Read.Variable != "" || len(t.Read.Rows) > 0 {
			p.add(path+".read", "variable and rows belong to the table rule only")
		}
	default:
		p.add(path+".read.rule", "unknown rule %q; use echo, table or notFound", t.Read.Rule)
	}
	if t.Read.Format != "" && t.Read.Rule != RuleEcho {
		p.add(path+".read.format", "format belongs to the echo rule only")
	}
	checkAnnotations(p, path+".annotations", t.Annotations)
	checkIcons(p, path+".icons", t.Icons)
	checkMeta(p, path+"._meta", t.Meta)
	return te
}

// toolNameSyntax is the syntax 2025-11-25 recommends for tool names
// (TOOLS-12): "Tool names SHOULD be between 1 and 128 characters in
// length" of "uppercase and lowercase ASCII letters (A-Z, a-z), digits
// (0-9), underscore (_), hyphen (-), and dot (.)".
var toolNameSyntax = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// checkTool checks a tool's name, schemas and call rule, and compiles its
// inputSchema, which every call is validated against.
func checkTool(p *problems, path string, t Tool) *toolEntry {
	te := &toolEntry{Tool: t, rule: CallEcho}
	if t.Call != nil {
		te.rule, te.format, te.progress = t.Call.Rule, t.Call.Format, t.Call.Progress
	}
	if !toolNameSyntax.MatchString(t.Name) {
		p.add(path+".name", "tool name %q is not 1 to 128 characters of A-Z, a-z, 0-9, _, - and .", t.Name)
	}
	var props map[string]any
	te.input, props = checkToolSchema(p, path+".inputSchema", t.InputSchema)
	if len(t.OutputSchema) > 0 {
		out, _ := checkToolSchema(p, path+".outputSchema", t.OutputSchema)
		switch {
		case te.rule != CallSum:
			// "If an output schema is provided: Servers MUST provide
			// structured results that conform to this schema."
			p.add(path+".outputSchema", "an outputSchema needs the sum rule, the one whose result is structured")
		case out != nil && out.Validate(map[string]any{"sum": json.Number("0")}) != nil:
			p.add(path+".outputSchema", `the sum rule's result {"sum": 0} does not conform to the outputSchema`)
		}
	}
	if len(t.Annotations) > 0 {
		if b := bytes.TrimSpace(t.Annotations); len(b) == 0 || b[0] != '{' {
			p.add(path+".annotations", "annotations must be an object")
		}
	}
	switch te.rule {
	case CallEcho, CallError:
		for _, name := range placeholders(te.format) {
			if _, ok := props[name]; !ok {
				p.add(path+".call.format", "{{%s}} names no property of the inputSchema", name)
			}
		}
	case CallSum, CallImage:
		if te.format != "" {
			p.add(path+".call.format", "format belongs to the echo and error rules only")
		}
	default:
		p.add(path+".call.rule", "unknown rule %q; use echo, sum, error or image", te.rule)
	}
	return te
}

// checkToolSchema checks that raw is a JSON Schema object of type
// "object" (TOOLS-07), valid in its dialect (2020-12 unless $schema names
// another), and compiles it. It also returns the schema's properties.
func checkToolSchema(p *problems, path string, raw json.RawMessage) (*jsonschema.Schema, map[string]any) {
	if len(raw) == 0 {
		p.add(path, "required field is missing")
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		p.add(path, "not valid JSON: %v", err)
		return nil, nil
	}
	m, ok := doc.(map[string]any)
	if !ok {
		p.add(path, "a schema must be a JSON object")
		return nil, nil
	}
	props, _ := m["properties"].(map[string]any)
	if typ, _ := m["type"].(string); typ != "object" {
		p.add(path+".type", `the schema's type must be "object"`)
		return nil, props
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noSchemaLoads{})
	const loc = "mcpconform-mock:///tool-schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		p.add(path, "%v", err)
		return nil, props
	}
	sch, err := c.Compile(loc)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		p.add(path, "not a valid JSON Schema: %s", first)
		return nil, props
	}
	return sch, props
}

// noSchemaLoads refuses every external document a tool schema refers to:
// the mock never reaches out to the network or the disk for one.
type noSchemaLoads struct{}

func (noSchemaLoads) Load(url string) (any, error) {
	return nil, fmt.Errorf("the mock loads no external schema (%s)", url)
}

// checkPrompt checks a prompt's arguments and that its messages' {{…}}
// placeholders name them.
func checkPrompt(p *problems, path string, pr *Prompt) {
	if pr.Name == "" {
		p.add(path+".name", "name is required")
	}
	args := make(map[string]bool)
	for i, a := range pr.Arguments {
		ap := fmt.Sprintf("%s.arguments[%d]", path, i)
		switch {
		case a.Name == "":
			p.add(ap+".name", "name is required")
		case args[a.Name]:
			p.add(ap+".name", "duplicate argument name %q", a.Name)
		}
		args[a.Name] = true
	}
	if len(pr.Messages) == 0 {
		p.add(path+".messages", "a prompt needs at least one message")
	}
	for j, m := range pr.Messages {
		mp := fmt.Sprintf("%s.messages[%d]", path, j)
		if m.Role != "user" && m.Role != "assistant" {
			p.add(mp+".role", "role must be \"user\" or \"assistant\", not %q", m.Role)
		}
		for _, name := range placeholders(m.Text) {
			if !args[name] {
				p.add(mp+".text", "{{%s}} names no argument of the prompt", name)
			}
		}
	}
}
