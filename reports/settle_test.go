package reports

import (
	"testing"
	"time"
)

func TestSettle(t *testing.T) {
	res := func(vs ...Verdict) []Result {
		var out []Result
		for _, v := range vs {
			out = append(out, Result{ID: "c", Verdict: v})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		results     []Result
		strict      bool
		interrupted string
		didNotStart bool
		verdict     string
		status      Status
	}{
		{"passes", res(Pass, Skip), false, "", false, Conformant, StatusConformant},
		{"a failure", res(Pass, Fail), false, "", false, Nonconformant, StatusNonconformant},
		{"a warning", res(Pass, Warn), false, "", false, Conformant, StatusConformant},
		{"a warning, strict", res(Pass, Warn), true, "", false, Nonconformant, StatusNonconformant},
		{"a check in error", res(Pass, Error), false, "", false, ErrorVerdict, StatusIncomplete},
		{"cut short", res(Pass), false, "interrupted by interrupt", false, ErrorVerdict, StatusIncomplete},
		{"cut short after a failure", res(Fail), false, "interrupted by interrupt", false, Nonconformant, StatusNonconformant},
		{"never started", nil, false, "", true, ErrorVerdict, StatusIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReport("T1", time.Unix(0, 0), 1500*time.Millisecond, tc.interrupted, tc.strict)
			r.Results = tc.results
			if tc.didNotStart {
				r.DidNotStart = &StartFailure{Stage: "start", What: "no such file"}
			}
			if got := r.Settle(); got != tc.status || r.Summary.Verdict != tc.verdict {
				t.Errorf("got %s, status %d; want %s, %d", r.Summary.Verdict, got, tc.verdict, tc.status)
			}
		})
	}
	r := NewReport("T1", time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), 1500*time.Millisecond, "why", true)
	if r.SchemaVersion != SchemaVersion || r.Tool != (Tool{Name: "mcpconform", Version: "T1"}) || r.StartedAt.Location() != time.UTC ||
		r.DurationMs != 1500 || r.Interrupted != "why" || !r.Strict {
		t.Errorf("header: got %+v", r)
	}
	for s, code := range map[Status]int{StatusConformant: 0, StatusNonconformant: 1, StatusMisconfigured: 2, StatusNotStarted: 3, StatusIncomplete: 4} {
		if s.ExitCode() != code {
			t.Errorf("status %d: exit code %d, want %d", s, s.ExitCode(), code)
		}
	}
}
