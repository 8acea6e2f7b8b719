package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// runCLIEnv is runCLIIn with extra environment variables.
func runCLIEnv(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), args...)
	if dir == "" {
		dir = t.TempDir()
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running mcpconform %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("mcpconform %s did not finish within a minute", strings.Join(args, " "))
	}
	return cliResult{code, stdout.String(), stderr.String()}
}

// TestFlagsRefuseNonsense: a flag value that parses but makes no sense is a
// usage error before anything runs: exit 2, nothing on stdout, and one line
// on stderr that names the flag and shows a valid use.
func TestFlagsRefuseNonsense(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // substrings of the one stderr line
	}{
		{[]string{"--max-message-size", "-1"}, []string{"--max-message-size -1", "--max-message-size 1048576"}},
		{[]string{"--max-message-size", "0"}, []string{"--max-message-size 0", "--max-message-size 1048576"}},
		{[]string{"--grace", "-1s"}, []string{"--grace -1s", "--grace 2s"}},
		{[]string{"--grace", "0s"}, []string{"--grace 0s", "--grace 2s"}},
		{[]string{"--timeout", "-5s"}, []string{"--timeout -5s", "--timeout 10s"}},
		{[]string{"--timeout", "10"}, []string{"-timeout", "write --timeout 10s"}},
		{[]string{"--start-timeout", "30"}, []string{"-start-timeout", "write --start-timeout 30s"}},
		{[]string{"--run-timeout", "300"}, []string{"-run-timeout", "write --run-timeout 300s"}},
		{[]string{"--run-timeout", "1ns"}, []string{"--run-timeout 1ns", "the least is 1s", "--run-timeout 5m"}},
		{[]string{"--run-timeout", "999ms"}, []string{"--run-timeout 999ms", "--run-timeout 5m"}},
		{[]string{"--start-timeout", "0s"}, []string{"--start-timeout 0s", "--start-timeout 20s"}},
		{[]string{"--parallel", "0"}, []string{"--parallel 0", "--parallel 4"}},
		{[]string{"-q", "-v"}, []string{"--quiet and --verbose contradict each other"}},
		{[]string{"--parallel", "-3"}, []string{"--parallel -3", "--parallel 4"}},
		{[]string{"--cwd", "/nonexistent/dir", "./server"}, []string{"--cwd /nonexistent/dir", "no such directory", "--cwd ./server"}},
		{[]string{"--", ""}, []string{"server command is empty", "mcpconform -- ./my-server"}},
		{[]string{"--", "  "}, []string{"server command is empty"}},
		{[]string{"--spec-version", "2025-13-01"}, []string{`--spec-version "2025-13-01"`, "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, or all", "--spec-version 2025-11-25"}},
		{[]string{"--only", ""}, []string{"-only", "--only area:resources"}},
		{[]string{"--skip", " , "}, []string{"-skip", "--skip robustness"}},
		{[]string{"--only", "area:resource"}, []string{`--only "area:resource"`, "did you mean area:resources?"}},
		{[]string{"--skip", "resources-read-unknwn-uri"}, []string{`--skip "resources-read-unknwn-uri"`, "did you mean resources-read-unknown-uri?"}},
		{[]string{"--only", "res-read-5"}, []string{"did you mean RES-READ-05?"}},
		{[]string{"--only", "resources-read"}, []string{"did you mean resources-read*?"}},
		{[]string{"--only", "qqqqqqqqqqqqqqqq"}, []string{`--only "qqqqqqqqqqqqqqqq"`, "mcpconform list --checks"}},
		{[]string{"--json", "-", "--junit", "-"}, []string{"--json - and --junit -", "only one report can go to stdout"}},
		{[]string{"--report-dir", "-"}, []string{"--report-dir -", "--json -"}},
		{[]string{"--color", "sometimes"}, []string{"-color", "--color=never"}},
		{[]string{"--no-color", "--color=always"}, []string{"--no-color and --color=always"}},
		{[]string{"--call-tools", "ALL"}, []string{`--call-tools "ALL"`, "did you mean --call-tools all?"}},
		{[]string{"--call-tools", "None"}, []string{`--call-tools "None"`, "did you mean --call-tools none?"}},
		{[]string{"--call-tools", "read-only"}, []string{`--call-tools "read-only"`, "did you mean --call-tools readonly?"}},
		{[]string{"--call-tools", "*"}, []string{`--call-tools "*"`, "did you mean --call-tools all?"}},
		{[]string{"--call-tools", "echo,ALL"}, []string{`--call-tools "echo,ALL"`, "did you mean --call-tools all?"}},
		{[]string{"--call-tools", ""}, []string{`--call-tools ""`, "--call-tools readonly"}},
		{[]string{"--call-tools", " , "}, []string{`--call-tools " , "`, "--call-tools echo,add"}},
		{[]string{"--call-tools", "echo,,add"}, []string{`--call-tools "echo,,add"`, "an empty tool name", "--call-tools echo,add"}},
		{[]string{"--call-tools", "all,echo"}, []string{`--call-tools "all,echo"`, "write --call-tools all alone"}},
		{[]string{"--call-tools", "echo\tadd"}, []string{"control character", "--call-tools echo,add"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tc.args...)
			if r.code != exitUsage {
				t.Fatalf("got exit %d, want 2\n%v", r.code, r)
			}
			if r.stdout != "" {
				t.Errorf("stdout: got %q, want nothing", tail(r.stdout, 300))
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcpconform: ") {
				t.Fatalf("stderr: got %q, want one line starting with \"mcpconform: \"", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr %q does not say %q", lines[0], w)
				}
			}
		})
	}
	// The same checks guard the baseline command.
	r := runCLI(t, "baseline", "--write", "b.yaml", "--parallel", "0", "--", "/nonexistent/server")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--parallel 0") {
		t.Errorf("baseline --parallel 0: got %v", r)
	}
}

// TestFlagsAccepted: values at the edges that make sense still run.
func TestFlagsAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"--spec-version", "ALL", "--only", "area:ping"},
		{"--spec-version", " 2025-06-18 ", "--only", "area:ping"},
		{"--run-timeout", "1m", "--timeout", "2m", "--only", "area:ping"}, // a short run with a long request deadline is a choice
		{"--parallel", "1", "--max-message-size", "65536", "--grace", "100ms", "--only", "area:ping"},
		{"--color=NEVER", "--only", "area:ping"},
		{"--call-tools", " readonly ", "--only", "area:ping"},
		{"--call-tools", "echo, add", "--only", "area:ping"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := runCLIIn(t, dir, append(args, "--json", "r.json")...)
			if r.code != exitConformant {
				t.Fatalf("got %v, want exit 0", r)
			}
			if rep := readJSONReport(t, filepath.Join(dir, "r.json")); len(rep.Results) == 0 {
				t.Error("no results")
			}
		})
	}
	// --cwd is the server's working directory: the mock's relative
	// --record path lands there.
	t.Run("--cwd", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "srv"), 0o755); err != nil {
			t.Fatal(err)
		}
		r := runCLIIn(t, dir, "--cwd", "srv", "--only", "area:ping", "--", cliBinary(t), "mock", "--record", "rec.jsonl")
		if r.code != exitConformant {
			t.Fatalf("got %v, want exit 0", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "srv", "rec.jsonl")); err != nil {
			t.Errorf("the server did not run in --cwd: %v", err)
		}
	})
	// A relative command is found from mcpconform's own directory, as the
	// README says, never from --cwd; when it is not there, the hint names
	// the one in --cwd.
	t.Run("--cwd with a relative command", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		for _, sub := range []string{"here", "srv"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		script := "#!/bin/sh\nexec " + cliBinary(t) + " mock --record \"$0.jsonl\"\n"
		for _, p := range []string{"here/server.sh", "srv/server.sh"} {
			if err := os.WriteFile(filepath.Join(dir, p), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		r := runCLIIn(t, filepath.Join(dir, "here"), "--cwd", "../srv", "--only", "area:ping", "--", "./server.sh")
		if r.code != exitConformant {
			t.Fatalf("got %v, want exit 0", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "srv", "server.sh.jsonl")); err == nil {
			t.Error("--cwd ../srv -- ./server.sh ran srv/server.sh; the README says the command is found from mcpconform's directory")
		}
		r = runCLIIn(t, dir, "--cwd", "srv", "--only", "area:ping", "--", "./server.sh")
		if want := "hint: a relative command is found from mcpconform's own directory, not from --cwd srv; for the one in srv, write mcpconform --cwd srv -- srv/server.sh"; r.code != exitTarget || !strings.Contains(r.stderr, want) {
			t.Errorf("got %v; want exit 3 and %q", r, want)
		}
	})
}

// TestSubcommandHelp: every sub-command's --help (and -h, and `mcpconform
// help NAME`) prints its usage on stdout and exits 0; `mcpconform help`
// alone prints the top-level usage; stray arguments are usage errors.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"mock", "--help"}, []string{"Usage: mcpconform mock", "-fault NAME", "-record FILE"}},
		{[]string{"mock", "-h"}, []string{"Usage: mcpconform mock"}},
		{[]string{"help", "mock"}, []string{"Usage: mcpconform mock", "-list-faults"}},
		{[]string{"list", "--help"}, []string{"Usage: mcpconform list", "-checks"}},
		{[]string{"help", "list"}, []string{"Usage: mcpconform list"}},
		{[]string{"baseline", "--help"}, []string{"Usage: mcpconform baseline", "-write FILE", "-strict", "-baseline FILE"}},
		{[]string{"baseline", "-h"}, []string{"Usage: mcpconform baseline"}},
		{[]string{"help", "baseline"}, []string{"Usage: mcpconform baseline"}},
		{[]string{"judge", "--help"}, []string{"usage: mcpconform judge", "--evidence", "--redact-env"}},
		{[]string{"help", "judge"}, []string{"usage: mcpconform judge"}},
		{[]string{"fleet", "--help"}, []string{"usage: mcpconform fleet", "-shard i/n", "-report-dir DIR", "setup-error (3"}},
		{[]string{"fleet", "-h"}, []string{"usage: mcpconform fleet"}},
		{[]string{"help", "fleet"}, []string{"usage: mcpconform fleet"}},
		{[]string{"help", "merge"}, []string{"usage: mcpconform merge", "-balance N", "-targets FILE"}},
		{[]string{"merge", "--help"}, []string{"usage: mcpconform merge"}},
		{[]string{"client", "--help"}, []string{"Usage: mcpconform client", "MCP_CONFORMANCE_SERVER_COMMAND", "-scenario-timeout duration", "-interop"}},
		{[]string{"help", "client"}, []string{"Usage: mcpconform client"}},
		{[]string{"mock", "--help"}, []string{"-evidence DIR", "-scenario NAME"}},
		{[]string{"help"}, []string{"Exit codes: 0 conformant", "mcpconform help [mock|client|list|baseline|judge|fleet|merge]", "mcpconform client [flags] -- CLIENT_CMD", "mcpconform fleet [flags] TARGETS.yaml", "-color", "-server-request-window duration", "mcpconform judge [report flags] EVIDENCE.json", "-evidence FILE", "-redact-env NAME"}},
	} {
		r := runCLI(t, tc.args...)
		if r.code != exitConformant || r.stderr != "" {
			t.Errorf("%v: got %v, want exit 0 and nothing on stderr", tc.args, r)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, w, tail(r.stdout, 600))
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "extra"}, `mcpconform list: unexpected argument "extra"`},
		{[]string{"list", "--checks", "--", "x"}, `mcpconform list: unexpected argument "x"`},
		{[]string{"mock", "extra"}, `mcpconform mock: unexpected argument "extra"`},
		{[]string{"list", "--nope"}, "mcpconform list: flag provided but not defined: -nope"},
		{[]string{"mock", "--nope"}, "mcpconform mock: flag provided but not defined: -nope"},
		{[]string{"help", "nope"}, `no help for "nope"`},
		{[]string{"help", "mock", "list"}, "one topic at a time"},
		{[]string{"mock", "--fault", ""}, "--fault ping-not-empty"},
		{[]string{"mock", "--fault", "ping-not-empti"}, "unknown fault ping-not-empti; did you mean ping-not-empty? see mcpconform mock --list-faults"},
		{[]string{"mock", "--fault", "ping-not-empty,nope"}, "unknown fault nope; see mcpconform mock --list-faults"},
	} {
		r := runCLI(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != exitUsage || r.stdout != "" || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: got %v, want exit 2 and one line saying %q", tc.args, r, tc.want)
		}
	}
}

// TestVersionInReports: --version prints the version the build carries,
// and every report names the same.
func TestVersionInReports(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--version")
	v, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "mcpconform ")
	if r.code != 0 || !ok || v == "" || v == "dev" || strings.ContainsAny(v, " \n") {
		t.Fatalf("--version: got %v", r)
	}
	dir := t.TempDir()
	r = runCLIIn(t, dir, "--only", "area:ping", "--report-dir", "out")
	if r.code != exitConformant || !strings.HasPrefix(r.stdout, "mcpconform "+v+"\n") {
		t.Errorf("the console header does not say %q:\n%s", v, tail(r.stdout, 300))
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Tool struct{ Version string } }
	if err := json.Unmarshal(data, &rep); err != nil || rep.Tool.Version != v {
		t.Errorf("report.json tool.version: got %q (%v), want %q", rep.Tool.Version, err, v)
	}
	for _, f := range []string{"junit.xml", "report.md", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, "out", f))
		if err != nil || !bytes.Contains(data, []byte(v)) {
			t.Errorf("%s does not name version %q (%v)", f, v, err)
		}
	}
}

// TestReportOnStdout: a report given - goes to stdout alone, and the console
// report to stderr.
func TestReportOnStdout(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--only", "area:ping", "--json", "-")
	if r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	validateReport(t, []byte(r.stdout))
	if !strings.Contains(r.stderr, "CONFORMANT") || !strings.Contains(r.stderr, " checks: ") {
		t.Errorf("the console report is not on stderr: %q", tail(r.stderr, 300))
	}

	dir := t.TempDir()
	r = runCLIIn(t, dir, against(t, []string{"--quiet", "--junit", "-", "--json", "r.json"}, failingFault)...)
	if r.code != exitNonconformant {
		t.Fatalf("%v", r)
	}
	if !strings.HasPrefix(r.stdout, "<?xml") || !strings.Contains(r.stdout, "</testsuites>") {
		t.Errorf("stdout is not the JUnit report: %q", tail(r.stdout, 300))
	}
	if !strings.Contains(r.stderr, "nonconformant: ") {
		t.Errorf("the --quiet summary is not on stderr: %q", r.stderr)
	}
	readJSONReport(t, filepath.Join(dir, "r.json"))

	// The baseline command's own message moves to stderr too.
	r = runCLIIn(t, dir, append([]string{"baseline", "--write", "b.yaml", "--markdown", "-", "--"}, mockArgs(t, failingFault)...)...)
	if r.code != exitConformant || !strings.HasPrefix(r.stdout, "# ") || strings.Contains(r.stdout, "\nwrote ") || !strings.HasPrefix(r.stderr, "wrote ") {
		t.Errorf("baseline --markdown -: got %v", r)
	}
}

// TestColorFlag: --color=always colours a pipe, even under NO_COLOR; auto
// (the default) and never do not.
func TestColorFlag(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		env   []string
		color bool
	}{
		{[]string{"--color=always"}, nil, true},
		{[]string{"--color", "always"}, []string{"NO_COLOR=1"}, true},
		{[]string{"--color=auto"}, nil, false},
		{nil, nil, false},
		{[]string{"--color=never"}, nil, false},
		{[]string{"--no-color"}, nil, false},
		{[]string{"--color=always", "--json", "-"}, nil, true}, // the console is on stderr then
	} {
		t.Run(strings.Join(append(tc.args, tc.env...), " "), func(t *testing.T) {
			t.Parallel()
			r := runCLIEnv(t, "", tc.env, append(tc.args, "--only", "area:ping")...)
			if r.code != exitConformant {
				t.Fatalf("%v", r)
			}
			console := r.stdout
			if strings.Contains(strings.Join(tc.args, " "), "--json -") {
				console = r.stderr
				if strings.Contains(r.stdout, "\x1b") {
					t.Errorf("escape codes in the JSON report on stdout")
				}
			}
			if got := strings.Contains(console, "\x1b[1;32mCONFORMANT\x1b[0m"); got != tc.color {
				t.Errorf("coloured: got %v, want %v\n%q", got, tc.color, tail(console, 300))
			}
		})
	}
}

// TestMockRecordAppends: the suite starts the mock many times; with
// --record every process appends its own lines, each JSON with the
// process id first, so none overwrites another's. %p names one file per
// process instead.
func TestMockRecordAppends(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	r := runCLIIn(t, dir, "--json", "r.json", "--", cliBinary(t), "mock", "--record", rec)
	if r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	var rep struct{ Target struct{ Processes int } }
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	pids := recordedPIDs(t, rec)
	if len(pids) < 2 || len(pids) != rep.Target.Processes {
		t.Errorf("the record holds %d processes, the run started %d", len(pids), rep.Target.Processes)
	}

	// %p: one file per process, each holding that process's lines only.
	r = runCLIIn(t, dir, "--only", "area:ping", "--", cliBinary(t), "mock", "--record", filepath.Join(dir, "rec-%p.jsonl"))
	if r.code != exitConformant {
		t.Fatalf("%v", r)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rec-*.jsonl"))
	if len(files) < 2 {
		t.Fatalf("got %d files for %%p, want one per process", len(files))
	}
	for _, f := range files {
		pids := recordedPIDs(t, f)
		for pid := range pids {
			if want := "rec-" + pid + ".jsonl"; filepath.Base(f) != want {
				t.Errorf("%s holds lines of process %s", filepath.Base(f), pid)
			}
		}
	}
}

// recordedPIDs reads a --record file and returns its process ids; every
// line must be a JSON object whose first member is "pid".
func recordedPIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		var m struct {
			PID json.Number `json:"pid"`
			Dir string      `json:"dir"`
			Msg any         `json:"msg"`
		}
		if err := json.Unmarshal(line, &m); err != nil || !bytes.HasPrefix(line, []byte(`{"pid":`)) || m.Dir == "" || m.Msg == nil {
			t.Fatalf("%s line %d: %v: %.200s", filepath.Base(path), n, err, line)
		}
		pids[m.PID.String()] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pids
}

// TestToolCallPolicy proves from the evidence of each run (every line
// mcpconform sent, every line of the server's stderr) that a default run
// calls no tool, not even one annotated readOnlyHint: true that in truth
// deletes everything (the mock's readonly-hint-untrue variant, which says
// on stderr when it ran), and that --call-tools readonly, all and NAME are
// obeyed; the report says which tools were called.
func TestToolCallPolicy(t *testing.T) {
	t.Parallel()
	all := []string{"add", "delete_note", "echo", "enable_extras", "logo", "purge_notes"}
	for _, tc := range []struct {
		flag   []string
		called []string
	}{
		{nil, nil},
		{[]string{"--call-tools", "none"}, nil},
		{[]string{"--call-tools", "readonly"}, []string{"add", "echo", "logo", "purge_notes"}},
		{[]string{"--call-tools", "delete_note"}, []string{"delete_note"}},
		{[]string{"--call-tools", "all"}, all},
	} {
		t.Run(strings.Join(append([]string{"default"}, tc.flag...), " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append(append([]string{"--json", "r.json", "--evidence", "ev.json", "--only", "area:tools"}, tc.flag...), "--", cliBinary(t), "mock", "--variant", "readonly-hint-untrue")
			if r := runCLIIn(t, dir, args...); r.code != exitConformant {
				t.Fatalf("%v", r)
			}
			sent, ran := calledInEvidence(t, filepath.Join(dir, "ev.json"))
			for _, name := range all {
				if want := slices.Contains(tc.called, name); sent[name] != want {
					t.Errorf("%s: called %v, want %v", name, sent[name], want)
				}
			}
			if want := slices.Contains(tc.called, "purge_notes"); ran != want {
				t.Errorf("the server's stderr says purge_notes ran: %v, want %v", ran, want)
			}
			rep := toolCallsOfReport(t, filepath.Join(dir, "r.json"))
			said := map[string]bool{}
			for _, c := range rep.ToolCalls {
				said[c.Name] = true
				if c.Called != sent[c.Name] || !c.Called && c.Why == "" {
					t.Errorf("the report says %+v; the evidence shows a call: %v", c, sent[c.Name])
				}
			}
			if len(said) != len(all) {
				t.Errorf("the report names %d tools, want the %d listed", len(said), len(all))
			}
		})
	}
}

// TestCallToolsUnlisted: --call-tools naming a tool the server does not
// list is a usage error, found at discovery: the run stops there, calls
// nothing, exits 2 with one line naming the unknown tool and the tools the
// server lists, and writes a report that says so.
func TestCallToolsUnlisted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLIIn(t, dir, "--json", "r.json", "--evidence", "ev.json", "--call-tools", "echo,nope", "--", cliBinary(t), "mock")
	if r.code != exitUsage {
		t.Fatalf("got exit %d, want 2\n%v", r.code, r)
	}
	for _, w := range []string{`mcpconform: --call-tools echo,nope: the server lists no tool named "nope"`, "it lists echo, add, logo, delete_note", "stopped after discovery"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if sent, _ := calledInEvidence(t, filepath.Join(dir, "ev.json")); len(sent) > 0 {
		t.Errorf("tools were called: %v", sent)
	}
	var rep struct {
		Interrupted string
		Results     []json.RawMessage
		Summary     struct{ Verdict string }
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	if !strings.Contains(rep.Interrupted, `no tool named "nope"`) || len(rep.Results) != 0 || rep.Summary.Verdict != "error" {
		t.Errorf("the report says %q with %d results, verdict %s; want why the run stopped, no results, error", rep.Interrupted, len(rep.Results), rep.Summary.Verdict)
	}
	// A server without the tools capability lists no tool at all.
	fixture, err := filepath.Abs(filepath.Join("..", "..", "mockserver", "testdata", "triggers.json"))
	if err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "--call-tools", "echo", "--", cliBinary(t), "mock", "--fixture", fixture)
	if r.code != exitUsage || !strings.Contains(r.stderr, "declares no tools capability") {
		t.Errorf("against a server without tools: %v", r)
	}
}

// TestBuiltInRunCallsItsOwnTools: with no server command the suite judges
// its own reference server, whose tools are all called: the report says
// --call-tools all and names every tool called. --call-tools given still
// wins.
func TestBuiltInRunCallsItsOwnTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag   []string
		policy string
		called bool
	}{
		{nil, "all", true},
		{[]string{"--call-tools", "none"}, "none", false},
	} {
		dir := t.TempDir()
		r := runCLIIn(t, dir, append([]string{"--json", "r.json", "--only", "area:tools"}, tc.flag...)...)
		if r.code != exitConformant || !strings.Contains(r.stdout, "(--call-tools "+tc.policy+")") {
			t.Fatalf("%v", r)
		}
		rep := toolCallsOfReport(t, filepath.Join(dir, "r.json"))
		if rep.CallTools != tc.policy || len(rep.ToolCalls) != 5 {
			t.Fatalf("%v: the report says --call-tools %q and %d tools, want %s and the 5 the default fixture lists", tc.flag, rep.CallTools, len(rep.ToolCalls), tc.policy)
		}
		for _, c := range rep.ToolCalls {
			if c.Called != tc.called {
				t.Errorf("%v: %s called %v, want %v", tc.flag, c.Name, c.Called, tc.called)
			}
		}
	}
}

// reportedToolCalls is the target's account of tool calls in a JSON report.
type reportedToolCalls struct {
	CallTools string
	ToolCalls []struct {
		Name   string
		Called bool
		Why    string
	}
}

func toolCallsOfReport(t *testing.T, path string) reportedToolCalls {
	t.Helper()
	var rep struct{ Target reportedToolCalls }
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report: %v", err)
	}
	return rep.Target
}

// calledInEvidence returns the names of the tools an evidence file shows
// mcpconform sent tools/call for, and whether a server's stderr said
// purge_notes ran.
func calledInEvidence(t *testing.T, path string) (map[string]bool, bool) {
	t.Helper()
	run, err := evidence.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	called, ran := map[string]bool{}, false
	for _, p := range run.Processes {
		for _, e := range p.Entries() {
			switch e.Dir {
			case transcript.Send:
				for _, m := range e.Msgs {
					if m.Method == "tools/call" {
						name, _ := wire.String(wire.Object(m.Params)["name"])
						called[name] = true
					}
				}
			case transcript.Stderr:
				ran = ran || strings.Contains(string(e.Data), "purge_notes ran")
			}
		}
	}
	return called, ran
}
