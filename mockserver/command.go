package mockserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/internal/cliflag"
)

// CheckNames checks the faults and variants a mock is asked for, as a
// command line gives them: every name is in a catalogue, and one of the
// HTTP transport's (http-*) is asked for only of a mock served over HTTP
// (overHTTP), since it acts on nothing else. The error names the first
// name at fault.
func CheckNames(faults, variants []string, overHTTP bool) error {
	if err := CheckFaultNames(faults); err != nil {
		return err
	}
	var httpVariants, rest []string
	for _, n := range variants {
		if isHTTPVariant(n) {
			httpVariants = append(httpVariants, n)
		} else {
			rest = append(rest, n)
		}
	}
	if err := ValidateVariants(rest); err != nil {
		return err
	}
	if overHTTP {
		return nil
	}
	for _, n := range faults {
		if isHTTPFault(n) {
			return fmt.Errorf("fault %s acts on the HTTP transport: add --http 127.0.0.1:0", n)
		}
	}
	if len(httpVariants) > 0 {
		return fmt.Errorf("variant %s acts on the HTTP transport: add --http 127.0.0.1:0", httpVariants[0])
	}
	return nil
}

// OpenSharedRecord opens the record file named by pattern for this
// process, %p in it replaced by the process id, and returns the
// Options.Record writer over it (SharedRecord) and the file, for the
// caller to close. The file is appended to: a client starts the mock
// several times, and each process adds its lines instead of replacing
// the others'.
func OpenSharedRecord(pattern string) (io.Writer, io.Closer, error) {
	pid := os.Getpid()
	path := strings.ReplaceAll(pattern, "%p", strconv.Itoa(pid))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return SharedRecord(f, pid), f, nil
}

// ListenHTTP listens on addr (host:port; port 0 picks a free one) for a
// mock served over Streamable HTTP with its endpoint at path, and returns
// the listener, for ServeHTTP, and the endpoint's URL, for the client to
// be given.
func ListenHTTP(addr, path string) (net.Listener, string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, "", fmt.Errorf("--http-path %q must start with /", path)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--http: %w", err)
	}
	return ln, fmt.Sprintf("http://%s%s", ln.Addr(), path), nil
}

// Flags are the options of the mock served as a program (`mcpconform
// mock`): what it serves, where it records, and whether over HTTP.
type Flags struct {
	FixturePath      string
	Faults, Variants []string
	// Record names the file every message is appended to
	// (OpenSharedRecord).
	Record string
	// HTTP, when set, is the address Streamable HTTP is served on, with
	// the endpoint at HTTPPath (ListenHTTP); stdio otherwise.
	HTTP, HTTPPath string
}

// RegisterFlags defines the flags of f on fs: --fixture, --fault,
// --variant, --record, --http and --http-path.
func (f *Flags) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.FixturePath, "fixture", "", "serve the resources of this fixture `FILE` (default: the built-in fixture)")
	fs.Var(cliflag.List{Values: &f.Faults, Example: "--fault ping-not-empty"}, "fault", "misbehave on purpose: fault `NAME`s, comma-separated or repeated (see --list-faults)")
	fs.StringVar(&f.Record, "record", "", "append every message in both directions to `FILE`, one JSON line each with the process id (\"pid\"); %p in FILE is replaced by the process id")
	fs.Var(cliflag.List{Values: &f.Variants, Example: "--variant float-integers"}, "variant", "behave in legal but unusual ways: variant `NAME`s, comma-separated or repeated (see --list-variants)")
	fs.StringVar(&f.HTTP, "http", "", "serve Streamable HTTP on `ADDR` (host:port; port 0 picks a free one) instead of stdio, and print the endpoint's URL")
	fs.StringVar(&f.HTTPPath, "http-path", "/mcp", "the `PATH` of the MCP endpoint under --http")
}

// Options checks the names f gives (CheckNames) and returns the options
// it serves with: its fixture loaded, its record file open (closed by
// the closer returned, which is nil without one).
func (f *Flags) Options() (Options, io.Closer, error) {
	opts := Options{Faults: f.Faults, Variants: f.Variants}
	if err := CheckNames(f.Faults, f.Variants, f.HTTP != ""); err != nil {
		return opts, nil, err
	}
	if f.FixturePath != "" {
		fix, err := LoadFixture(f.FixturePath)
		if err != nil {
			return opts, nil, err
		}
		opts.Fixture = fix
	}
	if f.Record == "" {
		return opts, nil, nil
	}
	rec, closer, err := OpenSharedRecord(f.Record)
	if err != nil {
		return opts, nil, fmt.Errorf("--record: %v", err)
	}
	opts.Record = rec
	return opts, closer, nil
}

// ErrListen marks the error of Flags.Serve that came before serving: an
// endpoint path or an address it could not listen on.
var ErrListen = errors.New("cannot serve HTTP")

// listenError is an error of ListenHTTP, which is ErrListen too.
type listenError struct{ error }

func (e listenError) Is(target error) bool { return target == ErrListen }
func (e listenError) Unwrap() error        { return e.error }

// Serve serves opts as f says until ctx ends or the client leaves: on in
// and out (stdio), or with HTTP set over Streamable HTTP, the endpoint's
// URL first written to out as a line of its own, for whoever started the
// mock. An error before serving wraps ErrListen; an end by ctx is none.
func (f *Flags) Serve(ctx context.Context, in io.Reader, out, errOut io.Writer, opts Options) error {
	var err error
	if f.HTTP == "" {
		err = Serve(ctx, in, out, errOut, opts)
	} else {
		ln, url, lerr := ListenHTTP(f.HTTP, f.HTTPPath)
		if lerr != nil {
			return listenError{lerr}
		}
		fmt.Fprintln(out, url)
		err = ServeHTTP(ctx, ln, errOut, HTTPOptions{Options: opts, Path: f.HTTPPath})
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}
