package clienttest

import (
	"testing"

	"github.com/mcpconform/mcpconform/examples/everything/internal/contract"
)

// Every scenario of the contract is run by some case, against the mock or
// against the peer, so that no client's branch for it goes untested.
func TestCasesCoverEveryScenario(t *testing.T) {
	run := map[string]bool{}
	for _, c := range Cases(t) {
		run[c.Run.Scenario] = true
	}
	for _, c := range HTTPCases {
		run[c.Name] = true
	}
	for _, s := range contract.Scenarios {
		if !run[s.Name] {
			t.Errorf("scenario %s: no case runs it", s.Name)
		}
	}
}
