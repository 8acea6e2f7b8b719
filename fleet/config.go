package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
)

// DefaultRunTimeout bounds a target's run when the list gives no
// run-timeout, as the command's --run-timeout does.
const DefaultRunTimeout = 5 * time.Minute

// prepared is a target ready to run, or the reason it cannot be.
type prepared struct {
	t     Target
	cfg   runner.Config
	dir   string   // the server's working directory
	setup []string // the setup command, its program resolved
	// setupDir is where the setup runs.
	setupDir string
	// missing is the setup error found before anything runs: a variable
	// required and not set, a cwd that does not exist.
	missing string
	// notes are what the fleet tells about the target (a variable named
	// in env that is not set).
	notes []string
}

// ConfigError is a target whose configuration is wrong in itself (a
// selector that names no check, a baseline that cannot be read): the list
// needs mending, whatever the environment.
type ConfigError struct {
	ID  string
	Err error
}

func (e *ConfigError) Error() string { return fmt.Sprintf("target %s: %v", e.ID, e.Err) }

// Check verifies what every target of the list needs before anything
// runs (its selectors, its baseline, its vector files), as a single run
// verifies its flags: a list with such a mistake is refused whole.
func (f *File) Check() error {
	for _, t := range f.Targets {
		if t.Vectors != "" {
			if _, err := vectors.LoadPath(resolve(f.dir(), t.Vectors)); err != nil {
				return &ConfigError{ID: t.ID, Err: err}
			}
		}
		// The environment does not matter here: what is checked is the
		// list's own text.
		if _, err := runner.New(f.prepare(t, []string{}, "").cfg); err != nil {
			return &ConfigError{ID: t.ID, Err: err}
		}
	}
	return nil
}

// prepare turns a target into the configuration of its run, with values
// from environ (the fleet's environment as KEY=VALUE; nil: this process's).
// Relative paths are taken from the list's folder, and the program of a
// command named by a path from the target's cwd, as a shell there would.
func (f *File) prepare(t Target, environ []string, tool string) *prepared {
	if environ == nil {
		environ = os.Environ()
	}
	lookup := func(k string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if name, v, ok := strings.Cut(environ[i], "="); ok && name == k {
				return v, true
			}
		}
		return "", false
	}
	base := f.dir()
	p := &prepared{t: t, dir: resolve(base, t.Cwd)}
	if t.Cwd == "" {
		p.dir = base
	}
	var unset []string
	for _, k := range t.Requires {
		if v, ok := lookup(k); !ok || v == "" {
			unset = append(unset, k)
		}
	}
	if len(unset) > 0 {
		p.missing = fmt.Sprintf("requires %s, which %s not set in the environment the fleet runs in: not run", strings.Join(unset, ", "), plural(len(unset), "is", "are"))
	}
	var header []string
	for _, k := range t.HeaderEnv {
		v, ok := lookup(k)
		if !ok || strings.TrimSpace(v) == "" {
			if p.missing == "" {
				p.missing = fmt.Sprintf("header-env names %s, which is not set in the environment the fleet runs in: not run", k)
			}
			continue
		}
		if name, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(name) == "" {
			if p.missing == "" {
				p.missing = fmt.Sprintf("header-env: %s does not hold a header field (Name: value): not run", k)
			}
			continue
		}
		header = append(header, v)
	}
	if st, err := os.Stat(p.dir); p.missing == "" && (err != nil || !st.IsDir()) {
		p.missing = fmt.Sprintf("cwd %s is not a directory here: not run", p.dir)
	}
	var env []string
	for _, k := range append(slices.Clone(t.Requires), t.Env...) {
		if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") }) {
			continue
		}
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		} else if !slices.Contains(t.Requires, k) {
			p.notes = append(p.notes, fmt.Sprintf("env names %s, which is not set in the environment the fleet runs in: the server runs without it", k))
		}
	}
	command := slices.Clone(t.Command)
	if len(command) > 0 && hasSeparator(command[0]) {
		command[0] = resolve(p.dir, command[0])
	}
	policy, _ := plan.ParseToolPolicy(t.CallTools) // checked by Load
	if t.CallTools == "" {
		policy = plan.ToolPolicy{Mode: plan.CallNone}
	}
	p.cfg = runner.Config{
		Command:             command,
		URL:                 t.URL,
		Transport:           t.Transport,
		PortFrom:            t.PortFrom,
		HTTPPath:            t.HTTPPath,
		Host:                t.Host,
		Header:              header,
		Dir:                 p.dir,
		Env:                 env,
		InheritEnv:          t.InheritEnv,
		SpecVersion:         t.SpecVersion,
		Only:                t.Only,
		Skip:                t.Skip,
		CallTools:           policy,
		Baseline:            resolve(base, t.Baseline),
		Strict:              t.Strict,
		Timeout:             time.Duration(t.Timeout),
		StartTimeout:        time.Duration(t.StartTimeout),
		RunTimeout:          time.Duration(t.RunTimeout),
		Grace:               time.Duration(t.Grace),
		ServerRequestWindow: time.Duration(t.ServerRequestWindow),
		MaxMessageSize:      t.MaxMessageSize,
		Parallel:            t.Parallel,
		Tool:                tool,
		Name:                t.ID,
	}
	if p.cfg.RunTimeout == 0 {
		p.cfg.RunTimeout = DefaultRunTimeout
	}
	if t.Vectors != "" {
		files, err := vectors.LoadPath(resolve(base, t.Vectors))
		if err != nil {
			// Refused by Check before a fleet runs; a file gone since is
			// this target's setup error.
			p.missing = fmt.Sprintf("vectors: %v", err)
		}
		p.cfg.Vectors = files
	}
	if t.Setup != nil {
		p.setup = slices.Clone(t.Setup.Command)
		p.setupDir = p.dir
		if t.Setup.Cwd != "" {
			p.setupDir = resolve(base, t.Setup.Cwd)
		}
		if hasSeparator(p.setup[0]) {
			p.setup[0] = resolve(p.setupDir, p.setup[0])
		}
	}
	return p
}

func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

// rel is p relative to base when it lies under it, else p.
func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}
