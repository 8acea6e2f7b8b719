// Package stdiotest is a stdio server for the tests of the harness, in
// modes that misbehave. A test binary runs as it when Env is set: its
// TestMain calls Serve (the TestMain trick of go-sdk's mcp/cmd_test.go),
// so there is nothing more to build, and each misbehaviour is a few lines
// here.
package stdiotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Env holds the modes of the server the test binary is to run as.
const Env = "MCPCONFORM_STDIO_TEST_SERVER"

// Command returns the argv and environment that run the test binary as
// the server in the given modes, with extra variables.
func Command(modes string, extra ...string) (argv, env []string) {
	return []string{os.Args[0], "-test.run=^$"}, append(append(os.Environ(), Env+"="+modes), extra...)
}

// Has reports whether the comma-separated modes hold m.
func Has(modes, m string) bool { return strings.Contains(","+modes+",", ","+m+",") }

// HugeSize is the length of the result the "huge" mode sends.
const HugeSize = 50 << 20

// Serve answers every request on stdin with an empty result, changed by
// the comma-separated modes:
//
//	huge           answers "huge" with a result holding a HugeSize-byte string
//	               (and "deep", in every mode, with a result nested 1,000 deep)
//	crash          exits with status 7 on the first request, after a stderr line
//	ignore-sigterm ignores SIGTERM
//	ignore-eof     keeps running after stdin EOF
//	no-read        never reads stdin
//	stderr-flood   writes 10 MB to stderr first
//	leave-child    starts a child in a session of its own holding stdout and stderr
//	leave-group    starts a child in its own process group that closed its stdio
//	sleeper        (the child) sleeps for a minute
//	ask-client     after answering initialize, sends roots/list,
//	               sampling/createMessage, elicitation/create, ping and an
//	               unknown method as requests s0…s4
//
// It returns the exit status.
func Serve(modes string) int {
	has := func(m string) bool { return Has(modes, m) }
	if has("sleeper") {
		time.Sleep(time.Minute)
		return 0
	}
	if has("ignore-sigterm") {
		signal.Ignore(syscall.SIGTERM)
	}
	if has("stderr-flood") {
		line := []byte(strings.Repeat("flood ", 16) + "\n")
		for n := 0; n < 10_000_000; n += len(line) {
			os.Stderr.Write(line)
		}
	}
	if has("leave-child") || has("leave-group") {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), Env+"=sleeper")
		if has("leave-child") {
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "helper: child %d\n", cmd.Process.Pid)
	}
	if has("no-read") {
		for {
			time.Sleep(time.Hour)
		}
	}
	w := bufio.NewWriter(os.Stdout)
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			if has("ignore-eof") {
				for {
					time.Sleep(time.Hour)
				}
			}
			return 0
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil || req.Method == "" {
			continue // not a request (an answer to one of ours, say)
		}
		if has("crash") {
			fmt.Fprintln(os.Stderr, "helper: crashing on", req.Method)
			return 7
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
		if req.Method == "trickle" {
			// 20 pieces, 100 ms apart: a line still arriving at any
			// deadline under two seconds.
			w.WriteString(`{"text":"`)
			for i := 0; i < 20; i++ {
				w.WriteString(strings.Repeat("t", 1000))
				w.Flush()
				time.Sleep(100 * time.Millisecond)
			}
			w.WriteString(`"}`)
		} else if req.Method == "huge" {
			w.WriteString(`{"text":"`)
			chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
			for n := 0; n < HugeSize; n += len(chunk) {
				w.Write(chunk)
			}
			w.WriteString(`"}`)
		} else if req.Method == "half" {
			// The start of an answer, and then nothing, ever.
			w.WriteString(`{"text":"half`)
			w.Flush()
			time.Sleep(time.Hour)
		} else if req.Method == "deep" {
			// Nested past wire.MaxDepth: an answer the client cannot read.
			w.WriteString(strings.Repeat("[", 1000) + strings.Repeat("]", 1000))
		} else {
			w.WriteString(`{}`)
		}
		w.WriteString("}\n")
		if req.Method == "initialize" && has("ask-client") {
			// Requests of every kind a server may make of a client.
			for i, m := range []string{"roots/list", "sampling/createMessage", "elicitation/create", "ping", "x/unknown"} {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"s%d","method":%q,"params":{}}`+"\n", i, m)
			}
		}
		w.Flush()
	}
}
