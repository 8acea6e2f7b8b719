package fleet

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/spelling"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
	"sigs.k8s.io/yaml"
)

// TargetsSchema is the JSON Schema (draft 2020-12) of a target list.
//
//go:embed targets.schema.json
var TargetsSchema []byte

// File is a target list: the YAML file a fleet runs, with a top-level
// targets list.
//
//	targets:
//	  - id: notes-server
//	    command: [./bin/notes-server, --stdio]
//	    env: [NOTES_DB]
//	    requires: [NOTES_TOKEN]
//	    setup: {command: [make, notes-server], timeout: 5m}
//	    spec-version: all
//
// Relative paths in it (cwd, baseline, vectors, a program named with a
// slash) are taken from the file's folder, or from the target's cwd for
// its program.
type File struct {
	// Path is where the list was read from.
	Path    string   `json:"-"`
	Targets []Target `json:"targets"`
}

// Target is one server of a list. Its fields are the flags of a single
// run, by the same names, and the few a list needs besides.
type Target struct {
	// ID names the target in every report and in the folders of its
	// reports: letters, digits, ".", "_" and "-", unique in the list.
	ID string `json:"id"`
	// Command is the server's argv; URL the address of a Streamable HTTP
	// server. Exactly one is given.
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Cwd is the server's working directory (default: the list's folder).
	Cwd string `json:"cwd,omitempty"`
	// Env names variables whose values the server gets from the
	// environment the fleet runs in. The list holds names only, never
	// values: secrets stay in the runner's environment.
	Env []string `json:"env,omitempty"`
	// InheritEnv passes the fleet's whole environment to the server.
	InheritEnv bool `json:"inherit-env,omitempty"`
	// Requires names variables without which the target is not run: it is
	// a setup-error. They are passed to the server as Env's are.
	Requires []string `json:"requires,omitempty"`
	// Setup is a command run before the server, timed apart from it.
	Setup *Setup `json:"setup,omitempty"`

	Timeout             Duration `json:"timeout,omitempty"`
	StartTimeout        Duration `json:"start-timeout,omitempty"`
	RunTimeout          Duration `json:"run-timeout,omitempty"`
	Grace               Duration `json:"grace,omitempty"`
	ServerRequestWindow Duration `json:"server-request-window,omitempty"`
	MaxMessageSize      int      `json:"max-message-size,omitempty"`
	SpecVersion         string   `json:"spec-version,omitempty"`
	Only                []string `json:"only,omitempty"`
	Skip                []string `json:"skip,omitempty"`
	CallTools           string   `json:"call-tools,omitempty"`
	Baseline            string   `json:"baseline,omitempty"`
	Strict              bool     `json:"strict,omitempty"`
	Parallel            int      `json:"parallel,omitempty"`
	Vectors             string   `json:"vectors,omitempty"`

	// Transport "http" starts Command as a Streamable HTTP server on a
	// free port (from PortFrom) that replaces {port} in its arguments and
	// in env values, reached at Host with its endpoint at HTTPPath; the
	// default, "stdio", speaks over its standard streams.
	Transport string `json:"transport,omitempty"`
	PortFrom  int    `json:"port-from,omitempty"`
	HTTPPath  string `json:"http-path,omitempty"`
	Host      string `json:"host,omitempty"`
	// HeaderEnv names variables each holding a whole header field
	// ("Authorization: Bearer ..."), added to every HTTP request: the
	// token stays in the runner's environment, never in the file.
	HeaderEnv []string `json:"header-env,omitempty"`
}

// Setup is a command a target needs run before its server starts (a
// build, an install), in the target's environment.
type Setup struct {
	Command []string `json:"command"`
	// Cwd is where it runs (default: the target's cwd).
	Cwd string `json:"cwd,omitempty"`
	// Timeout bounds it (default DefaultSetupTimeout).
	Timeout Duration `json:"timeout,omitempty"`
}

// DefaultSetupTimeout bounds a setup command that gives no timeout.
const DefaultSetupTimeout = 10 * time.Minute

// Duration is a time.Duration written as Go writes one: "10s", "1m30s".
type Duration time.Duration

// UnmarshalJSON reads a duration string; a bare number is refused with a
// hint, since its unit would be a guess.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"10s\" or \"1m30s\", got %s", b)
	}
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a duration; write e.g. \"10s\" (units: ms, s, m, h)", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// validID is the shape of a target id: it names a folder.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// validEnvName is the shape of an environment variable's name.
var validEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Load reads and checks a target list. Every error names the target (by
// position and id) and the field, so a list of hundreds is mended in one
// pass: unknown fields (with the nearest known one), missing or duplicate
// ids, a command and a url together, values as a secret (KEY=VALUE in
// env), durations without units, unknown protocol versions and tool
// policies.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	f.Path = abs
	return f, nil
}

// Parse reads a target list from data; name is used in error messages.
func Parse(name string, data []byte) (*File, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(js, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("%s: want a mapping with a targets list, e.g. targets: [{id: my-server, command: [./my-server]}]", name)
	}
	for k := range doc {
		if k != "targets" {
			return nil, fmt.Errorf("%s: unknown top-level field %q%s; a target list has only targets", name, k, nearest(k, []string{"targets"}))
		}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(doc["targets"], &raws); err != nil || len(raws) == 0 {
		return nil, fmt.Errorf("%s: targets must be a list of at least one target", name)
	}
	f := &File{Path: name}
	seen := map[string]int{}
	for i, raw := range raws {
		t, err := parseTarget(raw)
		where := fmt.Sprintf("%s: targets[%d]", name, i)
		if t.ID != "" {
			where += fmt.Sprintf(" (%s)", t.ID)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if j, dup := seen[t.ID]; dup {
			return nil, fmt.Errorf("%s: the id is also targets[%d]'s; ids must be unique", where, j)
		}
		seen[t.ID] = i
		f.Targets = append(f.Targets, t)
	}
	return f, nil
}

// targetFields are the JSON names of Target's and Setup's fields.
var targetFields, setupFields = jsonNames(reflect.TypeOf(Target{})), jsonNames(reflect.TypeOf(Setup{}))

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n != "" && n != "-" {
			out = append(out, n)
		}
	}
	return out
}

func parseTarget(raw json.RawMessage) (Target, error) {
	var t Target
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return t, errors.New("want a mapping with at least an id and a command")
	}
	if err := knownFields(fields, targetFields); err != nil {
		return t, err
	}
	if s, ok := fields["setup"]; ok && string(s) != "null" {
		var sf map[string]json.RawMessage
		if json.Unmarshal(s, &sf) != nil || sf == nil {
			return t, errors.New("setup: want a mapping with a command, e.g. setup: {command: [make, server]}")
		}
		if err := knownFields(sf, setupFields); err != nil {
			return t, fmt.Errorf("setup: %v", err)
		}
	}
	// Field by field, so that an error names its field.
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		one, _ := json.Marshal(map[string]json.RawMessage{k: fields[k]})
		if err := json.Unmarshal(one, &t); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return t, fmt.Errorf("%s: want %s, got %s", k, jsonKind(te.Type), te.Value)
			}
			return t, fmt.Errorf("%s: %v", k, strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return t, t.check()
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Ptr:
		return "a mapping"
	}
	return t.String()
}

func knownFields(fields map[string]json.RawMessage, known []string) error {
	var unknown []string
	for k := range fields {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("unknown field %q%s (known: %s)", unknown[0], nearest(unknown[0], known), strings.Join(known, ", "))
}

// nearest says ", did you mean X?" for the known name nearest to s, when
// one is near.
func nearest(s string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		d := spelling.Distance(strings.ToLower(s), k)
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(s)/3) {
		return fmt.Sprintf("; did you mean %s?", best)
	}
	return ""
}

// check refuses what parses but makes no sense, before anything runs.
func (t *Target) check() error {
	switch {
	case t.ID == "":
		return errors.New("id: missing; every target needs a stable id (it names the target's reports)")
	case !validID.MatchString(t.ID):
		return fmt.Errorf("id %q: use letters, digits, '.', '_' and '-', starting with a letter or digit (it names a folder)", t.ID)
	case len(t.Command) == 0 && t.URL == "":
		return errors.New("give the server's command (its argv as a list, e.g. command: [./my-server, --stdio]) or its url")
	case len(t.Command) > 0 && t.URL != "":
		return errors.New("give a command or a url, not both")
	case len(t.Command) > 0 && strings.TrimSpace(t.Command[0]) == "":
		return errors.New("command: the program is empty")
	}
	if t.URL != "" && !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") && !strings.HasPrefix(t.URL, "unix://") {
		return fmt.Errorf("url %q: want an http:// or https:// address, or unix:///path/to.sock", t.URL)
	}
	switch t.Transport {
	case "", "stdio", "http":
	default:
		return fmt.Errorf("transport %q: want stdio or http", t.Transport)
	}
	if t.Transport != "" && t.URL != "" {
		return errors.New("transport: a url target is reached over HTTP already; give transport only with a command")
	}
	if len(t.HeaderEnv) > 0 && t.URL == "" && t.Transport != "http" {
		return errors.New("header-env adds to HTTP requests: give a url, or transport: http")
	}
	if t.PortFrom < 0 || t.PortFrom > 65535 {
		return fmt.Errorf("port-from: %d is not a port", t.PortFrom)
	}
	if t.HTTPPath != "" && !strings.HasPrefix(t.HTTPPath, "/") {
		return fmt.Errorf("http-path %q: want a path starting with /", t.HTTPPath)
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"env", t.Env}, {"requires", t.Requires}, {"header-env", t.HeaderEnv}} {
		for _, n := range l.names {
			if k, _, ok := strings.Cut(n, "="); ok {
				return fmt.Errorf("%s: %q holds a value; a target list names variables only (write %s and set it in the environment the fleet runs in), so no secret is ever written in the file", l.field, n, k)
			}
			if !validEnvName.MatchString(n) {
				return fmt.Errorf("%s: %q is not a variable name", l.field, n)
			}
		}
	}
	for _, d := range []struct {
		field string
		v     Duration
	}{{"timeout", t.Timeout}, {"start-timeout", t.StartTimeout}, {"run-timeout", t.RunTimeout}, {"grace", t.Grace}, {"server-request-window", t.ServerRequestWindow}} {
		if d.v < 0 {
			return fmt.Errorf("%s: %s is negative", d.field, time.Duration(d.v))
		}
	}
	if t.RunTimeout != 0 && time.Duration(t.RunTimeout) < time.Second {
		return fmt.Errorf("run-timeout: %s is too short for any run (the least is 1s)", time.Duration(t.RunTimeout))
	}
	if t.MaxMessageSize < 0 || t.Parallel < 0 {
		return errors.New("max-message-size and parallel are positive numbers")
	}
	v := strings.TrimSpace(t.SpecVersion)
	if strings.EqualFold(v, "all") {
		v = "all"
	}
	if v != "" && v != "all" && !wire.KnownVersion(v) {
		return fmt.Errorf("spec-version %q: want one of %s, or all", t.SpecVersion, strings.Join(wire.AllVersions, ", "))
	}
	t.SpecVersion = v
	if t.CallTools != "" {
		if _, err := plan.ParseToolPolicy(t.CallTools); err != nil {
			return fmt.Errorf("call-tools: %v", err)
		}
	}
	if t.Setup != nil {
		if len(t.Setup.Command) == 0 || strings.TrimSpace(t.Setup.Command[0]) == "" {
			return errors.New("setup: command: give the setup's argv as a list, e.g. [make, server]")
		}
		if t.Setup.Timeout < 0 {
			return errors.New("setup: timeout is negative")
		}
	}
	return nil
}

// dir is the folder relative paths of the list are taken from.
func (f *File) dir() string {
	if f.Path == "" {
		return "."
	}
	return filepath.Dir(f.Path)
}

// resolve makes p absolute against base; "" stays "".
func resolve(base, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

// IDs returns the ids of the list, sorted.
func (f *File) IDs() []string {
	ids := make([]string, len(f.Targets))
	for i, t := range f.Targets {
		ids[i] = t.ID
	}
	sort.Strings(ids)
	return ids
}

// hasSeparator reports whether a program name is a path (./bin/server)
// rather than a name looked up in PATH.
func hasSeparator(p string) bool { return strings.ContainsRune(p, filepath.Separator) }
