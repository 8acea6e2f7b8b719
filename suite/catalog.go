package suite

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// Requirement is one entry of the requirement catalogue: a rule of the spec
// in the project's own words, with the versions it applies to and, when no
// check tests it, the reason why.
type Requirement struct {
	ID       string `json:"id"`
	Level    string `json:"level"`
	Versions string `json:"versions"`
	Summary  string `json:"summary"`
	// HandshakeEra is true when the rule applies to at least one of
	// 2024-11-05 … 2025-11-25.
	HandshakeEra bool `json:"handshakeEra"`
	// Untested is why no check tests the rule (client obligation, needs a
	// server-side trigger, ...); empty when checks exist.
	Untested string `json:"untested,omitempty"`
}

//go:embed requirements.json
var requirementsJSON []byte

var (
	catalogOnce sync.Once
	catalog     []Requirement
)

// Requirements returns the catalogue in catalogue order.
func Requirements() []Requirement {
	catalogOnce.Do(func() {
		var doc struct {
			Requirements []Requirement `json:"requirements"`
		}
		if err := json.Unmarshal(requirementsJSON, &doc); err != nil {
			panic("suite: requirements.json: " + err.Error())
		}
		catalog = doc.Requirements
	})
	return catalog
}
