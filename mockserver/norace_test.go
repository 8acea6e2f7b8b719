//go:build !race

package mockserver

const raceEnabled = false
