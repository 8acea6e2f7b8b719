package main

import (
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/runner"
)

func judgeUsage(w io.Writer) {
	fmt.Fprint(w, `usage: mcpconform judge [flags] EVIDENCE.json

Judges a run saved with --evidence again, with no server: the same checks
this mcpconform has, over the traffic recorded then. A client run saved by
mcpconform client --evidence is judged by the client checks. Useful to re-judge an
old run with a newer mcpconform, or to attach a run to a bug report.

It takes the report flags of the main command (--json, --junit,
--markdown, --html, --report-dir, --baseline, --strict, --only, --skip,
--redact-env, --color, --verbose, --quiet) and exits like it: 0
conformant, 1 not conformant, 2 usage error, 3 the recorded server never
started, 4 the recorded run was cut short.

An evidence file is input like any other: one over 256 MiB, nested deeper
than 600 levels, or recording no process is refused (exit 2), and so is
one whose vectors (a run recorded with --vectors keeps them) would pass
whatever the server did. Every report says whether the vectors were this
mcpconform's or the file's, and a run that judged nothing (every check
skipped) is never called conformant.

The evidence holds whatever the server wrote, tool results included: look
before you attach it anywhere, or record it with --redact-env NAME,... to
have the values of those environment variables replaced by
[redacted:NAME]. A report (what --json writes) is not evidence: it keeps
the verdicts, not the traffic they were judged from.

  mcpconform --evidence run.json -- ./my-server   # record
  mcpconform judge --report-dir out run.json      # judge again, no server
`)
}

var judgeCmd = sub{"mcpconform judge", "mcpconform help judge", judgeUsage}

func runJudge(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, o := suiteFlags()
	if code, ok := judgeCmd.parse(fs, args, &o.help, nil, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return judgeCmd.fail(stderr, fmt.Errorf("want one evidence file, got %d arguments; write e.g. mcpconform judge run.json", fs.NArg()))
	}
	if err := o.validate(); err != nil {
		return judgeCmd.fail(stderr, err)
	}
	for _, w := range o.warnings {
		fmt.Fprintf(stderr, "mcpconform judge: %s\n", w)
	}
	if evidence.IsClientRunFile(fs.Arg(0)) {
		// What mcpconform client --evidence saved: judged by the client
		// checks.
		run, err := evidence.LoadClientRunFile(fs.Arg(0))
		if err != nil {
			return judgeCmd.fail(stderr, err)
		}
		if err := o.out.CheckPaths(o.evidence); err != nil {
			return suiteCmd.fail(stderr, err)
		}
		return reportClientRun(o, run, "", stdout, stderr)
	}
	run, source, err := runner.LoadEvidence(fs.Arg(0), version)
	if err != nil {
		return judgeCmd.fail(stderr, err)
	}
	console := o.out.Console(stdout, stderr)
	r, err := runner.New(o.runConfig(console, stderr))
	if err != nil {
		return judgeCmd.fail(stderr, err)
	}
	if err := o.out.CheckPaths(o.evidence); err != nil {
		return suiteCmd.fail(stderr, err)
	}
	ctx, release := catchInterrupts(stderr)
	defer release()
	rep, out, err := r.Judge(ctx, run)
	if rep != nil {
		rep.Target.Vectors = source
	}
	rep, code := tell(stderr, rep, out, err)
	if rep == nil {
		return code
	}
	return finish(judgeCmd, o, rep, code, console, stdout, stderr)
}
