package clientrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
)

// Interactive says how to record a host that cannot be scripted (a
// desktop app, an IDE extension): the user adds the printed server entry
// to the host's configuration and uses it; every session the host starts
// is recorded, and judged when the wait ends.
type Interactive struct {
	// Mock is the argv that starts the recording mock without its flags;
	// its first element should be an absolute path, as hosts start
	// servers from anywhere.
	Mock []string
	// Scenario is the scenario whose mock the host gets (default
	// initialize: the reference server as it is).
	Scenario string
	// Dir is where the sessions are recorded; it is kept.
	Dir string
	// Timeout, when positive, ends the wait without an interrupt.
	Timeout time.Duration
	Tool    string
}

// ServerName is the name of the recording mock in the printed block.
const ServerName = "mcpconform-recording-mock"

// Block returns the mcpServers JSON block that names the recording mock.
func (in Interactive) Block() ([]byte, error) {
	argv := MockArgv(in.Mock, &evidence.ScenarioRun{Name: in.scenario()}, in.Dir)
	block := map[string]any{"mcpServers": map[string]any{
		ServerName: map[string]any{"command": argv[0], "args": argv[1:]},
	}}
	return json.MarshalIndent(block, "", "  ")
}

func (in Interactive) scenario() string {
	if in.Scenario == "" {
		return "initialize"
	}
	return in.Scenario
}

// Record prints the block to w, then waits until ctx ends (the user's
// Ctrl-C) or the timeout passes, and returns the sessions recorded as one
// scenario run. Neither ending is an interruption: it is how the user
// says the sessions are over.
func (in Interactive) Record(ctx context.Context, w io.Writer) (*evidence.ClientRun, error) {
	if err := os.MkdirAll(in.Dir, 0o755); err != nil {
		return nil, err
	}
	block, err := in.Block()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "%s\n", block)
	run := &evidence.ClientRun{Format: 1, Tool: in.Tool, Transport: evidence.TransportStdio, Started: time.Now()}
	var timeout <-chan time.Time
	if in.Timeout > 0 {
		t := time.NewTimer(in.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	}
	run.Duration = time.Since(run.Started)
	sc := newRun(mustScenario(in.scenario()), "", evidence.ClassConformance)
	sc.Client.Stopped = "an interactive session: the host was started by hand"
	spawns, err := ReadSpawns(in.Dir)
	if err != nil {
		return nil, err
	}
	sc.Spawns = spawns
	run.Command = []string{"(interactive host)"}
	run.Scenarios = []*evidence.ScenarioRun{sc}
	return run, nil
}

// mustScenario returns the scenario named, or a bare one of that name.
func mustScenario(name string) Scenario {
	if sc, ok := ScenarioNamed(name); ok {
		return sc
	}
	return Scenario{Name: name}
}
