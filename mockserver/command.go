package mockserver

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
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
