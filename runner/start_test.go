package runner

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/evidence"
)

// TestNamesWord: the start-up hint names a variable only when the
// server's stderr names it as a word, not inside an identifier.
func TestNamesWord(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{"fatal: API_KEY is not set", "API_KEY", true},
		{"API_KEY", "API_KEY", true},
		{"missing $API_KEY.", "API_KEY", true},
		{"at Module._load (node:internal)", "_", false},
		{"MY_API_KEY_2 is unset", "API_KEY", false},
		{"HOME_DIR and HOME", "HOME", true},
	} {
		if got := namesWord(tc.text, tc.name); got != tc.want {
			t.Errorf("namesWord(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}

// TestEnvHint: the start-up hint speaks of the environment only when the
// server's stderr names a variable: one of ours that it did not get, or one
// that it says is missing and that we have not got either.
func TestEnvHint(t *testing.T) {
	t.Setenv("MCPCONFORM_TEST_TOKEN", "secret")
	t.Setenv("API_KEY", "")
	os.Unsetenv("API_KEY")
	for _, tc := range []struct {
		name   string
		stderr []string
		env    []string
		want   string // a part of the hint; "" for none
	}{
		{"silent", nil, nil, ""},
		{"names nothing", []string{"Error: listen EADDRINUSE", "    at Module._load (node:internal)"}, nil, ""},
		{"a Node error code is no variable", []string{"Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/index.js'"}, nil, ""},
		{"missing and not here either", []string{"fatal: API_KEY is not set"}, nil, "its stderr names API_KEY, which is not set here either; give the server it with --env API_KEY=VALUE"},
		{"ours, not passed", []string{"error: MCPCONFORM_TEST_TOKEN is required"}, nil, "its stderr names MCPCONFORM_TEST_TOKEN, which the server did not get"},
		{"ours, passed", []string{"error: MCPCONFORM_TEST_TOKEN is required"}, []string{"MCPCONFORM_TEST_TOKEN=x"}, ""},
		{"a $ name", []string{"please set $SERVICE_URL (missing)"}, nil, "its stderr names SERVICE_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &evidence.Process{StderrTail: tc.stderr}
			got := envHint(p, Config{Env: tc.env})
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
