package clientrun

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestClientFlags(t *testing.T) {
	parse := func(args ...string) *Config {
		t.Helper()
		var c Config
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.RegisterFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return &c
	}
	c := parse()
	c.Command = []string{"./client"}
	if c.Parallel != runtime.NumCPU() || c.ScenarioTimeout != DefaultScenarioTimeout || c.Interop || c.Resilience {
		t.Errorf("defaults: got %+v", c)
	}
	if err := c.CheckFlags(false, 0); err != nil {
		t.Errorf("the defaults do not pass: %v", err)
	}
	c = parse("--scenario", "initialize,tools_call", "--protocol-version", "2025-06-18", "--env", "A=B", "--cwd", "d", "--interop", "--scenario-timeout", "5s")
	c.Command = []string{"./client"}
	if err := c.CheckFlags(false, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Scenarios, " ") != "initialize tools_call" || c.Versions[0] != "2025-06-18" || c.Env[0] != "A=B" || c.Dir != "d" || !c.Interop || c.ScenarioTimeout != 5*time.Second {
		t.Errorf("got %+v", c)
	}
	if len(c.Variants) != len(LegalVariants()) || c.Faults != nil {
		t.Errorf("--interop: got %d variants and faults %v, want every legal variant and no fault", len(c.Variants), c.Faults)
	}
	if c = parse("--resilience"); c.CheckFlags(false, 0) == nil || c.Faults != nil {
		t.Error("no client command: not refused")
	}
	if c.Command = []string{"./client"}; c.CheckFlags(false, 0) != nil || len(c.Faults) != len(MockFaults()) || c.Variants != nil {
		t.Errorf("--resilience: got %d faults and variants %v, want every fault and no variant", len(c.Faults), c.Variants)
	}
	if err := parse().CheckFlags(true, time.Minute); err != nil {
		t.Errorf("--interactive: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--interop"}, "--interactive records what a host does by hand"},
		{[]string{"--", "./client"}, `--interactive takes no client command ("./client")`},
	} {
		c := parse(tc.args...)
		c.Command = []string{}
		if len(tc.args) > 1 {
			c.Command = tc.args[1:]
		}
		if err := c.CheckFlags(true, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--interactive %q: got %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := parse().CheckFlags(true, -time.Second); err == nil || !strings.Contains(err.Error(), "--interactive-timeout -1s: must not be negative") {
		t.Errorf("a negative --interactive-timeout: got %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--", " "}, "no client command; write e.g."},
		{[]string{"--parallel", "0"}, "--parallel 0: at least one client must run"},
		{[]string{"--scenario-timeout", "0s"}, "--scenario-timeout 0s: must be more than zero"},
		{[]string{"--protocol-version", "1999-01-01"}, "--protocol-version 1999-01-01: want one of"},
		{[]string{"--scenario", "no_such"}, "--scenario no_such: no such scenario"},
	} {
		c := parse(tc.args...)
		if c.Command = []string{"./client"}; tc.args[0] == "--" {
			c.Command = tc.args[1:]
		}
		if err := c.CheckFlags(false, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestWriteScenarios(t *testing.T) {
	var b bytes.Buffer
	if err := WriteScenarios(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(Scenarios())+1 || !strings.HasPrefix(lines[0], "SCENARIO") {
		t.Fatalf("got %d lines, want a header and one per scenario:\n%s", len(lines), b.String())
	}
	for i, sc := range Scenarios() {
		f := strings.Fields(lines[i+1])
		if f[0] != sc.Name || (f[1] == "official") != sc.Official {
			t.Errorf("line %q does not list %s (official %v)", lines[i+1], sc.Name, sc.Official)
		}
	}
}

// Without Dir, the sessions go to a new directory it names; the block goes
// to stdout and the rest to stderr; the timeout ends the wait.
func TestRecordUntilInterrupt(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	in := Interactive{Mock: []string{"/opt/mcpconform", "mock"}, Timeout: time.Nanosecond}
	var stdout, stderr bytes.Buffer
	run, err := in.RecordUntilInterrupt(&stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	var block map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &block); err != nil || block["mcpServers"] == nil {
		t.Errorf("stdout is not the mcpServers block: %v\n%s", err, stdout.String())
	}
	first, _, _ := strings.Cut(stderr.String(), "\n")
	dir := first[strings.LastIndex(first, " ")+1:]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || filepath.Dir(dir) != os.Getenv("TMPDIR") {
		t.Errorf("the sessions directory %q: %v", dir, err)
	}
	if !strings.HasSuffix(stderr.String(), "mcpconform client: judging 0 session(s)\n") || len(run.Scenarios) != 1 {
		t.Errorf("got %q, %d scenario runs; want no session judged in one run", stderr.String(), len(run.Scenarios))
	}
}
