package fleet_test

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
)

// TestFleetURLTargets: a list may hold servers already running at a URL,
// judged over Streamable HTTP like any target: the reference server is
// conformant there, and one with an HTTP fault is not.
func TestFleetURLTargets(t *testing.T) {
	serve := func(faults ...string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = mockserver.ServeHTTP(ctx, ln, io.Discard, mockserver.HTTPOptions{Options: mockserver.Options{Faults: faults}})
		}()
		t.Cleanup(func() {
			cancel()
			<-done
		})
		return "http://" + ln.Addr().String() + "/mcp"
	}
	f := writeList(t, `targets:
  - id: reference
    url: `+serve()+`
  - id: get-404
    url: `+serve("http-get-404")+`
`)
	fl, err := fleet.Run(context.Background(), f, fleet.Options{Parallel: 2, ReportDir: t.TempDir(), Tool: "test", Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]reports.Class{"reference": reports.ClassConformant, "get-404": reports.ClassNonconformant}
	for _, ft := range fl.Targets {
		if ft.Class != want[ft.ID] {
			t.Errorf("%s: got %s (%q), want %s", ft.ID, ft.Class, ft.Reason, want[ft.ID])
		}
	}
	if len(fl.Targets) != len(want) {
		t.Errorf("got %d targets, want %d", len(fl.Targets), len(want))
	}
}
