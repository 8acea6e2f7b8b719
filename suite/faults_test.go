package suite_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/catalog"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/wire"
)

// runMock runs the whole suite against the reference server with faults.
func runMock(t *testing.T, version string, faults ...string) (*evidence.Run, []reports.Result) {
	t.Helper()
	cfg := faultConfig(faults...)
	cfg.SpecVersion = version
	// Generous for a loaded CI machine under -race; hung methods cost two
	// deadlines at most (mockclient stops sending to a hung method).
	cfg.Timeout = 4 * time.Second
	for _, f := range mockserver.Faults() {
		if f.Bulk && f.Harness && !f.Budget && !f.Silent && slices.Contains(faults, f.Name) {
			// Tens of megabytes per answer, next to other bulk faults on
			// a busy machine: a request deadline that cannot be missed.
			cfg.Timeout = 30 * time.Second
		}
	}
	return runConfig(t, cfg)
}

// runConfig runs the whole suite with cfg, checks that it ended within
// its deadline, and judges it.
func runConfig(t *testing.T, cfg execute.Config) (*evidence.Run, []reports.Result) {
	t.Helper()
	// The run's own deadline; ending within it (plus the shutdown grace of
	// its processes) is what "within its deadlines" means here.
	const runDeadline = 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	start := time.Now()
	run, err := execute.Execute(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > runDeadline+10*time.Second {
		t.Errorf("the run took %s, beyond its deadline of %s", d, runDeadline)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	return run, suite.Judge(run, files)
}

func summarize(results []reports.Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Verdict != reports.Pass && r.Verdict != reports.Skip {
			fmt.Fprintf(&b, "\n  %s %s %s: %s", r.Verdict, r.ID, r.Requirement, r.Message)
		}
	}
	return b.String()
}

// TestReferenceServerIsConformant: against the correct mock nothing fails,
// warns or errors, in any version.
func TestReferenceServerIsConformant(t *testing.T) {
	run, results := runMock(t, "all")
	// Every version it serves is judged: the four handshake versions and
	// the 2026-07-28 era.
	want := append(slices.Clone(wire.LegacyVersions), wire.Modern)
	if got := slices.Sorted(slices.Values(run.Versions)); !slices.Equal(got, want) {
		t.Errorf("versions judged: got %v, want %v", got, want)
	}
	judged := map[string]bool{}
	for _, r := range results {
		if r.Verdict != reports.Skip {
			judged[r.ProtocolVersion] = true
		}
	}
	for _, v := range want {
		if !judged[v] {
			t.Errorf("no check was judged in %s", v)
		}
	}
	for _, r := range results {
		switch r.Verdict {
		case reports.Fail, reports.Warn, reports.Error:
			t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
	if len(results) < 100 {
		t.Errorf("got %d results, want the whole suite", len(results))
	}
}

// severityIn is what breaking requirement id costs in version v, by the
// catalogue: the verdict a detection must have.
func severityIn(id, v string) (reports.Verdict, bool) {
	r, ok := catalog.Get(id)
	if !ok {
		return "", false
	}
	st, ok := r.In(v)
	if !ok {
		return "", false
	}
	if !r.Binds(catalog.PartyServer) {
		return reports.Info, true
	}
	return reports.Verdict(catalog.SeverityOf(st.Level)), true
}

// TestEveryFaultIsDetected is the self-test score, in both directions: for
// every fault of the mock server's catalogue, the suite reports the
// requirement the fault breaks at the level the catalogue gives it in the
// version under test (fail, warn or info), and reports no fail or warn
// under any requirement the fault does not declare (its own or one of its
// declared consequences). Harness faults break nothing: nothing may fail,
// warn or error. Silent faults (hangs) prove nothing broken: their
// requirement is reported as not judged (error), and nothing fails. Every
// run ends within its deadlines.
//
// The bulk faults (tens of megabytes, floods) are left to
// TestBulkFaultsAreDetected.
func TestEveryFaultIsDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per fault")
	}
	t.Parallel()
	perLayer := map[string]int{}
	var faults []mockserver.Fault
	for _, f := range mockserver.Faults() {
		if f.Bulk {
			continue
		}
		perLayer[f.Layer]++
		if raceEnabled && f.Layer != "process" && perLayer[f.Layer]%raceSample != 1 {
			// Under the race detector a sample runs: every fault that acts
			// on the process and every raceSample-th of each other layer.
			// Without it (the second step of .ci/run) every fault runs.
			continue
		}
		faults = append(faults, f)
	}
	for _, f := range longestFirst(faults, func(f mockserver.Fault) string { return f.Name }) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			checkFault(t, f)
		})
	}
}

// longRunning names the faults and variations whose runs take longest
// (they wait on slow answers, hangs and deadlines), longest first. The
// self-test starts them first, so that they are not left to run alone
// at the end; the three self-tests run in parallel for the same reason.
// The list only orders the runs: a stale name costs time, not coverage.
var longRunning = []string{
	"slow", "huge-line-unterminated", "slow-answers", "silent-before-initialize",
	"endless-line", "pipelined-out-of-order", "hang-on-read", "huge-server-info",
	"many-template-pages", "many-resource-pages", "huge-response",
}

// longestFirst returns xs with the long-running ones first.
func longestFirst[T any](xs []T, name func(T) string) []T {
	out := slices.Clone(xs)
	rank := func(x T) int {
		if i := slices.Index(longRunning, name(x)); i >= 0 {
			return i
		}
		return len(longRunning)
	}
	slices.SortStableFunc(out, func(a, b T) int { return rank(a) - rank(b) })
	return out
}

// raceSample thins the runs of the self-test under the race detector,
// which makes each take several times as long and finds the same races in
// a sixth of them: the executor's code paths do not depend on which rule
// a fault breaks.
const raceSample = 6

// TestBulkFaultsAreDetected is TestEveryFaultIsDetected for the faults
// that move tens of megabytes or flood the harness. The race detector
// makes each take minutes, so it runs only without it (.ci/run runs it
// so).
func TestBulkFaultsAreDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per fault")
	}
	if raceEnabled {
		t.Skip("the bulk faults take minutes under -race; run without it")
	}
	t.Parallel()
	n := 0
	for _, f := range longestFirst(mockserver.Faults(), func(f mockserver.Fault) string { return f.Name }) {
		if !f.Bulk {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			checkFault(t, f)
		})
	}
	if n == 0 {
		t.Error("no fault of the catalogue is marked bulk")
	}
}

// checkFault runs the suite against the mock with fault f and judges the
// outcome as TestEveryFaultIsDetected says.
func checkFault(t *testing.T, f mockserver.Fault) {
	run, results := runMock(t, f.Version, f.Name)
	judgeFault(t, f, run, results)
}

// judgeFault judges a run against a server with fault f as
// TestEveryFaultIsDetected says.
func judgeFault(t *testing.T, f mockserver.Fault, run *evidence.Run, results []reports.Result) {
	t.Helper()
	v := f.Version
	if v == "" && len(run.Versions) > 0 {
		v = run.Versions[0]
	} else if v == "" {
		v = wire.Newest
	}
	declared := map[string]bool{}
	if !f.Harness {
		declared[f.Requirement] = true
	}
	for _, a := range f.Also {
		declared[a] = true
	}
	if shapeFaults[f.Name] {
		declared["SCHEMA-01"] = true
		checkShapeCaught(t, f, results)
	}
	for _, r := range results {
		bad := r.Verdict == reports.Fail || r.Verdict == reports.Warn
		switch {
		case (f.Budget || f.Silent) && r.Verdict == reports.Error:
			// What the harness stopped, and silence within its
			// windows, are not judged: errors, wherever they fall.
		case f.Silent && r.Verdict == reports.Fail:
			t.Errorf("a silent fault failed %s [%s, %s]: silence within a deadline proves nothing: %s", r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		case r.Verdict == reports.Error:
			t.Errorf("harness error: %s [%s, %s]: %s", r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		case bad && !declared[r.Requirement]:
			t.Errorf("undeclared %s: %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
		}
	}
	if f.Budget && len(run.Incomplete()) == 0 {
		t.Errorf("fault %s floods the harness, but the run does not say it is incomplete", f.Name)
	}
	if f.Harness {
		return
	}
	want, ok := severityIn(f.Requirement, v)
	if !ok {
		t.Fatalf("fault %s breaks %s, which the catalogue does not have in %s", f.Name, f.Requirement, v)
	}
	if f.Silent {
		want = reports.Error
	}
	if f.Schema {
		want = reports.Fail // the schema binds whatever the prose's level
	}
	if f.Disputed && want == reports.Fail {
		want = reports.Warn // the spec contradicts itself there: a warning at most
	}
	for _, r := range results {
		if r.Requirement == f.Requirement && r.Verdict == want {
			return
		}
	}
	var same []string
	for _, r := range results {
		if r.Requirement == f.Requirement {
			same = append(same, fmt.Sprintf("%s=%s (%s)", r.ID, r.Verdict, r.Message))
		}
	}
	t.Errorf("fault %s breaks %s (%s in %s) but no result for it is %s; fatal=%v; results for it: %v; non-passing results:%s",
		f.Name, f.Requirement, want, v, want, run.Fatal, same, summarize(results))
}

// shapeFaults are the faults that break a shape of the version's schema:
// a member of the wrong type, a required member missing, a message that
// no definition allows. The schema check catches each of them as well as
// the check of the fault's own requirement: it fails, or, where that
// check already failed the same defect, lists it under that check. The
// reference server keeps its schemas in every version
// (TestReferenceServerIsConformant), so a schema breach under a fault is
// the fault's.
var shapeFaults = setOf(
	"bad-annotations", "bad-audience", "bad-priority", "capabilities-bad-types", "completion-bad-result",
	"contents-meta-bad-type", "contents-missing-uri", "contents-not-array", "cursor-not-string", "cursor-null",
	"discover-bad-shape", "empty-text-omitted", "error-code-float", "error-code-string", "icon-src-not-string",
	"initialized-params-answered", "instructions-not-string", "list-changed-bad-params", "list-changed-not-boolean",
	"list-meta-not-object", "list-not-array", "log-bad-message", "missing-jsonrpc", "missing-server-info",
	"negative-ttl", "no-cache-hints", "no-result-type", "notification-with-id", "output-schema-bad-required",
	"params-array", "progress-not-number", "prompt-bad-role", "prompt-content-array", "prompt-no-messages",
	"prompt-no-name", "prompt-title-not-string", "prompts-not-array", "read-no-cache-hints", "reply-to-notification",
	"resource-bad-field-types", "resource-missing-name", "result-not-object", "server-request-bad-id",
	"set-level-result-not-object", "structured-not-object", "template-missing-name", "templates-no-cache-hints",
	"templates-not-array", "tool-annotations-bad-hint", "tool-input-schema-not-object", "tool-no-input-schema",
	"tool-result-no-content", "tool-text-not-string", "tool-title-not-string", "tools-no-cache-hints",
	"tools-not-array", "unsupported-version-no-data", "updated-missing-uri", "wrong-jsonrpc-version",
)

func setOf(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// checkShapeCaught fails a shape fault the schema check did not see.
func checkShapeCaught(t *testing.T, f mockserver.Fault, results []reports.Result) {
	t.Helper()
	for _, r := range results {
		if r.ID == "schema-valid" && (r.Verdict == reports.Fail || strings.Contains(r.Message, "left to the checks that failed the same defect")) {
			return
		}
	}
	t.Errorf("fault %s breaks a shape of the schema, but schema-valid saw no breach", f.Name)
}

// TestShapeFaultsExist: every fault named a shape fault is one the mock has.
func TestShapeFaultsExist(t *testing.T) {
	known := map[string]bool{}
	for _, f := range mockserver.Faults() {
		known[f.Name] = true
	}
	for name := range shapeFaults {
		if !known[name] {
			t.Errorf("shapeFaults names %q, which is no fault of the mock", name)
		}
	}
}

// TestExampleFixturesAreConformant: the mock server serves every example
// fixture it ships, and the whole suite passes against each, in every
// version the fixture serves.
func TestExampleFixturesAreConformant(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "mockserver", "testdata", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example fixtures found: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg := mockConfig("--fixture", abs)
			cfg.SpecVersion = "all"
			cfg.Timeout = 5 * time.Second
			run, err := execute.Execute(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if run.Fatal != nil {
				t.Fatalf("the mock did not start with %s: %s", p, run.Fatal.Message)
			}
			files, err := suite.VectorFiles(run)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range suite.Judge(run, files) {
				switch r.Verdict {
				case reports.Fail, reports.Warn, reports.Error:
					t.Errorf("%s %s [%s, %s]: %s", r.Verdict, r.ID, r.Requirement, r.ProtocolVersion, r.Message)
				}
			}
		})
	}
}

// TestPlannedResultsNameTheirRules: a result left unjudged (an interrupt
// cut the judging short) names its requirement, level and spec section as
// the judged result does, so a partial report still says which rules went
// unjudged.
func TestPlannedResultsNameTheirRules(t *testing.T) {
	run, judged := runMock(t, "")
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	planned := suite.Planned(run, files, "cut short")
	if len(planned) != len(judged) {
		t.Fatalf("%d planned results, %d judged", len(planned), len(judged))
	}
	for i, p := range planned {
		j := judged[i]
		if p.ID != j.ID || p.ProtocolVersion != j.ProtocolVersion || p.Requirement != j.Requirement || p.Level != j.Level || p.Spec != j.Spec || p.Area != j.Area {
			t.Errorf("planned %s [%s] %q %q %q, judged %s [%s] %q %q %q", p.ID, p.ProtocolVersion, p.Requirement, p.Level, p.Spec, j.ID, j.ProtocolVersion, j.Requirement, j.Level, j.Spec)
		}
		if p.Verdict != reports.Error || p.Message != "not judged: cut short" {
			t.Errorf("planned %s: %s %q, want an error saying it was not judged", p.ID, p.Verdict, p.Message)
		}
	}
}

// rarelyTriggered are checks whose rule only a server's own initiative
// exercises: the reference server takes that initiative (its default
// fixture, its tool calls, the probes' trace context and held listen
// stream; a server-side stream teardown in one legal variation), so each
// is seen to pass in every version where it applies, not only on
// recorded cases.
var rarelyTriggered = []struct {
	check   string
	variant string // the legal variation that shows it, if the default does not
}{
	{check: "prompts-binary-content"},
	{check: "tools-list-changed-only-if-declared"},
	{check: "prompts-list-changed-only-if-declared"},
	{check: "trace-context-format"},
	{check: "cancelled-only-for-listen", variant: "streams-end-cancelled"},
}

// TestRarelyTriggeredChecksPass: each check of rarelyTriggered passes on
// the reference server (or the variation named) in every version where
// its requirement exists, with every tool called (--call-tools all: a
// list change is a tool call's effect). A check that goes back to judging
// nothing there fails this test.
func TestRarelyTriggeredChecksPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite twice")
	}
	byVariant := map[string][]string{}
	for _, rt := range rarelyTriggered {
		byVariant[rt.variant] = append(byVariant[rt.variant], rt.check)
	}
	for variant, ids := range byVariant {
		name := cmp.Or(variant, "default")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var cfg execute.Config
			if variant == "" {
				cfg = mockConfig()
			} else {
				cfg = mockConfig("--variant", variant)
			}
			cfg.SpecVersion = "all"
			cfg.Timeout = 4 * time.Second
			cfg.CallTools = plan.ToolPolicy{Mode: "all"}
			run, results := executeAndJudge(t, cfg)
			got := map[string]reports.Result{}
			for _, r := range results {
				got[r.ID+"@"+r.ProtocolVersion] = r
			}
			for _, id := range ids {
				var c *checks.Check
				for _, ch := range checks.All() {
					if ch.ID == id {
						c = ch
					}
				}
				if c == nil {
					t.Fatalf("no check %s", id)
				}
				judged := 0
				for _, v := range run.Versions {
					if c.Applies(v) != "" {
						continue
					}
					judged++
					if r, ok := got[id+"@"+v]; !ok || r.Verdict != reports.Pass {
						t.Errorf("%s in %s: %s: %s, want pass", id, v, r.Verdict, r.Message)
					}
				}
				if judged == 0 {
					t.Errorf("%s applies to none of the versions judged, %v", id, run.Versions)
				}
			}
		})
	}
}
