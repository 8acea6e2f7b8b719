package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// listFlag collects a repeatable flag; values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
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

// options are the flags of a suite run.
type options struct {
	timeout        time.Duration
	startTimeout   time.Duration
	runTimeout     time.Duration
	grace          time.Duration
	maxMessageSize int
	specVersion    string
	env            envFlag
	inheritEnv     bool
	dir            string
	vectors        string
	jsonOut        string
	junitOut       string
	markdownOut    string
	htmlOut        string
	reportDir      string
	baseline       string
	strict         bool
	only, skip     listFlag
	// onlySel and skipSel are only and skip parsed.
	onlySel, skipSel []selector
	// builtIn is set when no command was given: the run is against the
	// built-in reference server.
	builtIn     bool
	noColor     bool
	verbose     bool
	quiet       bool
	showVersion bool
	help        bool
	parallel    int
}

func suiteFlags() (*flag.FlagSet, *options) {
	o := &options{}
	fs := flag.NewFlagSet("mcpconform", flag.ContinueOnError)
	// Parse errors are printed by the caller as one line, not followed by
	// the whole flag list.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "deadline of one request")
	fs.DurationVar(&o.startTimeout, "start-timeout", 20*time.Second, "deadline from starting a server process to its initialize result")
	fs.DurationVar(&o.runTimeout, "run-timeout", 5*time.Minute, "deadline of the whole run; a partial report is written when it passes")
	fs.DurationVar(&o.grace, "grace", 2*time.Second, "each wait of the shutdown sequence (stdin closed, then SIGTERM, then SIGKILL)")
	fs.IntVar(&o.maxMessageSize, "max-message-size", 64<<20, "longest stdout line accepted, in bytes; longer lines are violations and are not read into memory")
	fs.StringVar(&o.specVersion, "spec-version", "", "protocol version to judge under: a version such as 2025-06-18, or all (default: the newest the server agrees to)")
	fs.Var(&o.env, "env", "add KEY=VALUE to the server's environment (repeatable)")
	fs.BoolVar(&o.inheritEnv, "inherit-env", false, "pass mcpconform's whole environment to the server (default: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, TMPDIR only)")
	fs.StringVar(&o.dir, "cwd", "", "working directory `DIR` of the server")
	fs.StringVar(&o.vectors, "vectors", "", "load vectors from this file or directory `PATH` instead of the built-in ones")
	fs.StringVar(&o.jsonOut, "json", "", "write the JSON report to `FILE`")
	fs.StringVar(&o.junitOut, "junit", "", "write a JUnit XML report to `FILE`")
	fs.StringVar(&o.markdownOut, "markdown", "", "write a Markdown report to `FILE` (for a CI job summary)")
	fs.StringVar(&o.htmlOut, "html", "", "write a self-contained HTML report to `FILE`")
	fs.StringVar(&o.reportDir, "report-dir", "", "write every report format into `DIR` with fixed names")
	fs.StringVar(&o.baseline, "baseline", "", "known failures in `FILE` (YAML or JSON); listed failures become xfail, listed checks that pass are stale and fail the run")
	fs.BoolVar(&o.strict, "strict", false, "warnings make the run fail too")
	fs.Var(&o.only, "only", "report only checks matching `SELECTOR`: a check id, requirement id, level, area or label (area:resources, level:MUST), case-insensitive, globs allowed (resources-read-*); repeatable, comma-separated")
	fs.Var(&o.skip, "skip", "leave out checks matching `SELECTOR` (as for --only)")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour on the console (NO_COLOR is honoured too)")
	fs.BoolVar(&o.verbose, "verbose", false, "show details for every check, not only failures and warnings")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the summary on the console")
	fs.IntVar(&o.parallel, "parallel", 4, "server processes run at once")
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&o.help, "help", false, "show this help")
	return fs, o
}
