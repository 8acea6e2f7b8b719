package clientrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// fakeHTTPClient is a small client of the contract over Streamable HTTP,
// for the tests of Run: its last argument is the URL of the server. It
// initializes, lists tools and ends its session with DELETE; given 404
// for its session, it starts a new one once. Its behaviour changes that:
// "no-session" drops the session id after initialize, "no-renew" exits 1
// on a 404 instead of starting a new session, "server-command" exits 1
// when MCP_CONFORMANCE_SERVER_COMMAND is set (a URL run has none).
func fakeHTTPClient(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "want BEHAVIOUR URL")
		return 2
	}
	behaviour, url := args[0], args[len(args)-1]
	if behaviour == "server-command" && os.Getenv(EnvServerCommand) != "" {
		fmt.Fprintln(os.Stderr, "MCP_CONFORMANCE_SERVER_COMMAND is set")
		return 1
	}
	version := os.Getenv(EnvProtocolVersion)
	if version == "" {
		version = "2025-11-25"
	}
	var session string
	post := func(msg string) (int, []byte, error) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if session != "" && behaviour != "no-session" || session != "" && strings.Contains(msg, `"initialize"`) {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if !strings.Contains(msg, `"initialize"`) {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		var body bytes.Buffer
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id"`) {
					body.WriteString(data)
					break
				}
			}
		} else {
			body.ReadFrom(resp.Body)
		}
		return resp.StatusCode, body.Bytes(), nil
	}
	initialize := func() error {
		session = ""
		status, _, err := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"fake","version":"1"}}}`, version))
		if err == nil && status != 200 {
			err = fmt.Errorf("initialize: status %d", status)
		}
		if err == nil {
			_, _, err = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		return err
	}
	if err := initialize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	renewed, cursor := false, ""
	for id := 2; ; id++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		status, body, err := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if status == http.StatusNotFound && !renewed && behaviour != "no-renew" {
			renewed = true
			if err := initialize(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			continue
		}
		var m struct {
			Result *struct {
				NextCursor string `json:"nextCursor"`
			}
		}
		if status != 200 || json.Unmarshal(body, &m) != nil || m.Result == nil {
			fmt.Fprintf(os.Stderr, "tools/list: status %d: %s\n", status, body)
			return 1
		}
		if m.Result.NextCursor == "" || m.Result.NextCursor == cursor {
			break
		}
		cursor = m.Result.NextCursor
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", version)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	return 0
}
