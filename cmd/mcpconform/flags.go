package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// listFlag collects a repeatable flag into *values; values may also be
// comma-separated. A value that names nothing (--only "", --fault ",") is an
// error: it would otherwise silently select everything or nothing.
type listFlag struct {
	values  *[]string
	example string // a valid use, for the error message
}

func (l listFlag) String() string {
	if l.values == nil {
		return ""
	}
	return strings.Join(*l.values, ",")
}

func (l listFlag) Set(v string) error {
	n := 0
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l.values = append(*l.values, p)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("empty; write e.g. %s", l.example)
	}
	return nil
}

// envFlag collects repeatable KEY=VALUE pairs.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }
func (e *envFlag) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// headerFlag collects repeatable "Name: value" header fields.
type headerFlag []string

func (h *headerFlag) String() string { return strings.Join(*h, "; ") }
func (h *headerFlag) Set(v string) error {
	if _, err := transport.ParseHeaderField(v); err != nil {
		return fmt.Errorf("%v; write e.g. --header 'Authorization: Bearer TOKEN'", err)
	}
	*h = append(*h, v)
	return nil
}

// durationFlag is a time.Duration flag whose parse errors say how to write
// one: "10" gets "write --timeout 10s".
type durationFlag struct {
	d    *time.Duration
	name string
}

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f durationFlag) Set(v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err == nil {
		*f.d = d
		return nil
	}
	if _, nerr := strconv.ParseFloat(strings.TrimSpace(v), 64); nerr == nil {
		return fmt.Errorf("a duration needs a unit; write --%s %ss", f.name, strings.TrimSpace(v))
	}
	return fmt.Errorf("not a duration; write e.g. --%s 10s (units: ms, s, m, h)", f.name)
}

func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(durationFlag{p, name}, name, usage)
}

// options are the flags of a suite run: those that configure the run, and
// those that say where its reports go.
type options struct {
	run runner.Config
	// callTools is --call-tools; validate parses it into run.CallTools.
	callTools string
	// callToolsSet is set when --call-tools was given.
	callToolsSet bool
	// builtIn is set when no command was given: the run is against the
	// built-in reference server.
	builtIn  bool
	vectors  string
	out      reports.Outputs
	evidence string
	// warnings are what validate found wrong but not fatal, printed
	// before the run.
	warnings    []string
	noColor     bool
	color       reports.ColorMode
	verbose     bool
	quiet       bool
	showVersion bool
	help        bool
}

// minRunTimeout is the shortest --run-timeout accepted. Even the built-in
// reference server needs a third of a second; below a second a run can only
// end as a partial report, which is never what was meant.
const minRunTimeout = time.Second

func suiteFlags() (*flag.FlagSet, *options) {
	o := &options{color: reports.ColorAuto}
	fs := flag.NewFlagSet("mcpconform", flag.ContinueOnError)
	// Parse errors are printed by the caller as one line, not followed by
	// the whole flag list.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	durationVar(fs, &o.run.Timeout, "timeout", 10*time.Second, "deadline of one request, a `duration` such as 10s or 1m30s")
	durationVar(fs, &o.run.StartTimeout, "start-timeout", 20*time.Second, "the longest `duration` from starting a server process to its initialize result")
	durationVar(fs, &o.run.RunTimeout, "run-timeout", 5*time.Minute, "the longest `duration` of the whole run, at least 1s; a partial report is written when it passes")
	durationVar(fs, &o.run.ServerRequestWindow, "server-request-window", runner.DefaultServerRequestWindow, "how long, at least, the probe process stays open after its initialize for requests the server makes of the client (roots, sampling, elicitation), a `duration`; the run waits at most this long beyond its own work, and a request arriving later is not seen")
	durationVar(fs, &o.run.Grace, "grace", 2*time.Second, "the `duration` of each wait of the shutdown sequence (stdin closed, then SIGTERM, then SIGKILL)")
	fs.IntVar(&o.run.MaxMessageSize, "max-message-size", 64<<20, "longest stdout line read, in `bytes`; a longer line is not read into memory, and is recorded, not judged (the spec sets no size)")
	fs.StringVar(&o.run.SpecVersion, "spec-version", "", "protocol `version` to judge under: one of "+strings.Join(wire.AllVersions, ", ")+", or all (default: the newest the server agrees to)")
	fs.Var((*envFlag)(&o.run.Env), "env", "add `KEY=VALUE` to the server's environment (repeatable)")
	fs.BoolVar(&o.run.InheritEnv, "inherit-env", false, "pass mcpconform's whole environment to the server (default: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, TMPDIR only)")
	fs.StringVar(&o.run.Dir, "cwd", "", "working directory `DIR` of the server")
	fs.StringVar(&o.run.Transport, "transport", "stdio", "how the server COMMAND starts is reached: `stdio` or http (an HTTP server started on a free port that replaces {port} in its arguments and --env values)")
	fs.IntVar(&o.run.PortFrom, "port-from", 0, "with --transport http, the first `port` tried for the server (default: any free port)")
	fs.StringVar(&o.run.HTTPPath, "http-path", "/mcp", "with --transport http or a unix:// URL, the `path` of the MCP endpoint")
	fs.StringVar(&o.run.Host, "host", "", "with --transport http, the `host` the server is reached at (default: 127.0.0.1, then [::1])")
	fs.Var((*headerFlag)(&o.run.Header), "header", "add the HTTP header field `'Name: value'` to every request to an HTTP server (a token for a protected server; repeatable)")
	fs.StringVar(&o.vectors, "vectors", "", "load vectors from this file or directory `PATH` instead of the built-in ones")
	o.out.RegisterFlags(fs)
	fs.StringVar(&o.evidence, "evidence", "", "save everything the run observed to `FILE` (JSON), to judge again later with mcpconform judge; it holds whatever the server wrote, secrets its tools returned too (see --redact-env)")
	fs.Var(listFlag{&o.run.RedactEnv, "--redact-env API_KEY"}, "redact-env", "replace the values of these environment variables (`NAME`s, comma-separated or repeated; from --env, else mcpconform's environment) with [redacted:NAME] wherever they occur in the evidence and the reports")
	fs.StringVar(&o.run.Baseline, "baseline", "", "known failures in `FILE` (YAML or JSON); listed failures become xfail, listed checks that pass are stale and fail the run")
	fs.BoolVar(&o.run.Strict, "strict", false, "warnings make the run fail too")
	fs.Var(listFlag{&o.run.Only, "--only area:resources"}, "only", "report only checks matching `SELECTOR`: a check id, requirement id, level, area or label (area:resources, level:MUST), case-insensitive, globs allowed (resources-read-*); repeatable, comma-separated")
	fs.Var(listFlag{&o.run.Skip, "--skip robustness"}, "skip", "leave out checks matching `SELECTOR` (as for --only)")
	fs.StringVar(&o.callTools, "call-tools", plan.CallNone, "which listed tools the run may call, with arguments built from their inputSchema: `POLICY` none, readonly (those annotated readOnlyHint: true, trusting the server's annotations), all, or tool names separated by commas (each one the server must list; name:all names a tool called all, none or readonly); without a server command, the built-in reference server's own tools are all called")
	fs.Var(&o.color, "color", "when to colour the console, `mode` auto (only on a terminal, and not when NO_COLOR is set), always or never")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour on the console; the same as --color=never")
	fs.BoolVar(&o.verbose, "verbose", false, "list every check of the versions judged (passes and skips too), and show the matcher and transcript of each problem")
	fs.BoolVar(&o.verbose, "v", false, "the same as --verbose")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the summary and the failing, warning and erroring checks, one line each")
	fs.BoolVar(&o.quiet, "q", false, "the same as --quiet")
	fs.IntVar(&o.run.Parallel, "parallel", 4, "server processes run at once (at least 1)")
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&o.help, "help", false, "show this help")
	return fs, o
}

// validate refuses flag values that parse but make no sense, before
// anything runs. Each error is one line that names the flag and shows a
// valid use. It normalizes --spec-version (any case for all, no spaces).
func (o *options) validate() error {
	for _, d := range []struct {
		name    string
		v       time.Duration
		example string
	}{
		{"timeout", o.run.Timeout, "10s"},
		{"start-timeout", o.run.StartTimeout, "20s"},
		{"run-timeout", o.run.RunTimeout, "5m"},
		{"grace", o.run.Grace, "2s"},
		{"server-request-window", o.run.ServerRequestWindow, "1s"},
	} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %s: must be more than zero; write e.g. --%s %s", d.name, d.v, d.name, d.example)
		}
	}
	if o.run.RunTimeout < minRunTimeout {
		return fmt.Errorf("--run-timeout %s: too short for any run (the least is %s); write e.g. --run-timeout 5m", o.run.RunTimeout, minRunTimeout)
	}
	if o.run.MaxMessageSize <= 0 {
		return fmt.Errorf("--max-message-size %d: must be a positive number of bytes; write e.g. --max-message-size 1048576", o.run.MaxMessageSize)
	}
	if o.run.Parallel < 1 {
		return fmt.Errorf("--parallel %d: at least one server process must run; write e.g. --parallel 4", o.run.Parallel)
	}
	if o.run.Dir != "" {
		st, err := os.Stat(o.run.Dir)
		switch {
		case err != nil && errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("--cwd %s: no such directory; write e.g. --cwd ./server", o.run.Dir)
		case err != nil:
			return fmt.Errorf("--cwd %s: %v", o.run.Dir, err)
		case !st.IsDir():
			return fmt.Errorf("--cwd %s: not a directory; write e.g. --cwd %s", o.run.Dir, dirOf(o.run.Dir))
		}
	}
	v := strings.TrimSpace(o.run.SpecVersion)
	if strings.EqualFold(v, "all") {
		v = "all"
	}
	if v != "" && v != "all" && !wire.KnownVersion(v) {
		return fmt.Errorf("unknown --spec-version %q: want one of %s, or all; write e.g. --spec-version %s", o.run.SpecVersion, strings.Join(wire.AllVersions, ", "), wire.Newest)
	}
	o.run.SpecVersion = v
	p, err := plan.ParseToolPolicy(o.callTools)
	if err != nil {
		return err
	}
	o.run.CallTools = p
	if o.noColor {
		if o.color == reports.ColorAlways {
			return errors.New("--no-color and --color=always contradict each other; write one of them")
		}
		o.color = reports.ColorNever
	}
	var missing, short []string
	_, missing, short = redact.Secrets(o.run.RedactEnv, o.run.Env, os.LookupEnv)
	for _, name := range missing {
		o.warnings = append(o.warnings, fmt.Sprintf("--redact-env %s: no such variable in --env or the environment; nothing to redact", name))
	}
	for _, name := range short {
		o.warnings = append(o.warnings, fmt.Sprintf("--redact-env %s: its value is shorter than %d characters and is left as it is (it would blank out ordinary text)", name, redact.MinLength))
	}
	if o.quiet && o.verbose {
		return errors.New("--quiet and --verbose contradict each other; write one of them")
	}
	return o.out.Check()
}

// dirOf is a directory to suggest in place of the file path p.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "."
}

// validateCommand refuses an empty server command (mcpconform -- ""),
// takes a URL target out of the command line into o.run.URL, and checks
// that the flags fit the target: an HTTP server started on a port must be
// told the port, and a URL names a server nobody starts.
func (o *options) validateCommand(command []string, set map[string]bool) ([]string, error) {
	if len(command) > 0 && strings.TrimSpace(command[0]) == "" {
		return nil, errors.New("the server command is empty; write e.g. mcpconform -- ./my-server --its-flags")
	}
	if len(command) > 0 && runner.IsURL(command[0]) {
		if len(command) > 1 {
			return nil, fmt.Errorf("a URL names a running server, which takes no arguments (%q); write mcpconform %s", strings.Join(command[1:], " "), command[0])
		}
		if set["transport"] && o.run.Transport != "http" {
			return nil, fmt.Errorf("--transport %s: %s is reached over HTTP", o.run.Transport, command[0])
		}
		if err := runner.CheckURL(command[0]); err != nil {
			return nil, err
		}
		for _, f := range []string{"env", "inherit-env", "cwd", "port-from", "host"} {
			if set[f] {
				return nil, fmt.Errorf("--%s: %s names a server already running, which mcpconform does not start", f, command[0])
			}
		}
		o.run.URL, o.run.Transport = command[0], "http"
		return nil, nil
	}
	switch o.run.Transport {
	case "stdio":
		for _, f := range []string{"port-from", "host", "http-path", "header"} {
			if set[f] {
				return nil, fmt.Errorf("--%s is for an HTTP server: give its URL, or start it with --transport http -- COMMAND ... {port}", f)
			}
		}
	case "http":
		if len(command) == 0 {
			return nil, errors.New("--transport http starts a server: write e.g. mcpconform --transport http -- ./server --port {port}")
		}
		if !namesPort(command, o.run.Env) {
			return nil, fmt.Errorf("--transport http: nothing tells the server its port; put %s in its arguments (./server --port %s) or in an --env value (--env PORT=%s)", transport.PortPlaceholder, transport.PortPlaceholder, transport.PortPlaceholder)
		}
	default:
		return nil, fmt.Errorf("--transport %s: want stdio or http", o.run.Transport)
	}
	return command, nil
}

// namesPort reports whether {port} appears in an argument or an --env
// value.
func namesPort(command, env []string) bool {
	for _, s := range append(append([]string(nil), command...), env...) {
		if strings.Contains(s, transport.PortPlaceholder) {
			return true
		}
	}
	return false
}
