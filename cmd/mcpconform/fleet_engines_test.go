package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fleet"
	"github.com/mcpconform/mcpconform/reports"
	"sigs.k8s.io/yaml"
)

// The engines a fleet is split over, shipped as examples in docs/: a
// GitHub Actions workflow and a Kubernetes Indexed Job. Their YAML is
// checked here, and the mcpconform commands they run are run by a shell
// as the engine would (with a stub in mcpconform's place that records its
// arguments), then parsed with the command's own flag parser.

// stubShell returns a PATH whose mcpconform records every invocation into
// the returned log, and prints a split for merge --balance, and whose gh
// and jq print nothing a script could act on.
func stubShell(t *testing.T) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "invocations")
	stubs := map[string]string{
		"mcpconform": `for a in "$@"; do printf '%s\001' "$a"; done >> "$MCPCONFORM_STUB_LOG"; printf '\n' >> "$MCPCONFORM_STUB_LOG"
case "$1 $2" in "merge --balance") echo '{"shards": []}' ;; esac`,
		"gh": `exit 0`,
		"jq": `echo '[]'`,
	}
	for name, body := range stubs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), log
}

// invocations reads the stub's log: one argv per invocation.
func invocations(t *testing.T, log string) [][]string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		out = append(out, strings.Split(strings.TrimSuffix(line, "\x01"), "\x01"))
	}
	return out
}

// parsedInvocation is an mcpconform fleet or merge command line, parsed
// by the command's flag parser.
type parsedInvocation struct {
	sub  string
	opts *fleetOptions
	args []string
}

// parseInvocation parses argv as the command would, and fails the test on
// anything it would refuse.
func parseInvocation(t *testing.T, argv []string) parsedInvocation {
	t.Helper()
	if len(argv) == 0 {
		t.Fatal("an empty mcpconform invocation")
	}
	var p parsedInvocation
	p.sub = argv[0]
	var fsArgs []string
	switch p.sub {
	case "fleet":
		fs, o := fleetFlags()
		if err := fs.Parse(argv[1:]); err != nil {
			t.Fatalf("mcpconform %s: %v", strings.Join(argv, " "), err)
		}
		p.opts, fsArgs = o, fs.Args()
		if len(fsArgs) != 1 {
			t.Errorf("mcpconform %s: want one target list, got %q", strings.Join(argv, " "), fsArgs)
		}
		if o.shard != "" {
			if _, err := fleet.ParseShard(o.shard); err != nil {
				t.Errorf("mcpconform %s: %v", strings.Join(argv, " "), err)
			}
		}
		if o.split != "" && o.shard == "" {
			t.Errorf("mcpconform %s: --split without --shard", strings.Join(argv, " "))
		}
	case "merge":
		fs, o := mergeFlags()
		if err := fs.Parse(argv[1:]); err != nil {
			t.Fatalf("mcpconform %s: %v", strings.Join(argv, " "), err)
		}
		p.opts, fsArgs = o, fs.Args()
		if o.balance == 0 && len(fsArgs) == 0 {
			t.Errorf("mcpconform %s: merges no directory", strings.Join(argv, " "))
		}
	default:
		t.Fatalf("mcpconform %s: not a fleet or merge command", strings.Join(argv, " "))
	}
	if err := p.opts.validate(); err != nil {
		t.Errorf("mcpconform %s: %v", strings.Join(argv, " "), err)
	}
	p.args = fsArgs
	return p
}

type workflow struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		Needs    any               `json:"needs"`
		If       string            `json:"if"`
		Outputs  map[string]string `json:"outputs"`
		Strategy struct {
			Matrix map[string]any `json:"matrix"`
		} `json:"strategy"`
		Steps []struct {
			Name string            `json:"name"`
			ID   string            `json:"id"`
			Uses string            `json:"uses"`
			If   string            `json:"if"`
			With map[string]string `json:"with"`
			Env  map[string]string `json:"env"`
			Run  string            `json:"run"`
		} `json:"steps"`
	} `json:"jobs"`
}

var ghExpression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// TestFleetWorkflowExample: the example workflow splits the list over at
// most 256 matrix jobs, one shard each, and merges what they upload; its
// mcpconform commands, run by bash as the runner would, are valid, and the
// shards they run are every shard of the split, once.
func TestFleetWorkflowExample(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "examples", "fleet-workflow.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("fleet-workflow.yml: %v", err)
	}
	shards, err := strconv.Atoi(wf.Env["SHARDS"])
	if err != nil || shards < 1 || shards > 256 {
		t.Fatalf("SHARDS is %q: want a number of matrix jobs from 1 to 256 (GitHub's limit per run)", wf.Env["SHARDS"])
	}
	plan, shard, merge := wf.Jobs["plan"], wf.Jobs["shard"], wf.Jobs["merge"]
	if plan.Steps == nil || shard.Steps == nil || merge.Steps == nil {
		t.Fatal("the workflow needs the jobs plan, shard and merge")
	}
	if shard.Needs != "plan" || merge.Needs != "shard" || merge.If != "always()" {
		t.Errorf("shard needs %v, merge needs %v if %q; want plan, then shard, and the merge always", shard.Needs, merge.Needs, merge.If)
	}
	if m := fmt.Sprint(shard.Strategy.Matrix["shard"]); m != "${{ fromJSON(needs.plan.outputs.shards) }}" {
		t.Errorf("the matrix is %q, want the plan's shards", m)
	}
	// What the shards upload is what the merge downloads, and what the
	// merge uploads is what the next plan downloads.
	uploads := map[string]string{}
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
				uploads[job] = s.With["name"]
				if s.If != "always()" {
					t.Errorf("%s uploads %s only on success: a failed run's reports are the ones wanted", job, s.With["name"])
				}
			}
		}
	}
	if uploads["shard"] != "fleet-shard-${{ strategy.job-index }}" || uploads["merge"] != "fleet-report" {
		t.Errorf("uploads: %v", uploads)
	}
	if !strings.Contains(string(data), "pattern: fleet-shard-*") || !strings.Contains(string(data), "--name fleet-report") {
		t.Error("the merge does not download the shards' artifacts, or the plan the last report")
	}

	path, log := stubShell(t)
	splitJSON := `{"shards":[]}`
	values := func(shardValue string) map[string]string {
		return map[string]string{
			"matrix.shard":              shardValue,
			"needs.plan.outputs.split":  splitJSON,
			"needs.plan.outputs.shards": "[]",
			"secrets.NOTES_API_KEY":     "",
			"github.token":              "token",
			"github.workflow":           "MCP conformance fleet",
			"strategy.job-index":        "0",
		}
	}
	runScripts := func(job string, shardValue string, withPrevious bool) {
		t.Helper()
		for _, s := range wf.Jobs[job].Steps {
			if s.Run == "" || !regexp.MustCompile(`(?m)^\s*mcpconform `).MatchString(s.Run) {
				continue
			}
			expand := func(text string) string {
				return ghExpression.ReplaceAllStringFunc(text, func(m string) string {
					name := ghExpression.FindStringSubmatch(m)[1]
					v, ok := values(shardValue)[name]
					if !ok {
						t.Errorf("%s: step %q uses the expression %s, which this test does not know", job, s.Name, name)
					}
					return v
				})
			}
			dir := t.TempDir()
			if withPrevious {
				os.MkdirAll(filepath.Join(dir, "previous"), 0o755)
				os.WriteFile(filepath.Join(dir, "previous", reports.FleetJSONFile), []byte("{}"), 0o644)
			}
			os.MkdirAll(filepath.Join(dir, "shards", "fleet-shard-0"), 0o755)
			cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", expand(s.Run))
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + path, "MCPCONFORM_STUB_LOG=" + log, "RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + filepath.Join(dir, "out"), "GITHUB_PATH=" + filepath.Join(dir, "path")}
			for k, v := range wf.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			for k, v := range s.Env {
				cmd.Env = append(cmd.Env, k+"="+expand(v))
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: step %q: %v\n%s", job, s.Name, err, out)
			}
		}
	}
	runScripts("plan", "", false)
	runScripts("plan", "", true)
	for i := 1; i <= shards; i++ {
		runScripts("shard", fmt.Sprintf("%d/%d", i, shards), false)
	}
	runScripts("merge", "", false)

	var balances, fleets, merges int
	ran := map[string]bool{}
	for _, argv := range invocations(t, log) {
		p := parseInvocation(t, argv)
		switch {
		case p.sub == "merge" && p.opts.balance > 0:
			balances++
			if p.opts.balance != shards || p.opts.targets != wf.Env["TARGETS"] {
				t.Errorf("the plan splits %d ways the list %q; want %d ways %q", p.opts.balance, p.opts.targets, shards, wf.Env["TARGETS"])
			}
			if balances == 2 && !slices.Equal(p.args, []string{"previous"}) {
				t.Errorf("with a previous report, the plan balances on %q, want previous", p.args)
			}
		case p.sub == "fleet":
			fleets++
			ran[p.opts.shard] = true
			if p.opts.split == "" || p.opts.out.Dir == "" || p.args[0] != wf.Env["TARGETS"] {
				t.Errorf("a shard runs %q with split %q and report dir %q", p.args, p.opts.split, p.opts.out.Dir)
			}
		case p.sub == "merge":
			merges++
			if p.opts.targets != wf.Env["TARGETS"] || p.opts.out.Dir != "fleet-report" || !slices.Equal(p.args, []string{"shards/fleet-shard-0"}) {
				t.Errorf("the merge: targets %q, report dir %q, parts %q", p.opts.targets, p.opts.out.Dir, p.args)
			}
		}
	}
	if balances != 2 || fleets != shards || merges != 1 || len(ran) != shards {
		t.Errorf("ran %d plans, %d shards (%d distinct), %d merges; want 2, %d, %d, 1", balances, fleets, len(ran), merges, shards, shards)
	}
}

type k8sJob struct {
	Kind string `json:"kind"`
	Spec struct {
		CompletionMode       string `json:"completionMode"`
		Completions          int    `json:"completions"`
		BackoffLimitPerIndex *int   `json:"backoffLimitPerIndex"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `json:"action"`
				OnExitCodes struct {
					ContainerName string `json:"containerName"`
					Operator      string `json:"operator"`
					Values        []int  `json:"values"`
				} `json:"onExitCodes"`
			} `json:"rules"`
		} `json:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string `json:"restartPolicy"`
				Containers    []struct {
					Name    string   `json:"name"`
					Command []string `json:"command"`
					Args    []string `json:"args"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
	Data map[string]string `json:"data"`
}

// k8sDocs reads the documents of a multi-document YAML file.
func k8sDocs(t *testing.T, name string) []k8sJob {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []k8sJob
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var j k8sJob
		if err := yaml.Unmarshal([]byte(doc), &j); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, j)
	}
	return out
}

// runContainer runs a container's command and args with sh, as the
// kubelet would exec them, with the stub mcpconform, and returns what it
// was called with.
func runContainer(t *testing.T, command, args []string, env ...string) [][]string {
	t.Helper()
	argv := append(slices.Clone(command), args...)
	path, log := stubShell(t)
	lookup, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s not found", argv[0])
	}
	cmd := exec.Command(lookup, argv[1:]...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"PATH=" + path, "MCPCONFORM_STUB_LOG=" + log}, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	return invocations(t, log)
}

// TestFleetKubernetesExample: the Indexed Job runs one shard per index,
// JOB_COMPLETION_INDEX (from 0) becoming --shard (from 1), every shard of
// its completions once, each into its own folder, retries a shard alone
// (backoffLimitPerIndex) unless its exit code is a verdict; the merge Job
// merges those folders; the ConfigMap holds a valid target list.
func TestFleetKubernetesExample(t *testing.T) {
	docs := k8sDocs(t, "fleet-k8s-job.yaml")
	var job *k8sJob
	for i := range docs {
		switch docs[i].Kind {
		case "Job":
			job = &docs[i]
		case "ConfigMap":
			if _, err := fleet.Parse("targets.yaml", []byte(docs[i].Data["targets.yaml"])); err != nil {
				t.Errorf("the ConfigMap's target list: %v", err)
			}
		}
	}
	if job == nil {
		t.Fatal("fleet-k8s-job.yaml has no Job")
	}
	s := job.Spec
	if s.CompletionMode != "Indexed" || s.Completions < 1 || s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex < 1 || s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("the Job: completionMode %q, completions %d, backoffLimitPerIndex %v, restartPolicy %q; want Indexed, at least 1, a retry per index, Never",
			s.CompletionMode, s.Completions, s.BackoffLimitPerIndex, s.Template.Spec.RestartPolicy)
	}
	// Exit codes that are a shard's verdict are final; usage errors and
	// crashes are retried.
	var verdicts []int
	for _, c := range reports.Classes {
		if code := c.ExitCode(); code != 0 {
			verdicts = append(verdicts, code)
		}
	}
	slices.Sort(verdicts)
	actions := map[string][]int{}
	for _, r := range s.PodFailurePolicy.Rules {
		if r.OnExitCodes.Operator != "In" || r.OnExitCodes.ContainerName != s.Template.Spec.Containers[0].Name {
			t.Errorf("podFailurePolicy rule %+v: want exit codes In, of the fleet container", r)
		}
		actions[r.Action] = slices.Sorted(slices.Values(r.OnExitCodes.Values))
	}
	if !slices.Equal(actions["FailIndex"], verdicts) || !slices.Equal(actions["FailJob"], []int{exitUsage}) || len(actions) != 2 {
		t.Errorf("podFailurePolicy %v: want FailIndex on the verdicts' exit codes %v, FailJob on a usage error, and a retry otherwise", actions, verdicts)
	}
	c := s.Template.Spec.Containers[0]
	dirs := map[string]bool{}
	for i := 0; i < s.Completions; i++ {
		calls := runContainer(t, c.Command, c.Args, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if len(calls) != 1 {
			t.Fatalf("index %d: %d mcpconform invocations, want 1", i, len(calls))
		}
		p := parseInvocation(t, calls[0])
		if want := fmt.Sprintf("%d/%d", i+1, s.Completions); p.sub != "fleet" || p.opts.shard != want {
			t.Errorf("index %d runs %q, want mcpconform fleet --shard %s", i, calls[0], want)
		}
		if dirs[p.opts.out.Dir] || p.opts.out.Dir == "" {
			t.Errorf("index %d writes into %q, which another index writes into too", i, p.opts.out.Dir)
		}
		dirs[p.opts.out.Dir] = true
	}

	merge := k8sDocs(t, "fleet-k8s-merge.yaml")
	if len(merge) != 1 || merge[0].Kind != "Job" {
		t.Fatal("fleet-k8s-merge.yaml: want one Job")
	}
	mc := merge[0].Spec.Template.Spec.Containers[0]
	calls := runContainer(t, mc.Command, mc.Args)
	if len(calls) != 1 {
		t.Fatalf("the merge Job: %d mcpconform invocations, want 1", len(calls))
	}
	p := parseInvocation(t, calls[0])
	if p.sub != "merge" || len(p.args) != 1 || p.opts.targets == "" {
		t.Fatalf("the merge Job runs %q, want mcpconform merge --targets LIST DIRS", calls[0])
	}
	for d := range dirs {
		if ok, _ := filepath.Match(p.args[0], d); !ok {
			t.Errorf("the merge's %q does not take the shard folder %s", p.args[0], d)
		}
	}
}
