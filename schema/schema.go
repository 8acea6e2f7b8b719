// Package schema holds the JSON schemas the MCP specification publishes for
// each protocol version, embedded as the spec repository has them at
// Commit, and judges messages against them: a request by its method's
// request type, a result by the result type of the method it answers, an
// error by the error object (and the typed error a version defines for the
// code), a notification by its method.
//
// Nothing is compiled until a version's schema is first used, and then
// once: a process that never validates (mcpconform --version, mcpconform
// mock) pays nothing for it.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Commit is the commit of the spec repository
// (github.com/modelcontextprotocol/modelcontextprotocol) every embedded
// schema was taken from, and CommitDate its date.
const (
	Commit     = "b0f60ba5409db7a6582440a7b473cc0398890f15"
	CommitDate = "2026-08-22"
)

// Repository is where the schemas come from.
const Repository = "https://github.com/modelcontextprotocol/modelcontextprotocol"

//go:embed 2024-11-05/schema.json 2025-03-26/schema.json 2025-06-18/schema.json 2025-11-25/schema.json 2026-07-28/schema.json
var files embed.FS

// Versions lists the versions with an embedded schema, oldest first.
var Versions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

var handles = func() map[string]*Schema {
	m := map[string]*Schema{}
	for _, v := range Versions {
		m[v] = &Schema{Version: v}
	}
	return m
}()

// For returns the schema of version v, or nil when none is embedded. It
// compiles nothing.
func For(v string) *Schema { return handles[v] }

// Path is where the schema of version v sits in the spec repository.
func Path(v string) string { return "schema/" + v + "/schema.json" }

// Schema is the published schema of one protocol version.
type Schema struct {
	Version string

	once sync.Once
	err  error
	doc  any
	// defsKey is "definitions" (draft-07) or "$defs" (2020-12).
	defsKey  string
	defs     map[string]any
	url      string
	compiler *jsonschema.Compiler
	// mu guards compiled: each definition is compiled on its first use,
	// once (a default run uses about half of them).
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
	// requests and notifications map a method to the definition whose
	// "method" member is that constant.
	requests      map[string]string
	notifications map[string]string
	// errorObjects and errorResponses map an error code to the definition
	// of the error object, or of the whole error response, that a version
	// types for it.
	errorObjects   map[int64]string
	errorResponses map[int64]string
}

// URL is the location of the schema inside the validator: breaches name
// their schema rule relative to it.
//
// The validator checks every document against its meta-schema when it
// first compiles from it, which is most of the cost of compiling these
// (a third of a default run's judging), except a document it takes for
// one of the meta-schemas, by a location under json-schema.org. The
// embedded schemas are pinned and TestSchemasKeepTheirMetaSchema checks
// each against its meta-schema, so a run does not: they are placed there.
// Nothing is fetched from it (the loader refuses every document).
func (s *Schema) URL() string { return trustedBase + Path(s.Version) }

// trustedBase places the embedded schemas where the validator trusts them.
const trustedBase = "https://json-schema.org/mcpconform-embedded/"

// Load prepares the schema, once (its definitions are compiled each on
// first use); later calls return the first outcome.
func (s *Schema) Load() error {
	uses.Add(1)
	s.once.Do(s.load)
	return s.err
}

// Prepare compiles, in the background, the definitions messages of the
// versions are judged by, so that a run that will judge them pays for it
// while it waits on the server rather than after. Judging a message
// before it is done waits for the definitions it needs, never compiles
// one twice.
func Prepare(versions ...string) {
	go func() {
		for _, v := range versions {
			s := For(v)
			if s == nil || s.Load() != nil {
				continue
			}
			for _, name := range s.messageDefinitions() {
				_, _ = s.definition(name)
			}
		}
	}()
}

// uses counts the calls of Load, compiling or not.
var uses atomic.Int64

// Uses returns how many times a schema was asked for its compiled form:
// a command that judges nothing (mcpconform --version, mcpconform mock)
// leaves it unchanged.
func Uses() int64 { return uses.Load() }

func (s *Schema) load() { s.err = s.compile(s.URL()) }

// compile compiles the schema placed at url.
func (s *Schema) compile(url string) error {
	raw, err := files.ReadFile(Path(s.Version)[len("schema/"):])
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %v", Path(s.Version), err)
	}
	return s.compileDoc(url, doc)
}

// compileDoc indexes and compiles a decoded schema placed at url.
func (s *Schema) compileDoc(url string, doc any) error {
	s.doc = doc
	top, _ := doc.(map[string]any)
	s.defsKey = "$defs"
	if _, ok := top["definitions"]; ok {
		s.defsKey = "definitions"
	}
	s.defs, _ = top[s.defsKey].(map[string]any)
	s.index()

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(refuseAll{})
	// Draft-07 validators assert formats; 2020-12 makes them annotations.
	// One rule for every version: a format is judged by the checks whose
	// sentence is about it (valid URIs, base64), never by the schema.
	for _, name := range []string{"uri", "uri-reference", "uri-template", "byte", "date-time", "email", "hostname", "ipv4", "ipv6", "regex"} {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	s.url, s.compiler, s.compiled = url, c, map[string]*jsonschema.Schema{}
	// The first definition compiled compiles what it refers to; each
	// other one its own rest, on first use.
	_, err := s.definition(s.some("JSONRPCRequest"))
	return err
}

// definition returns the compiled definition, compiling it on first use.
func (s *Schema) definition(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[name]; ok {
		return sch, nil
	}
	if _, ok := s.defs[name]; !ok {
		return nil, fmt.Errorf("%s has no definition %s", Path(s.Version), name)
	}
	sch, err := s.compiler.Compile(s.url + "#/" + s.defsKey + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling %s: %v", Path(s.Version), name, err)
	}
	s.compiled[name] = sch
	return sch, nil
}

// Has reports whether the schema defines the name.
func (s *Schema) Has(name string) bool {
	if s.Load() != nil {
		return false
	}
	_, ok := s.defs[name]
	return ok
}

// refuseAll refuses every document outside the schema: the published
// schemas are self-contained, and validation never reaches the network.
type refuseAll struct{}

func (refuseAll) Load(url string) (any, error) { return nil, fmt.Errorf("not fetched: %s", url) }

// index maps methods and error codes to definitions, from the schema
// itself: the "method" constant of each definition, the "code" constant of
// each typed error.
func (s *Schema) index() {
	s.requests, s.notifications = map[string]string{}, map[string]string{}
	s.errorObjects, s.errorResponses = map[int64]string{}, map[int64]string{}
	names := make([]string, 0, len(s.defs))
	for name := range s.defs {
		names = append(names, name)
	}
	// A union of one member ("ClientNotification" holding only
	// notifications/cancelled) names the same constant: the definition of
	// the method itself wins over a union named after a party.
	sort.Slice(names, func(i, k int) bool {
		pi, pk := partyUnion(names[i]), partyUnion(names[k])
		if pi != pk {
			return !pi
		}
		return names[i] < names[k]
	})
	for _, name := range names {
		def, _ := s.defs[name].(map[string]any)
		props, _ := def["properties"].(map[string]any)
		if method, ok := constString(props["method"]); ok {
			table := s.requests
			if strings.HasSuffix(name, "Notification") {
				table = s.notifications
			}
			if _, taken := table[method]; !taken {
				table[method] = name
			}
		}
		if code, ok := constInt(props["code"]); ok {
			s.errorObjects[code] = name
		}
		if errDef, ok := props["error"].(map[string]any); ok {
			all, _ := errDef["allOf"].([]any)
			for _, part := range all {
				p, _ := part.(map[string]any)
				pp, _ := p["properties"].(map[string]any)
				if code, ok := constInt(pp["code"]); ok {
					s.errorResponses[code] = name
				}
			}
		}
	}
}

func partyUnion(name string) bool {
	return strings.HasPrefix(name, "Client") || strings.HasPrefix(name, "Server")
}

func constString(v any) (string, bool) {
	m, _ := v.(map[string]any)
	s, ok := m["const"].(string)
	return s, ok
}

func constInt(v any) (int64, bool) {
	m, _ := v.(map[string]any)
	n, ok := m["const"].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func (s *Schema) allDefinitions() []string {
	var out []string
	for n := range s.defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// messageDefinitions lists every definition a message is judged by.
func (s *Schema) messageDefinitions() []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if _, ok := s.defs[name]; ok && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, name := range []string{"JSONRPCRequest", "JSONRPCNotification", "JSONRPCResponse", "JSONRPCResultResponse",
		"JSONRPCError", "JSONRPCErrorResponse", "Error", "Result", "EmptyResult", "InputRequiredResult", "CreateTaskResult"} {
		add(name)
	}
	for _, name := range s.requests {
		add(name)
		add(s.resultName(name))
	}
	for _, name := range s.notifications {
		add(name)
	}
	for _, table := range []map[int64]string{s.errorObjects, s.errorResponses} {
		for _, name := range table {
			add(name)
		}
	}
	sort.Strings(out)
	return out
}

// resultName is the result type of a request definition: XRequest answers
// with XResult, and a request with no result type of its own (ping,
// logging/setLevel, resources/subscribe) with EmptyResult.
func (s *Schema) resultName(request string) string {
	if base, ok := strings.CutSuffix(request, "Request"); ok {
		if _, ok := s.defs[base+"Result"]; ok {
			return base + "Result"
		}
	}
	if _, ok := s.defs["EmptyResult"]; ok {
		return "EmptyResult"
	}
	return "Result"
}

// Request returns the definition of a request of the method, or "".
func (s *Schema) Request(method string) string {
	if s.Load() != nil {
		return ""
	}
	return s.requests[method]
}

// Notification returns the definition of a notification of the method,
// or "".
func (s *Schema) Notification(method string) string {
	if s.Load() != nil {
		return ""
	}
	return s.notifications[method]
}

// Result returns the definition the result of a request of the method
// (with the params given) is judged by: "" when the schema has no such
// request. A 2026-07-28 result of resultType "input_required" is an
// InputRequiredResult; a task-augmented request (params with "task") of
// 2025-11-25 is answered with a CreateTaskResult.
func (s *Schema) Result(method string, params, result json.RawMessage) string {
	return s.resultOf(method, hasMember(params, "task"), memberString(result, "resultType"))
}

func (s *Schema) resultOf(method string, task bool, resultType string) string {
	req := s.Request(method)
	if req == "" {
		return ""
	}
	if _, ok := s.defs["InputRequiredResult"]; ok && resultType == "input_required" {
		return "InputRequiredResult"
	}
	if _, ok := s.defs["CreateTaskResult"]; ok && task {
		return "CreateTaskResult"
	}
	return s.resultName(req)
}

func memberString(raw json.RawMessage, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(m[name], &v)
	return v
}

func hasMember(raw json.RawMessage, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}

// Breach is one way a value breaks its definition.
type Breach struct {
	// Definition is the definition the value was judged by.
	Definition string `json:"definition"`
	// Pointer is the JSON pointer of the offending member in the message
	// ("" for the message itself).
	Pointer string `json:"pointer"`
	// Keyword is the schema keyword broken (required, type, const, ...).
	Keyword string `json:"keyword"`
	// Rule is the location of that keyword in the schema
	// ("#/definitions/Tool/properties/name/type").
	Rule string `json:"rule"`
	// Problem says what is wrong ("missing property 'name'").
	Problem string `json:"problem"`
	// Excerpt is the schema text of the rule, without descriptions,
	// clipped.
	Excerpt string `json:"excerpt"`
}

func (b Breach) String() string {
	at := b.Pointer
	if at == "" {
		at = "(the message)"
	}
	return fmt.Sprintf("%s: %s (%s, %s)", at, b.Problem, b.Definition, b.Rule)
}

// Validate judges a JSON value against the named definition; prefix is the
// pointer of the value within its message ("/result"). It returns nil when
// the value keeps the definition.
func (s *Schema) Validate(definition string, value json.RawMessage, prefix string) ([]Breach, error) {
	if err := s.Load(); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return s.validate(definition, doc, prefix)
}

// validate judges a decoded value (as jsonschema.UnmarshalJSON decodes).
func (s *Schema) validate(definition string, doc any, prefix string) ([]Breach, error) {
	sch, err := s.definition(definition)
	if err != nil {
		return nil, err
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil, nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return nil, err
	}
	var out []Breach
	for _, leaf := range leaves(verr) {
		out = append(out, s.breach(definition, prefix, leaf))
	}
	// The validator walks properties in map order: breaches come sorted,
	// so that a report says the same of the same message every time.
	sort.Slice(out, func(i, k int) bool {
		if out[i].Pointer != out[k].Pointer {
			return out[i].Pointer < out[k].Pointer
		}
		return out[i].Rule+out[i].Problem < out[k].Rule+out[k].Problem
	})
	return dedupe(out), nil
}

var printer = message.NewPrinter(language.English)

func (s *Schema) breach(definition, prefix string, e *jsonschema.ValidationError) Breach {
	kw := e.ErrorKind.KeywordPath()
	b := Breach{Definition: definition, Pointer: prefix + pointer(e.InstanceLocation), Problem: e.ErrorKind.LocalizedString(printer)}
	if len(e.Causes) > 0 {
		b.Problem = noAlternative(e)
	}
	if len(kw) > 0 {
		b.Keyword = kw[0]
	}
	_, frag, _ := strings.Cut(e.SchemaURL, "#")
	b.Rule = "#" + frag
	if len(kw) > 0 {
		b.Rule += "/" + strings.Join(kw, "/")
	}
	b.Excerpt = s.excerpt(frag)
	return b
}

// leaves returns the innermost errors that explain e. Where a value had to
// match one of several definitions (anyOf, oneOf), only the alternative it
// came closest to is followed: the one whose discriminating constant
// ("type": "text") it did not break, then the one that got deepest into
// the value, then the one with the fewest problems.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var best []*jsonschema.ValidationError
		var bestScore [3]int
		for i, c := range e.Causes {
			ls := leaves(c)
			score := branchScore(ls)
			if i == 0 || less(score, bestScore) {
				best, bestScore = ls, score
			}
		}
		if bestScore[0] == 1 {
			// Every alternative refuses the value's discriminating
			// constant: it is of no kind the schema knows, which is the
			// one problem to report.
			return []*jsonschema.ValidationError{e}
		}
		return best
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// noAlternative says why a value matches none of the alternatives of an
// anyOf or oneOf: the constant each alternative wants and the value has.
func noAlternative(e *jsonschema.ValidationError) string {
	var at string
	var got any
	var wants []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if c, ok := v.ErrorKind.(*kind.Const); ok {
			at, got = pointer(v.InstanceLocation[len(e.InstanceLocation):]), c.Got
			if w := fmt.Sprint(quoted(c.Want)); !slices.Contains(wants, w) {
				wants = append(wants, w)
			}
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(e)
	if at == "" {
		return "matches none of the alternatives"
	}
	return fmt.Sprintf("%s is %s, which no alternative allows (want %s)", at[1:], quoted(got), strings.Join(wants, ", "))
}

func quoted(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// branchScore ranks an alternative by its leaves: lower is closer.
func branchScore(ls []*jsonschema.ValidationError) [3]int {
	discriminator, depth := 0, 0
	for _, l := range ls {
		if _, ok := l.ErrorKind.(*kind.Const); ok {
			discriminator = 1
		}
		depth = max(depth, len(l.InstanceLocation))
	}
	return [3]int{discriminator, -depth, len(ls)}
}

func less(a, b [3]int) bool { return slices.Compare(a[:], b[:]) < 0 }

func dedupe(bs []Breach) []Breach {
	seen := map[string]bool{}
	var out []Breach
	for _, b := range bs {
		k := b.Pointer + "\x00" + b.Rule + "\x00" + b.Problem
		if !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return sb.String()
}

// maxExcerpt bounds the schema text a breach quotes.
const maxExcerpt = 240

// excerpt renders the schema node at the fragment (a JSON pointer) without
// its descriptions, clipped.
func (s *Schema) excerpt(frag string) string {
	node := s.doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return ""
			}
			node = n[i]
		default:
			return ""
		}
	}
	b, err := json.Marshal(undescribed(node))
	if err != nil {
		return ""
	}
	if len(b) > maxExcerpt {
		return string(b[:maxExcerpt]) + "…"
	}
	return string(b)
}

// undescribed is a schema node without its "description" members: the
// rule, not its prose.
func undescribed(v any) any {
	switch n := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, x := range n {
			if _, prose := x.(string); k == "description" && prose {
				continue
			}
			out[k] = undescribed(x)
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, x := range n {
			out[i] = undescribed(x)
		}
		return out
	}
	return v
}
