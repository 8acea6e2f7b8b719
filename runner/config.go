package runner

import (
	"fmt"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/suite/listing"
	"github.com/mcpconform/mcpconform/suite/plan"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// Config is everything a run takes. The zero value of a field is the
// command's default, except where its comment says otherwise.
type Config struct {
	// Command starts the server: its program and arguments.
	Command []string
	// Dir is the server's working directory ("": this process's).
	Dir string
	// Env adds KEY=VALUE pairs to the server's environment, which is
	// otherwise a minimal set of this process's variables (PATH, HOME,
	// USER, LOGNAME, SHELL, TERM, LANG, TMPDIR), or all of them with
	// InheritEnv.
	Env        []string
	InheritEnv bool

	// URL, when set, is the endpoint of a server already running, reached
	// over Streamable HTTP: an http or https URL, or unix:///path/to.sock
	// for HTTP over a Unix socket. Command is then empty.
	URL string
	// Transport is "stdio" (the default: Command speaks stdio) or "http":
	// Command is then an HTTP server, started on a free port (from
	// PortFrom, when set) that replaces {port} in its arguments and in Env
	// values, and reached at Host (127.0.0.1, then [::1], when empty) with
	// its endpoint at HTTPPath (/mcp when empty; also the endpoint on a
	// Unix socket).
	Transport string
	PortFrom  int
	HTTPPath  string
	Host      string
	// Header are fields ("Name: value") added to every HTTP request: a
	// token for a protected server.
	Header []string

	// SpecVersion is the protocol version to judge under: "" (the newest
	// the server agrees to), a version, or "all".
	SpecVersion string
	// Vectors are the vector files to run (nil: the embedded ones).
	Vectors []*vectors.File

	// Only and Skip select checks as --only and --skip do: check ids,
	// requirement ids, levels, areas or labels, any case, globs allowed.
	// A run starts only what the selected checks need, and its report
	// holds only their results.
	Only, Skip []string
	// CallTools says which listed tools the run may call (none when
	// zero).
	CallTools plan.ToolPolicy
	// Baseline is a file of known failures (YAML or JSON): listed
	// failures become xfail, listed checks that pass are stale.
	Baseline string
	// Strict makes warnings fail the run.
	Strict bool
	// RedactEnv names environment variables whose values (from Env, else
	// this process's environment) are taken out of the report, the notes
	// of the outcome and the evidence SaveEvidence writes: each is
	// replaced with [redacted:NAME]. A value shorter than redact.MinLength
	// is left as it is.
	RedactEnv []string

	// Timeout is the deadline of one request (10 s when zero).
	Timeout time.Duration
	// StartTimeout is the longest time from starting a server process to
	// its initialize result (the larger of Timeout and 20 s when zero).
	StartTimeout time.Duration
	// RunTimeout bounds the whole execution (none when zero): past it the
	// run stops and its report is partial.
	RunTimeout time.Duration
	// JudgeTimeout bounds judging (60 s when zero): evidence a hostile
	// server shaped to be slow to judge cannot hold the run past it.
	JudgeTimeout time.Duration
	// ServerRequestWindow is how long, at least, the probe process stays
	// open after its initialize for requests the server makes of the
	// client (execute.ServerRequestWindow, 100 ms, when zero): the run
	// waits at most this long beyond its own work, and a request arriving
	// later is not seen.
	ServerRequestWindow time.Duration
	// Grace is each wait of the shutdown sequence (stdin closed, then
	// SIGTERM, then SIGKILL; 2 s when zero).
	Grace time.Duration
	// MaxMessageSize bounds one line of server output, in bytes (64 MiB
	// when zero).
	MaxMessageSize int
	// Parallel bounds the server processes run at once (4 when zero).
	Parallel int

	// Tool is the version of mcpconform, recorded in the evidence and the
	// report.
	Tool string
	// Terminal, when set, is a terminal where live progress is drawn (and
	// erased before the run returns). Name is how it names the target
	// (default: the command's words).
	Terminal *os.File
	Name     string
	// Recorded, when set, is called with the evidence of a run once the
	// server has been driven, before it is judged: to save it, as
	// mcpconform --evidence does.
	Recorded func(*evidence.Run)
	// Ginkgo judges the evidence as Ginkgo specs, as the command does.
	// Ginkgo runs a suite once per process, so a program that judges more
	// than once leaves it unset; the results are the same.
	Ginkgo bool
}

// A Runner runs the suite with a configuration checked beforehand.
type Runner struct {
	cfg Config
	// catalogue is what selectors and baseline entries must name: the
	// checks of cfg.Vectors, or of the embedded vectors.
	catalogue        []listing.Check
	onlySel, skipSel []selector
	baseline         *baseline.Baseline
	secrets          []redact.Secret
}

// New checks cfg before anything runs: a selector or a baseline entry
// that names no check of its vectors (or of the embedded ones), or a
// baseline that cannot be read, is a configuration error.
func New(cfg Config) (*Runner, error) {
	files := cfg.Vectors
	if files == nil {
		var err error
		if files, err = vectors.Embedded(); err != nil {
			return nil, err
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = max(cfg.Timeout, 20*time.Second)
	}
	if cfg.JudgeTimeout == 0 {
		cfg.JudgeTimeout = 60 * time.Second
	}
	if err := checkTarget(cfg); err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, catalogue: listing.Checks(files)}
	r.secrets, _, _ = redact.Secrets(cfg.RedactEnv, cfg.Env, os.LookupEnv)
	var err error
	if r.onlySel, err = parseSelectors("only", cfg.Only); err != nil {
		return nil, err
	}
	if r.skipSel, err = parseSelectors("skip", cfg.Skip); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		flag string
		sel  []selector
	}{{"only", r.onlySel}, {"skip", r.skipSel}} {
		if s, bad := unmatchedSelector(x.sel, r.catalogue); bad {
			hint := "mcpconform list --checks shows them"
			if near := nearestSelector(s, r.catalogue); near != "" {
				hint = "did you mean " + near + "? " + hint
			}
			return nil, fmt.Errorf("--%s %q matches no check id, requirement id, level, area or label; %s", x.flag, s.text, hint)
		}
	}
	if cfg.Baseline != "" {
		if r.baseline, err = loadBaseline(cfg.Baseline, r.catalogue); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// loadBaseline loads the baseline at path and checks that its entries name
// checks, areas and protocol versions that exist.
func loadBaseline(path string, checks []listing.Check) (*baseline.Baseline, error) {
	bl, err := baseline.Load(path)
	if err != nil {
		return nil, err
	}
	ids, areas, versions := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range checks {
		ids[c.ID], areas[c.Area] = true, true
	}
	for _, v := range wire.AllVersions {
		versions[v] = true
	}
	if err := bl.CheckNames(ids, areas, versions); err != nil {
		return nil, err
	}
	return bl, nil
}
