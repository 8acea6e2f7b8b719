// Package catalog is the requirement catalogue of mcpconform: every rule
// of the spec the suite knows, in the project's own words, with, for each
// protocol version where the rule exists, its level in that version and
// the sentence of that version's spec it rests on. It is the single source
// of levels: a check reports the level the catalogue gives its
// requirement in the version judged.
package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/wire"
)

// Requirement is one rule of the catalogue.
type Requirement struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	// Role is "server" (the server's obligation or permission), "client"
	// (the client's), "both" (a rule that binds whichever party sends or
	// receives: JSON-RPC's envelope, ids, answering a request),
	// "transport" (framing every sender keeps), "definition", or
	// "unspecified". See Binds.
	Role string `json:"role"`
	// ServerTestable is true when a client talking to the server over stdio
	// can see the server break the rule.
	ServerTestable bool   `json:"serverTestable"`
	Note           string `json:"note,omitempty"`
	// Untested says why no check judges the rule.
	Untested string `json:"untested,omitempty"`
	// Versions holds the rule as each version states it; a version missing
	// here does not have the rule.
	Versions map[string]Statement `json:"versions"`
}

// Statement is a rule as one version states it.
type Statement struct {
	// Level is the keyword of that version: MUST, MUST NOT, SHOULD,
	// SHOULD NOT, MAY, or one of the lower-case levels (see Levels).
	Level string `json:"level"`
	// Page and Anchor locate the sentence in that version's spec.
	Page   string `json:"page"`
	Anchor string `json:"anchor"`
	// Quote is the sentence, as that version writes it.
	Quote string `json:"quote"`
}

// Levels explains the levels that are not RFC 2119 keywords.
var Levels = map[string]string{
	"schema":        "a required member or a type of the version's schema, with no keyword in prose",
	"schema-should": `a lower-case "should" in a doc comment of the version's schema`,
	"derived":       "follows from a normative rule without being written as one",
	"unspecified":   "the spec says nothing; what the server does is recorded, never judged",
}

// Severity is what breaking a rule of a level costs.
type Severity string

// Severities: a broken Fail rule fails, a broken Warn rule warns, a broken
// Info rule is recorded.
const (
	Fail Severity = "fail"
	Warn Severity = "warn"
	Info Severity = "info"
)

// SeverityOf maps a level to what breaking it costs: MUST, MUST NOT,
// schema and derived rules fail; SHOULD, SHOULD NOT and schema "should"
// rules warn; MAY and unspecified behaviour is recorded.
func SeverityOf(level string) Severity {
	switch level {
	case "MUST", "MUST NOT", "schema", "derived":
		return Fail
	case "SHOULD", "SHOULD NOT", "schema-should":
		return Warn
	}
	return Info
}

//go:embed requirements.json
var requirementsJSON []byte

var (
	once  sync.Once
	all   []Requirement
	index map[string]*Requirement
)

func load() {
	var doc struct {
		Requirements []Requirement `json:"requirements"`
	}
	if err := json.Unmarshal(requirementsJSON, &doc); err != nil {
		panic("catalog: requirements.json: " + err.Error())
	}
	all = doc.Requirements
	index = map[string]*Requirement{}
	for i := range all {
		index[all[i].ID] = &all[i]
	}
}

// All returns the catalogue in catalogue order.
func All() []Requirement {
	once.Do(load)
	return all
}

// Get returns the requirement with the id.
func Get(id string) (*Requirement, bool) {
	once.Do(load)
	r, ok := index[id]
	return r, ok
}

// The parties a run judges: server mode judges a server, client mode a
// client.
const (
	PartyServer = "server"
	PartyClient = "client"
)

// Binds reports whether the rule is the judged party's to keep, so that
// breaking it costs its level: every rule but the other party's own. In
// server mode a client's obligation is kept by the harness, and what the
// server does there is recorded at most; in client mode the same holds
// for a server's.
func (r *Requirement) Binds(party string) bool {
	switch party {
	case PartyClient:
		return r.Role != "server"
	default:
		return r.Role != "client"
	}
}

// In returns the rule as version v states it.
func (r *Requirement) In(v string) (Statement, bool) {
	s, ok := r.Versions[v]
	return s, ok
}

// NotIn returns why requirement id is not a rule of version v, or "" when
// it is one.
func NotIn(id, v string) string {
	r, ok := Get(id)
	if !ok {
		return "the catalogue has no requirement " + id
	}
	if _, ok := r.In(v); !ok {
		return fmt.Sprintf("%s is not a rule of %s (it is one of %s)", id, v, strings.Join(r.VersionList(), ", "))
	}
	return ""
}

// VersionList returns the versions that have the rule, oldest first.
func (r *Requirement) VersionList() []string {
	var out []string
	for _, v := range wire.AllVersions {
		if _, ok := r.Versions[v]; ok {
			out = append(out, v)
		}
	}
	return out
}

// HandshakeEra reports whether the rule exists in a version of the
// handshake era.
func (r *Requirement) HandshakeEra() bool {
	for v := range r.Versions {
		if wire.IsLegacy(v) {
			return true
		}
	}
	return false
}

// Family is the requirement family an id belongs to: its prefix before the
// number, lower-cased, with "-" as "_" (RES-READ-05 → "res_read").
func Family(id string) string {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return strings.ToLower(id)
	}
	return strings.ReplaceAll(strings.ToLower(id[:i]), "-", "_")
}

// URL links a statement to its place in the published spec of version v.
func URL(v string, s Statement) string {
	if s.Page == "" {
		return ""
	}
	page := strings.TrimSuffix(s.Page, "/index")
	if page == "index" {
		page = ""
	}
	u := "https://modelcontextprotocol.io/specification/" + v
	if page != "" {
		u += "/" + page
	}
	if s.Anchor != "" {
		u += "#" + s.Anchor
	}
	return u
}

// Families lists every family of the catalogue, sorted.
func Families() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range All() {
		if f := Family(r.ID); !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
