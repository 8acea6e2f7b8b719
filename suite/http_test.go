package suite_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
)

// httpFaultVariants are the variants a fault of the HTTP transport is
// judged with: the rule it breaks applies only to such a server.
var httpFaultVariants = map[string][]string{
	"http-modern-get-stream": {"only-2026-07-28"},
}

// runHTTPMock serves the mock over Streamable HTTP on a loopback port for
// the test's life, runs the whole suite against its URL in version, and
// judges the run.
func runHTTPMock(t *testing.T, version string, faults, variants []string) (*evidence.Run, []reports.Result) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- mockserver.ServeHTTP(sctx, ln, io.Discard, mockserver.HTTPOptions{Options: mockserver.Options{Faults: faults, Variants: variants}})
	}()
	t.Cleanup(func() {
		stop()
		<-served
	})
	cfg := execute.Config{
		HTTP:        &execute.HTTPTarget{URL: "http://" + ln.Addr().String() + "/mcp"},
		SpecVersion: version,
		// Generous for a loaded machine under -race, as over stdio.
		Timeout:   4 * time.Second,
		Grace:     2 * time.Second,
		CallTools: plan.ToolPolicy{Mode: plan.CallAll},
	}
	return runConfig(t, cfg)
}

// TestReferenceServerIsConformantOverHTTP: against the correct mock served
// over Streamable HTTP nothing fails, warns or errors, in any version,
// and the HTTP checks judge it (they are not all skipped).
func TestReferenceServerIsConformantOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite over HTTP")
	}
	t.Parallel()
	_, results := runHTTPMock(t, "all", nil, nil)
	judged := 0
	for _, r := range results {
		switch {
		case r.Verdict == reports.Fail, r.Verdict == reports.Warn, r.Verdict == reports.Error:
			t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		case r.Area == "http" && r.Verdict == reports.Pass:
			judged++
		}
	}
	if judged < 50 {
		t.Errorf("%d results of HTTP checks passed, want the HTTP checks to judge every version", judged)
	}
}

// TestEveryHTTPFaultIsDetected is TestEveryFaultIsDetected for the faults
// of the HTTP transport, each served by the mock over Streamable HTTP and
// judged at its URL: the suite reports the requirement the fault breaks
// at the catalogue's level, and nothing the fault does not declare.
func TestEveryHTTPFaultIsDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per HTTP fault")
	}
	t.Parallel()
	for i, f := range mockserver.HTTPFaults() {
		if raceEnabled && i%raceSample != 0 {
			continue // a sample under -race; all of them without
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			run, results := runHTTPMock(t, f.Version, []string{f.Name}, httpFaultVariants[f.Name])
			judgeFault(t, f, run, results)
		})
	}
}

// TestLegalHTTPVariationsAreConformant: every legal variation of the
// mock's HTTP transport is judged in every version it serves with no fail
// and no harness error, and warns only under the rules it declares.
func TestLegalHTTPVariationsAreConformant(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per HTTP variation")
	}
	t.Parallel()
	for i, v := range mockserver.HTTPVariants() {
		if raceEnabled && i%raceSample != 0 {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			_, results := runHTTPMock(t, "all", nil, []string{v.Name})
			judgeVariant(t, v, results)
		})
	}
}
