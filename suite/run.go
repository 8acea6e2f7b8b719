package suite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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
}

// Negotiation is one initialize with a given offered version.
type Negotiation struct {
	Offered string
	Session *Session
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
		return nil, fmt.Errorf("unknown --spec-version %q (want one of %v, or all)", cfg.SpecVersion, LegacyVersions)
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
	r := &Run{Config: cfg, Nonce: nonce(), Sessions: map[string]*Session{}, Started: time.Now()}
	defer func() { r.Duration = time.Since(r.Started) }()

	// Phase 1: one process per offered version, concurrently. Each is a
	// negotiation probe (LIFE-04/05); the ones that will be judged stay open
	// as shared sessions.
	offers := append(append([]string(nil), LegacyVersions...), bogusVersions...)
	r.Negotiation = make([]*Negotiation, len(offers))
	var wg sync.WaitGroup
	for i, v := range offers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Session{Requested: v}
			r.Negotiation[i] = &Negotiation{Offered: v, Session: s}
			c, err := r.start()
			if err != nil {
				s.InitErr = err.Error()
				return
			}
			s.Client = c
			s.initialize(ctx)
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
	add := func(o *VectorObs) {
		mu.Lock()
		r.Vectors = append(r.Vectors, o)
		mu.Unlock()
	}
	for _, v := range r.Versions {
		s := r.Sessions[v]
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.discover(ctx)
			for _, f := range cfg.Vectors {
				for _, t := range f.Tests {
					if sessionOf(t) == "shared" {
						add(r.runVector(ctx, s, t))
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
					sem <- struct{}{}
					defer func() { <-sem }()
					add(r.runFresh(ctx, s, t, kind))
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
		byOffer[n.Offered] = n.Session
	}
	newest := byOffer[Newest]
	if newest.Client == nil {
		return "the server could not be started: " + newest.InitErr
	}
	switch r.Config.SpecVersion {
	case "":
		// The newest version the server agrees to: its answer to our newest offer.
		if newest.InitErr != "" {
			return "the server never completed initialize: " + newest.InitErr
		}
		v := newest.Negotiated
		if !KnownVersion(v) {
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
		if len(r.Versions) == 0 {
			if newest.InitErr != "" {
				return "the server never completed initialize: " + newest.InitErr
			}
			return "the server echoed none of the offered protocol versions"
		}
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
