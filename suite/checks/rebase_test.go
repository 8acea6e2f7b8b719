package checks_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reports"
)

// TestVerdictRestsOnItsSentence: a result reports the requirement whose
// sentence its verdict rests on, with that requirement's level and quote,
// even where the test or check is filed under another one: a wrong error
// code that only a SHOULD names warns under ERR-15, a changed id fails
// under the id-echo rule of the response's kind. The requirement the test
// is filed under stays on the result as a label, so that selecting it
// still finds the result.
func TestVerdictRestsOnItsSentence(t *testing.T) {
	for _, tc := range []struct {
		path, id, version string
		verdict           reports.Verdict
		requirement       string
		level             string
		quote             string // a part of the quote
		filedUnder        string // the label requirement:…, or "" for none
	}{
		{"errors/resources-read-missing-uri-param/internal-error-code.txtar", "resources-read-missing-uri-param", "2025-11-25",
			reports.Warn, "ERR-15", "SHOULD", "SHOULD return standard JSON-RPC errors", "ERR-04"},
		{"errors/resources-read-missing-uri-param/served.txtar", "resources-read-missing-uri-param", "2025-11-25",
			reports.Fail, "ERR-04", "MUST", "MUST follow the JSON-RPC 2.0 specification", ""},
		{"errors/unknown-method/invalid-params-code.txtar", "unknown-method", "2025-11-25",
			reports.Warn, "ERR-15", "SHOULD", "SHOULD return standard JSON-RPC errors", "ERR-03"},
		{"errors/invalid-request-null-id/served.txtar", "invalid-request-null-id", "2025-11-25",
			reports.Fail, "ERR-02", "MUST", "MUST follow the JSON-RPC 2.0 specification", ""},
		{"errors/invalid-request-boolean-id/refused-id-changed.txtar", "invalid-request-boolean-id", "2025-06-18",
			reports.Fail, "JSONRPC-05", "MUST", "same ID as the request", "ERR-02"},
		{"errors/invalid-request-boolean-id/refused-id-changed-2025-11.txtar", "invalid-request-boolean-id", "2025-11-25",
			reports.Fail, "JSONRPC-16", "MUST", "Error responses MUST include the same ID", "ERR-02"},
		{"jsonrpc/id-echo-fractional/answered-id-1.txtar", "id-echo-fractional", "2025-11-25",
			reports.Fail, "JSONRPC-05", "MUST", "Result responses MUST include the same ID", ""},
		{"jsonrpc/id-echo-fractional/silence.txtar", "id-echo-fractional", "2025-11-25",
			reports.Warn, "ERR-02", "MUST", "MUST follow the JSON-RPC 2.0 specification", "JSONRPC-05"},
		{"resources_capability/undeclared-resources-method-not-found/other-code-2026.txtar", "undeclared-resources-method-not-found", "2026-07-28",
			reports.Warn, "ERR-15", "SHOULD", "SHOULD return standard JSON-RPC errors", "RES-CAP-04"},
		{"resources_capability/undeclared-resources-method-not-found/other-code-legacy.txtar", "undeclared-resources-method-not-found", "2025-11-25",
			reports.Info, "RES-CAP-04", "unspecified", "", ""},
	} {
		t.Run(strings.TrimSuffix(tc.path, ".txtar"), func(t *testing.T) {
			c := loadCase(t, filepath.Join("testdata", filepath.FromSlash(tc.path)))
			res := c.judge(t, tc.id, tc.version)
			if res.Verdict != tc.verdict || res.Requirement != tc.requirement || res.Level != tc.level {
				t.Errorf("got %s under %s (%s), want %s under %s (%s): %s", res.Verdict, res.Requirement, res.Level, tc.verdict, tc.requirement, tc.level, res.Message)
			}
			if !strings.Contains(res.Quote, tc.quote) {
				t.Errorf("quote %q, want one with %q", res.Quote, tc.quote)
			}
			if !slices.Contains(res.Labels, "level:"+tc.level) {
				t.Errorf("labels %v, want level:%s", res.Labels, tc.level)
			}
			var filed []string
			for _, l := range res.Labels {
				if r, ok := strings.CutPrefix(l, "requirement:"); ok {
					filed = append(filed, r)
				}
			}
			want := []string{}
			if tc.filedUnder != "" {
				want = []string{tc.filedUnder}
			}
			if !slices.Equal(filed, want) {
				t.Errorf("labels %v, want requirement:%v", res.Labels, want)
			}
		})
	}
}
