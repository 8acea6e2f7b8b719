// Package baseline applies a list of known failures to a report: a listed
// failure becomes xfail and does not fail the run; a listed check that now
// passes is stale, and a stale entry fails the run so the list stays
// honest. A baseline may also list warnings (for --strict runs): a listed
// warning is accepted like a failure (xfail), and is not stale.
//
// A baseline is YAML or JSON:
//
//	entries:
//	  - id: resources-read-unknown-uri
//	    reason: our SDK answers -32603; fixed in v2 (issue 123)
//	  - group: stdio
//	    reason: the server logs to stdout until v2
//	    protocolVersion: 2024-11-05
package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
	"sigs.k8s.io/yaml"
)

// Baseline is a list of known failures.
type Baseline struct {
	// Entries name a check id ("id") or a whole area ("group"), each with a reason.
	Entries []Entry `json:"entries"`

	path string // where it was loaded from, for error messages
}

// Entry is one known failure.
type Entry struct {
	// ID is a check id, as `mcpconform list` prints it.
	ID string `json:"id,omitempty"`
	// Group is an area (lifecycle, jsonrpc, stdio, resources, ...): every
	// check of that area.
	Group string `json:"group,omitempty"`
	// Reason says why the failure is accepted; it is required.
	Reason string `json:"reason"`
	// ProtocolVersion limits the entry to results judged under that version.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// Key names the entry in messages and in a report's stale list: the check
// id, or "group:" and the area, then "@" and the protocol version when the
// entry is limited to one.
func (e Entry) Key() string {
	k := e.ID
	if k == "" {
		k = "group:" + e.Group
	}
	if e.ProtocolVersion != "" {
		k += "@" + e.ProtocolVersion
	}
	return k
}

func (e Entry) matches(r reports.Result) bool {
	if e.ProtocolVersion != "" && e.ProtocolVersion != r.ProtocolVersion {
		return false
	}
	if e.ID != "" {
		return e.ID == r.ID
	}
	return e.Group == r.Area
}

// Load reads a baseline in YAML or JSON. Errors name the file and the line
// (syntax; the column too for JSON) or the entry (content), counting entries
// from 1.
func Load(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading baseline: %v", err)
	}
	return Parse(path, data)
}

// Parse reads a baseline from data; name is used in error messages. A
// document named *.yaml or *.yml is YAML; any other is JSON when it starts
// with "{" and YAML otherwise. JSON is read as JSON, so that its syntax
// errors say JSON's line and column rather than a YAML parser's view.
func Parse(name string, data []byte) (*Baseline, error) {
	var js []byte
	if isJSON(name, data) {
		if err := jsonSyntax(data); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		js = bytes.TrimPrefix(data, []byte("\uFEFF"))
	} else {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	// Decode the entries one by one, so an error can say which entry.
	var doc struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if err := strictDecode(js, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	b := &Baseline{path: name}
	seen := map[string]int{}
	for i, raw := range doc.Entries {
		where := fmt.Sprintf("%s: entry %d", name, i+1)
		var e Entry
		if err := strictDecode(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		switch {
		case e.ID == "" && e.Group == "":
			return nil, fmt.Errorf("%s: give an id or a group", where)
		case e.ID != "" && e.Group != "":
			return nil, fmt.Errorf("%s (%s): give an id or a group, not both", where, e.Key())
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%s (%s): a reason is required", where, e.Key())
		}
		if j, dup := seen[e.Key()]; dup {
			return nil, fmt.Errorf("%s (%s): the same as entry %d", where, e.Key(), j+1)
		}
		seen[e.Key()] = i
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

func isJSON(name string, data []byte) bool {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		return false
	}
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\uFEFF")), " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// jsonSyntax returns nil when data is one well-formed JSON value, else an
// error that says "JSON syntax error at line L, column C".
func jsonSyntax(data []byte) error {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		line, col := position(data, int(se.Offset)-1)
		return fmt.Errorf("JSON syntax error at line %d, column %d: %s", line, col, se.Error())
	}
	return fmt.Errorf("JSON syntax error: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// position returns the line and column (from 1) of byte off. A syntax
// error's offset is just past the offending byte: callers pass it minus one.
func position(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// strictDecode decodes JSON into v, refusing unknown fields and anything
// after the value, with errors that do not start with "json: ".
func strictDecode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return fmt.Errorf("want an object, got %s", te.Value)
			}
			return fmt.Errorf("%s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// CheckNames returns an error naming the first entry whose id is not a
// known check id, whose group is not a known area, or whose protocol
// version is not one of versions: a typo would otherwise silently baseline
// nothing.
func (b *Baseline) CheckNames(ids, groups, versions map[string]bool) error {
	for i, e := range b.Entries {
		switch {
		case e.ID != "" && !ids[e.ID]:
			return fmt.Errorf("%s: entry %d: no check has the id %q (see mcpconform list --checks)", b.path, i+1, e.ID)
		case e.Group != "" && !groups[e.Group]:
			return fmt.Errorf("%s: entry %d (%s): no area is called %q (want one of %s)", b.path, i+1, e.Key(), e.Group, strings.Join(sortedKeys(groups), ", "))
		case e.ProtocolVersion != "" && !versions[e.ProtocolVersion]:
			return fmt.Errorf("%s: entry %d (%s): unknown protocolVersion %q (want one of %s)", b.path, i+1, e.Key(), e.ProtocolVersion, strings.Join(sortedKeys(versions), ", "))
		}
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Apply marks listed failures and warnings as xfail and returns the keys
// of the stale entries (see Entry.Key), sorted. An accepted warning no
// longer fails a --strict run.
//
// An entry is stale when the checks it names were judged and none of them
// failed or warned: at least one of its results is pass or info, and none
// is fail or warn. An entry whose checks were not judged in this run
// (filtered out, another protocol version) or were only skipped or could
// not be judged (error) is not stale: there is no evidence either way.
func (b *Baseline) Apply(results []reports.Result) []string {
	failed := map[string]bool{}
	passed := map[string]bool{}
	for i := range results {
		r := &results[i]
		for _, e := range b.Entries {
			if !e.matches(*r) {
				continue
			}
			switch r.Verdict {
			case reports.Fail:
				r.Verdict = reports.XFail
				r.Message = "known failure (" + e.Reason + "): " + r.Message
				failed[e.Key()] = true
			case reports.Warn:
				r.Verdict = reports.XFail
				r.Message = "known warning (" + e.Reason + "): " + r.Message
				failed[e.Key()] = true
			case reports.XFail:
				failed[e.Key()] = true
			case reports.Pass, reports.Info:
				passed[e.Key()] = true
			}
		}
	}
	var stale []string
	for _, e := range b.Entries {
		if passed[e.Key()] && !failed[e.Key()] {
			stale = append(stale, e.Key())
		}
	}
	sort.Strings(stale)
	return stale
}

// FromResults returns a baseline listing every failing check of a run (fail
// or xfail, and warn too when warnings is set, as for --strict), one entry
// per check id with reason. A result that an entry of a previous baseline
// already covers keeps that entry, with its reason and its group: the
// entries of the first of prev (nil ones are skipped) that covers it.
func FromResults(results []reports.Result, reason string, warnings bool, prev ...*Baseline) *Baseline {
	b := &Baseline{}
	seen := map[string]bool{}
	add := func(e Entry) {
		if !seen[e.Key()] {
			seen[e.Key()] = true
			b.Entries = append(b.Entries, e)
		}
	}
	for _, r := range results {
		switch {
		case r.Verdict == reports.Fail, r.Verdict == reports.XFail:
		case r.Verdict == reports.Warn && warnings:
		default:
			continue
		}
		covered := false
		for _, p := range prev {
			if p == nil {
				continue
			}
			for _, e := range p.Entries {
				if e.matches(r) {
					add(e)
					covered = true
				}
			}
			if covered {
				break
			}
		}
		if !covered {
			add(Entry{ID: r.ID, Reason: reason})
		}
	}
	return b
}

const yamlHeader = `# mcpconform baseline: known failures (and, for --strict runs, warnings). A
# listed check that fails or warns is reported as xfail and does not fail the
# run; a listed check that passes is stale and fails the run until its entry
# is removed. Each entry names a check ("id", see mcpconform list --checks) or
# an area ("group"), and needs a reason.
`

// Write saves the baseline as YAML (.yaml, .yml) or JSON (anything else).
func (b *Baseline) Write(path string) error {
	if b.Entries == nil {
		b.Entries = []Entry{} // "entries: []", not "entries: null"
	}
	var data []byte
	var err error
	if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
		data, err = yaml.Marshal(b)
		data = append([]byte(yamlHeader), data...)
	} else {
		data, err = json.MarshalIndent(b, "", "  ")
		data = append(data, '\n')
	}
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// A Writer writes the baseline of a run's failures to a file, keeping the
// entries that already cover them, with their reasons: those of a
// previous baseline (--baseline), then those of the file it replaces.
type Writer struct {
	path           string
	prev, existing *Baseline
}

// NewWriter reads, before the run, what a baseline written to path keeps:
// the baseline at prevPath ("": none) and the file at path, if there is
// one. That file must be a readable baseline: its reasons are kept, and a
// file that is not a baseline is not overwritten.
func NewWriter(path, prevPath string) (*Writer, error) {
	w := &Writer{path: path}
	var err error
	if prevPath != "" {
		if w.prev, err = Load(prevPath); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(path); err == nil {
		if w.existing, err = Load(path); err != nil {
			return nil, fmt.Errorf("%v (the reasons of --write's existing file are kept: fix or remove it)", err)
		}
	}
	return w, nil
}

// Write writes the baseline of results (FromResults; with strict, the
// warnings too) and returns it.
func (w *Writer) Write(results []reports.Result, strict bool) (*Baseline, error) {
	reason := "known failure, recorded by mcpconform baseline"
	if strict {
		reason = "known failure or warning, recorded by mcpconform baseline --strict"
	}
	b := FromResults(results, reason, strict, w.prev, w.existing)
	return b, b.Write(w.path)
}
