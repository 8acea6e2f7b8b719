package suite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/vectors"
)

// Config says what to test and how.
type Config struct {
	Command []string
	Dir     string
	Env     []string
	// Timeout is the deadline of one request.
	Timeout time.Duration
	// StartTimeout is the deadline from spawning a process to its
	// initialize result (default: the larger of Timeout and 20 s).
	StartTimeout time.Duration
	// Grace is each wait of the shutdown sequence.
	Grace time.Duration
	// MaxMessageSize bounds one line of server output.
	MaxMessageSize int
	// SpecVersion is "" (the newest version the server agrees to), a
	// version, or "all" (every version the server supports).
	SpecVersion string
	// Vectors are the vector files to run (nil: the embedded ones).
	Vectors []*vectors.File
	// Parallel bounds how many server processes run at once (default 4).
	Parallel int
	// Progress, when set, is called as each vector test finishes executing
	// (from several goroutines): done of total, and the test's id.
	Progress func(done, total int, id string)
}

// Run is everything observed against one target: the evidence that checks judge.
type Run struct {
	Config   Config
	Nonce    string
	Versions []string
	// Sessions are the shared sessions, one per judged version.
	Sessions map[string]*Session
	// Negotiation holds one initialize per offered version, each in a fresh process.
	Negotiation []*Negotiation
	Vectors     []*VectorObs
	Started     time.Time
	Duration    time.Duration
	// Fatal is set when the target could not be started or never completed
	// initialize; the run still produces a report.
	Fatal     string
	StderrEnd []string

	mu        sync.Mutex
	processes int
	clients   []*mockclient.Client
	versionOf map[*mockclient.Client]string
}

// ClientVersion is the protocol version a process was initialized with
// (the version offered, for processes never initialized).
func (r *Run) ClientVersion(c *mockclient.Client) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.versionOf[c]
}

func (r *Run) setVersion(c *mockclient.Client, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.versionOf == nil {
		r.versionOf = map[*mockclient.Client]string{}
	}
	r.versionOf[c] = v
}

// Negotiation is one initialize with a given offered version.
type Negotiation struct {
	Offered string
	// ExtraCapabilities marks the probe that declares unknown client
	// capabilities (LIFE-13).
	ExtraCapabilities bool
	Session           *Session
}

// Processes returns how many server processes the run started.
func (r *Run) Processes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.processes
}

// Clients returns every client the run started, in start order.
func (r *Run) Clients() []*mockclient.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*mockclient.Client(nil), r.clients...)
}

func (r *Run) start() (*mockclient.Client, error) {
	c, err := mockclient.Start(mockclient.Options{
		Command:        r.Config.Command,
		Dir:            r.Config.Dir,
		Env:            r.Config.Env,
		Timeout:        r.Config.Timeout,
		Grace:          r.Config.Grace,
		MaxMessageSize: r.Config.MaxMessageSize,
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.processes++
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	return c, nil
}

// bogusVersions are offered to see the server's counter-offer (LIFE-05).
var bogusVersions = []string{"2099-01-01"}

// Execute drives the target through every session the vectors and checks
// need. It returns an error only for bad configuration; a target that
// cannot start is recorded in Run.Fatal.
func Execute(ctx context.Context, cfg Config) (*Run, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("no server command")
	}
	if cfg.SpecVersion != "" && cfg.SpecVersion != "all" && !KnownVersion(cfg.SpecVersion) {
		return nil, fmt.Errorf("unknown --spec-version %q (want one of %s, or all)", cfg.SpecVersion, strings.Join(AllVersions, ", "))
	}
	if cfg.Vectors == nil {
		files, err := vectors.Embedded()
		if err != nil {
			return nil, err
		}
		cfg.Vectors = files
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = max(cfg.Timeout, 20*time.Second)
	}
	r := &Run{Config: cfg, Nonce: nonce(), Sessions: map[string]*Session{}, Started: time.Now()}
	defer func() { r.Duration = time.Since(r.Started) }()

	// Phase 1: one process per offered version, concurrently. Each is a
	// negotiation probe (LIFE-04/05); the ones that will be judged stay open
	// as shared sessions.
	// The last two offers are special: the newest version with unknown
	// client capabilities (LIFE-13), and the era probe: server/discover in
	// the 2026-07-28 envelope (LIFE-28). Each process is independent, so
	// the fallback to initialize never depends on the probe's error code.
	offers := append(append([]string(nil), LegacyVersions...), bogusVersions...)
	offers = append(offers, Newest, Modern)
	r.Negotiation = make([]*Negotiation, len(offers))
	var wg sync.WaitGroup
	for i, v := range offers {
		extra := i == len(offers)-2
		modern := i == len(offers)-1
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Session{Requested: v, extraCaps: extra, startTimeout: cfg.StartTimeout}
			r.Negotiation[i] = &Negotiation{Offered: v, Session: s, ExtraCapabilities: extra}
			c, err := r.start()
			if err != nil {
				s.InitErr = err.Error()
				return
			}
			s.Client = c
			if modern {
				s.openModern(ctx)
			} else {
				s.initialize(ctx)
			}
			r.setVersion(c, s.Version())
		}()
	}
	wg.Wait()

	if err := r.chooseVersions(); err != "" {
		r.Fatal = err
		r.closeAll()
		return r, nil
	}

	// Phase 2: shared sessions (discovery, then vectors in order) and fresh
	// sessions, all concurrently, bounded by Parallel processes at a time.
	sem := make(chan struct{}, cfg.Parallel)
	var mu sync.Mutex
	total := 0
	for range r.Versions {
		for _, f := range cfg.Vectors {
			total += len(f.Tests)
		}
	}
	add := func(o *VectorObs) {
		mu.Lock()
		r.Vectors = append(r.Vectors, o)
		done := len(r.Vectors)
		mu.Unlock()
		if cfg.Progress != nil {
			cfg.Progress(done, total, o.Test.ID)
		}
	}
	for _, v := range r.Versions {
		s := r.Sessions[v]
		// Fresh processes take their bindings and gates from the shared
		// session's discovery: they wait for it, and read a copy made
		// before the shared vectors run, which may change the session.
		discovered := make(chan struct{})
		var snapshot *Session
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.discover(ctx)
			snap := *s
			snapshot = &snap
			close(discovered)
			live := r.newRelay(s) // restarts the process if it dies (restart.go)
			for _, f := range cfg.Vectors {
				for _, t := range f.Tests {
					if sessionOf(t) == "shared" {
						add(live.runVector(ctx, t))
					}
				}
			}
		}()
		for _, f := range cfg.Vectors {
			for _, t := range f.Tests {
				kind := sessionOf(t)
				if kind == "shared" || (kind == "uninitialized" && v != r.Versions[0]) {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-discovered
					sem <- struct{}{}
					defer func() { <-sem }()
					add(r.runFresh(ctx, snapshot, t, kind))
				}()
			}
		}
	}
	wg.Wait()
	r.closeAll()
	// Keep vector observations in file order for stable reports.
	order := map[*vectors.Test]int{}
	n := 0
	for _, f := range cfg.Vectors {
		for _, t := range f.Tests {
			order[t] = n
			n++
		}
	}
	slices.SortStableFunc(r.Vectors, func(a, b *VectorObs) int {
		if a.Version != b.Version {
			return slices.Index(r.Versions, a.Version) - slices.Index(r.Versions, b.Version)
		}
		return order[a.Test] - order[b.Test]
	})
	return r, nil
}

// chooseVersions picks the versions to judge and keeps their sessions open.
func (r *Run) chooseVersions() string {
	byOffer := map[string]*Session{}
	for _, n := range r.Negotiation {
		if !n.ExtraCapabilities {
			byOffer[n.Offered] = n.Session
		}
	}
	modern := byOffer[Modern]
	newest := byOffer[Newest]
	if newest.Client == nil {
		return "the server could not be started: " + newest.InitErr
	}
	switch r.Config.SpecVersion {
	case "":
		// The newest version the server agrees to: its answer to our newest offer.
		if newest.InitErr != "" {
			if modern.InitErr == "" {
				// A server of the 2026-07-28 era only: judge that era.
				r.Versions = []string{Modern}
				r.Sessions[Modern] = modern
				break
			}
			return "the server never completed initialize: " + newest.InitErr
		}
		v := newest.Negotiated
		if !IsLegacy(v) {
			return fmt.Sprintf("the server answered initialize with protocol version %q, which mcpconform cannot judge", v)
		}
		s := byOffer[v]
		if s.InitErr != "" || s.Negotiated != v {
			s = newest // it counter-offered v but does not echo it; judge the session we have
		}
		r.Versions = []string{v}
		r.Sessions[v] = s
	case "all":
		for _, v := range LegacyVersions {
			s := byOffer[v]
			if s.InitErr == "" && s.Negotiated == v {
				r.Versions = append(r.Versions, v)
				r.Sessions[v] = s
			}
		}
		if modern.InitErr == "" && modern.Negotiated == Modern {
			r.Versions = append(r.Versions, Modern)
			r.Sessions[Modern] = modern
		}
		if len(r.Versions) == 0 {
			if newest.InitErr != "" {
				return "the server never completed initialize: " + newest.InitErr
			}
			return "the server echoed none of the offered protocol versions"
		}
	case Modern:
		if modern.InitErr != "" {
			return "the server does not serve protocol version " + Modern + ": " + modern.InitErr
		}
		r.Versions = []string{Modern}
		r.Sessions[Modern] = modern
	default:
		v := r.Config.SpecVersion
		s := byOffer[v]
		if s.InitErr != "" {
			return fmt.Sprintf("initialize with %s failed: %s", v, s.InitErr)
		}
		if s.Negotiated != v {
			return fmt.Sprintf("the server does not support protocol version %s (it answered %q)", v, s.Negotiated)
		}
		r.Versions = []string{v}
		r.Sessions[v] = s
	}
	// Close the negotiation processes that are not judged any further.
	var wg sync.WaitGroup
	for _, n := range r.Negotiation {
		if n.Session.Client == nil || r.Sessions[n.Session.Negotiated] == n.Session {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.Session.Exit = n.Session.Client.Close()
		}()
	}
	wg.Wait()
	return ""
}

func (r *Run) closeAll() {
	var wg sync.WaitGroup
	for _, s := range r.Sessions {
		if s.Client == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Exit = s.Client.Close()
		}()
	}
	// Every other process too, whatever path the run took (a fatal start,
	// an interrupt, a replacement of a shared session): Close is idempotent.
	for _, c := range r.Clients() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	if s := r.Sessions[firstOr(r.Versions)]; s != nil && s.Client != nil {
		r.StderrEnd = s.Client.StderrTail()
	} else {
		for _, n := range r.Negotiation {
			if n.Offered == Newest && n.Session.Client != nil {
				r.StderrEnd = n.Session.Client.StderrTail()
			}
		}
	}
}

func firstOr(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

func sessionOf(t *vectors.Test) string {
	if t.Session != "" {
		return t.Session
	}
	if t.File != nil && t.File.Session != "" {
		return t.File.Session
	}
	return "shared"
}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
