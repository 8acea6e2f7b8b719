//go:build race

package wire

// raceEnabled says the race detector runs: it keeps shadow memory for
// every byte written, so the process's resident memory says nothing of
// what the code under test holds.
const raceEnabled = true
