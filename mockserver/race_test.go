//go:build race

package mockserver

// raceEnabled lets tests that only push bulk data skip the race detector,
// which slows byte-by-byte JSON scanning tenfold.
const raceEnabled = true
