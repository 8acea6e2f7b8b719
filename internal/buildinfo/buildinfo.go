// Package buildinfo names the version of the running mcpconform binary,
// for --version and every report.
package buildinfo

import "runtime/debug"

// Version is the version of this binary when no -ldflags set one: the
// main module's version (v0.3.0 for `go install ...@v0.3.0`), or, for a
// binary built from a checkout ("(devel)"), "devel+" and the commit it was
// built from, "-dirty" when the tree had changes; "devel" when nothing is
// known.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionFrom(info)
}

func versionFrom(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 7 {
		rev = rev[:7] // the short form git prints
	}
	v := "devel+" + rev
	if dirty {
		v += "-dirty"
	}
	return v
}
