// Package baseline applies a list of known failures to a report: a listed
// failure becomes xfail and does not fail the run; a listed check that no
// longer fails is stale, and a stale entry fails the run so the list stays
// honest.
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

// Load reads a baseline in YAML or JSON (JSON is YAML too). Errors name the
// file and the line (syntax) or the entry (content), counting entries from 1.
func Load(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading baseline: %v", err)
	}
	return Parse(path, data)
}

// Parse reads a baseline from data; name is used in error messages.
func Parse(name string, data []byte) (*Baseline, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
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
// known check id or whose group is not a known area: a typo would
// otherwise silently baseline nothing.
func (b *Baseline) CheckNames(ids, groups map[string]bool) error {
	for i, e := range b.Entries {
		switch {
		case e.ID != "" && !ids[e.ID]:
			return fmt.Errorf("%s: entry %d: no check has the id %q (see mcpconform list)", b.path, i+1, e.ID)
		case e.Group != "" && !groups[e.Group]:
			return fmt.Errorf("%s: entry %d: no area is called %q (want one of %s)", b.path, i+1, e.Group, strings.Join(sortedKeys(groups), ", "))
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

// Apply marks listed failures as xfail and returns the keys of the stale
// entries (see Entry.Key), sorted.
//
// An entry is stale when the checks it names were judged and none of them
// failed: at least one of its results is pass, warn or info, and none is
// fail. An entry whose checks were not judged in this run (filtered out,
// another protocol version) or were only skipped or could not be judged
// (error) is not stale: there is no evidence either way.
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
			case reports.XFail:
				failed[e.Key()] = true
			case reports.Pass, reports.Warn, reports.Info:
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
// or xfail), one entry per check id with reason. A failure that an entry of
// prev (may be nil) already covers keeps that entry, with its reason and
// its group.
func FromResults(results []reports.Result, reason string, prev *Baseline) *Baseline {
	b := &Baseline{}
	seen := map[string]bool{}
	add := func(e Entry) {
		if !seen[e.Key()] {
			seen[e.Key()] = true
			b.Entries = append(b.Entries, e)
		}
	}
	for _, r := range results {
		if r.Verdict != reports.Fail && r.Verdict != reports.XFail {
			continue
		}
		covered := false
		if prev != nil {
			for _, e := range prev.Entries {
				if e.matches(r) {
					add(e)
					covered = true
				}
			}
		}
		if !covered {
			add(Entry{ID: r.ID, Reason: reason})
		}
	}
	return b
}

const yamlHeader = `# mcpconform baseline: known failures. A listed check that fails is reported
# as xfail and does not fail the run; a listed check that passes is stale and
# fails the run until its entry is removed. Each entry names a check ("id", see
# mcpconform list) or an area ("group"), and needs a reason.
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
