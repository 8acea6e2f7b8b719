package runner

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	executor "github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
)

// checkTarget checks that the configuration names one server, and how to
// reach it, before anything runs.
func checkTarget(cfg Config) error {
	switch cfg.Transport {
	case "", evidence.TransportStdio, evidence.TransportHTTP:
	default:
		return fmt.Errorf("unknown transport %q: want stdio or http", cfg.Transport)
	}
	if cfg.URL != "" {
		if len(cfg.Command) > 0 {
			return errors.New("a URL and a server command were both given: name one server")
		}
		if cfg.Transport == evidence.TransportStdio {
			return fmt.Errorf("%s is reached over HTTP, not stdio", cfg.URL)
		}
		if err := CheckURL(cfg.URL); err != nil {
			return err
		}
	}
	if cfg.Transport != evidence.TransportHTTP && cfg.URL == "" {
		switch {
		case cfg.PortFrom != 0:
			return errors.New("--port-from places a server started with --transport http")
		case cfg.Host != "":
			return errors.New("--host names where a server started with --transport http is reached")
		case len(cfg.Header) > 0:
			return errors.New("--header adds to HTTP requests: give a URL, or --transport http")
		}
	}
	if cfg.HTTPPath != "" && !strings.HasPrefix(cfg.HTTPPath, "/") {
		return fmt.Errorf("the HTTP path %q must start with /", cfg.HTTPPath)
	}
	if cfg.PortFrom < 0 || cfg.PortFrom > 65535 {
		return fmt.Errorf("port %d is no TCP port", cfg.PortFrom)
	}
	for _, h := range cfg.Header {
		if _, err := transport.ParseHeaderField(h); err != nil {
			return fmt.Errorf("header %s", err)
		}
	}
	return nil
}

// CheckURL checks a URL target: http, https, or unix with a socket path.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", s, err)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("%q names no host", s)
		}
	case "unix":
		if u.Path == "" || u.Host != "" {
			return fmt.Errorf("%q names no socket path: write unix:///path/to.sock", s)
		}
	default:
		return fmt.Errorf("%q: want an http://, https:// or unix:// URL", s)
	}
	return nil
}

// IsURL reports whether a command-line target is a URL rather than a
// program: an http, https or unix URL.
func IsURL(s string) bool {
	for _, p := range []string{"http://", "https://", "unix://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// httpTarget is what the executor needs of an HTTP run (nil for stdio).
func httpTarget(cfg Config) (*executor.HTTPTarget, error) {
	if cfg.URL == "" && cfg.Transport != evidence.TransportHTTP {
		return nil, nil
	}
	t := &executor.HTTPTarget{URL: cfg.URL, Host: cfg.Host, PortFrom: cfg.PortFrom, Path: cfg.HTTPPath}
	for _, h := range cfg.Header {
		f, err := transport.ParseHeaderField(h)
		if err != nil {
			return nil, fmt.Errorf("header %s", err)
		}
		t.Header = append(t.Header, transcript.HeaderField{Name: f.Name, Value: f.Value})
	}
	return t, nil
}
