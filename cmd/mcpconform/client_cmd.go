package main

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

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite/checks"
	"github.com/mcpconform/mcpconform/wire"
)

// clientOptions are the flags of `mcpconform client`; report holds the
// report flags it shares with the main command.
type clientOptions struct {
	report             *options
	evidence           string
	transport          string
	scenarios          []string
	versions           []string
	env                []string
	dir                string
	parallel           int
	scenarioTimeout    time.Duration
	interop            bool
	resilience         bool
	list               bool
	interactive        bool
	interactiveTimeout time.Duration
	help               bool
}

// sharedReportFlags are the main command's flags that client mode takes
// as they are: where reports go and how the console looks.
var sharedReportFlags = []string{"json", "junit", "markdown", "html", "sarif", "sarif-artifact", "report-dir", "strict", "color", "no-color", "verbose", "v", "quiet", "q"}

func clientFlags() (*flag.FlagSet, *clientOptions) {
	sfs, so := suiteFlags()
	o := &clientOptions{report: so}
	fs := flag.NewFlagSet("mcpconform client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, name := range sharedReportFlags {
		f := sfs.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
	fs.StringVar(&o.evidence, "evidence", "", "save everything the run observed to `FILE` (JSON), to judge again later with mcpconform judge")
	fs.StringVar(&o.transport, "transport", evidence.TransportStdio, "how the client reaches the mock: `stdio` (it starts MCP_CONFORMANCE_SERVER_COMMAND) or http (Streamable HTTP: the mock's URL is its last argument)")
	fs.Var(listFlag{&o.scenarios, "--scenario initialize,tools_call"}, "scenario", "run only the scenarios `NAME`d (comma-separated or repeated; see --list)")
	fs.Var(listFlag{&o.versions, "--protocol-version 2025-06-18"}, "protocol-version", "run each scenario once per protocol `VERSION` asked of the client (MCP_CONFORMANCE_PROTOCOL_VERSION; comma-separated or repeated; default: none asked, the SDK's newest)")
	fs.Var((*envFlag)(&o.env), "env", "add `KEY=VALUE` to the client's environment (repeatable; it inherits mcpconform's)")
	fs.StringVar(&o.dir, "cwd", "", "working directory `DIR` of the client")
	fs.IntVar(&o.parallel, "parallel", runtime.NumCPU(), "clients run at once (at least 1)")
	durationVar(fs, &o.scenarioTimeout, "scenario-timeout", clientrun.DefaultScenarioTimeout, "deadline of one scenario, a `duration`; the client is stopped when it passes")
	fs.BoolVar(&o.interop, "interop", false, "also run every scenario against each legal variant of the mock that serves a version the client used (reported apart)")
	fs.BoolVar(&o.resilience, "resilience", false, "also run the client against each fault of the mock (reported apart)")
	fs.BoolVar(&o.list, "list", false, "print the scenarios, one line each, and exit")
	fs.BoolVar(&o.interactive, "interactive", false, "print an mcpServers block naming the recording mock for a host you start yourself, record every session, and judge at Ctrl-C")
	durationVar(fs, &o.interactiveTimeout, "interactive-timeout", 0, "with --interactive, judge after this `duration` without waiting for Ctrl-C (0: wait)")
	fs.BoolVar(&o.help, "help", false, "show this help")
	return fs, o
}

func clientUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpconform client [flags] -- CLIENT_CMD [ARGS...]
       mcpconform client --list
       mcpconform client --interactive [flags]

Judges an MCP client over stdio or Streamable HTTP. The client is run
once per scenario with the conformance contract's environment:
MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION (when asked),
MCP_CONFORMANCE_CONTEXT and, over stdio, MCP_CONFORMANCE_SERVER_COMMAND,
the argv (a JSON array) of a recording mock server it is to start; with
--transport http the URL of a recording mock served on 127.0.0.1 is
appended to its arguments instead. What the client sent each server is
judged against the client rules of the spec.

Reports and exit codes are those of server mode: 0 conformant, 1 not
conformant, 2 usage error, 3 the client could not be started, 4 the run
was cut short. Interoperability (--interop) and resilience (--resilience)
runs are reported apart: only a MUST broken in them fails the run.

Flags:
`)
	fs, _ := clientFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runClient(args []string, stdout, stderr io.Writer) int {
	fs, o := clientFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			clientUsage(stdout)
			return exitConformant
		}
		fmt.Fprintf(stderr, "mcpconform client: %v (mcpconform help client lists the flags)\n", err)
		return exitUsage
	}
	if o.help {
		clientUsage(stdout)
		return exitConformant
	}
	if o.list {
		writeScenarios(stdout)
		return exitConformant
	}
	if err := o.validate(fs.Args()); err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	if !checkDestinations(o.report, stderr) {
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: finding the mcpconform executable for the mock: %v\n", err)
		return exitUsage
	}
	if o.interactive {
		return runInteractive(o, self, stdout, stderr)
	}
	stop := catchInterrupts(stderr)
	defer stop.release()
	cfg := clientrun.Config{
		Command: fs.Args(), Dir: o.dir, Env: o.env, Mock: []string{self, "mock"}, Transport: o.transport,
		Scenarios: o.scenarios, Versions: o.versions, Parallel: o.parallel,
		ScenarioTimeout: o.scenarioTimeout, Grace: o.report.run.Grace, Tool: version,
		Interop: o.interop, Resilience: o.resilience,
	}
	if o.interop {
		cfg.Variants = clientrun.LegalVariantsOn(o.transport)
	}
	if o.resilience {
		cfg.Faults = clientrun.MockFaultsOn(o.transport)
	}
	run, err := clientrun.Run(stop.ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	if !saveClientEvidence(o, run, stderr) {
		return exitUsage
	}
	return reportClientRun(o.report, run, stdout, stderr)
}

// saveClientEvidence writes the run to --evidence, if given.
func saveClientEvidence(o *clientOptions, run *evidence.ClientRun, stderr io.Writer) bool {
	if o.evidence == "" {
		return true
	}
	if err := run.SaveFile(o.evidence); err != nil {
		fmt.Fprintf(stderr, "mcpconform client: --evidence: %v\n", err)
		return false
	}
	return true
}

// reportClientRun judges a client run, writes its reports and returns
// the exit code.
func reportClientRun(o *options, run *evidence.ClientRun, stdout, stderr io.Writer) int {
	rep, status := clientrun.Report(run, checks.JudgeScenario, clientrun.ReportOptions{Tool: version, Strict: o.run.Strict})
	if rep.DidNotStart != nil {
		fmt.Fprintf(stderr, "mcpconform client: %s\n", rep.DidNotStart.What)
	}
	console := consoleWriter(o, stdout, stderr)
	if err := writeReports(o, rep, console, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	code := int(status)
	tellPartial(stderr, o, rep, code)
	return code
}

// validate checks the flags and the client command before anything runs.
func (o *clientOptions) validate(command []string) error {
	if err := o.report.validate(); err != nil {
		return err
	}
	if o.interactive {
		if len(command) > 0 {
			return fmt.Errorf("--interactive takes no client command (%q): start your host yourself with the block it prints", strings.Join(command, " "))
		}
		if o.interop || o.resilience {
			return errors.New("--interactive records what a host does by hand: --interop and --resilience need a client command")
		}
	} else if len(command) == 0 || strings.TrimSpace(command[0]) == "" {
		return errors.New("no client command; write e.g. mcpconform client -- ./my-client --its-flags")
	}
	if o.interactiveTimeout < 0 {
		return fmt.Errorf("--interactive-timeout %s: must not be negative", o.interactiveTimeout)
	}
	if o.parallel < 1 {
		return fmt.Errorf("--parallel %d: at least one client must run; write e.g. --parallel 2", o.parallel)
	}
	if o.scenarioTimeout <= 0 {
		return fmt.Errorf("--scenario-timeout %s: must be more than zero; write e.g. --scenario-timeout 30s", o.scenarioTimeout)
	}
	for _, v := range o.versions {
		if !wire.KnownVersion(v) {
			return fmt.Errorf("--protocol-version %s: want one of %s", v, strings.Join(wire.AllVersions, ", "))
		}
	}
	if o.transport != evidence.TransportStdio && o.transport != evidence.TransportHTTP {
		return fmt.Errorf("--transport %s: want stdio or http", o.transport)
	}
	if o.interactive && o.transport != evidence.TransportStdio {
		return errors.New("--interactive records a host that starts the mock over stdio: leave --transport out")
	}
	for _, name := range o.scenarios {
		sc, ok := clientrun.ScenarioNamed(name)
		if !ok {
			return fmt.Errorf("--scenario %s: no such scenario (mcpconform client --list lists them)", name)
		}
		if why := sc.NotOn(o.transport); why != "" {
			return fmt.Errorf("--scenario %s: not over %s: %s", name, o.transport, why)
		}
	}
	return nil
}

// writeScenarios prints the scenario catalogue, one line each.
func writeScenarios(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tORIGIN\tVERSION\tTRANSPORT\tWHAT THE CLIENT DOES")
	for _, sc := range clientrun.Scenarios() {
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
	tw.Flush()
}

// runInteractive prints the block for a host, records its sessions until
// Ctrl-C or --interactive-timeout, and judges them.
func runInteractive(o *clientOptions, self string, stdout, stderr io.Writer) int {
	dir, err := os.MkdirTemp("", "mcpconform-interactive-")
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	in := clientrun.Interactive{Mock: []string{self, "mock"}, Dir: dir, Timeout: o.interactiveTimeout, Tool: version}
	if len(o.scenarios) > 0 {
		in.Scenario = o.scenarios[0]
	}
	fmt.Fprintf(stderr, "mcpconform client: add this server to your host's MCP configuration, use it, then press Ctrl-C to judge; sessions are recorded in %s\n", dir)
	// Ctrl-C is how the user says the sessions are over: not an
	// interruption of the run.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	run, err := in.Record(ctx, stdout)
	stop()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform client: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "mcpconform client: judging %d session(s)\n", len(run.Scenarios[0].Spawns))
	if !saveClientEvidence(o, run, stderr) {
		return exitUsage
	}
	return reportClientRun(o.report, run, stdout, stderr)
}
