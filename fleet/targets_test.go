package fleet_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// TestParseRefusesWhatMakesNoSense: every mistake names the target and the
// field, and says how to mend it.
func TestParseRefusesWhatMakesNoSense(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"no targets", "targets: []", "targets must be a list of at least one target"},
		{"a top-level typo", "target: []", `unknown top-level field "target"; did you mean targets?`},
		{"no id", "targets: [{command: [x]}]", "targets[0]: id: missing"},
		{"an id that is no folder name", "targets: [{id: a/b, command: [x]}]", `id "a/b": use letters`},
		{"duplicate ids", "targets: [{id: a, command: [x]}, {id: a, command: [z]}]", "targets[1] (a): the id is also targets[0]'s"},
		{"neither command nor url", "targets: [{id: a}]", "give the server's command"},
		{"both", "targets: [{id: a, command: [x], url: 'http://h/mcp'}]", "a command or a url, not both"},
		{"a command as a string", "targets: [{id: a, command: ./x --y}]", "command: want a list of strings"},
		{"a field misspelt", "targets: [{id: a, comand: [x]}]", `unknown field "comand"; did you mean command?`},
		{"a value in env", "targets: [{id: a, command: [x], env: [TOKEN=s3cret]}]", `env: "TOKEN=s3cret" holds a value; a target list names variables only`},
		{"a bad variable name", "targets: [{id: a, command: [x], requires: [1X]}]", `requires: "1X" is not a variable name`},
		{"a duration without unit", "targets: [{id: a, command: [x], timeout: 10}]", `timeout: want a duration such as "10s"`},
		{"a duration that is none", "targets: [{id: a, command: [x], grace: soon}]", `grace: "soon" is not a duration`},
		{"a run timeout too short", "targets: [{id: a, command: [x], run-timeout: 10ms}]", "run-timeout: 10ms is too short"},
		{"an unknown version", "targets: [{id: a, command: [x], spec-version: 2020-01-01}]", `spec-version "2020-01-01": want one of`},
		{"a tool keyword misspelt", "targets: [{id: a, command: [x], call-tools: READONLY}]", "call-tools:"},
		{"a setup field misspelt", "targets: [{id: a, command: [x], setup: {comand: [make]}}]", `setup: unknown field "comand"; did you mean command?`},
		{"a setup without command", "targets: [{id: a, command: [x], setup: {timeout: 1m}}]", "setup: command:"},
		{"a url that is no http", "targets: [{id: a, url: 'ftp://h'}]", `url "ftp://h": want an http:// or https:// address`},
		{"an unknown transport", "targets: [{id: a, command: [x], transport: sse}]", `transport "sse": want stdio or http`},
		{"a transport beside a url", "targets: [{id: a, url: 'http://h/mcp', transport: http}]", "give transport only with a command"},
		{"headers over stdio", "targets: [{id: a, command: [x], header-env: [TOKEN]}]", "header-env adds to HTTP requests"},
		{"a header with its value", "targets: [{id: a, url: 'http://h/mcp', header-env: ['A=b']}]", "holds a value"},
		{"an http path without slash", "targets: [{id: a, command: [x], transport: http, http-path: mcp}]", `http-path "mcp": want a path starting with /`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fleet.Parse("list.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error holding %q", err, tc.want)
			}
		})
	}
}

// TestParseKeepsEveryField: each field of a target reaches the Target,
// with the names of the flags.
func TestParseKeepsEveryField(t *testing.T) {
	f, err := fleet.Parse("list.yaml", []byte(`
targets:
  - id: notes
    command: [./bin/notes, --stdio]
    cwd: servers/notes
    env: [NOTES_DB]
    inherit-env: true
    requires: [NOTES_TOKEN]
    setup: {command: [make, notes], cwd: servers, timeout: 5m}
    timeout: 5s
    start-timeout: 1m
    run-timeout: 2m
    grace: 1s
    server-request-window: 1s
    max-message-size: 1048576
    spec-version: ALL
    only: [area:resources]
    skip: [robustness]
    call-tools: readonly
    baseline: notes-baseline.yaml
    strict: true
    parallel: 2
    vectors: vectors
`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(f.Targets[0])
	want := `{"id":"notes","command":["./bin/notes","--stdio"],"cwd":"servers/notes","env":["NOTES_DB"],"inherit-env":true,"requires":["NOTES_TOKEN"],` +
		`"setup":{"command":["make","notes"],"cwd":"servers","timeout":"5m0s"},"timeout":"5s","start-timeout":"1m0s","run-timeout":"2m0s","grace":"1s",` +
		`"server-request-window":"1s","max-message-size":1048576,"spec-version":"all","only":["area:resources"],"skip":["robustness"],` +
		`"call-tools":"readonly","baseline":"notes-baseline.yaml","strict":true,"parallel":2,"vectors":"vectors"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestSchemaDescribesTheParser: the documented schema accepts the lists
// the parser accepts, and names the same fields.
func TestSchemaDescribesTheParser(t *testing.T) {
	schema := compileSchema(t)
	var doc map[string]any
	if err := json.Unmarshal(fleet.TargetsSchema, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["$defs"].(map[string]any)["target"].(map[string]any)["properties"].(map[string]any)
	full, _ := json.Marshal(fleet.Target{ID: "x", Command: []string{"x"}, URL: "http://h", Cwd: "c", Env: []string{"A"}, InheritEnv: true, Requires: []string{"B"},
		Setup: &fleet.Setup{Command: []string{"make"}}, Timeout: 1, StartTimeout: 1, RunTimeout: 1, Grace: 1, ServerRequestWindow: 1, MaxMessageSize: 1,
		SpecVersion: "all", Only: []string{"a"}, Skip: []string{"b"}, CallTools: "all", Baseline: "b", Strict: true, Parallel: 1, Vectors: "v",
		Transport: "http", PortFrom: 1, HTTPPath: "/mcp", Host: "h", HeaderEnv: []string{"T"}})
	var fields map[string]any
	json.Unmarshal(full, &fields)
	for k := range fields {
		if _, ok := props[k]; !ok {
			t.Errorf("the schema lacks the field %q", k)
		}
	}
	for k := range props {
		if _, ok := fields[k]; !ok {
			t.Errorf("the schema has the field %q, which the parser does not", k)
		}
	}
	for _, path := range exampleLists(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fleet.Parse(path, data); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s does not follow the schema: %v", path, err)
		}
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(fleet.TargetsSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("targets.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("targets.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exampleLists are the target lists the documentation ships.
func exampleLists(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "docs", "examples", "*targets*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example target list in docs/examples (%v)", err)
	}
	return paths
}
