package mockserver_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/mockserver"
)

func TestCheckNames(t *testing.T) {
	httpFault, httpVariant := mockserver.HTTPFaults()[0].Name, mockserver.HTTPVariants()[0].Name
	for _, tc := range []struct {
		name             string
		faults, variants []string
		overHTTP         bool
		want             string // "" for no error, else a part of it
	}{
		{name: "none", want: ""},
		{name: "a stdio fault and variant", faults: []string{"ping-not-empty"}, variants: []string{"float-integers"}},
		{name: "HTTP names over HTTP", faults: []string{httpFault}, variants: []string{httpVariant}, overHTTP: true},
		{name: "an HTTP fault over stdio", faults: []string{httpFault}, want: "fault " + httpFault + " acts on the HTTP transport: add --http 127.0.0.1:0"},
		{name: "an HTTP variant over stdio", variants: []string{" " + httpVariant}, want: "variant  " + httpVariant + " acts on the HTTP transport"},
		{name: "an unknown fault first", faults: []string{"no-such-fault"}, variants: []string{"no-such-variant"}, want: "unknown fault no-such-fault"},
		{name: "an unknown variant", variants: []string{"no-such-variant"}, overHTTP: true, want: "no-such-variant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mockserver.CheckNames(tc.faults, tc.variants, tc.overHTTP)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// Two processes' records go into one file, each line with its writer's
// process id; %p names a file per process instead.
func TestOpenSharedRecord(t *testing.T) {
	dir := t.TempDir()
	pattern := filepath.Join(dir, "rec-%p.jsonl")
	for range 2 {
		rec, f, err := mockserver.OpenSharedRecord(pattern)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(rec, "{\"dir\":\"recv\"}\n")
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	pid := strconv.Itoa(os.Getpid())
	data, err := os.ReadFile(filepath.Join(dir, "rec-"+pid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := `{"pid":` + pid + `,"dir":"recv"}` + "\n"
	if got, want := string(data), line+line; got != want {
		t.Errorf("got %q, want %q (appended, not replaced)", got, want)
	}
	if _, _, err := mockserver.OpenSharedRecord(filepath.Join(dir, "no-such-dir", "rec")); err == nil {
		t.Error("a record in a missing directory opened")
	}
}

// servesEndpoint checks that the URL is the endpoint served: a GET without
// a session reaches the mock's handler, not a 404 of another path.
func servesEndpoint(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Errorf("GET %s: 404, the endpoint is not at the URL", url)
	}
}

func TestListenHTTP(t *testing.T) {
	if _, _, err := mockserver.ListenHTTP("127.0.0.1:0", "mcp"); err == nil || err.Error() != `--http-path "mcp" must start with /` {
		t.Errorf("a path without /: got %v", err)
	}
	ln, url, err := mockserver.ListenHTTP("127.0.0.1:0", "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + ln.Addr().String() + "/rpc"; url != want {
		t.Errorf("got URL %q, want %q", url, want)
	}
	if _, _, err := mockserver.ListenHTTP(ln.Addr().String(), "/rpc"); err == nil || !strings.HasPrefix(err.Error(), "--http: ") {
		t.Errorf("an address in use: got %v, want an error of --http", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- mockserver.ServeHTTP(ctx, ln, io.Discard, mockserver.HTTPOptions{Path: "/rpc"}) }()
	servesEndpoint(t, url)
	if resp, err := http.Get(strings.TrimSuffix(url, "/rpc") + "/mcp"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of another path: got %v, %v; want 404", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if err := <-served; err != context.Canceled {
		t.Errorf("ServeHTTP ended with %v, want the context's end", err)
	}
}

func TestFlagsOptions(t *testing.T) {
	dir := t.TempDir()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var f mockserver.Flags
	f.RegisterFlags(fs)
	if err := fs.Parse([]string{"--fault", "ping-not-empty", "--variant", "float-integers", "--record", filepath.Join(dir, "rec.jsonl")}); err != nil {
		t.Fatal(err)
	}
	opts, record, err := f.Options()
	if err != nil || record == nil || opts.Record == nil || f.HTTPPath != "/mcp" {
		t.Fatalf("got %+v, %v, %v", opts, record, err)
	}
	record.Close()
	if opts.Faults[0] != "ping-not-empty" || opts.Variants[0] != "float-integers" {
		t.Errorf("got faults %q, variants %q", opts.Faults, opts.Variants)
	}
	for _, tc := range []struct {
		f    mockserver.Flags
		want string
	}{
		{mockserver.Flags{Faults: []string{mockserver.HTTPFaults()[0].Name}}, "acts on the HTTP transport"},
		{mockserver.Flags{FixturePath: filepath.Join(dir, "none.json")}, "none.json"},
		{mockserver.Flags{Record: filepath.Join(dir, "none", "rec")}, "--record: "},
	} {
		if _, record, err := tc.f.Options(); err == nil || record != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.f, err, tc.want)
		}
	}
}

// Serve serves stdio, or HTTP with the endpoint's URL written first; an
// error before serving is ErrListen, with ListenHTTP's message; ending
// by the context is no error.
func TestFlagsServe(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	if err := (&mockserver.Flags{}).Serve(context.Background(), in, &out, io.Discard, mockserver.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":1`) || !strings.Contains(out.String(), `"result":{}`) {
		t.Errorf("stdio: got %q, want the ping answered", out.String())
	}

	bad := mockserver.Flags{HTTP: "127.0.0.1:0", HTTPPath: "mcp"}
	err := bad.Serve(context.Background(), nil, io.Discard, io.Discard, mockserver.Options{})
	if !errors.Is(err, mockserver.ErrListen) || err.Error() != `--http-path "mcp" must start with /` {
		t.Errorf("a bad path: got %v, want ErrListen with ListenHTTP's message", err)
	}
	if errors.Is(errors.New("x"), mockserver.ErrListen) {
		t.Error("any error is ErrListen")
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- (&mockserver.Flags{HTTP: "127.0.0.1:0", HTTPPath: "/mcp"}).Serve(ctx, nil, pw, io.Discard, mockserver.Options{})
		pw.Close()
	}()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Errorf("got URL %q", url)
	}
	servesEndpoint(t, url)
	cancel()
	go io.Copy(io.Discard, pr)
	if err := <-served; err != nil {
		t.Errorf("ended by the context: got %v, want none", err)
	}
}
