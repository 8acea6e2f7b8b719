package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The tests of this file run the binary against the reference server with
// its hostile-server faults (hangs, floods, garbage, processes left
// behind; mcpconform mock --list-faults): every run must end within its
// deadlines, put the verdict on the requirement the fault breaks, write its
// report, and leave no process of the server behind, children included.
//
// Every server gets MCPCONFORM_MARK=<random> in its environment (through
// --env), which its children inherit: afterwards no process may carry it.

// hostileRun is one run of the binary against a hostile server.
type hostileRun struct {
	code    int
	stdout  string // the console (with --quiet unless runConsole said otherwise)
	stderr  string
	elapsed time.Duration
	// afterSignal is the time from the signal to the exit.
	afterSignal time.Duration
	maxRSS      int64 // peak resident memory of mcpconform itself, in KiB
	report      hostileReport
	reportSize  int // bytes of report.json
	mark        string
	reportDir   string // every format of the report, as --report-dir wrote it
}

type hostileReport struct {
	Interrupted string   `json:"interrupted"`
	Incomplete  []string `json:"incomplete"`
	Target      struct {
		StderrTail []string `json:"stderrTail"`
		Processes  int      `json:"processes"`
	} `json:"target"`
	Summary struct {
		Pass, Fail, Warn, Info, Skip, Error int
		Verdict                             string
	} `json:"summary"`
	Results []hostileResult `json:"results"`
}

type hostileResult struct {
	ID, Requirement, Verdict, Message string
	Transcript                        []struct{ Dir, Text string }
}

// runHostile runs the binary with flags against `mcpconform mock --fault
// faults`, marking the server's processes. signal, when set, is sent to
// mcpconform once a server process has received a request for method until
// (read from the mock's --record log): an event, not a time.
func runHostile(t *testing.T, flags []string, faults string, signal os.Signal, until string) hostileRun {
	t.Helper()
	return runConsole(t, true, flags, faults, signal, until)
}

// runConsole is runHostile with the default console when quiet is false.
func runConsole(t *testing.T, quiet bool, flags []string, faults string, signal os.Signal, until string) hostileRun {
	t.Helper()
	dir := t.TempDir()
	mark := newMark(t)
	args := append([]string{"--report-dir", filepath.Join(dir, "report"), "--env", "MCPCONFORM_MARK=" + mark}, flags...)
	if quiet {
		args = append([]string{"--quiet"}, args...)
	}
	args = append(args, "--")
	if faults == "" {
		args = append(args, "sleep", "600") // a server that never speaks
	} else {
		args = append(args, cliBinary(t), "mock", "--fault", faults)
	}
	record := filepath.Join(dir, "record.jsonl")
	if signal != nil {
		args = append(args, "--record", record)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// VmHWM is the peak so far: the last reading before the exit is the
	// peak of the run, give or take its last milliseconds. (The rusage of
	// Wait would count the servers too.)
	exited := make(chan struct{})
	hwm := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			if v := vmHWM(cmd.Process.Pid); v > peak {
				peak = v
			}
			select {
			case <-exited:
				hwm <- peak
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	var signalled time.Time
	if signal != nil {
		waitForRequest(t, record, until, time.Minute)
		signalled = time.Now()
		if err := cmd.Process.Signal(signal); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	close(exited)
	r := hostileRun{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start), mark: mark, reportDir: filepath.Join(dir, "report")}
	if signal != nil {
		r.afterSignal = time.Since(signalled)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("mcpconform %s did not end within two minutes", strings.Join(args, " "))
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	r.maxRSS = <-hwm
	data, err := os.ReadFile(filepath.Join(dir, "report", "report.json"))
	if err != nil {
		t.Fatalf("no report: %v\nstderr: %s", err, r.stderr)
	}
	if err := json.Unmarshal(data, &r.report); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	r.reportSize = len(data)
	if len(data) > 8<<20 {
		t.Errorf("report.json is %d MiB, want it bounded", len(data)>>20)
	}
	// The servers are gone the moment mcpconform exits; a killed process
	// may take a moment to be reaped.
	if left := waitNoMark(mark, time.Second); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("processes of the server outlived mcpconform: %v", left)
	}
	return r
}

// vmHWM returns the peak resident memory of a process, in KiB (0 once it
// has exited).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

func newMark(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "robust-" + hex.EncodeToString(b)
}

// markedProcesses returns the processes whose environment or command line
// holds the mark.
func markedProcesses(mark string) []int {
	dir, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, f := range []string{"environ", "cmdline"} {
			b, _ := os.ReadFile("/proc/" + d.Name() + "/" + f)
			if bytes.Contains(b, []byte(mark)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// waitForRequest waits until the mock's --record log holds a request for
// method received from the client.
func waitForRequest(t *testing.T, record, method string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		data, _ := os.ReadFile(record)
		for _, line := range bytes.Split(data, []byte("\n")) {
			var rl struct {
				Dir string
				Msg struct{ Method string }
			}
			if json.Unmarshal(line, &rl) == nil && rl.Dir == "in" && rl.Msg.Method == method {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server received %s within %s", method, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitNoMark(mark string, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		left := markedProcesses(mark)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// result returns the result of check or vector id, failing the test if
// there is none.
func (r hostileRun) result(t *testing.T, id string) hostileResult {
	t.Helper()
	for _, x := range r.report.Results {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("no result %s in the report", id)
	return hostileResult{}
}

// verdictOf returns the worst verdict reported for a requirement.
func (r hostileRun) verdictOf(requirement string) (string, []hostileResult) {
	rank := map[string]int{"skip": 0, "pass": 1, "info": 2, "warn": 3, "error": 4, "fail": 5}
	worst := ""
	var of []hostileResult
	for _, x := range r.report.Results {
		if x.Requirement != requirement {
			continue
		}
		of = append(of, x)
		if worst == "" || rank[x.Verdict] > rank[worst] {
			worst = x.Verdict
		}
	}
	return worst, of
}

func (r hostileRun) String() string {
	var b strings.Builder
	b.WriteString("exit " + strconv.Itoa(r.code) + " after " + r.elapsed.Round(time.Millisecond).String() + "\n" + tail(r.stderr, 1000))
	for _, x := range r.report.Results {
		if x.Verdict != "pass" && x.Verdict != "skip" {
			b.WriteString("\n  " + x.Verdict + " " + x.ID + " " + x.Requirement + ": " + tail(x.Message, 300))
		}
	}
	return b.String()
}

// safe reports whether s can go to a terminal or a report as is: valid
// UTF-8 without control characters.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return false
		}
	}
	return true
}

// hostileFlags are the flags every hostile run gets: short deadlines, so a
// stuck run shows quickly, and a run deadline no test should reach.
var hostileFlags = []string{"--timeout", "2s", "--grace", "1s", "--start-timeout", "5s", "--run-timeout", "100s"}

// hostileBound is a generous bound on a whole run with hostileFlags: the
// run itself takes a few seconds, each hung method costs two deadlines
// (later calls are not sent), and each process's shutdown two graces, four
// processes at a time. Moving 50 MB lines gets more, for a loaded machine,
// and so does a server 300 ms slow on each of some 70 requests in a row.
const hostileBound = 30 * time.Second

func TestHostileServers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process hygiene is checked through /proc")
	}
	if testing.Short() {
		t.Skip("runs the suite once per hostile server")
	}
	for _, tc := range []struct {
		name   string
		faults string
		flags  []string
		bound  time.Duration // hostileBound when zero
		code   int
		// check judges the report beyond the exit code.
		check func(t *testing.T, r hostileRun)
	}{
		{name: "crash on the first read", faults: "crash-on-read", code: exitNonconformant, check: func(t *testing.T, r hostileRun) {
			// A request left unanswered breaks JSON-RPC's reply rule; the
			// result says how the server ended and quotes its stderr.
			x := r.result(t, "every-request-answered")
			if x.Verdict != "fail" || !strings.Contains(x.Message, "exit status 1") || !strings.Contains(x.Message, "crashing on resources/read") {
				t.Errorf("every-request-answered: %s: %s; want fail with the exit status and the last stderr line", x.Verdict, x.Message)
			}
			// The vector whose read went unanswered judged nothing of its
			// own rule, and says so.
			if x := r.result(t, "resources-read-unknown-uri"); x.Verdict != "skip" || !strings.Contains(x.Message, "exit status 1") {
				t.Errorf("resources-read-unknown-uri: %s: %s; want skip naming the exit", x.Verdict, x.Message)
			}
			// The shared session was restarted: tests after the crash that
			// read nothing still pass.
			for _, id := range []string{"unknown-method", "ping-empty-result", "resources-list-invalid-cursor"} {
				if x := r.result(t, id); x.Verdict != "pass" {
					t.Errorf("%s after the crash: %s: %s; want pass in a restarted process", id, x.Verdict, x.Message)
				}
			}
		}},
		// A hang on one method while the server answers the requests
		// after it, past the hung one's deadline: the request was dropped
		// ("the Server MUST reply"), a fail, and exit 1; nothing else of
		// the run is left in error because of it.
		{name: "hang on one method", faults: "hang-on-list", code: exitNonconformant, check: func(t *testing.T, r hostileRun) {
			x := r.result(t, "every-request-answered")
			if x.Verdict != "fail" || !strings.Contains(x.Message, "resources/list (id") || !strings.Contains(x.Message, "its deadline of 2s passed, and the server then answered") {
				t.Errorf("every-request-answered: %s: %s; want a fail naming resources/list, its 2s deadline and a later answer", x.Verdict, x.Message)
			}
			if r.report.Summary.Fail != 1 || r.report.Summary.Error > 0 || r.report.Summary.Verdict != "nonconformant" {
				t.Errorf("got %+v; want one fail, no error and the verdict nonconformant", r.report.Summary)
			}
			if x := r.result(t, "ping-empty-result"); x.Verdict != "pass" {
				t.Errorf("ping while resources/list hangs: %s: %s", x.Verdict, x.Message)
			}
		}},
		{name: "hang on reads", faults: "hang-on-read", code: exitNonconformant, check: func(t *testing.T, r hostileRun) {
			if x := r.result(t, "every-request-answered"); x.Verdict != "fail" || !strings.Contains(x.Message, "resources/read (id") {
				t.Errorf("every-request-answered: %s: %s; want a fail naming resources/read", x.Verdict, x.Message)
			}
			if r.report.Summary.Error > 0 {
				t.Errorf("got %+v; want no error: the dropped reads are judged once, as a fail", r.report.Summary)
			}
		}},
		{name: "slow answers", faults: "slow", bound: 60 * time.Second, code: exitConformant, check: func(t *testing.T, r hostileRun) {
			if r.report.Summary.Fail+r.report.Summary.Error > 0 {
				t.Errorf("a server 300 ms slow is conformant within a 2 s deadline; got %+v", r.report.Summary)
			}
		}},
		{name: "deaf to SIGTERM and stdin EOF", faults: "ignore-sigterm,ignore-stdin-eof", code: exitConformant, check: func(t *testing.T, r hostileRun) {
			// Before 2026-07-28 only the client's shutdown order is
			// written: what the server did is recorded.
			x := r.result(t, "exits-on-stdin-eof")
			if x.Verdict != "info" || !strings.Contains(x.Message, "SIGKILL") {
				t.Errorf("exits-on-stdin-eof: %s: %s; want info, killed with SIGKILL", x.Verdict, x.Message)
			}
		}},
		{name: "deaf to SIGTERM and stdin EOF in 2026-07-28", faults: "ignore-sigterm,ignore-stdin-eof", flags: []string{"--spec-version", "2026-07-28"}, code: exitConformant, check: func(t *testing.T, r hostileRun) {
			// 2026-07-28: servers SHOULD exit promptly on stdin EOF.
			x := r.result(t, "exits-on-stdin-eof")
			if x.Verdict != "warn" || !strings.Contains(x.Message, "SIGKILL") {
				t.Errorf("exits-on-stdin-eof: %s: %s; want warn, killed with SIGKILL", x.Verdict, x.Message)
			}
		}},
		{name: "child left behind", faults: "leave-child", code: exitConformant, check: func(t *testing.T, r hostileRun) {
			x := r.result(t, "no-stray-processes")
			// No sentence forbids it: recorded, never hidden.
			if x.Verdict != "info" || x.Requirement != "STDIO-08" || !strings.Contains(x.Message, "sleep 600") ||
				!strings.Contains(x.Message, "stdout") || !strings.Contains(x.Message, "killed") {
				t.Errorf("no-stray-processes: %s %s: %s; want a STDIO-08 record naming the killed `sleep 600` holding stdout", x.Verdict, x.Requirement, x.Message)
			}
		}},
		{name: "10 MB on stderr", faults: "stderr-flood", code: exitConformant, check: func(t *testing.T, r hostileRun) {
			if n := len(r.report.Target.StderrTail); n == 0 || n > 50 {
				t.Errorf("the report keeps %d stderr lines, want the last few (at most 50)", n)
			}
			if r.report.Summary.Error > 0 || r.report.Summary.Fail > 0 {
				t.Errorf("got %+v, want the flood to harm nothing", r.report.Summary)
			}
		}},
		// As for the serverInfo below: what is tested is the judging and
		// the memory, so the 50 MB answers get deadlines a loaded machine
		// cannot miss (10 s was missed with four busy loops per core).
		{name: "50 MB response", faults: "huge-response", flags: []string{"--timeout", "60s"}, bound: 150 * time.Second, code: exitConformant, check: func(t *testing.T, r hostileRun) {
			if r.report.Summary.Error > 0 || r.report.Summary.Fail > 0 {
				t.Errorf("got %+v, want the 50 MiB read judged like any other", r.report.Summary)
			}
			if x := r.result(t, "resources-read-listed"); x.Verdict != "pass" {
				t.Errorf("resources-read-listed: %s: %s", x.Verdict, x.Message)
			}
			t.Logf("peak RSS of mcpconform: %d MiB", r.maxRSS>>10)
			if r.maxRSS > 1<<20 {
				t.Errorf("peak RSS %d MiB, want well under 1 GiB", r.maxRSS>>10)
			}
		}},
		// 50 MiB go through the pipe before the initialize answer: on a
		// busy machine that took more than the 5 s start-up deadline.
		{name: "50 MB line over the maximum", faults: "huge-line", flags: []string{"--max-message-size", "1048576", "--start-timeout", "60s"}, bound: 90 * time.Second, code: exitNonconformant, check: func(t *testing.T, r hostileRun) {
			// The spec sets no message size: --max-message-size is the
			// harness's budget, so the line's length is recorded, never a
			// fail. What was read of it is garbage, which no size excuses.
			x := r.result(t, "stdio-one-message-per-line")
			if x.Verdict != "info" || !strings.Contains(x.Message, "over the harness's maximum message size") {
				t.Errorf("stdio-one-message-per-line: %s: %s; want info for the oversize line", x.Verdict, x.Message)
			}
			x = r.result(t, "stdio-only-mcp-messages")
			if x.Verdict != "fail" || !strings.Contains(x.Message, "whose start is no JSON-RPC message") {
				t.Errorf("stdio-only-mcp-messages: %s: %s; want fail for the garbage it starts with", x.Verdict, x.Message)
			}
			if r.report.Summary.Fail != 1 || r.report.Summary.Error > 0 {
				t.Errorf("got %+v, want the one fail for the garbage and no error", r.report.Summary)
			}
			t.Logf("peak RSS of mcpconform: %d MiB", r.maxRSS>>10)
			if r.maxRSS > 64<<10 {
				t.Errorf("peak RSS %d MiB: 50 MiB lines were held despite a 1 MiB maximum", r.maxRSS>>10)
			}
		}},
		// Floods: past its transcript budget the harness stops the process,
		// keeps counts and the last lines, and calls the run incomplete
		// (exit 4, verdict error) unless what it kept already fails.
		{name: "notification flood", faults: "notification-flood", bound: 90 * time.Second, code: exitIncomplete, check: flooded(160 << 10)},
		{name: "stdout flood like yes", faults: "stdout-flood", bound: 90 * time.Second, code: exitNonconformant, check: func(t *testing.T, r hostileRun) {
			flooded(160<<10)(t, r)
			if x := r.result(t, "stdio-only-mcp-messages"); x.Verdict != "fail" || !strings.Contains(x.Message, `"y"`) {
				t.Errorf("stdio-only-mcp-messages: %s: %s; want fail quoting the line", x.Verdict, x.Message)
			}
		}},
		{name: "server request flood", faults: "request-flood", bound: 90 * time.Second, code: exitIncomplete, check: flooded(160 << 10)},
		{name: "a line that never ends", faults: "endless-line", bound: 90 * time.Second, code: exitIncomplete, check: func(t *testing.T, r hostileRun) {
			if r.report.Summary.Fail > 0 {
				t.Errorf("got %+v: an unfinished line proves nothing", r.report.Summary)
			}
			// The deadline named is the one waited: --timeout, or a
			// multiple of it when the line was still growing under the
			// size limit as it passed (a busy machine reads it slower).
			if x := r.result(t, "every-request-answered"); x.Verdict != "error" || !regexp.MustCompile(`did not answer \S+ \(id \d+\) within ([2468]|1[02468])s \(--timeout`).MatchString(x.Message) {
				t.Errorf("every-request-answered: %s: %s; want not judged, naming the deadline waited (a multiple of --timeout 2s)", x.Verdict, x.Message)
			}
			// Each process may hold a line of up to --max-message-size
			// (64 MiB) while it arrives; past that only its start is kept.
			t.Logf("peak RSS of mcpconform: %d MiB", r.maxRSS>>10)
			if r.maxRSS > 400<<10 {
				t.Errorf("peak RSS %d MiB reading a line that never ends", r.maxRSS>>10)
			}
		}},
		{name: "nesting 5,000 deep", faults: "deep-nesting", code: exitConformant, check: func(t *testing.T, r hostileRun) {
			if x := r.result(t, "stdio-only-mcp-messages"); x.Verdict != "info" || !strings.Contains(x.Message, "levels deep") {
				t.Errorf("stdio-only-mcp-messages: %s: %s; want the deep line recorded", x.Verdict, x.Message)
			}
		}},
		// What is tested is the report's size and the memory: the 60 MB
		// initialize answer gets deadlines a loaded machine cannot miss.
		{name: "60 MB serverInfo", faults: "huge-server-info", flags: []string{"--start-timeout", "60s", "--timeout", "30s"}, bound: 150 * time.Second, code: exitConformant, check: func(t *testing.T, r hostileRun) {
			if r.reportSize > 4<<20 {
				t.Errorf("report.json holds %d bytes: the 60 MB description was copied", r.reportSize)
			}
			t.Logf("peak RSS of mcpconform: %d MiB", r.maxRSS>>10)
		}},
		{name: "banner on stdout", faults: "banner", code: exitNonconformant, check: garbage("stdio-only-mcp-messages", "STDIO-03", `a line that is not JSON: "MCP mock server v1.0 ready (listening on stdio)"`)},
		{name: "partial line at exit", faults: "partial-line-at-exit", code: exitNonconformant, check: garbage("stdio-one-message-per-line", "STDIO-02", `stdout ended in the middle of a line (no final newline): "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/mes"`)},
		{name: "byte order mark", faults: "bom", code: exitNonconformant, check: garbage("stdio-utf8", "STDIO-04", `a UTF-8 byte order mark: "\ufeff{\"jsonrpc\"`)},
		{name: "invalid UTF-8", faults: "invalid-utf8", code: exitNonconformant, check: garbage("stdio-utf8", "STDIO-04", `bytes that are not valid UTF-8: `, `caf\xe9 \xff\xfe`)},
		{name: "NUL byte", faults: "nul-byte", code: exitNonconformant, check: garbage("stdio-only-mcp-messages", "STDIO-03", `a raw NUL byte: "\x00"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runHostile(t, append(append([]string(nil), hostileFlags...), tc.flags...), tc.faults, nil, "")
			bound := cmp.Or(tc.bound, hostileBound)
			if r.elapsed > bound || r.report.Interrupted != "" {
				t.Errorf("the run took %s (bound %s; interrupted: %q)", r.elapsed, bound, r.report.Interrupted)
			}
			if r.code != tc.code {
				t.Errorf("exit %d, want %d", r.code, tc.code)
			}
			for _, x := range r.report.Results {
				if !safe(x.Message) {
					t.Errorf("%s: the message is not safe to print: %q", x.ID, x.Message)
				}
			}
			tc.check(t, r)
			if t.Failed() {
				t.Log(r)
			}
		})
	}
}

// flooded checks a flood's run: incomplete, saying which process was
// stopped, failing nothing it did not see, within maxKiB of memory.
func flooded(maxKiB int64) func(*testing.T, hostileRun) {
	return func(t *testing.T, r hostileRun) {
		t.Helper()
		if len(r.report.Incomplete) == 0 || !strings.Contains(r.report.Incomplete[0], "was stopped mid-run") {
			t.Errorf("the report does not say the run is incomplete: %q", r.report.Incomplete)
		}
		if v := r.report.Summary.Verdict; v != "error" && v != "nonconformant" {
			t.Errorf("a flooded run has the verdict %q", v)
		}
		t.Logf("peak RSS of mcpconform: %d MiB", r.maxRSS>>10)
		if r.maxRSS > maxKiB {
			t.Errorf("peak RSS %d MiB, want at most %d MiB", r.maxRSS>>10, maxKiB>>10)
		}
	}
}

// garbage checks that a check fails its requirement with a message holding
// each of the texts (the offending bytes, Go-quoted).
func garbage(id, requirement string, texts ...string) func(*testing.T, hostileRun) {
	return func(t *testing.T, r hostileRun) {
		x := r.result(t, id)
		if x.Verdict != "fail" || x.Requirement != requirement {
			t.Errorf("%s: %s %s, want fail %s", id, x.Verdict, x.Requirement, requirement)
		}
		for _, s := range texts {
			if !strings.Contains(x.Message, s) {
				t.Errorf("%s: the message %q lacks %q", id, x.Message, s)
			}
		}
		if len(x.Transcript) == 0 {
			t.Errorf("%s: no transcript excerpt", id)
		}
	}
}

// TestRunDeadlines: a server stuck on every read ends the run at
// --run-timeout, and one that never answers initialize at --start-timeout;
// both write their report and leave nothing behind.
func TestRunDeadlines(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process hygiene is checked through /proc")
	}
	t.Run("run-timeout", func(t *testing.T) {
		t.Parallel()
		r := runHostile(t, []string{"--timeout", "60s", "--grace", "1s", "--run-timeout", "3s"}, "hang-on-read,ignore-stdin-eof", nil, "")
		// The deadline, then two graces to shut the processes down.
		if r.elapsed > 3*time.Second+2*time.Second+5*time.Second {
			t.Errorf("the run took %s with --run-timeout 3s", r.elapsed)
		}
		if r.code != exitIncomplete || !strings.Contains(r.report.Interrupted, "--run-timeout 3s") || r.report.Summary.Verdict != "error" {
			t.Errorf("exit %d, interrupted %q, verdict %q; want %d, the run-timeout named, and error", r.code, r.report.Interrupted, r.report.Summary.Verdict, exitIncomplete)
		}
		notJudged(t, r)
	})
	t.Run("start-timeout", func(t *testing.T) {
		t.Parallel()
		r := runHostile(t, []string{"--start-timeout", "2s", "--grace", "1s"}, "", nil, "")
		if r.elapsed > 2*time.Second+2*time.Second+5*time.Second {
			t.Errorf("the run took %s with --start-timeout 2s", r.elapsed)
		}
		if r.code != exitTarget {
			t.Errorf("exit %d, want %d", r.code, exitTarget)
		}
		x := r.result(t, "initialize-completes")
		// Silence within the harness's start-up deadline breaks no rule.
		if x.Verdict != "error" || !strings.Contains(x.Message, "did not answer initialize within 2s (--start-timeout)") {
			t.Errorf("initialize-completes: %s: %s; want error, no response within the 2s start-up deadline", x.Verdict, x.Message)
		}
		if r.report.Summary.Fail > 0 {
			t.Errorf("a server silent within --start-timeout failed %d checks; want none", r.report.Summary.Fail)
		}
	})
}

// TestInterrupt: SIGINT or SIGTERM to mcpconform ends the run at once,
// writes the partial report, and leaves no process behind, even a server
// deaf to stdin EOF in the middle of a hung request. What it prints, the
// console and stderr together, fits five lines: when, what was judged,
// where the partial report is (by default and with --quiet).
func TestInterrupt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process hygiene is checked through /proc")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			quiet := sig == syscall.SIGTERM
			r := runConsole(t, quiet, []string{"--timeout", "60s", "--grace", "10s"}, "hang-on-read,ignore-stdin-eof,ignore-sigterm", sig, "resources/read")
			printed := strings.TrimRight(r.stdout, "\n") + "\n" + strings.TrimRight(r.stderr, "\n")
			if n := strings.Count(printed, "\n") + 1; n > 5 {
				t.Errorf("quiet=%v: %d lines printed, want at most 5:\n%s", quiet, n, printed)
			}
			if !strings.Contains(r.stdout, "interrupted by "+sig.String()+" after ") || !regexp.MustCompile(`judged \d+ of \d+ checks`).MatchString(r.stdout) {
				t.Errorf("quiet=%v: the console does not say when and what was judged:\n%s", quiet, r.stdout)
			}
			if !strings.Contains(r.stderr, "the report is partial: "+filepath.Join(filepath.Dir(r.reportDir), "report")) {
				t.Errorf("stderr does not say where the partial report is: %s", r.stderr)
			}
			// From the signal: about 2 s whatever the server ignores (the
			// shutdown's waits are cut short, the 10 s graces included),
			// with slack for a loaded machine; never the graces.
			t.Logf("exited %s after %s", r.afterSignal, sig)
			if r.afterSignal > 2*time.Second+3*time.Second {
				t.Errorf("mcpconform took %s to exit after %s", r.afterSignal, sig)
			}
			if r.code != exitIncomplete || r.report.Interrupted != "interrupted by "+sig.String() || r.report.Summary.Verdict != "error" {
				t.Errorf("exit %d, interrupted %q, verdict %q; want %d, the signal named, and error", r.code, r.report.Interrupted, r.report.Summary.Verdict, exitIncomplete)
			}
			if !strings.Contains(r.stderr, "the report is partial") {
				t.Errorf("stderr does not say the report is partial: %s", r.stderr)
			}
			notJudged(t, r)
			interruptedInEveryFormat(t, r, "interrupted by "+sig.String())
		})
	}
}

// TestInterruptKeepsFailures: a run cut short by a signal judges what it
// gathered. A failure observed before the signal (a banner on stdout)
// stays a failure, exit 1, in every report; what the signal left without
// evidence is not judged, with the reason, and nothing of it passes.
// SIGHUP (a closed terminal, a cancelled CI job) is handled as SIGINT.
func TestInterruptKeepsFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process hygiene is checked through /proc")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			r := runConsole(t, false, []string{"--timeout", "60s", "--grace", "10s"}, "banner,hang-on-read,ignore-stdin-eof", sig, "resources/read")
			if r.code != exitNonconformant || r.report.Interrupted != "interrupted by "+sig.String() || r.report.Summary.Verdict != "nonconformant" {
				t.Errorf("exit %d, interrupted %q, verdict %q; want %d, the signal named, and nonconformant\n%s", r.code, r.report.Interrupted, r.report.Summary.Verdict, exitNonconformant, r.stderr)
			}
			if x := r.result(t, "stdio-only-mcp-messages"); x.Verdict != "fail" {
				t.Errorf("stdio-only-mcp-messages: %s: %s; want the banner's fail kept", x.Verdict, x.Message)
			}
			if r.report.Summary.Pass == 0 {
				t.Errorf("nothing gathered before the signal was judged")
			}
			notJudged(t, r)
			if !strings.Contains(r.stdout, "NONCONFORMANT interrupted by "+sig.String()) {
				t.Errorf("the console does not call the run nonconformant and interrupted:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, "the report is partial: ") {
				t.Errorf("stderr does not say where the partial report is: %s", r.stderr)
			}
			md, err := os.ReadFile(filepath.Join(r.reportDir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "# mcpconform report: NONCONFORMANT") || !strings.Contains(string(md), "interrupted by "+sig.String()) {
				t.Errorf("report.md does not call the run nonconformant and interrupted:\n%s", clipText(string(md), 600))
			}
		})
	}
}

// TestSecondInterruptQuitsAtOnce: a second SIGINT while the first one's
// partial report is being made ends mcpconform at once, with exit 4 and
// no report, and its servers (deaf to stdin EOF and SIGTERM) die with it.
func TestSecondInterruptQuitsAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process hygiene is checked through /proc")
	}
	// The second signal must reach mcpconform before the first one's
	// shutdown is over (about a second here): on a machine too busy for
	// that, the attempt is made again.
	for attempt := 1; attempt <= 3; attempt++ {
		dir := t.TempDir()
		mark := newMark(t)
		record := filepath.Join(dir, "record.jsonl")
		cmd := exec.Command(cliBinary(t), "--quiet", "--report-dir", filepath.Join(dir, "report"), "--env", "MCPCONFORM_MARK="+mark,
			"--timeout", "60s", "--grace", "10s", "--", cliBinary(t), "mock", "--fault", "hang-on-read,ignore-stdin-eof,ignore-sigterm", "--record", record)
		var stderr lockedBuffer
		cmd.Stdout, cmd.Stderr = new(bytes.Buffer), &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		waitForRequest(t, record, "resources/read", time.Minute)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(stderr.String(), "stopping") {
			if time.Now().After(deadline) {
				t.Fatalf("no word of the first interrupt on stderr: %s", stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		second := time.Now()
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			<-exited
			t.Logf("attempt %d: the run had ended before the second signal (%v)", attempt, err)
			continue
		}
		var err error
		select {
		case err = <-exited:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("mcpconform did not exit after a second SIGINT")
		}
		if !strings.Contains(stderr.String(), "again: quitting without a report") {
			t.Logf("attempt %d: the run ended as the second signal arrived: %s", attempt, stderr.String())
			continue
		}
		took := time.Since(second)
		t.Logf("exited %s after the second signal", took)
		if took > 5*time.Second {
			t.Errorf("mcpconform took %s to quit after a second SIGINT", took)
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitIncomplete {
			t.Errorf("exit %v, want %d", err, exitIncomplete)
		}
		if _, err := os.Stat(filepath.Join(dir, "report", "report.json")); err == nil {
			t.Errorf("a report was written; a second interrupt quits without one")
		}
		if left := waitNoMark(mark, 10*time.Second); len(left) > 0 {
			t.Errorf("server processes outlived mcpconform: %v", left)
		}
		return
	}
	t.Fatal("in three attempts, the run always ended before the second signal")
}

// interruptedInEveryFormat checks that the Markdown, HTML and JUnit
// reports of an interrupted run say why it was cut short, call it an
// error, and name the rules left unjudged.
func interruptedInEveryFormat(t *testing.T, r hostileRun, why string) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(r.reportDir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return string(b)
	}
	md, page, junit := read("report.md"), read("report.html"), read("junit.xml")
	if !strings.Contains(md, "# mcpconform report: ERROR") || !strings.Contains(md, why) {
		t.Errorf("report.md does not call the run an error interrupted by %q:\n%s", why, clipText(md, 600))
	}
	if !strings.Contains(page, why) || strings.Contains(page, "CONFORMANT") {
		t.Errorf("report.html does not say %q, or calls the run conformant", why)
	}
	if !strings.Contains(junit, `<property name="verdict" value="error">`) || !regexp.MustCompile(`errors="[1-9][0-9]*"`).MatchString(junit) {
		t.Errorf("junit.xml does not report the run as an error:\n%s", clipText(junit, 600))
	}
	if strings.Contains(junit, "Rule:  ()") {
		t.Errorf("junit.xml has results left unjudged that name no rule")
	}
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// notJudged checks that an interrupted run fails nothing it did not see:
// what the end of the run cut off is an error, not a failure.
func notJudged(t *testing.T, r hostileRun) {
	t.Helper()
	cut := 0
	for _, x := range r.report.Results {
		if strings.Contains(x.Message, "the run was stopped") || strings.HasPrefix(x.Message, "not run: ") || strings.HasPrefix(x.Message, "not judged: interrupted") {
			cut++
			if x.Verdict != "error" {
				t.Errorf("%s: %s: %s; want error: the run was stopped", x.ID, x.Verdict, x.Message)
			}
		}
	}
	if cut == 0 {
		t.Errorf("no result says the run was stopped:\n%s", r)
	}
}

// TestServerTreeDiesWithKilledHarness: mcpconform killed outright (no
// shutdown code runs) still takes the server's whole tree with it: a
// child in the server's group, a child in a session of its own, neither
// with a parent-death signal (a fork clears it), and the server itself.
func TestServerTreeDiesWithKilledHarness(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor needs Linux")
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid command")
	}
	dir := t.TempDir()
	mark := newMark(t)
	record := filepath.Join(dir, "record.jsonl")
	server := filepath.Join(dir, "server.sh")
	script := "#!/bin/sh\nsleep 300 &\n" + strconv.Quote(setsid) + " sleep 300 &\nexec " +
		strconv.Quote(cliBinary(t)) + " mock --fault hang-on-read --record " + strconv.Quote(record) + "\n"
	if err := os.WriteFile(server, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// One check, one process: the kill finds the server running (a kill
	// during a shutdown is TestLeftoversDieWithTheHarnessDuringShutdown's).
	cmd := exec.Command(cliBinary(t), "--quiet", "--only", "resources-read-listed", "--timeout", "60s", "--env", "MCPCONFORM_MARK="+mark, "--", server)
	cmd.Stdout, cmd.Stderr = new(bytes.Buffer), new(bytes.Buffer)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForRequest(t, record, "resources/read", time.Minute)
	before := markedProcesses(mark)
	// The server, its two sleeps and its supervisor at least.
	if len(before) < 4 {
		t.Errorf("%d processes carry the mark before the kill (%v), want the server's tree", len(before), before)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if left := waitNoMark(mark, 30*time.Second); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("processes of the server outlived mcpconform killed by SIGKILL: %v", left)
	}
}
