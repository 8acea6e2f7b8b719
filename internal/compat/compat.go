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
	// The same servers over Streamable HTTP, each launched on a port of
	// the run's choosing and judged at its endpoint.
	{Name: "gosdk-http", Title: "go-sdk (HTTP)", BuiltOn: "github.com/modelcontextprotocol/go-sdk v1.8.0 (StreamableHTTPHandler)", Transport: "http"},
	{Name: "gosdk-stateless-http", Title: "go-sdk stateless (HTTP)", BuiltOn: "github.com/modelcontextprotocol/go-sdk v1.8.0 (StreamableHTTPHandler, Stateless)", Transport: "http"},
	{Name: "mcpgo-http", Title: "mcp-go (HTTP)", BuiltOn: "github.com/mark3labs/mcp-go v1.2.1 (StreamableHTTPServer)", Transport: "http"},
	{Name: "ts-http", Title: "TS McpServer (HTTP)", BuiltOn: "@modelcontextprotocol/sdk 1.32.2 (McpServer, StreamableHTTPServerTransport)", Transport: "http"},
	{Name: "everything-http", Title: "server-everything (HTTP)", BuiltOn: "@modelcontextprotocol/server-everything 2026.8.31 (streamableHttp)", Transport: "http"},
}

// Base is the name of the stdio server an HTTP server of Servers is the
// HTTP form of (its own name for a stdio server): their settings are one.
func Base(name string) string {
	for _, s := range Servers {
		if s.Name == name && s.Transport == "http" {
			for _, b := range Servers {
				if b.Transport != "http" && strings.HasPrefix(name, b.Name+"-") {
					return b.Name
				}
			}
		}
	}
	return name
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

// What differs from run to run in what is said of an HTTP server: the
// ids it makes up (sessions, events), the numbers of the exchanges (the
// order of concurrent requests), and the port it was launched on.
var (
	uuids        = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	sessions     = regexp.MustCompile(`session "[^"]*"`)
	exchanges    = regexp.MustCompile(`exchange(s?) \d+( and \d+)?`)
	counts       = regexp.MustCompile(`\(\d+ times\)`)
	requests     = regexp.MustCompile(`\bid \d+\b`)
	httpExchange = regexp.MustCompile(`\(http \d+([:)])`)
	ports        = regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`)
)

// overHTTP reports whether the server of that name is reached over HTTP:
// the order of its requests' numbers is the order concurrent requests
// happened to take.
func overHTTP(name string) bool {
	for _, s := range Servers {
		if s.Name == name {
			return s.Transport == "http"
		}
	}
	return false
}

// steady replaces in a reason what differs from run to run.
func steady(s string) string {
	s = uuids.ReplaceAllString(s, "<uuid>")
	s = sessions.ReplaceAllString(s, `session "<id>"`)
	s = exchanges.ReplaceAllString(s, "exchange$1 <n>")
	s = counts.ReplaceAllString(s, "(<n> times)")
	// An HTTP exchange's number depends on how the probes' sessions
	// interleave: its width too (9 or 10). An id keeps its width.
	s = httpExchange.ReplaceAllString(s, "(http n$1")
	s = requests.ReplaceAllStringFunc(s, func(m string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return 'n'
			}
			return r
		}, m)
	})
	return ports.ReplaceAllString(s, "$1:<port>")
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
			msg := r.Message
			if overHTTP(server) {
				msg = steady(msg)
			}
			g.Reasons[k] = reports.ShortReason(msg, nonce)
		}
	}
	return g, nil
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
