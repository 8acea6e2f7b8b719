package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v0.3.0", nil, "v0.3.0"},
		{"v0.0.0-20250101000000-59c1d16abcde+dirty", settings("vcs.revision", "59c1d16abcdef"), "v0.0.0-20250101000000-59c1d16abcde+dirty"},
		{"(devel)", settings("vcs.revision", "59c1d16abcdef0123", "vcs.modified", "false"), "devel+59c1d16"},
		{"(devel)", settings("vcs.revision", "59c1d16abcdef0123", "vcs.modified", "true"), "devel+59c1d16-dirty"},
		{"", settings("vcs.revision", "abc"), "devel+abc"},
		{"(devel)", nil, "devel"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpconform/mcpconform", Version: tc.main}, Settings: tc.settings}
		if got := versionFrom(info); got != tc.want {
			t.Errorf("main %q, settings %v: got %q, want %q", tc.main, tc.settings, got, tc.want)
		}
	}
}
