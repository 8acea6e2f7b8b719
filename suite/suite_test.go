package suite_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transport"
)

// The reference server the tests judge is `mcpconform mock`, built once
// without the race detector: under -race a mock process of the
// instrumented test binary takes over three times as long, and the
// self-test runs the whole suite some two hundred times. Where the build
// is not possible (this package tested from a read-only module cache),
// the test binary serves instead: with MCPCONFORM_TEST_SERVE set it takes
// the same arguments as `mcpconform mock`.
var mockBin struct {
	once sync.Once
	dir  string
	path string
}

func TestMain(m *testing.M) {
	if os.Getenv("MCPCONFORM_TEST_SERVE") == "1" {
		os.Exit(serveMock(os.Args[1:]))
	}
	code := m.Run()
	if mockBin.dir != "" {
		os.RemoveAll(mockBin.dir)
	}
	os.Exit(code)
}

// serveMock serves the reference server with args of `mcpconform mock`
// (after the word "mock"): --fault, --variant, --fixture.
func serveMock(args []string) int {
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	faults := fs.String("fault", "", "")
	variants := fs.String("variant", "", "")
	fixture := fs.String("fixture", "", "")
	if len(args) > 0 && args[0] == "mock" {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := mockserver.Options{}
	if *faults != "" {
		opts.Faults = strings.Split(*faults, ",")
	}
	if *variants != "" {
		opts.Variants = strings.Split(*variants, ",")
	}
	if *fixture != "" {
		fx, err := mockserver.LoadFixture(*fixture)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 2
		}
		opts.Fixture = fx
	}
	if err := mockserver.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, opts); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// mockCommand is the command that serves the reference server with args
// of `mcpconform mock`, and the variables it needs.
func mockCommand(args ...string) ([]string, []string) {
	mockBin.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "mcpconform-suite-test-")
		if err != nil {
			return
		}
		mockBin.dir = dir
		path := filepath.Join(dir, "mcpconform")
		if exec.Command(goTool, "build", "-o", path, "../cmd/mcpconform").Run() == nil {
			mockBin.path = path
		}
	})
	if mockBin.path != "" {
		return append([]string{mockBin.path, "mock"}, args...), nil
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return append([]string{self, "mock"}, args...), []string{"MCPCONFORM_TEST_SERVE=1"}
}

// mockConfig returns a suite configuration whose target is the reference
// server with args of `mcpconform mock` (--fault NAME, --variant NAME,
// --fixture FILE). The reference server is trusted and its tools change
// nothing: every listed tool is called (--call-tools all), so that the
// checks of tool results are proven both ways.
func mockConfig(args ...string) execute.Config {
	argv, env := mockCommand(args...)
	return execute.Config{Command: argv, Env: transport.Environment(env, false), Timeout: 3 * time.Second, Grace: 2 * time.Second,
		CallTools: plan.ToolPolicy{Mode: plan.CallAll}}
}

// faultConfig is mockConfig for a server with the given faults.
func faultConfig(faults ...string) execute.Config {
	if len(faults) == 0 {
		return mockConfig()
	}
	return mockConfig("--fault", strings.Join(faults, ","))
}

var target = flag.String("mcpconform.target", "", "server command to judge, as a JSON array or space-separated words (env MCPCONFORM_TARGET); default: the reference server")

// TestConformance is the `go test ./suite` entry: it runs the whole suite
// as Ginkgo specs against a target, so SDK authors can run it from their
// own repositories with
//
//	go test github.com/mcpconform/mcpconform/suite -run TestConformance -args -mcpconform.target='["./my-server"]'
func TestConformance(t *testing.T) {
	cfg := mockConfig()
	cmd := *target
	if cmd == "" {
		cmd = os.Getenv("MCPCONFORM_TARGET")
	}
	if cmd != "" {
		var argv []string
		if json.Unmarshal([]byte(cmd), &argv) != nil {
			argv = strings.Fields(cmd)
		}
		// A server of the user's: no tool is called, as by default.
		cfg = execute.Config{Command: argv, Env: transport.Environment(nil, true)}
	}
	run, err := execute.Execute(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Fatal != nil {
		t.Fatalf("target did not start: %s", run.Fatal.Message)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		t.Fatal(err)
	}
	RegisterFailHandler(Fail)
	suite.Define(run, files, suite.Planned(run, files, "not run"), nil)
	RunSpecs(t, "mcpconform conformance")
}

var _ = Describe("the suite's own plumbing", func() {
	It("judges every procedural check by a requirement id", func() {
		for _, c := range checks.All() {
			Expect(c.Requirement).To(MatchRegexp(`^[A-Z]+(-[A-Z]+)*-[0-9]{2}$`), c.ID)
		}
	})
})
