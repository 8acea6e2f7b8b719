package runner_test

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/runner"
)

// Run judges a server from a Go program. The server here is the reference
// server, served by this test binary (see TestMain); a program names its
// own server's command.
func ExampleRun() {
	cfg := runner.Config{
		Command:     []string{os.Args[0]},
		Env:         []string{serveEnv + "=1"},
		SpecVersion: "2025-11-25",
		Only:        []string{"area:ping", "area:lifecycle"},
	}
	rep, outcome, err := runner.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Target.ProtocolVersion, rep.Summary.Verdict, outcome.ExitCode())
	// Output:
	// 2025-11-25 conformant 0
}

// A run's evidence can be judged again, with another selection or
// baseline, without the server: here the first run's evidence, kept by
// Recorded.
func ExampleJudge() {
	cfg := runner.Config{
		Command:     []string{os.Args[0], "--fault", "ping-not-empty"},
		Env:         []string{serveEnv + "=1"},
		SpecVersion: "2025-11-25",
		Only:        []string{"area:ping", "area:lifecycle"},
	}
	var kept *evidence.Run
	cfg.Recorded = func(run *evidence.Run) { kept = run }
	rep, outcome, err := runner.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the run:", rep.Summary.Verdict, outcome.ExitCode())
	cfg.Skip = []string{"area:ping"}
	rep, outcome, err = runner.Judge(context.Background(), kept, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("judged again without the ping checks:", rep.Summary.Verdict, outcome.ExitCode())
	// Output:
	// the run: nonconformant 1
	// judged again without the ping checks: conformant 0
}
