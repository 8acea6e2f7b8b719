// Package bench holds mcpconform's benchmarks: whole runs of the suite, the
// request round trip of the reference client, and the memory it takes to
// read a huge response. They measure and report; they assert nothing about
// time or memory. docs/performance.md gives the figures and how to
// reproduce them:
//
//	go test -run '^$' -bench . -benchtime 10x ./internal/bench
package bench
