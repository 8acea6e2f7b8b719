// Package compat records what the whole suite says about real MCP servers,
// so that a change of verdict is seen, reviewed and explained.
//
// Each server has a golden file, testdata/<server>.golden.json, holding the
// verdict of every check under every protocol version ("checkID@version")
// and, apart from it, a short reason for every verdict that is not a pass.
// TestGolden runs the suite against the servers and compares; with -update it
// rewrites the files. The command gencompat renders docs/compat.md from the
// golden files:
//
//	go test ./internal/compat -update
//	go run ./internal/compat/gencompat
package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/reports"
)

// Server is one real server the suite is compared against.
type Server struct {
	// Name is the golden file's base name and the key used in tests.
	Name string
	// Title is how the compatibility matrix names the server.
	Title string
	// BuiltOn names the SDK and its version.
	BuiltOn string
	// Transport is how the suite reaches it: "stdio" (a command), or
	// "http" (Streamable HTTP, at a URL or on a port it was started on).
	Transport string
}

// Servers lists the real servers, in the matrix's column order. Their
// argv comes from package testservers, whose README records how each
// behaves on the wire.
var Servers = []Server{
	{Name: "gosdk", Title: "go-sdk", BuiltOn: "github.com/modelcontextprotocol/go-sdk v1.8.0", Transport: "stdio"},
	{Name: "mcpgo", Title: "mcp-go", BuiltOn: "github.com/mark3labs/mcp-go v1.2.1", Transport: "stdio"},
	{Name: "ts", Title: "TS McpServer", BuiltOn: "@modelcontextprotocol/sdk 1.32.2 (McpServer)", Transport: "stdio"},
	{Name: "everything", Title: "server-everything", BuiltOn: "@modelcontextprotocol/server-everything 2026.8.31", Transport: "stdio"},
}

// Golden is the recorded outcome of the whole suite against one server.
type Golden struct {
	Server string `json:"server"`
	// Verdicts maps "checkID@version" to the verdict.
	Verdicts map[string]reports.Verdict `json:"verdicts"`
	// Reasons maps "checkID@version" to a short reason, for every verdict
	// that is not a pass. Kept apart from Verdicts so that a diff of the
	// verdicts stays one line per check.
	Reasons map[string]string `json:"reasons"`
}

// Key is the golden key of a check judged under a protocol version.
func Key(checkID, version string) string { return checkID + "@" + version }

// SplitKey is the inverse of Key.
func SplitKey(key string) (checkID, version string) {
	i := strings.LastIndexByte(key, '@')
	if i < 0 {
		return key, ""
	}
	return key[:i], key[i+1:]
}

// FromResults builds the golden record of a run. nonce is the run's nonce:
// it appears in probe URIs, and is replaced so that reasons do not change
// from run to run. Two results with the same key are an error: the key
// would no longer say which check it is.
func FromResults(server, nonce string, results []reports.Result) (*Golden, error) {
	g := &Golden{Server: server, Verdicts: map[string]reports.Verdict{}, Reasons: map[string]string{}}
	for _, r := range results {
		k := Key(r.ID, r.ProtocolVersion)
		if _, dup := g.Verdicts[k]; dup {
			return nil, fmt.Errorf("two results for %s", k)
		}
		g.Verdicts[k] = r.Verdict
		if r.Verdict != reports.Pass {
			g.Reasons[k] = ShortReason(r.Message, nonce)
		}
	}
	return g, nil
}

// reasonMax bounds a short reason, in runes.
const reasonMax = 160

var (
	// Go's log package prefixes lines with a date and time (gosdk's
	// stderr, quoted in messages).
	logTime = regexp.MustCompile(`\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? `)
	// JSON-escaped newlines inside quoted server messages (zod errors).
	escapedNewline = regexp.MustCompile(`(\\n)+\s*`)
	space          = regexp.MustCompile(`\s+`)
)

// ShortReason turns a result message into a reason that reads on one line
// and is the same on every run: the nonce and log timestamps are removed,
// white space is collapsed and the text is clipped.
func ShortReason(msg, nonce string) string {
	if nonce != "" {
		msg = strings.ReplaceAll(msg, nonce, "{nonce}")
	}
	msg = logTime.ReplaceAllString(msg, "")
	msg = escapedNewline.ReplaceAllString(msg, " ")
	msg = strings.TrimSpace(space.ReplaceAllString(msg, " "))
	if utf8.RuneCountInString(msg) <= reasonMax {
		return msg
	}
	r := []rune(msg)[:reasonMax]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > reasonMax/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + " …"
}

// Path is the golden file of a server under dir.
func Path(dir, server string) string {
	return filepath.Join(dir, server+".golden.json")
}

// Load reads a golden file.
func Load(path string) (*Golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if g.Verdicts == nil {
		g.Verdicts = map[string]reports.Verdict{}
	}
	if g.Reasons == nil {
		g.Reasons = map[string]string{}
	}
	return &g, nil
}

// Marshal renders a golden record as indented JSON with sorted keys (as
// encoding/json writes maps) and no HTML escaping, so that reasons stay
// readable in a diff.
func (g *Golden) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes a golden file.
func (g *Golden) Save(path string) error {
	data, err := g.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Keys returns the golden's keys, sorted.
func (g *Golden) Keys() []string {
	keys := make([]string, 0, len(g.Verdicts))
	for k := range g.Verdicts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
