package cliflag

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFlags(t *testing.T) {
	var names, env []string
	var d time.Duration
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(List{&names, "--only ping"}, "only", "")
	fs.Var((*Env)(&env), "env", "")
	DurationVar(fs, &d, "timeout", 10*time.Second, "")
	if d != 10*time.Second {
		t.Errorf("default: got %s, want 10s", d)
	}
	if err := fs.Parse([]string{"--only", " a, b ,", "--only", "c", "--env", "K=V=W", "--timeout", "1m30s"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) || !slices.Equal(env, []string{"K=V=W"}) || d != 90*time.Second {
		t.Errorf("got %q, %q, %s", names, env, d)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", " , "}, "empty; write e.g. --only ping"},
		{[]string{"--env", "=V"}, `want KEY=VALUE, got "=V"`},
		{[]string{"--env", "K"}, `want KEY=VALUE, got "K"`},
		{[]string{"--timeout", "10"}, "a duration needs a unit; write --timeout 10s"},
		{[]string{"--timeout", "soon"}, "not a duration; write e.g. --timeout 10s (units: ms, s, m, h)"},
	} {
		if err := fs.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
		}
	}
}
