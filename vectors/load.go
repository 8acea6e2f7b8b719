package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("vector.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("vector.schema.json")
	})
	return schema, schemaErr
}

// Embedded loads and validates the vector files built into the binary,
// once per process: the files are shared, read-only, by every caller (a
// run loads them to plan and again to judge).
func Embedded() ([]*File, error) {
	embeddedOnce.Do(func() { embedded, embeddedErr = LoadFS(Files, "embedded:") })
	return slices.Clone(embedded), embeddedErr
}

var (
	embeddedOnce sync.Once
	embedded     []*File
	embeddedErr  error
)

// LoadFS loads every *.json file of fsys (recursively). prefix is put before
// each path in errors and in File.Path.
func LoadFS(fsys fs.FS, prefix string) ([]*File, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var files []*File
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		f, err := Parse(prefix+p, data)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, CheckUnique(files)
}

// LoadPath loads one vector file, or every *.json file below a directory.
func LoadPath(path string) ([]*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("vectors: %v", err)
	}
	if st.IsDir() {
		return LoadFS(os.DirFS(path), filepath.ToSlash(path)+"/")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vectors: %v", err)
	}
	f, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return []*File{f}, CheckUnique([]*File{f})
}

// CheckUnique fails when two tests share an id.
func CheckUnique(files []*File) error {
	seen := map[string]string{}
	for _, f := range files {
		for i, t := range f.Tests {
			where := fmt.Sprintf("%s: $.tests[%d]", f.Path, i)
			if prev, ok := seen[t.ID]; ok {
				return fmt.Errorf("%s: id %q is already used at %s", where, t.ID, prev)
			}
			seen[t.ID] = where
		}
	}
	return nil
}

// Parse decodes and validates one vector file. Errors name the file, the
// line or JSON path, and the problem.
func Parse(name string, data []byte) (*File, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, syntaxError(data, err))
	}
	sch, err := compiledSchema()
	if err != nil {
		return nil, fmt.Errorf("vector schema: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		return nil, fmt.Errorf("%s: %s", name, schemaError(err))
	}
	var f File
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	f.Path, f.Raw = name, data
	for i, t := range f.Tests {
		t.File = &f
		if err := checkTest(t); err != nil {
			return nil, fmt.Errorf("%s: %v (test %s)", name, under(fmt.Sprintf("$.tests[%d]", i), err), t.ID)
		}
	}
	return &f, nil
}

func checkTest(t *Test) error {
	allowed := map[string]bool{"nonce": true, "version": true, "resource.uri": true, "resource.scheme": true,
		"prompt.name": true, "prompt.argument": true, "template.uriTemplate": true, "template.firstVar": true}
	switch t.Foreach {
	case "resource":
		allowed["item.uri"], allowed["item.name"] = true, true
	case "template":
		allowed["item.uriTemplate"], allowed["item.name"], allowed["item.expanded"], allowed["item.firstVar"] = true, true, true, true
	}
	check := func(where, text string) error {
		for _, n := range bindingNames(text) {
			if !allowed[n] {
				if _, known := Bindings[n]; known {
					return fmt.Errorf("%s: binding {{%s}} is not available here (foreach %q)", where, n, t.Foreach)
				}
				return fmt.Errorf("%s: unknown binding {{%s}}", where, n)
			}
		}
		return nil
	}
	placeholder := map[string]string{}
	for n := range Bindings {
		placeholder[n] = "x"
	}
	requests := 0
	for i, s := range t.Steps {
		where := fmt.Sprintf("$.steps[%d]", i)
		for _, c := range []*Call{s.Request, s.Notify} {
			if c == nil {
				continue
			}
			if err := check(where, string(c.Params)); err != nil {
				return err
			}
			if c.Params != nil {
				if _, err := Expand(c.Params, placeholder); err != nil {
					return fmt.Errorf("%s.params: %v", where, err)
				}
			}
		}
		if s.Request != nil {
			requests++
		}
		if s.Raw != nil {
			if err := check(where+".raw", *s.Raw); err != nil {
				return err
			}
		}
	}
	for i, o := range t.Expect {
		where := fmt.Sprintf("$.expect[%d]", i)
		n := 0
		for j, p := range []json.RawMessage{o.Result, o.Error, o.Response} {
			if p == nil {
				continue
			}
			n++
			member := where + "." + []string{"result", "error", "response"}[j]
			if err := check(member, string(p)); err != nil {
				return err
			}
			exp, err := Expand(p, placeholder)
			if err != nil {
				return fmt.Errorf("%s: %v", member, err)
			}
			if _, err := CompilePattern(exp); err != nil {
				return under(member, err)
			}
		}
		if o.Silence {
			n++
		}
		if n > 1 {
			return fmt.Errorf("%s: give at most one of result, error, response and silence", where)
		}
		if o.Alive != nil && !t.CheckAlive {
			return fmt.Errorf("%s: \"alive\" needs \"checkAlive\": true on the test", where)
		}
		if n == 0 && o.Alive == nil {
			return fmt.Errorf("%s: an outcome needs result, error, response, silence or alive", where)
		}
	}
	if requests == 0 {
		hasRawReply := false
		for _, s := range t.Steps {
			if s.Raw != nil || s.SilenceMs > 0 {
				hasRawReply = true
			}
		}
		if !hasRawReply {
			return errors.New("$.steps: no request to judge (add a request, or a raw step)")
		}
	}
	return nil
}

// under puts an error whose text starts with a JSON path ("$.a: problem")
// below the path prefix, so that a message names one path from the root.
func under(prefix string, err error) error {
	if msg := err.Error(); strings.HasPrefix(msg, "$") {
		return errors.New(prefix + msg[1:])
	}
	return fmt.Errorf("%s: %v", prefix, err)
}

// syntaxError turns a JSON syntax error into "line L, column C: problem".
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, int(se.Offset)-1)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	}
	var d any
	if err2 := json.Unmarshal(data, &d); errors.As(err2, &se) {
		line, col := position(data, int(se.Offset)-1)
		return fmt.Sprintf("line %d, column %d: %v", line, col, se)
	} else if err2 != nil {
		return err2.Error()
	}
	return err.Error()
}

// position returns the line and column (from 1) of byte off. A syntax
// error's offset is just past the offending byte: callers pass it minus one.
func position(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// schemaError reduces a validation error to its deepest causes, each as
// "$.json.path: message".
func schemaError(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			p := "$"
			for _, s := range e.InstanceLocation {
				if isIndex(s) {
					p += "[" + s + "]"
				} else {
					p += "." + s
				}
			}
			out = append(out, p+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("(and %d more)", len(out)-5))
	}
	return strings.Join(out, "; ")
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var printer = message.NewPrinter(language.English)
