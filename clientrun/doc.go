// Package clientrun runs an MCP client under test and records what it did,
// for the client checks to judge: the other half of the harness, where the
// client starts the server and mcpconform plays that server.
//
// A run follows the conformance contract (docs/client-guide.md): the
// client is started once per scenario with MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT and
// MCP_CONFORMANCE_SERVER_COMMAND, the argv of the recording mock
// (ServeRecording, `mcpconform mock --scenario NAME --evidence DIR`). Each
// process of the mock serves the reference mock server set up for the
// scenario and writes one evidence stream into DIR as things happen; Run
// reads the streams back (ReadSpawns) into an evidence.ClientRun, and
// Report judges it with the checks it is given (checks.JudgeScenario), so
// that this package does not depend on the suite.
//
// Over Streamable HTTP (Config.Transport evidence.TransportHTTP) the client
// gets no MCP_CONFORMANCE_SERVER_COMMAND: each scenario run serves the
// same mock in this process on 127.0.0.1 (StartHTTPMock) and appends its
// URL to the client's argv, the official suite's form; every HTTP exchange
// is recorded into one spawn, as server runs record theirs.
//
//	run, err := clientrun.Run(ctx, clientrun.Config{
//		Command: []string{"./my-client"},
//		Mock:    []string{mcpconformPath, "mock"},
//	})
//	rep, status := clientrun.Report(run, checks.JudgeScenario, clientrun.ReportOptions{})
package clientrun
