package compat

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reports"
)

// Client is one real client that `mcpconform client` is compared against:
// an everything client of examples/everything.
type Client struct {
	Name    string
	Title   string
	BuiltOn string
	// Source is the client's program, relative to the repository's root.
	Source string
}

// Clients lists the real clients, in the table's column order.
var Clients = []Client{
	{Name: "gosdk", Title: "go-sdk", BuiltOn: "github.com/modelcontextprotocol/go-sdk v1.8.0", Source: "examples/everything/gosdk"},
	{Name: "mcpgo", Title: "mcp-go", BuiltOn: "github.com/mark3labs/mcp-go v1.2.1", Source: "examples/everything/mcpgo"},
	{Name: "ts", Title: "TypeScript SDK", BuiltOn: "@modelcontextprotocol/sdk 1.32.2", Source: "examples/everything/ts/client.mjs"},
}

// ClientKey is the golden key of a client check judged in a scenario
// under a protocol version: "scenario/checkID@version".
func ClientKey(scenario, checkID, version string) string {
	return scenario + "/" + Key(checkID, version)
}

// ClientTransports are the transports the clients are judged over, in
// the table's order.
var ClientTransports = []string{"stdio", "http"}

// ClientPath is the golden file of a client under dir, judged over stdio.
func ClientPath(dir, client string) string { return ClientPathOn(dir, client, "stdio") }

// ClientPathOn is the golden file of a client under dir, judged over the
// transport: NAME.golden.json over stdio, NAME.http.golden.json over
// Streamable HTTP.
func ClientPathOn(dir, client, transport string) string {
	if transport == "stdio" {
		return filepath.Join(dir, "clients", client+".golden.json")
	}
	return filepath.Join(dir, "clients", client+"."+transport+".golden.json")
}

// Variable parts of a client run's messages: where its files were, how
// long things took, process ids.
var (
	tempPath = regexp.MustCompile(`(/tmp|/var/folders)/[^\s"']*`)
	duration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`)
	pid      = regexp.MustCompile(`\b(pid|process) \d+`)
)

// FromClientResults builds the golden record of a client run, its results
// keyed by scenario (the "scenario:" label), with paths, durations and
// process ids masked.
func FromClientResults(client string, results []reports.Result) (*Golden, error) {
	g := &Golden{Server: client, Verdicts: map[string]reports.Verdict{}, Reasons: map[string]string{}}
	for _, r := range results {
		scenario := ""
		for _, l := range r.Labels {
			if s, ok := strings.CutPrefix(l, "scenario:"); ok {
				scenario = s
			}
		}
		k := ClientKey(scenario, r.ID, r.ProtocolVersion)
		if _, dup := g.Verdicts[k]; dup {
			return nil, fmt.Errorf("two results for %s", k)
		}
		g.Verdicts[k] = r.Verdict
		if r.Verdict != reports.Pass {
			msg := tempPath.ReplaceAllString(r.Message, "{tmp}")
			msg = duration.ReplaceAllString(msg, "{duration}")
			msg = pid.ReplaceAllString(msg, "$1 {pid}")
			msg = sessions.ReplaceAllString(msg, `session "{session}"`)
			msg = ports.ReplaceAllString(msg, "$1:{port}")
			g.Reasons[k] = reports.ShortReason(msg, "")
		}
	}
	return g, nil
}

// LoadClients reads the golden files of every client of Clients under
// dir, by transport.
func LoadClients(dir string) (map[string][]*Golden, error) {
	out := map[string][]*Golden{}
	for _, tr := range ClientTransports {
		for _, c := range Clients {
			g, err := Load(ClientPathOn(dir, c.Name, tr))
			if err != nil {
				return nil, err
			}
			out[tr] = append(out[tr], g)
		}
	}
	return out, nil
}

// RenderClients writes the "Clients" section of the compatibility
// document: a row per scenario and transport, a column per client, each
// cell the scenario's outcome (its passes, or what failed, warned or was
// only recorded), then the reasons of every verdict that is neither a
// pass nor a skip.
func RenderClients(w io.Writer, byTransport map[string][]*Golden) error {
	title := map[string]Client{}
	for _, c := range Clients {
		title[c.Name] = c
	}
	var b strings.Builder
	b.WriteString("\n## Clients\n\n")
	b.WriteString("What `mcpconform client` says about the everything clients of [examples/everything](../examples/everything), one per SDK, run in every scenario (`mcpconform client --list`) over stdio and over Streamable HTTP (`--transport http`: the mock's URL is the client's last argument). ")
	b.WriteString("The verdicts come from the golden files under internal/compat/testdata/clients that `go test ./internal/compat -run 'TestClientGolden'` compares every run against (`-update` rewrites them). ")
	b.WriteString("A cell counts the scenario's passes, or names the checks that failed or warned; `declined` is a client that exited 2 or 3 without reaching the server (recorded, not judged); `—` a scenario not run over that transport.\n\n")
	clients := byTransport[ClientTransports[0]]
	b.WriteString("| scenario | transport |")
	sep := "| --- | --- |"
	for _, g := range clients {
		fmt.Fprintf(&b, " %s |", title[g.Server].Title)
		sep += " --- |"
	}
	b.WriteString("\n" + sep + "\n")
	var all []*Golden
	for _, tr := range ClientTransports {
		all = append(all, byTransport[tr]...)
	}
	for _, sc := range clientScenarios(all) {
		for _, tr := range ClientTransports {
			if len(clientScenariosOf(byTransport[tr], sc)) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| `%s` | %s |", sc, tr)
			for _, g := range byTransport[tr] {
				fmt.Fprintf(&b, " %s |", scenarioCell(g, sc))
			}
			b.WriteString("\n")
		}
	}
	for i, c := range clients {
		fmt.Fprintf(&b, "\n### %s\n\nBuilt on %s; [`%s`](../%s). Golden files: `internal/compat/testdata/clients/%s.golden.json` (stdio), `%s.http.golden.json` (Streamable HTTP).\n\n", title[c.Server].Title, title[c.Server].BuiltOn, title[c.Server].Source, title[c.Server].Source, c.Server, c.Server)
		n := 0
		for _, tr := range ClientTransports {
			g := byTransport[tr][i]
			for _, k := range g.Keys() {
				if v := g.Verdicts[k]; v != reports.Pass && v != reports.Skip {
					fmt.Fprintf(&b, "- %s `%s` %s: %s\n", tr, k, v, g.Reasons[k])
					n++
				}
			}
		}
		if n == 0 {
			b.WriteString("Every judged check passes.\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clientScenariosOf returns the goldens that judged the scenario.
func clientScenariosOf(goldens []*Golden, scenario string) []*Golden {
	var out []*Golden
	for _, g := range goldens {
		for k := range g.Verdicts {
			if sc, _, _ := strings.Cut(k, "/"); sc == scenario {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// clientScenarios are the scenarios of the goldens, sorted.
func clientScenarios(goldens []*Golden) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range goldens {
		for k := range g.Verdicts {
			if sc, _, ok := strings.Cut(k, "/"); ok && !seen[sc] {
				seen[sc] = true
				out = append(out, sc)
			}
		}
	}
	sort.Strings(out)
	return out
}

// scenarioCell sums up a client's verdicts in a scenario.
func scenarioCell(g *Golden, scenario string) string {
	count := map[reports.Verdict]int{}
	var failed, warned []string
	declined := false
	for k, v := range g.Verdicts {
		sc, rest, _ := strings.Cut(k, "/")
		if sc != scenario {
			continue
		}
		id, _ := SplitKey(rest)
		count[v]++
		switch {
		case v == reports.Fail:
			failed = append(failed, id)
		case v == reports.Warn:
			warned = append(warned, id)
		case v == reports.Info && (id == "client-spawned-server" || id == "client-http-connects"):
			declined = true
		}
	}
	sort.Strings(failed)
	sort.Strings(warned)
	switch {
	case len(failed) > 0:
		return "**fail**: " + strings.Join(failed, ", ")
	case len(warned) > 0:
		return "warn: " + strings.Join(warned, ", ")
	case declined:
		return "declined"
	case len(count) == 0:
		return "—"
	}
	return fmt.Sprintf("pass (%d)", count[reports.Pass])
}

// RenderDoc writes docs/compat.md from the golden files under dir: the
// servers' matrix, then the clients' table.
func RenderDoc(w io.Writer, dir string) error {
	servers, err := LoadAll(dir)
	if err != nil {
		return err
	}
	clients, err := LoadClients(dir)
	if err != nil {
		return err
	}
	if err := Render(w, servers); err != nil {
		return err
	}
	return RenderClients(w, clients)
}
