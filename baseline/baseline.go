// Package baseline applies a list of known failures to a report: a listed
// failure becomes xfail and does not fail the run; a listed check that no
// longer fails is stale, and a stale entry fails the run so the list stays
// honest.
package baseline

import (
	"bytes"
	"encoding/json"
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
}

// Entry is one known failure.
type Entry struct {
	ID     string `json:"id,omitempty"`
	Group  string `json:"group,omitempty"`
	Reason string `json:"reason"`
	// ProtocolVersion limits the entry to results judged under that version.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

func (e Entry) key() string {
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

// Load reads a baseline in YAML or JSON. Errors name the file and the entry.
func Load(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %v", err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var b Baseline
	d := json.NewDecoder(bytes.NewReader(js))
	d.DisallowUnknownFields()
	if err := d.Decode(&b); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i, e := range b.Entries {
		switch {
		case e.ID == "" && e.Group == "":
			return nil, fmt.Errorf("%s: $.entries[%d]: give an id or a group", path, i)
		case e.ID != "" && e.Group != "":
			return nil, fmt.Errorf("%s: $.entries[%d]: give an id or a group, not both", path, i)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%s: $.entries[%d] (%s): a reason is required", path, i, e.key())
		}
	}
	return &b, nil
}

// Apply marks listed failures as xfail and returns the stale entries: those
// that matched no failing result.
func (b *Baseline) Apply(results []reports.Result) []string {
	used := map[string]bool{}
	for i := range results {
		r := &results[i]
		for _, e := range b.Entries {
			if !e.matches(*r) {
				continue
			}
			if r.Verdict == reports.Fail {
				r.Verdict = reports.XFail
				r.Message = "known failure (" + e.Reason + "): " + r.Message
				used[e.key()] = true
			}
		}
	}
	var stale []string
	for _, e := range b.Entries {
		if !used[e.key()] {
			stale = append(stale, e.key())
		}
	}
	sort.Strings(stale)
	return stale
}

// FromResults writes a baseline listing every failing check of a run.
func FromResults(results []reports.Result, reason string) *Baseline {
	b := &Baseline{}
	seen := map[string]bool{}
	for _, r := range results {
		if r.Verdict != reports.Fail && r.Verdict != reports.XFail {
			continue
		}
		e := Entry{ID: r.ID, Reason: reason}
		if seen[e.key()] {
			continue
		}
		seen[e.key()] = true
		b.Entries = append(b.Entries, e)
	}
	return b
}

// Write saves the baseline as YAML (.yaml, .yml) or JSON (anything else).
func (b *Baseline) Write(path string) error {
	var data []byte
	var err error
	if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") {
		data, err = yaml.Marshal(b)
	} else {
		data, err = json.MarshalIndent(b, "", "  ")
		data = append(data, '\n')
	}
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
