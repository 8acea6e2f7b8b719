package checks

// pingChecks judge ping (PING-*). Ping is judged by vector tests
// (vectors/ping/): no procedural check is needed.
func pingChecks() []*Check { return nil }
