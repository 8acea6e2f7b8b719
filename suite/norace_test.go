//go:build !race

package suite_test

const raceEnabled = false
