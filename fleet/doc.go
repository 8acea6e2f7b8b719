// Package fleet runs the conformance suite over a list of servers and
// judges them in one report: what `mcpconform fleet` and `mcpconform merge`
// do, for a Go program to call.
//
// A target list (Load, Parse; its schema is TargetsSchema) names each
// server's command or URL, its environment by variable names only, the
// variables it requires, a setup command, and any flag of a single run.
// Run runs the targets at most Options.Parallel at once, each as
// runner.Run runs one server, and places each in one class
// (reports.Class): conformant, nonconformant, incomplete or setup-error.
//
// A list is split for engines that run many machines: Select deals the ids
// of a Shard, Balance splits them by the durations of a previous run, and
// Merge joins the fleet reports of the shards, refusing conflicting
// duplicates. NewMatrix lays out checks by targets in the catalogue's
// order, for the fleet's Markdown and HTML reports and for docs/compat.md.
package fleet
