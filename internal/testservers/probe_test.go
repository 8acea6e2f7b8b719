package testservers_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestProbe records how each real server answers the edge cases that the
// suite's verdicts depend on; README.md is written from its output. It runs
// only with MCPCONFORM_PROBE=1 (it waits on purpose, so it is slow) and
// writes its transcript to $MCPCONFORM_PROBE_OUT, or to the test log.
//
//	MCPCONFORM_PROBE=1 MCPCONFORM_PROBE_OUT=probe.md go test -run TestProbe -timeout 20m ./internal/testservers
func TestProbe(t *testing.T) {
	if os.Getenv("MCPCONFORM_PROBE") != "1" {
		t.Skip("set MCPCONFORM_PROBE=1 to probe the real servers")
	}
	var out strings.Builder
	for _, s := range servers {
		argv := s.argv(t)
		fmt.Fprintf(&out, "\n# %s\n\nargv: %q\n", s.name, argv)
		for _, pr := range probes(s) {
			t.Run(s.name+"/"+pr.name, func(t *testing.T) {
				fmt.Fprintf(&out, "\n## %s\n\n```\n%s```\n", pr.name, runProbe(t, argv, pr))
			})
		}
	}
	if path := os.Getenv("MCPCONFORM_PROBE_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Log(out.String())
}

// A probe is one fresh server process: an optional initialize, then lines
// sent one at a time, each followed by a ping whose answer marks the end of
// what the line caused.
type probe struct {
	name  string
	init  string   // protocol version of the initialize; "" sends none
	lines []string // raw lines
	eof   bool     // close stdin at the end and time the exit
	quiet bool     // no sentinel ping after each line: wait only
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"0"}}`

func probes(s server) []probe {
	req := func(id, method, params string) string {
		if params == "" {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
	}
	var ps []probe
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"} {
		ps = append(ps, probe{name: "initialize " + v, init: v})
	}
	ps = append(ps,
		probe{name: "initialize twice", init: "2025-06-18", lines: []string{
			req("2", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}`)}},
		probe{name: "initialize without params", lines: []string{req("1", "initialize", "")}},
		probe{name: "read unknown uri", init: "2025-06-18", lines: []string{
			req("1", "resources/read", `{"uri":"mcpconform-missing://nonce-1"}`),
			req("2", "resources/read", `{"uri":"test://static/missing.txt"}`),
			req("3", "resources/read", `{"uri":"test://bytes/999"}`),
			req("4", "resources/read", `{"uri":"not a uri"}`)}},
		probe{name: "unknown method and bad params", init: "2025-06-18", lines: []string{
			req("1", "mcpconform/unknown", `{}`),
			req("2", "resources/read", `{}`),
			req("3", "resources/read", `{"uri":5}`),
			req("4", "resources/read", ""),
			req("5", "resources/list", `[]`)}},
		probe{name: "before initialize: resources/list", lines: []string{req("1", "resources/list", "")}},
		probe{name: "before initialize: ping", quiet: true, lines: []string{req("1", "ping", "")}},
		probe{name: "before initialized notification", quiet: true, lines: []string{
			req(`"init"`, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}`),
			req("2", "resources/list", "")}},
	)
	// Each broken line gets a fresh process: some servers close the
	// connection at the first one.
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":`,
		`hello`,
		`{"id":5,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","extra":1}`,
		`{"jsonrpc":"2.0","id":8,"method":5}`,
		`{"jsonrpc":"2.0","id":9}`,
		`[]`,
		`{}`,
		`5`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
	} {
		ps = append(ps, probe{name: "broken line " + l, init: "2025-06-18", lines: []string{l}})
	}
	ps = append(ps,
		probe{name: "batch in a 2025-03-26 session", init: "2025-03-26", lines: []string{
			`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`}},
		probe{name: "pagination", init: "2025-06-18", lines: []string{
			req("1", "resources/list", ""),
			req("2", "resources/list", `{"cursor":"mcp-conformance-invalid-cursor"}`),
			req("3", "resources/templates/list", ""),
			req("4", "resources/templates/list", `{"cursor":"mcp-conformance-invalid-cursor"}`)}},
		probe{name: "id echo", init: "2025-06-18", lines: []string{
			req(`"ü-1"`, "ping", ""),
			req(`"\u00fc-2"`, "ping", ""),
			req("0", "ping", ""),
			req("-1", "ping", ""),
			req("9007199254740991", "ping", ""),
			req("9007199254740993", "ping", ""),
			req("1e2", "ping", ""),
			req("100.0", "ping", "")}},
		probe{name: "notifications and ping params", init: "2025-06-18", lines: []string{
			`{"jsonrpc":"2.0","method":"notifications/mcpconform-unknown"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`,
			`{"jsonrpc":"2.0","method":"ping"}`,
			`{"jsonrpc":"2.0","method":"resources/list"}`,
			req("1", "ping", `{}`),
			req("2", "ping", `{"_meta":{}}`),
			req("3", "ping", `[]`)}},
	)
	sub := []string{
		req("1", "resources/subscribe", `{"uri":"test://static/note.txt"}`),
		req("2", "tools/call", `{"name":"touch","arguments":{"uri":"test://static/note.txt"}}`),
		req("3", "resources/unsubscribe", `{"uri":"test://static/note.txt"}`),
		req("4", "tools/call", `{"name":"touch","arguments":{"uri":"test://static/note.txt"}}`),
		req("5", "resources/subscribe", `{"uri":"mcpconform-missing://nonce-2"}`),
		req("6", "resources/subscribe", `{}`),
	}
	if !s.fixture {
		sub = []string{
			req("1", "resources/subscribe", `{"uri":"demo://resource/static/document/features.md"}`),
			req("3", "resources/unsubscribe", `{"uri":"demo://resource/static/document/features.md"}`),
			req("5", "resources/subscribe", `{"uri":"mcpconform-missing://nonce-2"}`),
			req("6", "resources/subscribe", `{}`),
		}
	}
	ps = append(ps,
		probe{name: "subscriptions", init: "2025-06-18", lines: sub},
		probe{name: "stdin EOF", init: "2025-06-18", eof: true},
		probe{name: "stdin EOF before initialize", eof: true},
		probe{name: "2026-07-28 without initialize", lines: []string{
			req("1", "server/discover", `{`+modernMeta+`}`),
			req("2", "server/discover", `{}`),
			req("3", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`),
			req("4", "resources/list", `{`+modernMeta+`}`),
			req("5", "resources/read", `{"uri":"mcpconform-missing://nonce-3",`+modernMeta+`}`),
			req("6", "resources/read", `{"uri":"test://static/note.txt",`+modernMeta+`}`),
			req("7", "ping", `{`+modernMeta+`}`),
			req("8", "resources/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)}},
		probe{name: "server/discover in a 2025-06-18 session", init: "2025-06-18", lines: []string{
			req("1", "server/discover", `{`+modernMeta+`}`)}},
	)
	return ps
}

func runProbe(t *testing.T, argv []string, pr probe) string {
	var b strings.Builder
	p := startPeer(t, argv)
	show := func(seen []line) {
		for _, l := range seen {
			text := l.text
			if len(text) > 1500 {
				text = text[:1500] + fmt.Sprintf("… (%d bytes)", len(l.text))
			}
			fmt.Fprintf(&b, "<- %s   [%dms]\n", text, l.at.Milliseconds())
		}
	}
	// A server may die at any line; a write that fails is a finding.
	write := func(s string) bool {
		if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
			fmt.Fprintf(&b, "!! writing: %v\n", err)
			return false
		}
		return true
	}
	sent := func(s string) {
		if write(s) {
			fmt.Fprintf(&b, "-> %s\n", s)
		}
	}
	if pr.init != "" {
		sent(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`, pr.init))
		_, seen, err := p.until(`"init"`, 10*time.Second)
		show(seen)
		if err != nil {
			fmt.Fprintf(&b, "!! %v\n", err)
		}
		sent(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		show(drain(p, 300*time.Millisecond))
	}
	for i, s := range pr.lines {
		sent(s)
		if pr.quiet {
			show(drain(p, 500*time.Millisecond))
			continue
		}
		id := fmt.Sprintf(`"sentinel-%d"`, i)
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id))
		_, seen, err := p.until(id, 2*time.Second)
		// The sentinel's own answer is not shown; anything after it that
		// arrives within the grace period is.
		if err == nil {
			seen = seen[:len(seen)-1]
		}
		seen = append(seen, drain(p, 200*time.Millisecond)...)
		show(seen)
		if err != nil {
			fmt.Fprintf(&b, "!! sentinel ping: %v\n", err)
		}
	}
	if pr.eof {
		start := time.Now()
		p.stdin.Close()
		fmt.Fprintf(&b, "-> (stdin closed)\n")
		select {
		case <-p.exited:
			fmt.Fprintf(&b, "   exited after %dms: %v\n", time.Since(start).Milliseconds(), p.cmd.ProcessState)
		case <-time.After(5 * time.Second):
			fmt.Fprintf(&b, "   still running 5s after EOF\n")
		}
		show(drain(p, 100*time.Millisecond))
	} else {
		show(drain(p, 100*time.Millisecond))
		select {
		case <-p.exited:
			fmt.Fprintf(&b, "   process exited: %v\n", p.cmd.ProcessState)
		case <-time.After(500 * time.Millisecond):
			fmt.Fprintf(&b, "   process still running\n")
		}
	}
	if e := strings.TrimSpace(p.Stderr()); e != "" {
		if len(e) > 2000 {
			e = e[:2000] + "…"
		}
		fmt.Fprintf(&b, "stderr: %s\n", e)
	}
	return b.String()
}

// drain returns the lines that arrive until none has for d.
func drain(p *peer, d time.Duration) []line {
	var seen []line
	for {
		l, ok := p.next(d)
		if !ok {
			return seen
		}
		seen = append(seen, l)
	}
}
