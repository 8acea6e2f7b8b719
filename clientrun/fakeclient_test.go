package clientrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// fakeClient is a small client of the contract, for the tests of Run: it
// spawns MCP_CONFORMANCE_SERVER_COMMAND, initializes, lists tools to the
// last page and closes the server's stdin, then waits for it. Its
// behaviour changes that: "never-spawn" exits 0 at once, "decline" exits
// 2 as for an unknown scenario, "hang" never exits, "fail" does the
// scenario and exits 1, "picky" gives up (exit 1) on a server that
// declares experimental capabilities, "escape" leaves a child behind in a
// session of its own, "flood" writes 64 MiB to stdout and to stderr.
func fakeClient(args []string) int {
	behaviour := "good"
	if len(args) > 0 {
		behaviour = args[0]
	}
	switch behaviour {
	case "never-spawn":
		return 0
	case "decline":
		fmt.Fprintln(os.Stderr, "unknown scenario", os.Getenv(EnvScenario))
		return 2
	case "hang":
		select {}
	case "escape":
		// A child in a session of its own, holding this client's stdout,
		// that outlives it; its pid on stdout.
		child := exec.Command(os.Args[0], "fake-client", "hang")
		child.Stdout = os.Stdout
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			return 1
		}
		fmt.Println("child", child.Process.Pid)
		return 0
	case "flood":
		line := strings.Repeat("x", 1<<16) + "\n"
		for i := 0; i < 1<<10; i++ { // 64 MiB
			io.WriteString(os.Stdout, line)
			io.WriteString(os.Stderr, line)
		}
		return 0
	}
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(EnvServerCommand)), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "MCP_CONFORMANCE_SERVER_COMMAND: want a JSON array of strings")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := bufio.NewReader(out)
	version := os.Getenv(EnvProtocolVersion)
	if version == "" {
		version = "2025-11-25"
	}
	call := func(id int, method string, params any) (json.RawMessage, error) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		in.Write(append(b, '\n'))
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			}
			json.Unmarshal(line, &m)
			switch {
			case m.Method == "ping" && m.ID != nil:
				fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
			case m.Method == "" && string(m.ID) == fmt.Sprint(id):
				return m.Result, nil
			}
		}
	}
	res, err := call(1, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "fake", "version": "1"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "initialize:", err)
		return 1
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if behaviour == "picky" && strings.Contains(string(res), `"experimental"`) {
		fmt.Fprintln(os.Stderr, "unexpected experimental capabilities")
		in.Close()
		cmd.Wait()
		return 1
	}
	cursor, id := "", 2
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := call(id, "tools/list", params)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tools/list:", err)
			return 1
		}
		id++
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(res, &page)
		if page.NextCursor == "" || page.NextCursor == cursor {
			break
		}
		cursor = page.NextCursor
	}
	in.Close()
	cmd.Wait()
	if behaviour == "fail" {
		return 1
	}
	return 0
}
