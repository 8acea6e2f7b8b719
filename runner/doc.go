// Package runner runs the conformance suite against an MCP server and
// judges what it recorded into a report: what the mcpconform command does,
// for a Go program or test to call.
//
// A run flows execute → evidence → judge → report. Run starts the server
// the Config names, drives it through everything the selected checks need
// (package execute), and judges the evidence (package suite) into a
// reports.Report; Judge does the second half for evidence recorded before
// (mcpconform --evidence, then mcpconform judge). Both return an Outcome
// beside the report: its Status, the exit code the command gives it, and
// the notes the command prints.
//
// New checks a Config before anything runs (selectors and baseline entries
// that name no check are errors), so that a program can refuse a bad
// configuration before it starts a server; Run and Judge call it for a
// single use.
//
// Cancelling the context cuts a run short: what was recorded is judged,
// every check not judged is an error saying why (the context's cause, a
// signal for the command: CatchInterrupts), and the report is partial.
// Past Config.RunTimeout the run stops the same way.
//
// A program with a command line of its own takes the command's flags with
// Config.RegisterFlags, checks them with CheckFlags and takes the server
// (a command or a URL) from its arguments with SetTarget; LoadEvidence
// reads a saved run for Judge, and SaveEvidence writes one without the
// values of Config.RedactEnv. The report's destinations are
// reports.Outputs.
package runner
