package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/clientrun"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/cliflag"
	"github.com/mcpconform/mcpconform/suite/checks"
)

// clientOptions are the flags of `mcpconform client`: run configures the
// run; report holds the report flags it shares with the main command.
type clientOptions struct {
	run                clientrun.Config
	report             *options
	evidence           string
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
	fs := newFlagSet("mcpconform client")
	for _, name := range sharedReportFlags {
		f := sfs.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
	o.run.RegisterFlags(fs)
	fs.StringVar(&o.evidence, "evidence", "", "save everything the run observed to `FILE` (JSON), to judge again later with mcpconform judge")
	fs.BoolVar(&o.list, "list", false, "print the scenarios, one line each, and exit")
	fs.BoolVar(&o.interactive, "interactive", false, "print an mcpServers block naming the recording mock for a host you start yourself, record every session, and judge at Ctrl-C")
	cliflag.DurationVar(fs, &o.interactiveTimeout, "interactive-timeout", 0, "with --interactive, judge after this `duration` without waiting for Ctrl-C (0: wait)")
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
	printFlags(w, fs)
}

var clientCmd = sub{"mcpconform client", "mcpconform help client", clientUsage}

func runClient(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o := clientFlags()
	if code, ok := clientCmd.parse(fs, args, &o.help, nil, stdout, stderr); !ok {
		return code
	}
	if o.list {
		clientrun.WriteScenarios(stdout)
		return exitConformant
	}
	o.run.Command = fs.Args()
	err := o.report.validate()
	if err == nil {
		err = o.run.CheckFlags(o.interactive, o.interactiveTimeout)
	}
	if err != nil {
		return clientCmd.fail(stderr, err)
	}
	if err := o.report.out.CheckPaths(o.report.evidence); err != nil {
		return suiteCmd.fail(stderr, err)
	}
	self, err := os.Executable()
	if err != nil {
		return clientCmd.fail(stderr, fmt.Errorf("finding the mcpconform executable for the mock: %v", err))
	}
	if o.interactive {
		return runInteractive(o, self, stdout, stderr)
	}
	ctx, release := catchInterrupts(stderr)
	defer release()
	cfg := o.run
	cfg.Mock, cfg.Grace, cfg.Tool = []string{self, "mock"}, o.report.run.Grace, version
	run, err := clientrun.Run(ctx, cfg)
	if err != nil {
		return clientCmd.fail(stderr, err)
	}
	return reportClientRun(o.report, run, o.evidence, stdout, stderr)
}

// reportClientRun saves a client run to the evidence file, if there is
// one, judges it, writes its reports and returns the exit code.
func reportClientRun(o *options, run *evidence.ClientRun, evidenceFile string, stdout, stderr io.Writer) int {
	if evidenceFile != "" {
		if err := run.SaveFile(evidenceFile); err != nil {
			return clientCmd.fail(stderr, fmt.Errorf("--evidence: %v", err))
		}
	}
	rep, status := clientrun.Report(run, checks.JudgeScenario, clientrun.ReportOptions{Tool: version, Strict: o.run.Strict})
	if rep.DidNotStart != nil {
		fmt.Fprintf(stderr, "mcpconform client: %s\n", rep.DidNotStart.What)
	}
	return finish(clientCmd, o, rep, status.ExitCode(), o.out.Console(stdout, stderr), stdout, stderr)
}

// runInteractive prints the block for a host, records its sessions until
// Ctrl-C or --interactive-timeout, and judges them.
func runInteractive(o *clientOptions, self string, stdout, stderr io.Writer) int {
	in := clientrun.Interactive{Mock: []string{self, "mock"}, Timeout: o.interactiveTimeout, Tool: version}
	if len(o.run.Scenarios) > 0 {
		in.Scenario = o.run.Scenarios[0]
	}
	run, err := in.RecordUntilInterrupt(stdout, stderr)
	if err != nil {
		return clientCmd.fail(stderr, err)
	}
	return reportClientRun(o.report, run, o.evidence, stdout, stderr)
}
