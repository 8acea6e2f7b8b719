package runner

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/cliflag"
	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/wire"
)

// RegisterFlags defines on fs the flags that configure a run, with the
// command's defaults: the deadlines, the server's environment and how it
// is reached, the version judged, the checks selected, the baseline and
// the redacted variables. CallTools, Vectors and what says where the
// reports go are the caller's. CheckFlags checks what they were given.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	cliflag.DurationVar(fs, &c.Timeout, "timeout", 10*time.Second, "deadline of one request, a `duration` such as 10s or 1m30s")
	cliflag.DurationVar(fs, &c.StartTimeout, "start-timeout", 20*time.Second, "the longest `duration` from starting a server process to its initialize result")
	cliflag.DurationVar(fs, &c.RunTimeout, "run-timeout", 5*time.Minute, "the longest `duration` of the whole run, at least 1s; a partial report is written when it passes")
	cliflag.DurationVar(fs, &c.ServerRequestWindow, "server-request-window", DefaultServerRequestWindow, "how long, at least, the probe process stays open after its initialize for requests the server makes of the client (roots, sampling, elicitation), a `duration`; the run waits at most this long beyond its own work, and a request arriving later is not seen")
	cliflag.DurationVar(fs, &c.Grace, "grace", 2*time.Second, "the `duration` of each wait of the shutdown sequence (stdin closed, then SIGTERM, then SIGKILL)")
	fs.IntVar(&c.MaxMessageSize, "max-message-size", 64<<20, "longest stdout line read, in `bytes`; a longer line is not read into memory, and is recorded, not judged (the spec sets no size)")
	fs.StringVar(&c.SpecVersion, "spec-version", "", "protocol `version` to judge under: one of "+strings.Join(wire.AllVersions, ", ")+", or all (default: the newest the server agrees to)")
	fs.Var((*cliflag.Env)(&c.Env), "env", "add `KEY=VALUE` to the server's environment (repeatable)")
	fs.BoolVar(&c.InheritEnv, "inherit-env", false, "pass mcpconform's whole environment to the server (default: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, TMPDIR only)")
	fs.StringVar(&c.Dir, "cwd", "", "working directory `DIR` of the server")
	fs.StringVar(&c.Transport, "transport", "stdio", "how the server COMMAND starts is reached: `stdio` or http (an HTTP server started on a free port that replaces {port} in its arguments and --env values)")
	fs.IntVar(&c.PortFrom, "port-from", 0, "with --transport http, the first `port` tried for the server (default: any free port)")
	fs.StringVar(&c.HTTPPath, "http-path", "/mcp", "with --transport http or a unix:// URL, the `path` of the MCP endpoint")
	fs.StringVar(&c.Host, "host", "", "with --transport http, the `host` the server is reached at (default: 127.0.0.1, then [::1])")
	fs.Var((*headerFlag)(&c.Header), "header", "add the HTTP header field `'Name: value'` to every request to an HTTP server (a token for a protected server; repeatable)")
	fs.Var(cliflag.List{Values: &c.RedactEnv, Example: "--redact-env API_KEY"}, "redact-env", "replace the values of these environment variables (`NAME`s, comma-separated or repeated; from --env, else mcpconform's environment) with [redacted:NAME] wherever they occur in the evidence and the reports")
	fs.StringVar(&c.Baseline, "baseline", "", "known failures in `FILE` (YAML or JSON); listed failures become xfail, listed checks that pass are stale and fail the run")
	fs.BoolVar(&c.Strict, "strict", false, "warnings make the run fail too")
	fs.Var(cliflag.List{Values: &c.Only, Example: "--only area:resources"}, "only", "report only checks matching `SELECTOR`: a check id, requirement id, level, area or label (area:resources, level:MUST), case-insensitive, globs allowed (resources-read-*); repeatable, comma-separated")
	fs.Var(cliflag.List{Values: &c.Skip, Example: "--skip robustness"}, "skip", "leave out checks matching `SELECTOR` (as for --only)")
	fs.IntVar(&c.Parallel, "parallel", 4, "server processes run at once (at least 1)")
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

// MinRunTimeout is the shortest --run-timeout accepted. Even the built-in
// reference server needs a third of a second; below a second a run can
// only end as a partial report, which is never what was meant.
const MinRunTimeout = time.Second

// CheckFlags refuses the values RegisterFlags took that parse but make no
// sense, before anything runs (where New would take a zero for a
// default, a flag given 0 is refused). Each error is one line that names
// the flag and shows a valid use. It normalizes SpecVersion (any case for
// all, no spaces), and returns what is wrong but not fatal: a variable of
// RedactEnv with no value, or one too short to be redacted.
func (c *Config) CheckFlags() (warnings []string, err error) {
	for _, d := range []struct {
		name    string
		v       time.Duration
		example string
	}{
		{"timeout", c.Timeout, "10s"},
		{"start-timeout", c.StartTimeout, "20s"},
		{"run-timeout", c.RunTimeout, "5m"},
		{"grace", c.Grace, "2s"},
		{"server-request-window", c.ServerRequestWindow, "1s"},
	} {
		if d.v <= 0 {
			return nil, fmt.Errorf("--%s %s: must be more than zero; write e.g. --%s %s", d.name, d.v, d.name, d.example)
		}
	}
	if c.RunTimeout < MinRunTimeout {
		return nil, fmt.Errorf("--run-timeout %s: too short for any run (the least is %s); write e.g. --run-timeout 5m", c.RunTimeout, MinRunTimeout)
	}
	if c.MaxMessageSize <= 0 {
		return nil, fmt.Errorf("--max-message-size %d: must be a positive number of bytes; write e.g. --max-message-size 1048576", c.MaxMessageSize)
	}
	if c.Parallel < 1 {
		return nil, fmt.Errorf("--parallel %d: at least one server process must run; write e.g. --parallel 4", c.Parallel)
	}
	if c.Dir != "" {
		st, err := os.Stat(c.Dir)
		switch {
		case err != nil && errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("--cwd %s: no such directory; write e.g. --cwd ./server", c.Dir)
		case err != nil:
			return nil, fmt.Errorf("--cwd %s: %v", c.Dir, err)
		case !st.IsDir():
			return nil, fmt.Errorf("--cwd %s: not a directory; write e.g. --cwd %s", c.Dir, dirOf(c.Dir))
		}
	}
	v := strings.TrimSpace(c.SpecVersion)
	if strings.EqualFold(v, "all") {
		v = "all"
	}
	if v != "" && v != "all" && !wire.KnownVersion(v) {
		return nil, fmt.Errorf("unknown --spec-version %q: want one of %s, or all; write e.g. --spec-version %s", c.SpecVersion, strings.Join(wire.AllVersions, ", "), wire.Newest)
	}
	c.SpecVersion = v
	_, missing, short := redact.Secrets(c.RedactEnv, c.Env, os.LookupEnv)
	for _, name := range missing {
		warnings = append(warnings, fmt.Sprintf("--redact-env %s: no such variable in --env or the environment; nothing to redact", name))
	}
	for _, name := range short {
		warnings = append(warnings, fmt.Sprintf("--redact-env %s: its value is shorter than %d characters and is left as it is (it would blank out ordinary text)", name, redact.MinLength))
	}
	return warnings, nil
}

// dirOf is a directory to suggest in place of the file path p.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "."
}

// SetTarget takes the target out of the words after the flags: a URL goes
// to URL (Transport http), a command is returned, for Command. It refuses
// an empty command (mcpconform -- ""), and flags given (given reports
// which) that do not fit the target: an HTTP server started on a port
// must be told the port, and a URL names a server nobody starts.
func (c *Config) SetTarget(command []string, given func(flag string) bool) ([]string, error) {
	if len(command) > 0 && strings.TrimSpace(command[0]) == "" {
		return nil, errors.New("the server command is empty; write e.g. mcpconform -- ./my-server --its-flags")
	}
	if len(command) > 0 && IsURL(command[0]) {
		if len(command) > 1 {
			return nil, fmt.Errorf("a URL names a running server, which takes no arguments (%q); write mcpconform %s", strings.Join(command[1:], " "), command[0])
		}
		if given("transport") && c.Transport != "http" {
			return nil, fmt.Errorf("--transport %s: %s is reached over HTTP", c.Transport, command[0])
		}
		if err := CheckURL(command[0]); err != nil {
			return nil, err
		}
		for _, f := range []string{"env", "inherit-env", "cwd", "port-from", "host"} {
			if given(f) {
				return nil, fmt.Errorf("--%s: %s names a server already running, which mcpconform does not start", f, command[0])
			}
		}
		c.URL, c.Transport = command[0], "http"
		return nil, nil
	}
	switch c.Transport {
	case "stdio":
		for _, f := range []string{"port-from", "host", "http-path", "header"} {
			if given(f) {
				return nil, fmt.Errorf("--%s is for an HTTP server: give its URL, or start it with --transport http -- COMMAND ... {port}", f)
			}
		}
	case "http":
		if len(command) == 0 {
			return nil, errors.New("--transport http starts a server: write e.g. mcpconform --transport http -- ./server --port {port}")
		}
		if !namesPort(command, c.Env) {
			return nil, fmt.Errorf("--transport http: nothing tells the server its port; put %s in its arguments (./server --port %s) or in an --env value (--env PORT=%s)", transport.PortPlaceholder, transport.PortPlaceholder, transport.PortPlaceholder)
		}
	default:
		return nil, fmt.Errorf("--transport %s: want stdio or http", c.Transport)
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
