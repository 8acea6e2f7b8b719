package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/wire"
)

func TestVariantCatalogue(t *testing.T) {
	variants := Variants()
	if len(variants) < 45 {
		t.Errorf("%d variants, want at least 45", len(variants))
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	reqID := regexp.MustCompile(`^[A-Z]+(-[A-Z]+)*-[0-9]{2}$`)
	known := append(slices.Clone(knownVersions), modernVersion)
	for _, v := range variants {
		if !kebab.MatchString(v.Name) {
			t.Errorf("variant name %q is not kebab-case", v.Name)
		}
		if _, clash := faultIndex[v.Name]; clash {
			t.Errorf("variant %s has the name of a fault", v.Name)
		}
		if v.Description == "" || variantIndex[v.Name].why == "" {
			t.Errorf("variant %s: empty description or reason", v.Name)
		}
		if v.Versions != nil && len(v.Versions) == 0 {
			t.Errorf("variant %s: an empty, non-nil version list", v.Name)
		}
		for _, ver := range v.Versions {
			if !slices.Contains(known, ver) {
				t.Errorf("variant %s: unknown version %q", v.Name, ver)
			}
		}
		for _, id := range v.Breaks {
			if !reqID.MatchString(id) {
				t.Errorf("variant %s: breaks %q, not a catalogue id", v.Name, id)
			}
		}
		for _, x := range variantIndex[v.Name].excludes {
			if _, ok := variantIndex[x]; !ok {
				t.Errorf("variant %s excludes the unknown variant %q", v.Name, x)
			}
		}
		// A variant alone is always valid.
		if err := ValidateVariants([]string{v.Name}); err != nil {
			t.Errorf("variant %s alone: %v", v.Name, err)
		}
	}
	if !sort.SliceIsSorted(variants, func(i, j int) bool { return variants[i].Name < variants[j].Name }) {
		t.Errorf("Variants() is not sorted by name")
	}
	for name := range variantChecks {
		if _, ok := variantIndex[name]; !ok {
			t.Errorf("a check for the unknown variant %s", name)
		}
	}
}

func TestValidateVariants(t *testing.T) {
	if err := ValidateVariants([]string{"slow-answers", " odd-uris", ""}); err != nil {
		t.Errorf("valid variants: %v", err)
	}
	tests := []struct {
		names []string
		want  []string
	}{
		{[]string{"slow-anwsers"}, []string{`"slow-anwsers"`, `did you mean "slow-answers"?`, "valid variants:"}},
		{[]string{"odd-uri", "zzzzzzzzzzzzzzzzzz"}, []string{`did you mean "odd-uris"?`, `"zzzzzzzzzzzzzzzzzz";`, "unknown variants"}},
		{[]string{"ids-escaped", "ids-reencoded"}, []string{"exclude each other"}},
		{[]string{"no-resources", "odd-uris"}, []string{"exclude each other"}},
		{[]string{"tools-only", "templates-empty"}, []string{"exclude each other"}},
		{[]string{"prompt-arguments-optional-all", "tools-only"}, []string{"exclude each other"}},
		{[]string{"unknown-tool-other-error", "only-2026-07-28"}, []string{"no protocol version in common"}},
		{[]string{"only-2024-11-05", "only-2025-11-25"}, []string{"no protocol version in common"}},
		{[]string{"batch-in-2024", "error-id-omitted"}, []string{"no protocol version in common"}},
	}
	for _, tt := range tests {
		err := ValidateVariants(tt.names)
		if err == nil {
			t.Errorf("%q accepted", tt.names)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", tt.names, err, w)
			}
		}
	}
	if strings.Contains(ValidateVariants([]string{"zzzzzzzzzzzzzzzzzz"}).Error(), "did you mean") {
		t.Errorf("a suggestion for a name close to nothing")
	}
	if err := Serve(context.Background(), strings.NewReader(""), &bytes.Buffer{}, nil, Options{Variants: []string{"nope"}}); err == nil {
		t.Errorf("Serve accepted an unknown variant")
	}
	fx := DefaultFixture()
	fx.ProtocolVersions = []string{"2025-11-25"}
	if err := Serve(context.Background(), strings.NewReader(""), &bytes.Buffer{}, nil, Options{Fixture: fx, Variants: []string{"only-2024-11-05"}}); err == nil ||
		!strings.Contains(err.Error(), "no protocol version in common") {
		t.Errorf("Serve with a fixture and variants that share no version: %v", err)
	}
}

// TestVariantsLeaveTheFixtureAlone: Serve copies a fixture before the
// variants change it.
func TestVariantsLeaveTheFixtureAlone(t *testing.T) {
	fx := DefaultFixture()
	before, _ := json.Marshal(fx)
	s := start(t, Options{Fixture: fx, Variants: []string{"shared-names", "odd-uris", "minimal-metadata", "no-subscribe"}})
	s.initialize("2025-11-25")
	after, _ := json.Marshal(fx)
	if !bytes.Equal(before, after) {
		t.Errorf("Serve changed the fixture it was given")
	}
}

// vsession drives one variant session and keeps every line it saw.
type vsession struct {
	*session
	t       *testing.T
	version string
	modern  bool
	raw     [][]byte // every stdout line, in order
	notes   []msg    // every message that was not the awaited response
	init    map[string]any
	// What the walk found.
	resources []map[string]any
	templates []map[string]any
	pages     []map[string]any // resources/list results
	tplPages  []map[string]any
	listErr   *wireErr
	tplErr    *wireErr
	tools     []map[string]any // when tools are declared
	prompts   []map[string]any // when prompts are declared
	toolsErr  *wireErr
	promptErr *wireErr
	reads     map[string]msg // by listed URI: the final read response
	readRaw   map[string][]byte
	inputReq  map[string]map[string]any // reads answered input_required first
}

// startVariant starts a session with the variants and completes the
// handshake at version (server/discover for 2026-07-28).
func startVariant(t *testing.T, version string, variants ...string) *vsession {
	t.Helper()
	v := &vsession{session: start(t, Options{Variants: variants}), t: t, version: version, modern: version == modernVersion,
		reads: map[string]msg{}, readRaw: map[string][]byte{}, inputReq: map[string]map[string]any{}}
	var m msg
	if v.modern {
		m, _ = v.call("server/discover", nil)
	} else {
		m, _ = v.call("initialize", initParams(version))
		v.send(notification("notifications/initialized", nil))
	}
	if m.Error != nil {
		t.Fatalf("handshake at %s: %d %s", version, m.Error.Code, m.Error.Message)
	}
	v.init = decode(t, m.Result)
	return v
}

// next returns the next line, decoded, and records it.
func (v *vsession) next() (msg, []byte) {
	v.t.Helper()
	line := v.recv()
	v.raw = append(v.raw, line)
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		v.t.Fatalf("a line that is not a message: %v: %q", err, clip(string(line)))
	}
	return m, line
}

// call sends a request (in the 2026-07-28 envelope in a modern session)
// and waits for its response; what came before it is returned too.
func (v *vsession) call(method string, params map[string]any) (msg, []msg) {
	v.t.Helper()
	m, notes, _ := v.callRaw(method, params)
	return m, notes
}

func (v *vsession) callRaw(method string, params map[string]any) (msg, []msg, []byte) {
	v.t.Helper()
	v.nextID++
	id := strconv.Itoa(v.nextID)
	var p any
	if params != nil {
		p = params
	}
	if v.modern {
		env := enveloped(params)
		if m, ok := params["_meta"].(map[string]any); ok {
			for k, x := range m {
				env["_meta"].(map[string]any)[k] = x
			}
		}
		p = env
	}
	v.send(request(id, method, p))
	return v.await(id)
}

// await reads until the response with id (compared by value) arrives.
func (v *vsession) await(id string) (msg, []msg, []byte) {
	v.t.Helper()
	var notes []msg
	for {
		m, line := v.next()
		if m.Method == "" && sameID(m.ID, json.RawMessage(id)) {
			return m, notes, line
		}
		notes = append(notes, m)
		v.notes = append(v.notes, m)
	}
}

// sameID compares two ids by JSON type and value.
func sameID(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	decode := func(r json.RawMessage) any {
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return nil
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// walk lists every page of both resource lists and reads every listed
// resource, retrying input_required reads with their requestState; it
// also lists the tools and prompts when they are declared.
func (v *vsession) walk() {
	v.t.Helper()
	v.resources, v.pages, v.listErr = v.walkList("resources/list", "resources")
	v.templates, v.tplPages, v.tplErr = v.walkList("resources/templates/list", "resourceTemplates")
	caps, _ := v.init["capabilities"].(map[string]any)
	if caps["tools"] != nil {
		v.tools, _, v.toolsErr = v.walkList("tools/list", "tools")
	}
	if caps["prompts"] != nil {
		v.prompts, _, v.promptErr = v.walkList("prompts/list", "prompts")
	}
	for _, r := range v.resources {
		uri, _ := r["uri"].(string)
		m, _, line := v.callRaw("resources/read", map[string]any{"uri": uri})
		if m.Result != nil {
			res := decode(v.t, m.Result)
			if res["resultType"] == "input_required" {
				v.inputReq[uri] = res
				m, _, line = v.callRaw("resources/read", map[string]any{"uri": uri, "requestState": res["requestState"]})
			}
		}
		v.reads[uri], v.readRaw[uri] = m, line
	}
}

func (v *vsession) walkList(method, member string) (items, pages []map[string]any, e *wireErr) {
	v.t.Helper()
	return walkPages(v.t, method, member, 1000, func(params map[string]any) msg {
		m, _ := v.call(method, params)
		return m
	})
}

// read reads uri and returns the result, failing on an error.
func (v *vsession) read(uri string, extra map[string]any) map[string]any {
	v.t.Helper()
	p := map[string]any{"uri": uri}
	for k, x := range extra {
		p[k] = x
	}
	m, _ := v.call("resources/read", p)
	if m.Error != nil {
		v.t.Fatalf("read %s: %d %s", uri, m.Error.Code, m.Error.Message)
	}
	return decode(v.t, m.Result)
}

// wire is every line seen so far, one per line.
func (v *vsession) wire() string {
	var b strings.Builder
	for _, l := range v.raw {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// contents returns the contents items of a read result.
func contents(res map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := res["contents"].([]any)
	for _, c := range list {
		out = append(out, c.(map[string]any))
	}
	return out
}

func versionsOf(name string) []string {
	if vs := variantIndex[name].Versions; vs != nil {
		return vs
	}
	return append(slices.Clone(knownVersions), modernVersion)
}

// TestVariants drives every variant, in every version it serves, through
// the handshake (or server/discover), every page of both lists and a read
// of every listed resource, and checks that it shows its behaviour.
func TestVariants(t *testing.T) {
	for _, variant := range Variants() {
		check, ok := variantChecks[variant.Name]
		if !ok {
			t.Errorf("variant %s has no check", variant.Name)
			continue
		}
		for _, version := range versionsOf(variant.Name) {
			t.Run(variant.Name+"/"+version, func(t *testing.T) {
				t.Parallel()
				v := startVariant(t, version, variant.Name)
				v.walk()
				if v.listErr != nil && !dropsResources(variant.Name) {
					t.Fatalf("resources/list: %d %s", v.listErr.Code, v.listErr.Message)
				}
				for method, e := range map[string]*wireErr{"tools/list": v.toolsErr, "prompts/list": v.promptErr} {
					if e != nil {
						t.Errorf("%s: %d %s", method, e.Code, e.Message)
					}
				}
				for uri, m := range v.reads {
					// Under the list-changes variants a listed resource may be gone by the time it is read.
					if m.Error != nil && !strings.HasPrefix(variant.Name, "list-changes-") {
						t.Errorf("read of the listed %s: %d %s", uri, m.Error.Code, m.Error.Message)
					}
				}
				for _, l := range v.raw {
					if !json.Valid(l) || !utf8.Valid(l) {
						t.Errorf("a line that is not UTF-8 JSON: %q", clip(string(l)))
					}
				}
				check(t, v)
			})
		}
	}
}

// listed finds a listed resource by URI.
func (v *vsession) listed(uri string) map[string]any {
	for _, r := range v.resources {
		if r["uri"] == uri {
			return r
		}
	}
	return nil
}

func (v *vsession) atLeast(version string) bool { return v.version >= version }

// variantChecks holds, for every variant, what shows its behaviour in a
// session that has been walked.
var variantChecks = map[string]func(t *testing.T, v *vsession){
	"pipelined-out-of-order": func(t *testing.T, v *vsession) {
		var batch strings.Builder
		for i := 1; i <= 4; i++ {
			p := any(nil)
			if v.modern {
				p = enveloped(nil)
			}
			batch.WriteString(request(fmt.Sprintf(`"p%d"`, i), map[bool]string{true: "server/discover", false: "ping"}[v.modern], p) + "\n")
		}
		v.send(strings.TrimSuffix(batch.String(), "\n"))
		var order []string
		for len(order) < 4 {
			m, _ := v.next()
			if m.Method == "" {
				order = append(order, string(m.ID))
			}
		}
		if want := []string{`"p2"`, `"p1"`, `"p4"`, `"p3"`}; !slices.Equal(order, want) {
			t.Errorf("pipelined answers in the order %v, want %v", order, want)
		}
	},
	"late-parse-error": func(t *testing.T, v *vsession) {
		// One write, so that the request waits behind the bad line.
		p := any(nil)
		if v.modern {
			p = enveloped(nil)
		}
		v.send("{not json\n" + request(`"after"`, map[bool]string{true: "server/discover", false: "ping"}[v.modern], p))
		m, notes, _ := v.await(`"after"`)
		if m.Error != nil || len(notes) != 0 {
			t.Fatalf("the request after the bad line: %+v, before it %+v", m.Error, notes)
		}
		m, _ = v.next()
		if m.Error == nil || m.Error.Code != wire.CodeParseError || string(m.ID) != "null" {
			t.Errorf("after the answer came %+v, want the -32700 with id null", m)
		}
	},
	"slow-answers": func(t *testing.T, v *vsession) {
		if !v.modern {
			return // only a stream shows it without a clock; the walk shows the answers come
		}
		// The acknowledgement is no response, so it is not delayed: it
		// overtakes the answer to a request sent before it.
		v.send(request(`"d"`, "server/discover", enveloped(nil)) + "\n" +
			request(`"l"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourcesListChanged": true}})))
		first, _ := v.next()
		if first.Method != "notifications/subscriptions/acknowledged" {
			t.Errorf("first came %s %s, want the acknowledgement before the delayed answer", first.Method, first.ID)
		}
	},
	"python-json-escapes": func(t *testing.T, v *vsession) {
		for _, l := range v.raw {
			for _, c := range l {
				if c >= 0x80 {
					t.Fatalf("a raw non-ASCII byte in %q", clip(string(l)))
				}
			}
		}
		if !v.modern {
			m, _, line := v.echoID(`"ü-1"`)
			if !bytes.Contains(line, []byte(`"id":"\u00fc-1"`)) || m.Error != nil {
				t.Errorf("the id ü-1 came back as %q", clip(string(line)))
			}
		}
		if raw := v.readRaw["test://static/unicode.txt"]; !bytes.Contains(raw, []byte(`Gr\u00fc\u00dfe`)) || !bytes.Contains(raw, []byte(`\ud83d\ude00`)) {
			t.Errorf("non-ASCII text not escaped: %q", clip(string(raw)))
		}
	},
	"escaped-slash": func(t *testing.T, v *vsession) {
		for _, l := range v.raw {
			if bytes.Contains(bytes.ReplaceAll(l, []byte(`\/`), nil), []byte("/")) {
				t.Fatalf("an unescaped / in %q", clip(string(l)))
			}
		}
		if !strings.Contains(v.wire(), `"test:\/\/static\/hello.txt"`) {
			t.Errorf("no escaped URI on the wire")
		}
	},
	"spaced-json": func(t *testing.T, v *vsession) {
		if !strings.HasPrefix(string(v.raw[0]), `{"jsonrpc": "2.0", "id": 1, "result": {`) {
			t.Errorf("first line %q", clip(string(v.raw[0])))
		}
	},
	"members-reordered": func(t *testing.T, v *vsession) {
		for _, l := range v.raw {
			var m msg
			_ = json.Unmarshal(l, &m)
			if m.Method == "" && !bytes.HasPrefix(l, []byte(`{"result":`)) && !bytes.HasPrefix(l, []byte(`{"error":`)) {
				t.Fatalf("a response that does not start with result or error: %q", clip(string(l)))
			}
		}
		if !strings.Contains(v.wire(), `"uri":"test://static/hello.txt","title"`) && !strings.Contains(v.wire(), `"uri":"test://static/hello.txt","size"`) {
			t.Errorf("resource members not in descending order")
		}
	},
	"unescaped-line-separators": func(t *testing.T, v *vsession) {
		raw := v.readRaw["test://static/unicode.txt"]
		if !bytes.Contains(raw, []byte("line\u2028separator")) || !bytes.Contains(raw, []byte("paragraph\u2029separator")) {
			t.Errorf("no raw U+2028/U+2029 in %q", clip(string(raw)))
		}
		if got := contents(decode(t, v.reads["test://static/unicode.txt"].Result))[0]["text"]; !strings.Contains(got.(string), "line\u2028separator") {
			t.Errorf("the text decodes to %q", got)
		}
	},
	"float-integers": func(t *testing.T, v *vsession) {
		wire := v.wire()
		if !strings.Contains(wire, `"size":14.0`) {
			t.Errorf("no size 14.0 on the wire")
		}
		if v.modern && !strings.Contains(wire, `"ttlMs":60000.0`) {
			t.Errorf("no ttlMs 60000.0 on the wire")
		}
		if strings.Contains(wire, `"id":1.0`) || regexp.MustCompile(`"code":-?\d+\.`).MatchString(wire) {
			t.Errorf("an id or error code in float form")
		}
	},
	"exponent-integers": func(t *testing.T, v *vsession) {
		if !strings.Contains(v.wire(), `"size":1.4e+01`) {
			t.Errorf("no size 1.4e+01 on the wire")
		}
		if v.modern && !strings.Contains(v.wire(), `"ttlMs":6e+04`) {
			t.Errorf("no ttlMs 6e+04 on the wire")
		}
	},
	"extra-members": func(t *testing.T, v *vsession) {
		caps := v.init["capabilities"].(map[string]any)
		if caps["mockExtraCapability"] == nil || caps["resources"].(map[string]any)["mockExtra"] == nil {
			t.Errorf("capabilities without extra members: %v", caps)
		}
		if v.init["mockExtra"] == nil || (!v.modern && v.init["serverInfo"].(map[string]any)["mockExtra"] == nil) {
			t.Errorf("result or serverInfo without extra member")
		}
		if v.resources[0]["mockExtra"] == nil || v.templates[0]["mockExtra"] == nil || v.pages[0]["mockExtra"] == nil {
			t.Errorf("list items or results without extra member")
		}
		if contents(decode(t, v.reads["test://static/hello.txt"].Result))[0]["mockExtra"] == nil {
			t.Errorf("contents without extra member")
		}
		m, _, line := v.callRaw("resources/read", map[string]any{"uri": "test://nothing/here"})
		if m.Error == nil || !bytes.Contains(line, []byte(`"mockExtra"`)) {
			t.Errorf("error object without extra member: %q", line)
		}
		if v.modern {
			note := v.listen(map[string]any{"resourcesListChanged": true})
			if note["mockExtra"] == nil {
				t.Errorf("notification params without extra member: %v", note)
			}
		}
	},
	"meta-everywhere": func(t *testing.T, v *vsession) {
		hasKeys := func(what string, o map[string]any) {
			meta, _ := o["_meta"].(map[string]any)
			for _, k := range []string{"com.example.mock/trace-id", "note", "com.example.mock/"} {
				if _, ok := meta[k]; !ok {
					t.Errorf("%s: _meta lacks %q: %v", what, k, meta)
				}
			}
			for k := range meta {
				if !metaKey.MatchString(k) {
					t.Errorf("%s: a malformed _meta key %q", what, k)
				}
			}
		}
		hasKeys("result", v.init)
		hasKeys("list result", v.pages[0])
		var ping map[string]any
		if !v.modern {
			v.result("ping", nil, &ping)
			hasKeys("ping result", ping)
			if len(ping) != 1 {
				t.Errorf("ping result %v: more than _meta", ping)
			}
		}
		if v.atLeast(v20250618) {
			hasKeys("resource", v.resources[0])
			hasKeys("template", v.templates[0])
			hasKeys("contents", contents(decode(t, v.reads["test://static/hello.txt"].Result))[0])
		} else if v.resources[0]["_meta"] != nil {
			t.Errorf("resource _meta in a %s session", v.version)
		}
	},
	"time-varying-resource": func(t *testing.T, v *vsession) {
		var sizes []float64
		var texts []string
		if !v.modern && v.init["capabilities"].(map[string]any)["resources"].(map[string]any)["subscribe"] == true {
			var r map[string]any
			v.result("resources/subscribe", map[string]any{"uri": changingURI}, &r)
		}
		for range 3 {
			items, _, _ := v.walkList("resources/list", "resources")
			var r map[string]any
			for _, it := range items {
				if it["uri"] == changingURI {
					r = it
				}
			}
			if r == nil {
				t.Fatalf("%s is not listed", changingURI)
			}
			m, notes := v.call("resources/read", map[string]any{"uri": changingURI})
			text := contents(decode(t, m.Result))[0]["text"].(string)
			if float64(len(text)) != r["size"].(float64) {
				t.Errorf("listed size %v, read %d bytes", r["size"], len(text))
			}
			sizes, texts = append(sizes, r["size"].(float64)), append(texts, text)
			if !v.modern && v.atLeast("2025-06-18") && r["annotations"].(map[string]any)["lastModified"] == nil {
				t.Errorf("no lastModified")
			}
			_ = notes
		}
		if texts[0] == texts[1] || sizes[0] == sizes[1] {
			t.Errorf("the resource did not change: %v %q", sizes, texts)
		}
		if !v.modern {
			var updated bool
			for _, n := range v.notes {
				updated = updated || n.Method == "notifications/resources/updated" && strings.Contains(string(n.Params), changingURI)
			}
			if !updated {
				t.Errorf("no notifications/resources/updated for the subscribed resource")
			}
		}
	},
	"list-order-varies": func(t *testing.T, v *vsession) {
		second, _, _ := v.walkList("resources/list", "resources")
		a, b := uris(v.resources), uris(second)
		if slices.Equal(a, b) {
			t.Errorf("two walks gave the same order")
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("two walks gave different sets: %v, %v", a, b)
		}
	},
	"list-changes-while-paging": func(t *testing.T, v *vsession) {
		changes := 0
		for _, n := range v.notes {
			if n.Method == "notifications/resources/list_changed" {
				changes++
			}
		}
		if changes < len(v.pages)-1 {
			t.Errorf("%d list_changed for %d pages", changes, len(v.pages))
		}
		if a := uris(v.resources); len(a) == len(slices.Compact(slices.Sorted(slices.Values(a)))) {
			t.Errorf("the walk saw no item twice: %v", a)
		}
	},
	"list-changes-after-reads": func(t *testing.T, v *vsession) {
		if v.init["capabilities"].(map[string]any)["resources"].(map[string]any)["listChanged"] != true {
			t.Errorf("listChanged not declared")
		}
		for i := range 2 {
			v.read("test://static/hello.txt", nil)
			_, notes := v.call("resources/list", nil)
			if !slices.ContainsFunc(notes, func(n msg) bool { return n.Method == "notifications/resources/list_changed" }) {
				t.Errorf("no list_changed after a read")
			}
			items, _, _ := v.walkList("resources/list", "resources")
			if listed := slices.Contains(uris(items), afterReadURI); listed != (i == 0) {
				t.Errorf("after read %d, %s listed: %v", i+1, afterReadURI, listed)
			}
		}
	},
	"many-resource-pages": func(t *testing.T, v *vsession) {
		if len(v.pages) != 150 || len(v.resources) != 150 || len(v.reads) != 150 {
			t.Errorf("%d pages, %d resources, %d reads; want 150 each", len(v.pages), len(v.resources), len(v.reads))
		}
	},
	"many-template-pages": func(t *testing.T, v *vsession) {
		if len(v.tplPages) != 150 || len(v.templates) != 150 {
			t.Errorf("%d pages, %d templates; want 150 each", len(v.tplPages), len(v.templates))
		}
		if res := v.read("test://variant/t150/x", nil); !strings.Contains(contents(res)[0]["text"].(string), `"id":"x"`) {
			t.Errorf("the last template does not serve its URIs: %v", res)
		}
	},
	"odd-cursors": func(t *testing.T, v *vsession) {
		next := v.pages[0]["nextCursor"].(string)
		if len(next) < 2000 || !strings.ContainsAny(next, "ü\"\\ ") {
			t.Errorf("an ordinary cursor %q", clip(next))
		}
		if len(v.resources) != 10 || len(v.templates) != 5 {
			t.Errorf("the walk found %d resources and %d templates", len(v.resources), len(v.templates))
		}
	},
	"empty-string-cursor": func(t *testing.T, v *vsession) {
		for _, pages := range [][]map[string]any{v.pages, v.tplPages} {
			n := len(pages)
			if n < 2 || pages[n-2]["nextCursor"] != "" || pages[n-1]["nextCursor"] != nil {
				t.Errorf("the page before the last does not carry nextCursor \"\": %v", pages)
			}
		}
		if len(v.resources) != 10 || len(v.templates) != 5 {
			t.Errorf("the walk found %d resources and %d templates", len(v.resources), len(v.templates))
		}
	},
	"ttl-per-page": func(t *testing.T, v *vsession) {
		var ttls []float64
		for _, p := range v.pages {
			ttls = append(ttls, p["ttlMs"].(float64))
		}
		if !slices.Equal(ttls, []float64{0, 1000, 2000, 3000}) {
			t.Errorf("ttlMs per page %v", ttls)
		}
	},
	"cache-private": func(t *testing.T, v *vsession) {
		for _, r := range append([]map[string]any{v.init, v.tplPages[0]}, v.pages...) {
			if r["cacheScope"] != "private" {
				t.Errorf("cacheScope %v", r["cacheScope"])
			}
		}
	},
	"ttl-zero": func(t *testing.T, v *vsession) {
		for _, r := range append([]map[string]any{v.init, v.tplPages[0]}, v.pages...) {
			if r["ttlMs"] != 0.0 {
				t.Errorf("ttlMs %v", r["ttlMs"])
			}
		}
	},
	"odd-uris": func(t *testing.T, v *vsession) {
		for _, u := range oddURIs {
			if v.listed(u) == nil {
				t.Errorf("%s is not listed", u)
				continue
			}
			if c := contents(decode(t, v.reads[u].Result)); len(c) != 1 || c[0]["uri"] != u {
				t.Errorf("read %s: %v", u, c)
			}
		}
	},
	"catch-all-template": func(t *testing.T, v *vsession) {
		if !slices.ContainsFunc(v.templates, func(tp map[string]any) bool { return tp["uriTemplate"] == echoTemplate }) {
			t.Errorf("%s is not listed", echoTemplate)
		}
		for _, u := range []string{"echo://mcp-conformance/does-not-exist-12345", "echo://", "echo:opaque", "ECHO://x/y?q=1#f", "echo://a%20b/%F0%9F%98%80"} {
			if text := contents(v.read(u, nil))[0]["text"].(string); !strings.Contains(text, u) {
				t.Errorf("read %s: %q", u, text)
			}
		}
		if m, _ := v.call("resources/read", map[string]any{"uri": "echo://x/../../etc/passwd"}); m.Error == nil {
			t.Errorf("a traversal URI of the echo scheme was served")
		}
	},
	"rfc6570-templates": func(t *testing.T, v *vsession) {
		for uri, want := range map[string]string{
			"test://l4/path/a/b/c":          `"segments":"a,b,c"`,
			"test://l4/matrix;x=1;y=2":      `"x":"1"`,
			"test://l4/query?list=a&list=b": `"list":"a,b"`,
			"test://l4/form?q=z&page=2":     `"page":"2"`,
			"test://l4/doc#intro":           `"section":"intro"`,
			"test://l4/file.txt":            `"ext":"txt"`,
		} {
			if text := contents(v.read(uri, nil))[0]["text"].(string); !strings.Contains(text, want) {
				t.Errorf("read %s: %s, want %s in it", uri, text, want)
			}
		}
	},
	"fragment-sub-resources": func(t *testing.T, v *vsession) {
		c := contents(decode(t, v.reads["test://static/readme.md"].Result))
		if len(c) < 3 || c[0]["uri"] != "test://static/readme.md#line=0,1" {
			t.Errorf("readme contents %v", c)
		}
		var text strings.Builder
		for _, it := range c {
			text.WriteString(it["text"].(string))
		}
		if !strings.HasPrefix(text.String(), "# Read me\n") {
			t.Errorf("the lines do not add up: %q", text.String())
		}
		want := `"uri":"test://static/hello.txt#section-1"`
		if v.modern {
			v.send(request(`"fl"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"test://static/hello.txt"}}})))
		} else {
			v.send(request(`"fs"`, "resources/subscribe", map[string]any{"uri": "test://static/hello.txt"}))
		}
		for range 3 {
			if _, line := v.next(); bytes.Contains(line, []byte(want)) {
				return
			}
		}
		t.Errorf("no update for the sub-resource")
	},
	"contents-uri-normalised": func(t *testing.T, v *vsession) {
		for _, u := range denormalURIs {
			if c := contents(decode(t, v.reads[u[0]].Result)); len(c) != 1 || c[0]["uri"] != u[1] {
				t.Errorf("read %s: %v, want the uri %s", u[0], c, u[1])
			}
		}
	},
	"directory-contents": func(t *testing.T, v *vsession) {
		dir := v.listed(directoryURI)
		if dir == nil || dir["mimeType"] != "inode/directory" || dir["size"] != nil {
			t.Fatalf("directory listed as %v", dir)
		}
		c := contents(decode(t, v.reads[directoryURI].Result))
		if len(c) != 3 || c[0]["uri"] != directoryURI+"a.txt" || c[2]["blob"] != "AAEC/v8=" {
			t.Errorf("directory contents %v", c)
		}
		if c := contents(v.read(directoryURI+"b.md", nil)); len(c) != 1 || c[0]["text"] != "# B\n\nThe second file.\n" {
			t.Errorf("a file of the directory: %v", c)
		}
	},
	"blob-only": func(t *testing.T, v *vsession) {
		for uri, m := range v.reads {
			for _, c := range contents(decode(t, m.Result)) {
				if _, ok := c["blob"]; !ok || c["text"] != nil {
					t.Errorf("%s: %v", uri, c)
				}
			}
		}
		if c := contents(decode(t, v.reads["test://static/hello.txt"].Result)); c[0]["blob"] != "SGVsbG8sIHdvcmxkIQo=" || c[0]["mimeType"] != "text/plain" {
			t.Errorf("hello.txt as %v", c)
		}
	},
	"empty-resources": func(t *testing.T, v *vsession) {
		for _, r := range v.resources {
			if r["size"] != 0.0 {
				t.Errorf("%s: size %v", r["uri"], r["size"])
			}
		}
		for uri, m := range v.reads {
			c := contents(decode(t, m.Result))[0]
			if c["text"] != "" && c["blob"] != "" {
				t.Errorf("%s: %v", uri, c)
			}
		}
	},
	"contents-without-mime": func(t *testing.T, v *vsession) {
		for uri, m := range v.reads {
			if c := contents(decode(t, m.Result))[0]; c["mimeType"] != nil {
				t.Errorf("%s: %v", uri, c)
			}
		}
	},
	"minimal-metadata": func(t *testing.T, v *vsession) {
		for _, r := range v.resources {
			if len(r) != 2 {
				t.Errorf("resource %v", r)
			}
		}
		for _, tp := range v.templates {
			if len(tp) != 2 {
				t.Errorf("template %v", tp)
			}
		}
		if v.init["instructions"] != nil {
			t.Errorf("instructions sent")
		}
		if !v.modern && len(v.init["serverInfo"].(map[string]any)) != 2 {
			t.Errorf("serverInfo %v", v.init["serverInfo"])
		}
	},
	"shared-names": func(t *testing.T, v *vsession) {
		for _, r := range v.resources {
			if r["name"] != "resource" {
				t.Errorf("resource %v", r)
			}
		}
		for _, tp := range v.templates {
			if tp["name"] != "template" {
				t.Errorf("template %v", tp)
			}
		}
	},
	"rich-descriptions": func(t *testing.T, v *vsession) {
		d, _ := v.resources[0]["description"].(string)
		if len(d) < 1500 || !strings.Contains(d, "\n") || !strings.Contains(d, "Grüße") {
			t.Errorf("description %q", clip(d))
		}
		if title, _ := v.resources[0]["title"].(string); v.atLeast(v20250618) != strings.Contains(title, "📄") {
			t.Errorf("title %q in a %s session", title, v.version)
		}
	},
	"unusual-mime-types": func(t *testing.T, v *vsession) {
		const want = "Text/Plain; Charset=UTF-8"
		if got := v.listed("test://static/hello.txt")["mimeType"]; got != want {
			t.Errorf("listed mimeType %v", got)
		}
		if got := contents(decode(t, v.reads["test://static/hello.txt"].Result))[0]["mimeType"]; got != want {
			t.Errorf("contents mimeType %v", got)
		}
	},
	"templates-empty": func(t *testing.T, v *vsession) {
		if v.tplErr != nil || len(v.tplPages) != 1 || len(v.templates) != 0 {
			t.Errorf("templates: %+v, %v", v.tplErr, v.tplPages)
		}
	},
	"templates-not-implemented": func(t *testing.T, v *vsession) {
		if v.tplErr == nil || v.tplErr.Code != wire.CodeMethodNotFound {
			t.Errorf("templates: %+v", v.tplErr)
		}
	},
	"no-subscribe": func(t *testing.T, v *vsession) {
		res := v.init["capabilities"].(map[string]any)["resources"].(map[string]any)
		if _, ok := res["subscribe"]; ok {
			t.Errorf("resources capability %v", res)
		}
		if v.modern {
			ack := v.listen(map[string]any{"resourceSubscriptions": []string{"test://static/hello.txt"}})
			if _, ok := ack["notifications"].(map[string]any)["resourceSubscriptions"]; ok {
				t.Errorf("acknowledged %v", ack)
			}
			return
		}
		if m, _ := v.call("resources/subscribe", map[string]any{"uri": "test://static/hello.txt"}); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("subscribe: %+v", m)
		}
	},
	"no-list-changed": func(t *testing.T, v *vsession) {
		res := v.init["capabilities"].(map[string]any)["resources"].(map[string]any)
		if _, ok := res["listChanged"]; ok {
			t.Errorf("resources capability %v", res)
		}
		if v.modern {
			ack := v.listen(map[string]any{"resourcesListChanged": true})
			if _, ok := ack["notifications"].(map[string]any)["resourcesListChanged"]; ok {
				t.Errorf("acknowledged %v", ack)
			}
		}
	},
	"no-listen": func(t *testing.T, v *vsession) {
		if res := v.init["capabilities"].(map[string]any)["resources"].(map[string]any); len(res) != 0 {
			t.Errorf("resources capability %v", res)
		}
		m, _ := v.call("subscriptions/listen", map[string]any{"notifications": map[string]any{"resourcesListChanged": true}})
		if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("listen: %+v", m)
		}
	},
	"no-resources": func(t *testing.T, v *vsession) {
		if _, ok := v.init["capabilities"].(map[string]any)["resources"]; ok {
			t.Errorf("capabilities %v", v.init["capabilities"])
		}
		for _, e := range []*wireErr{v.listErr, v.tplErr} {
			if e == nil || e.Code != wire.CodeMethodNotFound {
				t.Errorf("a list answered %+v, want -32601", e)
			}
		}
		if m, _ := v.call("resources/read", map[string]any{"uri": "test://static/hello.txt"}); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("read: %+v", m)
		}
	},
	"tools-only": func(t *testing.T, v *vsession) {
		if caps := v.init["capabilities"].(map[string]any); len(caps) != 1 || caps["tools"] == nil {
			t.Errorf("capabilities %v, want tools alone", caps)
		}
		if v.listErr == nil || v.listErr.Code != wire.CodeMethodNotFound {
			t.Errorf("resources/list answered %+v, want -32601", v.listErr)
		}
		if m, _ := v.call("prompts/list", nil); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("prompts/list answered %s %+v, want -32601", m.Result, m.Error)
		}
		if got := names(v.tools); !slices.Equal(got, []string{"echo", "add", "logo", "delete_note", "enable_extras"}) {
			t.Errorf("tools %v", got)
		}
		if text := callText(t, v, "echo", map[string]any{"text": "only tools"}); text != "only tools" {
			t.Errorf("echo answered %q", text)
		}
	},
	"many-tools": func(t *testing.T, v *vsession) {
		tools, pages, _ := v.walkList("tools/list", "tools")
		if len(pages) != 7 || len(tools) != 130 {
			t.Fatalf("%d pages, %d tools; want 7 and 130", len(pages), len(tools))
		}
		for i, name := range names(tools) {
			if want := fmt.Sprintf("echo-%d", i+1); name != want {
				t.Fatalf("tool #%d is %s, want %s", i+1, name, want)
			}
		}
		if text := callText(t, v, "echo-130", map[string]any{"text": "the last"}); text != "the last" {
			t.Errorf("echo-130 answered %q", text)
		}
	},
	"structured-text-reformatted": func(t *testing.T, v *vsession) {
		m, _ := v.call("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}})
		var res struct {
			Content           []struct{ Text string }
			StructuredContent json.RawMessage
		}
		if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Content) != 1 {
			t.Fatalf("add: %s", m.Result)
		}
		if res.Content[0].Text != `{ "sum" : 3.0 }` {
			t.Errorf("the text block reads %q", res.Content[0].Text)
		}
		if v.version >= "2025-06-18" && string(res.StructuredContent) != `{"sum":3}` {
			t.Errorf("structuredContent %s", res.StructuredContent)
		}
	},
	"tool-result-mixed-blocks": func(t *testing.T, v *vsession) {
		m, _ := v.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
		var res struct{ Content []struct{ Type string } }
		if err := json.Unmarshal(m.Result, &res); err != nil {
			t.Fatalf("echo: %s", m.Result)
		}
		var types []string
		for _, c := range res.Content {
			types = append(types, c.Type)
		}
		want := []string{"text", "resource"}
		if v.version >= "2025-03-26" {
			want = append(want, "audio")
		}
		if v.version >= "2025-06-18" {
			want = append(want, "resource_link")
		}
		if !slices.Equal(types, want) {
			t.Errorf("block types %v, want %v", types, want)
		}
	},
	"unknown-tool-other-error": func(t *testing.T, v *vsession) {
		m, _ := v.call("tools/call", map[string]any{"name": "mcp-conformance-unknown-tool", "arguments": map[string]any{}})
		if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("an unknown tool: %s %+v, want -32601", m.Result, m.Error)
		}
		if text := callText(t, v, "echo", map[string]any{"text": "known"}); text != "known" {
			t.Errorf("echo answered %q", text)
		}
	},
	"completion-has-more": func(t *testing.T, v *vsession) {
		m, _ := v.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "summarize"}, "argument": map[string]any{"name": "topic", "value": "m"}})
		if m.Error != nil {
			t.Fatalf("completion: %+v", m.Error)
		}
		c := decode(t, m.Result)["completion"].(map[string]any)
		if len(c["values"].([]any)) != 1 || c["total"] != float64(2) || c["hasMore"] != true {
			t.Errorf("completion %v, want one value of a total of 2, hasMore true", c)
		}
	},
	"no-completions": func(t *testing.T, v *vsession) {
		if _, ok := v.init["capabilities"].(map[string]any)["completions"]; ok {
			t.Errorf("capabilities %v", v.init["capabilities"])
		}
		m, _ := v.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "summarize"}, "argument": map[string]any{"name": "topic", "value": ""}})
		if m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("completion: %+v", m)
		}
	},
	"modern-set-level-served": func(t *testing.T, v *vsession) {
		m, _ := v.call("logging/setLevel", map[string]any{"level": "info"})
		if m.Error != nil || decode(t, m.Result)["resultType"] != "complete" {
			t.Errorf("logging/setLevel: %+v %s", m.Error, m.Result)
		}
	},
	"prompt-arguments-optional-all": func(t *testing.T, v *vsession) {
		for _, p := range v.prompts {
			args, _ := p["arguments"].([]any)
			for _, a := range args {
				if a.(map[string]any)["required"] == true {
					t.Errorf("prompt %s: a required argument %v", p["name"], a)
				}
			}
		}
		m, _ := v.call("prompts/get", map[string]any{"name": "summarize"})
		if m.Error != nil {
			t.Fatalf("summarize without arguments: %+v", m.Error)
		}
		msgs := decode(t, m.Result)["messages"].([]any)
		if text := msgs[0].(map[string]any)["content"].(map[string]any)["text"]; text != "Summarize . Style: " {
			t.Errorf("the first message reads %q", text)
		}
	},
	"experimental-capability": func(t *testing.T, v *vsession) {
		exp, _ := v.init["capabilities"].(map[string]any)["experimental"].(map[string]any)
		if exp["com.example.mock/feature"] == nil {
			t.Errorf("capabilities %v", v.init["capabilities"])
		}
	},
	"extension-declared": func(t *testing.T, v *vsession) {
		ext, _ := v.init["capabilities"].(map[string]any)["extensions"].(map[string]any)
		if ext["com.example.mock/feature"] == nil {
			t.Errorf("capabilities %v", v.init["capabilities"])
		}
	},
	"progress-notifications": func(t *testing.T, v *vsession) {
		m, notes := v.call("resources/list", map[string]any{"_meta": map[string]any{"progressToken": "tok-1"}})
		if m.Error != nil || len(notes) != 2 {
			t.Fatalf("%+v, with %d notifications before it", m.Error, len(notes))
		}
		var last float64
		for _, n := range notes {
			p := decode(t, n.Params)
			if n.Method != "notifications/progress" || p["progressToken"] != "tok-1" || p["progress"].(float64) <= last {
				t.Errorf("%s %v", n.Method, p)
			}
			last = p["progress"].(float64)
		}
		if _, notes := v.call("resources/list", nil); len(notes) != 0 {
			t.Errorf("progress without a token: %v", notes)
		}
	},
	"log-notifications": func(t *testing.T, v *vsession) {
		if v.init["capabilities"].(map[string]any)["logging"] == nil {
			t.Errorf("logging not declared")
		}
		var r map[string]any
		v.result("logging/setLevel", map[string]any{"level": "warning"}, &r)
		_, notes := v.call("resources/list", nil)
		if len(notes) != 1 || notes[0].Method != "notifications/message" || decode(t, notes[0].Params)["level"] != "warning" {
			t.Errorf("before the answer: %v", notes)
		}
	},
	"updated-notifications": func(t *testing.T, v *vsession) {
		const uri = "test://static/hello.txt"
		if v.modern {
			v.send(request(`"ul"`, "subscriptions/listen", enveloped(map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{uri}}})))
			v.next() // the acknowledgement
		} else {
			var r map[string]any
			v.result("resources/subscribe", map[string]any{"uri": uri}, &r)
		}
		_, notes := v.call("resources/list", nil)
		if len(notes) != 1 || notes[0].Method != "notifications/resources/updated" || decode(t, notes[0].Params)["uri"] != uri {
			t.Errorf("before the answer: %v", notes)
		}
	},
	"server-pings": func(t *testing.T, v *vsession) {
		for _, m := range v.notes {
			if m.Method == "ping" && string(m.ID) == "9007199254740993" {
				return
			}
		}
		t.Errorf("no ping with the id 9007199254740993 among %v", v.notes)
	},
	"readonly-hint-untrue": func(t *testing.T, v *vsession) {
		tools, _, _ := v.walkList("tools/list", "tools")
		purge := tools[len(tools)-1]
		if purge["name"] != purgeTool || !strings.Contains(purge["description"].(string), "Deletes every note") {
			t.Fatalf("the last tool is %v, want %s, which deletes every note", purge, purgeTool)
		}
		if v.version >= "2025-03-26" && !reflect.DeepEqual(purge["annotations"], map[string]any{"readOnlyHint": true}) {
			t.Errorf("annotations %v, want readOnlyHint: true", purge["annotations"])
		}
		if strings.Contains(v.stderr.String(), "purge_notes ran") {
			t.Fatal("stderr says purge_notes ran before it was called")
		}
		if text := callText(t, v, purgeTool, map[string]any{}); text != "every note deleted" {
			t.Errorf("%s answered %q", purgeTool, text)
		}
		if !strings.Contains(v.stderr.String(), "purge_notes ran") {
			t.Errorf("stderr %q does not say purge_notes ran", v.stderr.String())
		}
	},
	"ping-and-log-during-initialize": func(t *testing.T, v *vsession) {
		notes := v.notes
		if v.modern {
			// A dual-era server does the same for a legacy initialize.
			v.send(request(`"legacy"`, "initialize", initParams("2025-11-25")))
			_, notes, _ = v.await(`"legacy"`)
		}
		var methods []string
		for _, m := range notes {
			methods = append(methods, m.Method)
		}
		if !slices.Equal(methods, []string{"ping", "notifications/message"}) {
			t.Errorf("before the initialize response: %v", methods)
		}
		if v.init["capabilities"].(map[string]any)["logging"] == nil {
			t.Errorf("logging not declared")
		}
	},
	"logging-without-set-level": func(t *testing.T, v *vsession) {
		if v.init["capabilities"].(map[string]any)["logging"] == nil {
			t.Errorf("logging not declared")
		}
		if m, _ := v.call("logging/setLevel", map[string]any{"level": "info"}); m.Error == nil || m.Error.Code != -32601 {
			t.Errorf("logging/setLevel: %+v, want the error -32601", m)
		}
	},
	"stderr-chatter": func(t *testing.T, v *vsession) {
		if got := v.stderr.String(); strings.Count(got, "\n") < 2 {
			t.Errorf("stderr %q", got)
		}
	},
	"streams-end-cancelled": func(t *testing.T, v *vsession) {
		v.listen(map[string]any{"resourcesListChanged": true})
		err, rest := v.closeInput()
		if err != nil {
			t.Fatal(err)
		}
		if len(rest) != 1 || !bytes.Contains(rest[0], []byte(`"method":"notifications/cancelled"`)) || !bytes.Contains(rest[0], []byte(`"requestId":"listen-1"`)) {
			t.Errorf("at EOF: %q", rest)
		}
	},
	"ack-known-uris-only": func(t *testing.T, v *vsession) {
		ack := v.listen(map[string]any{"resourceSubscriptions": []string{"test://static/hello.txt", "test://items/7", "test://nowhere/x"}})
		got := ack["notifications"].(map[string]any)["resourceSubscriptions"]
		if !reflect.DeepEqual(got, []any{"test://static/hello.txt", "test://items/7"}) {
			t.Errorf("acknowledged %v", got)
		}
	},
	"input-required-retry": func(t *testing.T, v *vsession) {
		for _, r := range v.resources {
			uri := r["uri"].(string)
			if first := v.inputReq[uri]; first["requestState"] != "mcpconform-mock:resources/read:"+uri || first["ttlMs"] != nil {
				t.Errorf("first read of %s: %v", uri, first)
			}
			if m := v.reads[uri]; m.Error != nil || len(contents(decode(t, m.Result))) == 0 {
				t.Errorf("the retried read of %s gave %+v", uri, m)
			}
		}
		// A request asks until it carries the state naming it: another
		// request's state does not do.
		for _, c := range []struct {
			method, key string
			params      map[string]any
			member      string
		}{
			{"prompts/get", "summarize", map[string]any{"name": "summarize", "arguments": map[string]any{"topic": "MCP"}}, "messages"},
			{"tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, "content"},
		} {
			m, _ := v.call(c.method, c.params)
			first := decode(t, m.Result)
			want := "mcpconform-mock:" + c.method + ":" + c.key
			if first["resultType"] != "input_required" || first["requestState"] != want || first[c.member] != nil {
				t.Errorf("%s: first answer %v", c.method, first)
			}
			wrong := maps.Clone(c.params)
			wrong["requestState"] = "mcpconform-mock:resources/read:test://static/hello.txt"
			if m, _ := v.call(c.method, wrong); decode(t, m.Result)["resultType"] != "input_required" {
				t.Errorf("%s with another request's state: %s", c.method, m.Result)
			}
			retry := maps.Clone(c.params)
			retry["requestState"] = want
			m, _ = v.call(c.method, retry)
			if res := decode(t, m.Result); res["resultType"] != "complete" || res[c.member] == nil {
				t.Errorf("%s retried: %v", c.method, res)
			}
		}
		// Arguments that break the tool's schema are refused at once.
		m, _ := v.call("tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": "x", "b": 2}})
		if res := decode(t, m.Result); res["isError"] != true {
			t.Errorf("a call with invalid arguments: %v", res)
		}
	},
	"input-required-read": func(t *testing.T, v *vsession) {
		first := v.inputReq[confirmURI]
		if first["requestState"] != confirmState || first["ttlMs"] != nil {
			t.Errorf("first read of %s: %v", confirmURI, first)
		}
		if c := contents(decode(t, v.reads[confirmURI].Result)); len(c) != 1 {
			t.Errorf("the retry gave %v", c)
		}
	},
	"tools-prompts-list-changed": func(t *testing.T, v *vsession) {
		caps := v.init["capabilities"].(map[string]any)
		for _, name := range []string{"tools", "prompts"} {
			if c, _ := caps[name].(map[string]any); c["listChanged"] != true {
				t.Errorf("capabilities.%s: %v", name, caps[name])
			}
		}
		if !v.modern {
			return
		}
		ack := v.listen(map[string]any{"toolsListChanged": true, "promptsListChanged": true})
		if got := ack["notifications"]; !reflect.DeepEqual(got, map[string]any{"toolsListChanged": true, "promptsListChanged": true}) {
			t.Errorf("acknowledged %v", got)
		}
	},
	"only-2024-11-05": onlyVersion("2024-11-05"),
	"only-2025-03-26": onlyVersion("2025-03-26"),
	"only-2025-06-18": onlyVersion("2025-06-18"),
	"only-2025-11-25": onlyVersion("2025-11-25"),
	"only-2026-07-28": onlyVersion(modernVersion),
	"last-modified-date-only": func(t *testing.T, v *vsession) {
		lastModified(t, v, "2025-01-02")
	},
	"last-modified-offset": func(t *testing.T, v *vsession) {
		lastModified(t, v, "2025-01-02T03:04:05.678+05:45")
	},
	"priority-extremes": func(t *testing.T, v *vsession) {
		if !strings.Contains(v.wire(), `"priority":0}`) && !strings.Contains(v.wire(), `"priority":0,`) || !strings.Contains(v.wire(), `"priority":1`) {
			t.Errorf("no priorities 0 and 1 on the wire")
		}
	},
	"empty-audience": func(t *testing.T, v *vsession) {
		if strings.Count(v.wire(), `"audience":[]`) != len(v.resources) {
			t.Errorf("not every resource has an empty audience")
		}
	},
	"error-id-omitted": func(t *testing.T, v *vsession) {
		v.send("{not json")
		v.send(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)
		for range 2 {
			_, line := v.next()
			var m map[string]json.RawMessage
			_ = json.Unmarshal(line, &m)
			if _, ok := m["id"]; ok || m["error"] == nil {
				t.Errorf("an error with an id: %s", line)
			}
		}
	},
	"error-data-rich": func(t *testing.T, v *vsession) {
		m, _ := v.call("mcp-conformance/unknown", nil)
		if m.Error == nil || !bytes.Contains(m.Error.Data, []byte(`"reason":"method_not_found"`)) {
			t.Errorf("error %+v", m.Error)
		}
		m, _ = v.call("resources/read", map[string]any{"uri": "test://nothing/here"})
		if m.Error == nil || !bytes.Contains(m.Error.Data, []byte(`"uri":"test://nothing/here"`)) || !bytes.Contains(m.Error.Data, []byte(`"detail"`)) {
			t.Errorf("error %+v", m.Error)
		}
	},
	"long-error-messages": func(t *testing.T, v *vsession) {
		m, _ := v.call("mcp-conformance/unknown", nil)
		if m.Error == nil || len(m.Error.Message) < 250 || strings.ContainsAny(m.Error.Message, "\r\n") {
			t.Errorf("error %+v", m.Error)
		}
	},
	"batch-in-2024": func(t *testing.T, v *vsession) {
		v.send(`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"resources/list"},{"jsonrpc":"2.0","method":"notifications/x"}]`)
		line := v.recv()
		var batch []msg
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 || string(batch[0].ID) != `"b1"` {
			t.Errorf("the batch was answered with %q", clip(string(line)))
		}
	},
	"exit-on-batch": func(t *testing.T, v *vsession) {
		v.send(`[{"jsonrpc":"2.0","id":"b1","method":"ping"}]`)
		for l := range v.lines {
			t.Errorf("a line after the batch: %q", l)
		}
		if err := <-v.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		v.done <- nil
	},
	"pre-init-served": func(t *testing.T, v *vsession) {
		s := start(t, Options{Variants: []string{"pre-init-served"}})
		m, _ := s.call("resources/list", nil)
		if m.Error != nil || !bytes.Contains(m.Result, []byte(`"title":"Hello, world"`)) {
			t.Errorf("before initialize: %+v %s", m.Error, clip(string(m.Result)))
		}
	},
	"pre-init-refused-32602": func(t *testing.T, v *vsession) {
		s := start(t, Options{Variants: []string{"pre-init-refused-32602"}})
		if m, _ := s.call("resources/list", nil); m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
			t.Errorf("before initialize: %+v", m)
		}
	},
	"initialized-opens-gate": func(t *testing.T, v *vsession) {
		s := start(t, Options{Variants: []string{"initialized-opens-gate"}})
		s.send(notification("notifications/initialized", nil))
		if m, _ := s.call("resources/list", nil); m.Error != nil {
			t.Errorf("after a bare initialized: %+v", m.Error)
		}
	},
	"ids-reencoded": func(t *testing.T, v *vsession) {
		if _, _, line := v.echoID(`"a\u0041\/"`); !bytes.Contains(line, []byte(`"id":"aA/"`)) {
			t.Errorf("the id came back as %q", line)
		}
		if _, _, line := v.echoID(`9007199254740993`); !bytes.Contains(line, []byte(`"id":9007199254740993`)) {
			t.Errorf("the id came back as %q", line)
		}
	},
	"ids-escaped": func(t *testing.T, v *vsession) {
		if _, _, line := v.echoID(`"a-1"`); !bytes.Contains(line, []byte(`"id":"\u0061\u002d\u0031"`)) {
			t.Errorf("the id came back as %q", line)
		}
		if _, _, line := v.echoID(`9007199254740993`); !bytes.Contains(line, []byte(`"id":9007199254740993`)) {
			t.Errorf("the id came back as %q", line)
		}
	},
	"unsafe-integer-ids-dropped": func(t *testing.T, v *vsession) {
		// Beyond 2^53 - 1: dropped; a request after it, with the largest
		// safe integer, is answered, and nothing answered the first.
		for _, id := range []string{"9007199254740993", "-9007199254740993"} {
			if v.modern {
				v.send(request(id, "server/discover", enveloped(nil)))
			} else {
				v.send(request(id, "ping", nil))
			}
		}
		_, before, _ := v.echoID("9007199254740991")
		for _, m := range before {
			if m.Method == "" {
				t.Errorf("a request with an unsafe integer id was answered: %s %+v", m.ID, m.Error)
			}
		}
	},
}

// echoID sends a request whose id is the raw JSON id and returns its
// response: ping in the handshake era, server/discover in 2026-07-28.
func (v *vsession) echoID(id string) (msg, []msg, []byte) {
	v.t.Helper()
	if v.modern {
		v.send(request(id, "server/discover", enveloped(nil)))
	} else {
		v.send(request(id, "ping", nil))
	}
	return v.await(id)
}

// listen opens a stream and returns the params of its acknowledgement.
func (v *vsession) listen(filter map[string]any) map[string]any {
	v.t.Helper()
	v.send(request(`"listen-1"`, "subscriptions/listen", enveloped(map[string]any{"notifications": filter})))
	for {
		m, _ := v.next()
		if m.Method == "notifications/subscriptions/acknowledged" {
			return decode(v.t, m.Params)
		}
	}
}

func names(items []map[string]any) []string {
	var out []string
	for _, it := range items {
		name, _ := it["name"].(string)
		out = append(out, name)
	}
	return out
}

// callText calls a tool and returns the text of its result, failing on an
// error or a tool execution error.
func callText(t *testing.T, v *vsession, name string, args map[string]any) string {
	t.Helper()
	m, _ := v.call("tools/call", map[string]any{"name": name, "arguments": args})
	if m.Error != nil {
		t.Fatalf("calling %s: %d %s", name, m.Error.Code, m.Error.Message)
	}
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("calling %s: %s", name, m.Result)
	}
	return res.Content[0].Text
}

func uris(items []map[string]any) []string {
	var out []string
	for _, it := range items {
		out = append(out, it["uri"].(string))
	}
	return out
}

func lastModified(t *testing.T, v *vsession, want string) {
	for _, r := range v.resources {
		a, _ := r["annotations"].(map[string]any)
		got := a["lastModified"]
		switch {
		case v.atLeast(v20250618) && got != want:
			t.Errorf("%s: lastModified %v", r["uri"], got)
		case !v.atLeast(v20250618) && got != nil:
			t.Errorf("%s: lastModified %v in a %s session", r["uri"], got, v.version)
		}
	}
}

// onlyVersion checks a one-version server: it counter-offers its version
// (or, for 2026-07-28, refuses initialize naming it).
func onlyVersion(only string) func(t *testing.T, v *vsession) {
	return func(t *testing.T, v *vsession) {
		s := start(t, Options{Variants: []string{"only-" + only}})
		other := "2025-06-18"
		if only == other {
			other = "2025-11-25"
		}
		m, _ := s.call("initialize", initParams(other))
		if only == modernVersion {
			if m.Error == nil || m.Error.Code != wire.CodeUnsupportedProtocolVersion || !strings.Contains(m.Error.Message, modernVersion) {
				t.Errorf("initialize: %+v", m)
			}
			var res map[string]any
			s.result("server/discover", enveloped(nil), &res)
			if !reflect.DeepEqual(res["supportedVersions"], []any{modernVersion}) {
				t.Errorf("supportedVersions %v", res["supportedVersions"])
			}
			return
		}
		if m.Error != nil || decode(t, m.Result)["protocolVersion"] != only {
			t.Errorf("initialize offering %s: %s %+v", other, m.Result, m.Error)
		}
		if m, _ := s.call("server/discover", enveloped(nil)); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound {
			t.Errorf("server/discover: %+v", m)
		}
	}
}
