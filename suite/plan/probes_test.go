package plan_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/suite/plan"
)

// TestProbeTagsAreStable: a probe's tag is part of the evidence format
// (saved evidence files and the recorded cases carry it), so a probe's
// name never changes.
func TestProbeTagsAreStable(t *testing.T) {
	for _, tc := range []struct {
		probe plan.Probe
		steps []string
		want  string
	}{
		{plan.ProbeEmptyParams, nil, "p:list-empty-params"},
		{plan.ProbeCursorRepeat, nil, "p:cursor-repeat"},
		{plan.ProbeSubscribe, []string{"read"}, "p:subscribe.read"},
		{plan.ProbeSubUndeclared, nil, "p:subscribe-undeclared"},
		{plan.ProbeBatch, nil, "p:batch"},
		{plan.ProbeListen, []string{"stream"}, "p:listen.stream"},
		{plan.ProbeListAfter, nil, "p:list-after"},
		{plan.ProbeCounterOffer, nil, "p:counter-offer"},
		{plan.ProbeTrace, nil, "p:trace-context"},
		{plan.ProbeComplete, nil, "p:complete"},
		{plan.ProbeCompleteUndeclared, nil, "p:complete-undeclared"},
		{plan.ProbeCompleteContext, nil, "p:complete-context"},
		{plan.ProbeSetLevel, []string{"traffic"}, "p:set-level.traffic"},
		{plan.ProbeSetLevelUnknown, nil, "p:set-level-unknown"},
		{plan.ProbeLogLevelMeta, nil, "p:log-level-meta"},
		{plan.ProbePromptMissingArgument, nil, "p:prompt-missing-argument"},
		{plan.ProbeSettle, nil, "p:settle"},
		{plan.ProbeNudge, nil, "p:nudge"},
		{plan.ProbeReinit, nil, "p:reinit"},
		{plan.ProbeRefresh, nil, "p:refresh"},
		{plan.ProbeHTTPGet, nil, "p:http-get"},
		{plan.ProbeHTTPNotify, []string{"invalid"}, "p:http-notify.invalid"},
		{plan.ProbeHTTPNoSession, nil, "p:http-no-session"},
		{plan.ProbeHTTPDelete, []string{"after"}, "p:http-delete.after"},
		{plan.ProbeHTTPResume, nil, "p:http-resume"},
		{plan.ProbeHTTPBadVersion, nil, "p:http-bad-version"},
		{plan.ProbeHTTPOrigin, nil, "p:http-origin"},
		{plan.ProbeHTTPHeaderMismatch, []string{"name"}, "p:http-header-mismatch.name"},
		{plan.ProbeHTTPHeaderCase, nil, "p:http-header-case"},
		{plan.ProbeHTTPEncodedName, nil, "p:http-encoded-name"},
		{plan.ProbeHTTPModernGetDelete, []string{"get"}, "p:http-modern-get-delete.get"},
		{plan.ProbeHTTPAccept, nil, "p:http-accept"},
		{plan.ProbeHTTPProtectedResource, []string{"root"}, "p:http-protected-resource.root"},
		{plan.ProbeHTTPLegacySSE, nil, "p:http-legacy-sse"},
	} {
		if got := tc.probe.Tag(tc.steps...); got != tc.want {
			t.Errorf("%s.Tag(%q) = %q, want %q", tc.probe, tc.steps, got, tc.want)
		}
	}
}
