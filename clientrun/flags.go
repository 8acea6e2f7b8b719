package clientrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/cliflag"
	"github.com/mcpconform/mcpconform/wire"
)

// RegisterFlags defines on fs the flags of `mcpconform client` that
// configure a run, with the command's defaults: --scenario,
// --protocol-version, --env, --cwd, --parallel, --scenario-timeout,
// --interop, --resilience and --transport. CheckFlags checks what they
// were given.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Transport, "transport", evidence.TransportStdio, "how the client reaches the mock: `stdio` (it starts MCP_CONFORMANCE_SERVER_COMMAND) or http (Streamable HTTP: the mock's URL is its last argument)")
	fs.Var(cliflag.List{Values: &c.Scenarios, Example: "--scenario initialize,tools_call"}, "scenario", "run only the scenarios `NAME`d (comma-separated or repeated; see --list)")
	fs.Var(cliflag.List{Values: &c.Versions, Example: "--protocol-version 2025-06-18"}, "protocol-version", "run each scenario once per protocol `VERSION` asked of the client (MCP_CONFORMANCE_PROTOCOL_VERSION; comma-separated or repeated; default: none asked, the SDK's newest)")
	fs.Var((*cliflag.Env)(&c.Env), "env", "add `KEY=VALUE` to the client's environment (repeatable; it inherits mcpconform's)")
	fs.StringVar(&c.Dir, "cwd", "", "working directory `DIR` of the client")
	fs.IntVar(&c.Parallel, "parallel", runtime.NumCPU(), "clients run at once (at least 1)")
	cliflag.DurationVar(fs, &c.ScenarioTimeout, "scenario-timeout", DefaultScenarioTimeout, "deadline of one scenario, a `duration`; the client is stopped when it passes")
	fs.BoolVar(&c.Interop, "interop", false, "also run every scenario against each legal variant of the mock that serves a version the client used (reported apart)")
	fs.BoolVar(&c.Resilience, "resilience", false, "also run the client against each fault of the mock (reported apart)")
}

// CheckFlags refuses the values RegisterFlags took, and the client
// command, that make no sense, before anything runs: no client command
// (or one given to record a host by hand: interactive, waiting at most
// interactiveTimeout), no client at once, no deadline, a version or a
// scenario that does not exist. (Where Run takes a zero for a default, a
// flag given 0 is refused.) --interop and --resilience run against every
// legal variant and every fault: it sets Variants and Faults for them
// when they are unset.
func (c *Config) CheckFlags(interactive bool, interactiveTimeout time.Duration) error {
	if interactive {
		if len(c.Command) > 0 {
			return fmt.Errorf("--interactive takes no client command (%q): start your host yourself with the block it prints", strings.Join(c.Command, " "))
		}
		if c.Interop || c.Resilience {
			return errors.New("--interactive records what a host does by hand: --interop and --resilience need a client command")
		}
	} else if len(c.Command) == 0 || strings.TrimSpace(c.Command[0]) == "" {
		return errors.New("no client command; write e.g. mcpconform client -- ./my-client --its-flags")
	}
	if interactiveTimeout < 0 {
		return fmt.Errorf("--interactive-timeout %s: must not be negative", interactiveTimeout)
	}
	transport := c.Transport
	if transport == "" {
		transport = evidence.TransportStdio
	}
	if transport != evidence.TransportStdio && transport != evidence.TransportHTTP {
		return fmt.Errorf("--transport %s: want stdio or http", transport)
	}
	if interactive && transport != evidence.TransportStdio {
		return errors.New("--interactive records a host that starts the mock over stdio: leave --transport out")
	}
	if c.Interop && c.Variants == nil {
		c.Variants = LegalVariantsOn(transport)
	}
	if c.Resilience && c.Faults == nil {
		c.Faults = MockFaultsOn(transport)
	}
	if c.Parallel < 1 {
		return fmt.Errorf("--parallel %d: at least one client must run; write e.g. --parallel 2", c.Parallel)
	}
	if c.ScenarioTimeout <= 0 {
		return fmt.Errorf("--scenario-timeout %s: must be more than zero; write e.g. --scenario-timeout 30s", c.ScenarioTimeout)
	}
	for _, v := range c.Versions {
		if !wire.KnownVersion(v) {
			return fmt.Errorf("--protocol-version %s: want one of %s", v, strings.Join(wire.AllVersions, ", "))
		}
	}
	for _, name := range c.Scenarios {
		sc, ok := ScenarioNamed(name)
		if !ok {
			return fmt.Errorf("--scenario %s: no such scenario (mcpconform client --list lists them)", name)
		}
		if why := sc.NotOn(transport); why != "" {
			return fmt.Errorf("--scenario %s: not over %s: %s", name, transport, why)
		}
	}
	return nil
}

// WriteScenarios writes the scenario catalogue to w, one line each: its
// name, whether the official suite has it, the version it is bound to,
// the transports it runs over and what the client does in it.
func WriteScenarios(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tORIGIN\tVERSION\tTRANSPORT\tWHAT THE CLIENT DOES")
	for _, sc := range Scenarios() {
		origin, v := "mcpconform", sc.Version
		if sc.Official {
			origin = "official"
		}
		if v == "" {
			v = "any"
		}
		if sc.DefaultVersion != "" {
			v = "any (" + sc.DefaultVersion + ")"
		}
		over := "stdio, http"
		switch {
		case sc.NotOn(evidence.TransportHTTP) != "":
			over = "stdio"
		case sc.NotOn(evidence.TransportStdio) != "":
			over = "http"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sc.Name, origin, v, over, sc.Summary)
	}
	return tw.Flush()
}

// RecordUntilInterrupt records a host as Record does, in a new temporary
// directory when Dir is empty, until the user's Ctrl-C (SIGINT, SIGTERM)
// or the timeout: the block goes to stdout, and what to do with it, and
// how many sessions were recorded, to stderr. Ctrl-C is how the user says
// the sessions are over, not an interruption of the run.
func (in Interactive) RecordUntilInterrupt(stdout, stderr io.Writer) (*evidence.ClientRun, error) {
	if in.Dir == "" {
		dir, err := os.MkdirTemp("", "mcpconform-interactive-")
		if err != nil {
			return nil, err
		}
		in.Dir = dir
	}
	fmt.Fprintf(stderr, "mcpconform client: add this server to your host's MCP configuration, use it, then press Ctrl-C to judge; sessions are recorded in %s\n", in.Dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	run, err := in.Record(ctx, stdout)
	stop()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "mcpconform client: judging %d session(s)\n", len(run.Scenarios[0].Spawns))
	return run, nil
}
