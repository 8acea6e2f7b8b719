package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The GitHub Action (action.yml at the repository root) and its example
// workflow are tested here because they wrap this command.

type actionFile struct {
	Name        string                  `json:"name"`
	Description string                  `json:"description"`
	Author      string                  `json:"author"`
	Branding    map[string]string       `json:"branding"`
	Inputs      map[string]actionInput  `json:"inputs"`
	Outputs     map[string]actionOutput `json:"outputs"`
	Runs        struct {
		Using string       `json:"using"`
		Steps []actionStep `json:"steps"`
	} `json:"runs"`
}

type actionInput struct {
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Default     *string `json:"default"`
}

type actionOutput struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

type actionStep struct {
	Name  string            `json:"name"`
	ID    string            `json:"id"`
	Uses  string            `json:"uses"`
	Shell string            `json:"shell"`
	Env   map[string]string `json:"env"`
	With  map[string]string `json:"with"`
	Run   string            `json:"run"`
}

var repoRoot = filepath.Join("..", "..")

func loadAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

func TestActionIsWellFormed(t *testing.T) {
	a := loadAction(t)
	if a.Name == "" || a.Description == "" {
		t.Error("action.yml needs a name and a description")
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using: got %q, want composite", a.Runs.Using)
	}
	if in, ok := a.Inputs["command"]; !ok || !in.Required {
		t.Error("the command input must exist and be required")
	}
	for _, name := range []string{"command", "spec-version", "baseline", "strict", "report-dir", "extra-args"} {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("input %s is missing", name)
		}
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if !in.Required && in.Default == nil {
			t.Errorf("optional input %s has no default", name)
		}
	}

	// Every input is used, and only declared inputs are referred to; inputs
	// reach shell scripts only through env, never by interpolation.
	used := map[string]bool{}
	stepIDs := map[string]bool{}
	sawSetupGo := false
	for i, s := range a.Runs.Steps {
		if s.ID != "" {
			stepIDs[s.ID] = true
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			sawSetupGo = true
		}
		if s.Run != "" {
			if !sawSetupGo {
				t.Errorf("step %d runs a script before actions/setup-go", i)
			}
			if s.Shell == "" {
				t.Errorf("step %d (%s): a composite step that runs a script needs a shell", i, s.Name)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %d (%s) interpolates an expression into its script; pass it through env", i, s.Name)
			}
		}
		var values []string
		for _, m := range []map[string]string{s.Env, s.With} {
			for _, v := range m {
				values = append(values, v)
			}
		}
		for _, v := range values {
			for _, m := range expression.FindAllStringSubmatch(v, -1) {
				if name, ok := strings.CutPrefix(m[1], "inputs."); ok {
					if _, declared := a.Inputs[name]; !declared {
						t.Errorf("step %d refers to undeclared input %s", i, name)
					}
					used[name] = true
				}
			}
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %s is never used", name)
		}
	}
	if !sawSetupGo {
		t.Error("no actions/setup-go step")
	}

	// Outputs come from a step that sets them.
	if _, ok := a.Outputs["report-dir"]; !ok {
		t.Error("output report-dir is missing")
	}
	for name, out := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$`).FindStringSubmatch(out.Value)
		if m == nil || !stepIDs[m[1]] {
			t.Errorf("output %s: value %q does not name a step's output", name, out.Value)
			continue
		}
		for _, s := range a.Runs.Steps {
			if s.ID == m[1] && !strings.Contains(s.Run, m[2]+"=") {
				t.Errorf("output %s: step %s never writes %s", name, m[1], m[2])
			}
		}
	}

	install := stepNamed(t, a, "Install mcpconform")
	// The module is not published: the action builds the binary from its
	// own checkout, whatever ref it is used at.
	if !strings.Contains(install.Run, `cd "$ACTION_DIR" && go build -o "$GOBIN/mcpconform" ./cmd/mcpconform`) ||
		install.Env["ACTION_DIR"] != "${{ github.action_path }}" {
		t.Errorf("the install step does not build mcpconform from the action's own checkout:\n%s", install.Run)
	}
}

func stepNamed(t *testing.T, a *actionFile, name string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", name)
	return actionStep{}
}

// TestActionRunStep runs the action's run script with bash, as the runner
// would, against the mock server built from this package.
func TestActionRunStep(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	if _, err := exec.LookPath("xargs"); err != nil {
		t.Skip("xargs not found")
	}
	a := loadAction(t)
	step := stepNamed(t, a, "Run mcpconform")
	bin := cliBinary(t)
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

	for _, tc := range []struct {
		name   string
		inputs map[string]string
		code   int
		// summary must contain this; outputs must hold exit-code.
		summary string
		check   func(t *testing.T, dir string)
	}{
		{
			name:    "conformant",
			inputs:  map[string]string{"command": q(bin) + " mock"},
			code:    0,
			summary: "# mcpconform report: CONFORMANT",
		},
		{
			name:    "failing run still writes the summary",
			inputs:  map[string]string{"command": q(bin) + " mock --fault ping-not-empty"},
			code:    1,
			summary: "# mcpconform report: NONCONFORMANT",
		},
		{
			name: "strict, quoted arguments and extra args",
			inputs: map[string]string{
				"command": q(bin) + ` mock "--fault" 'unknown-uri-internal'`, "strict": "true",
				"extra-args": `--only "resources-read-unknown-uri*" --timeout 20s`, "spec-version": "2025-06-18", "report-dir": "out dir",
			},
			code:    1,
			summary: "NONCONFORMANT",
			check: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "out dir", "junit.xml")); err != nil {
					t.Errorf("report-dir with a space: %v", err)
				}
			},
		},
		{
			name: "baseline",
			inputs: map[string]string{
				"command": q(bin) + " mock --fault=banner", "baseline": "known failures.yaml",
			},
			code:    0,
			summary: "| xfail | 1 |",
		},
		{
			// HOME is the test's directory: expanded, --cwd $HOME would be
			// valid and the run would end with exit 3 (no such server);
			// as the literal text it names no directory: exit 2.
			name:    "nothing in the inputs is evaluated",
			inputs:  map[string]string{"command": "$(touch pwned) `touch pwned2` ; touch pwned3", "extra-args": "--cwd $HOME"},
			code:    2,
			summary: "before writing a report",
			check: func(t *testing.T, dir string) {
				for _, f := range []string{"pwned", "pwned2", "pwned3"} {
					if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
						t.Errorf("the command input was evaluated: %s exists", f)
					}
				}
			},
		},
		{
			name:    "usage error",
			inputs:  map[string]string{"command": q(bin) + " mock", "spec-version": "1999-01-01"},
			code:    2,
			summary: "before writing a report",
		},
		{
			name:   "empty command",
			inputs: map[string]string{"command": "   "},
			code:   2,
		},
		{
			name:   "unmatched quote",
			inputs: map[string]string{"command": "./srv 'oops"},
			code:   2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, "known failures.yaml", "entries:\n  - id: stdio-only-mcp-messages\n    reason: the banner goes in v2\n")
			inputs := map[string]string{}
			for name, in := range a.Inputs {
				if in.Default != nil {
					inputs[name] = *in.Default
				}
			}
			for k, v := range tc.inputs {
				inputs[k] = v
			}
			env := []string{
				"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
				"GITHUB_OUTPUT=" + filepath.Join(dir, "output"),
				"GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary.md"),
			}
			for k, v := range step.Env {
				if k == "MCPCONFORM" { // the binary the install step made
					env = append(env, k+"="+bin)
					continue
				}
				v = expression.ReplaceAllStringFunc(v, func(e string) string {
					ref := expression.FindStringSubmatch(e)[1]
					if name, ok := strings.CutPrefix(ref, "inputs."); ok {
						return inputs[name]
					}
					t.Fatalf("env %s: unexpected expression %s", k, e)
					return ""
				})
				env = append(env, k+"="+v)
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.Run)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, tail(string(out), 1500))
			}
			outputs, _ := os.ReadFile(filepath.Join(dir, "output"))
			summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
			if tc.summary != "" {
				if !strings.Contains(string(summary), tc.summary) {
					t.Errorf("job summary lacks %q: %q", tc.summary, tail(string(summary), 500))
				}
				lines := strings.Split(strings.TrimSpace(string(outputs)), "\n")
				if !slices.Contains(lines, "exit-code="+string(rune('0'+tc.code))) || !slices.Contains(lines, "report-dir="+inputs["report-dir"]) {
					t.Errorf("outputs: got %q", outputs)
				}
			}
			if tc.code != 0 && !strings.Contains(string(out), "::error title=mcpconform::") {
				t.Errorf("no error annotation in the log:\n%s", tail(string(out), 500))
			}
			if tc.check != nil {
				tc.check(t, dir)
			}
		})
	}
}

// TestExampleWorkflow checks that the example workflow is YAML and passes
// only inputs the action has.
func TestExampleWorkflow(t *testing.T) {
	a := loadAction(t)
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "examples", "mcpconform.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []actionStep `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("docs/examples/mcpconform.yml: %v", err)
	}
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if !strings.HasPrefix(s.Uses, "mcpconform/mcpconform@") {
				continue
			}
			found = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("the example passes %s, which the action does not take", k)
				}
			}
			if s.With["command"] == "" {
				t.Error("the example gives no command")
			}
		}
	}
	if !found {
		t.Error("the example workflow does not use the action")
	}
}
