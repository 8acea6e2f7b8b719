//go:build race

package suite_test

// raceEnabled lets the tests that move bulk data leave the race detector
// out: it makes them take minutes and finds nothing they do not share
// with the others.
const raceEnabled = true
