package transport

import (
	"os"
	"slices"
	"strings"
)

// minimalEnvKeys are the variables a server gets by default: enough to run,
// not enough to pick up the caller's credentials or tokens.
var minimalEnvKeys = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR"}

// MinimalKeys returns the names of the variables a server gets by default.
func MinimalKeys() []string { return slices.Clone(minimalEnvKeys) }

// Environment builds a server's environment: the minimal set of the caller's
// variables (or all of them when inherit is set), then extra KEY=VALUE pairs,
// which win over inherited ones.
func Environment(extra []string, inherit bool) []string {
	vals := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	if inherit {
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				set(k, v)
			}
		}
	} else {
		for _, k := range minimalEnvKeys {
			if v, ok := os.LookupEnv(k); ok {
				set(k, v)
			}
		}
	}
	for _, kv := range extra {
		if k, v, ok := strings.Cut(kv, "="); ok {
			set(k, v)
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out
}
