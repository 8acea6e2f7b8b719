package suite_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/suite/execute"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The test binary doubles as the reference server: with MCPCONFORM_TEST_SERVE
// set it serves MCP on stdio (with the faults named in MCPCONFORM_TEST_FAULTS)
// instead of running tests. No separate build is needed.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCONFORM_TEST_SERVE") == "1" {
		os.Exit(serveMock())
	}
	os.Exit(m.Run())
}

func serveMock() int {
	opts := mockserver.Options{}
	if f := os.Getenv("MCPCONFORM_TEST_FAULTS"); f != "" {
		opts.Faults = strings.Split(f, ",")
	}
	if v := os.Getenv("MCPCONFORM_TEST_VARIANTS"); v != "" {
		opts.Variants = strings.Split(v, ",")
	}
	if p := os.Getenv("MCPCONFORM_TEST_FIXTURE"); p != "" {
		fx, err := mockserver.LoadFixture(p)
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

// mockConfig returns a suite configuration whose target is this test
// binary serving the reference server with the given faults.
func mockConfig(faults ...string) execute.Config {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	env := mockclient.Environment([]string{"MCPCONFORM_TEST_SERVE=1", "MCPCONFORM_TEST_FAULTS=" + strings.Join(faults, ",")}, false)
	return execute.Config{Command: []string{self}, Env: env, Timeout: 3 * time.Second, Grace: 500 * time.Millisecond}
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
		cfg = execute.Config{Command: argv, Env: mockclient.Environment(nil, true)}
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
