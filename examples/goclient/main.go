// Command goclient is a small MCP client built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp), written as the worked example
// of docs/client-guide.md. It spawns a stdio server, pages through every
// resource and resource template, reads each resource (blobs arrive decoded
// from base64), and prints a summary:
//
//	go run ./examples/goclient -- mcpconform mock
//	go run ./examples/goclient -- mcpconform mock --fault cursor-loop
//	go run ./examples/goclient -read test://nowhere -- mcpconform mock
//	go run ./examples/goclient -subscribe test://triggers/watched -- mcpconform mock --fixture mockserver/testdata/triggers.json
//
// It defends itself the way the guide recommends: every request has a
// deadline, a repeated cursor ends paging with an error, strings from the
// server are quoted before they reach the terminal, and an error from one
// read does not end the session, while a dead connection does.
//
// Exit status: 0 when everything was listed and read, 1 when the session
// failed or a read returned an error, 2 for a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// uriList is a repeatable string flag.
type uriList []string

func (l *uriList) String() string     { return strings.Join(*l, ",") }
func (l *uriList) Set(s string) error { *l = append(*l, s); return nil }

// runMain parses args, runs the client and prints the summary, and returns
// the process's exit status.
func runMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("goclient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: goclient [flags] [--] COMMAND [ARGS...]")
		fs.PrintDefaults()
	}
	var opts Options
	fs.DurationVar(&opts.RequestTimeout, "timeout", 10*time.Second, "deadline of each request")
	fs.StringVar(&opts.Read, "read", "", "read only this `URI` (no listing) and print what came back")
	fs.Var((*uriList)(&opts.Subscribe), "subscribe", "subscribe to this `URI` before reading (repeatable)")
	fs.StringVar(&opts.ProtocolVersion, "protocol-version", "", "protocol `version` to ask for (default: the SDK's choice)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	opts.Command = fs.Args()
	opts.Stderr = stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := Run(ctx, opts)
	if sum != nil {
		sum.Print(stdout)
	}
	if err != nil {
		// A failed read that ended the session is in the summary already.
		if !sum.endedBy(err) {
			fmt.Fprintf(stderr, "goclient: %s\n", describeError(err))
		}
		return 1
	}
	if sum.ReadErrors() > 0 {
		return 1
	}
	return 0
}

// Options configure one run of the client.
type Options struct {
	// Command is the server's argv.
	Command []string
	// Stderr receives the server's stderr; nil discards it.
	Stderr io.Writer
	// RequestTimeout is the deadline of each request; zero means none,
	// which a client should never choose for a server it does not trust.
	RequestTimeout time.Duration
	// ProtocolVersion is the version to ask for; empty lets the SDK choose.
	ProtocolVersion string
	// Read, when set, makes the client read this one URI instead of
	// listing and reading everything.
	Read string
	// Subscribe holds URIs to subscribe to before reading.
	Subscribe []string
	// MaxPages caps the pages of one list, for a server that makes up a
	// new cursor for every page forever; zero means 1000.
	MaxPages int
}

// Summary is what one run saw.
type Summary struct {
	Server          string // serverInfo name and version
	ProtocolVersion string // the negotiated version

	Resources     []*mcp.Resource
	ResourcePages int
	Templates     []*mcp.ResourceTemplate
	TemplatePages int
	Reads         []Read
	// Relisted is the resource list fetched again after a
	// notifications/resources/list_changed.
	Relisted []*mcp.Resource

	// Filled from notifications while the session runs.
	mu          sync.Mutex
	Updated     []string      // URIs of notifications/resources/updated
	ListChanged int           // count of notifications/resources/list_changed
	listChanged chan struct{} // signalled by the list_changed handler
}

// A Read is the outcome of one resources/read.
type Read struct {
	URI      string
	Contents []Content
	Err      error
}

// A Content is one item of a read result.
type Content struct {
	URI      string
	MIMEType string
	Blob     bool   // the item carried blob, not text
	Bytes    int    // decoded length of blob, or UTF-8 length of text
	Data     []byte // the decoded blob
	Text     string
}

// endedBy reports whether err is the error of the last read, which Print
// shows already.
func (s *Summary) endedBy(err error) bool {
	if s == nil || len(s.Reads) == 0 {
		return false
	}
	return s.Reads[len(s.Reads)-1].Err == err
}

// ReadErrors counts the reads that returned an error.
func (s *Summary) ReadErrors() int {
	n := 0
	for _, r := range s.Reads {
		if r.Err != nil {
			n++
		}
	}
	return n
}

// ErrCursorLoop is returned (wrapped) when a server hands out a cursor it
// handed out before in the same walk of a list.
var ErrCursorLoop = errors.New("cursor loop")

// ErrTooManyPages is returned (wrapped) when a list goes on for more than
// Options.MaxPages pages.
var ErrTooManyPages = errors.New("too many pages")

// Run connects to the server, does what opts ask, closes the session and
// returns what it saw. The summary is returned, as far as it got, also
// with an error.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("no server command")
	}
	sum := &Summary{listChanged: make(chan struct{}, 1)}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpconform-goclient", Version: "0.1.0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			sum.mu.Lock()
			defer sum.mu.Unlock()
			sum.Updated = append(sum.Updated, req.Params.URI)
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			sum.mu.Lock()
			defer sum.mu.Unlock()
			sum.ListChanged++
			select {
			case sum.listChanged <- struct{}{}:
			default:
			}
		},
	})

	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Stderr = opts.Stderr
	// A child the server leaves behind may hold its stderr open; Wait then
	// gives up copying it this long after the server itself has exited.
	cmd.WaitDelay = 2 * time.Second
	// A server that ignores stdin EOF gets SIGTERM after this long, and
	// SIGKILL as long again after that (the SDK's shutdown sequence).
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}

	connectCtx, cancel := withTimeout(ctx, opts.RequestTimeout)
	session, err := client.Connect(connectCtx, transport, &mcp.ClientSessionOptions{ProtocolVersion: opts.ProtocolVersion})
	cancel()
	if err != nil {
		// Connect closes the session, and so ends the server, when the
		// handshake fails.
		return sum, fmt.Errorf("connecting: %w", err)
	}
	if init := session.InitializeResult(); init != nil {
		sum.ProtocolVersion = init.ProtocolVersion
		if init.ServerInfo != nil {
			sum.Server = init.ServerInfo.Name + " " + init.ServerInfo.Version
		}
	}

	err = exchange(ctx, session, opts, sum)
	// Close waits for the server to exit, and for the notifications already
	// received to be handled, so that the summary is complete afterwards.
	if cerr := session.Close(); cerr != nil && err == nil && !isExitError(cerr) {
		err = fmt.Errorf("closing: %w", cerr)
	}
	return sum, err
}

// listChangedWait bounds the wait for the handler of a list_changed the
// server wrote before the barrier's answer (see exchange).
const listChangedWait = 250 * time.Millisecond

// exchange is the body of a session.
func exchange(ctx context.Context, session *mcp.ClientSession, opts Options, sum *Summary) error {
	for _, uri := range opts.Subscribe {
		rctx, cancel := withTimeout(ctx, opts.RequestTimeout)
		err := session.Subscribe(rctx, &mcp.SubscribeParams{URI: uri})
		cancel()
		if err != nil {
			return fmt.Errorf("resources/subscribe %s: %w", printable(uri), err)
		}
	}

	if opts.Read != "" {
		r := read(ctx, session, opts.RequestTimeout, opts.Read)
		sum.Reads = append(sum.Reads, r)
		return r.Err
	}

	maxPages := opts.MaxPages
	if maxPages <= 0 {
		maxPages = 1000
	}
	var err error
	sum.Resources, sum.ResourcePages, err = walk(ctx, opts.RequestTimeout, maxPages, listResources(session))
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}

	for _, res := range sum.Resources {
		r := read(ctx, session, opts.RequestTimeout, res.URI)
		sum.Reads = append(sum.Reads, r)
		if r.Err != nil && !alive(r.Err) {
			return r.Err
		}
	}

	// The templates are listed after the reads because their first page
	// doubles as a barrier. Notifications are handled apart from responses,
	// and Close drops those that arrive after it starts; but the SDK reads
	// messages in order, so a notification the server wrote before this
	// answer is queued for its handler by the time the answer is returned,
	// and Close waits for queued handlers. Queued, not yet handled: the SDK
	// runs handlers on a goroutine of their own, so the decision to list
	// again below waits a little for that handler. (Ping would do in
	// sessions up to 2025-11-25; 2026-07-28 has no ping.)
	sum.Templates, sum.TemplatePages, err = walk(ctx, opts.RequestTimeout, maxPages,
		func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			res, err := session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
	if err != nil {
		return fmt.Errorf("resources/templates/list: %w", err)
	}

	// A list that changed is listed again: what the client showed is stale.
	// A list_changed queued before the barrier's answer may still wait for
	// its handler: a server that declares list changes gets a short wait
	// for it, ended by the handler.
	sum.mu.Lock()
	changed := sum.ListChanged > 0
	sum.mu.Unlock()
	if init := session.InitializeResult(); !changed && init != nil && init.Capabilities != nil &&
		init.Capabilities.Resources != nil && init.Capabilities.Resources.ListChanged {
		select {
		case <-sum.listChanged:
			changed = true
		case <-time.After(listChangedWait):
		case <-ctx.Done():
		}
	}
	if changed {
		sum.Relisted, _, err = walk(ctx, opts.RequestTimeout, maxPages, listResources(session))
		if err != nil {
			return fmt.Errorf("resources/list after list_changed: %w", err)
		}
	}
	return nil
}

// listResources returns the list function of walk for resources/list.
func listResources(session *mcp.ClientSession) func(context.Context, string) ([]*mcp.Resource, string, error) {
	return func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		res, err := session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	}
}

// walk pages through a list with list until a page comes without a next
// cursor, and returns every item and the number of pages.
//
// The SDK's iterators (session.Resources, session.ResourceTemplates) follow
// nextCursor for as long as the server sends one; walk adds the guard they
// lack. Cursors are opaque, so a cursor seen before is the only sign of a
// loop that a client can rely on: it ends the walk with ErrCursorLoop. A
// server that makes up new cursors forever runs into maxPages.
func walk[T any](ctx context.Context, timeout time.Duration, maxPages int,
	list func(ctx context.Context, cursor string) (items []T, next string, err error)) ([]T, int, error) {
	var all []T
	seen := map[string]int{} // cursor -> the page it was returned with
	cursor := ""
	for page := 1; ; page++ {
		if page > maxPages {
			return all, page - 1, fmt.Errorf("%w: more than %d pages", ErrTooManyPages, maxPages)
		}
		rctx, cancel := withTimeout(ctx, timeout)
		items, next, err := list(rctx, cursor)
		cancel()
		if err != nil {
			return all, page - 1, fmt.Errorf("page %d: %w", page, err)
		}
		all = append(all, items...)
		if next == "" {
			return all, page, nil
		}
		if first, ok := seen[next]; ok {
			return all, page, fmt.Errorf("%w: page %d returned cursor %s, already returned with page %d",
				ErrCursorLoop, page, printable(next), first)
		}
		seen[next] = page
		cursor = next
	}
}

// read reads one resource. Blobs arrive decoded: the SDK unmarshals the
// base64 of "blob" into ResourceContents.Blob.
func read(ctx context.Context, session *mcp.ClientSession, timeout time.Duration, uri string) Read {
	rctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	res, err := session.ReadResource(rctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return Read{URI: uri, Err: fmt.Errorf("resources/read %s: %w", printable(uri), err)}
	}
	r := Read{URI: uri}
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		item := Content{URI: c.URI, MIMEType: c.MIMEType}
		// A zero-byte blob ("blob": "") decodes to an empty, non-nil slice,
		// which is how it stays apart from an empty text.
		if c.Blob != nil {
			item.Blob, item.Bytes, item.Data = true, len(c.Blob), c.Blob
		} else {
			item.Bytes, item.Text = len(c.Text), c.Text
		}
		r.Contents = append(r.Contents, item)
	}
	return r
}

// alive reports whether the session survived the error of a request. An
// error answer, or a result the SDK could not decode (a bad blob, a field
// of the wrong type), concerns that request alone; a dead connection ends
// the session, and so does an expired deadline: a server that let one
// request hang is not trusted with the next.
func alive(err error) bool {
	if connectionLost(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return true
}

// withTimeout is context.WithTimeout, or no deadline for d <= 0.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// ErrorCode returns the code of a JSON-RPC error answer from the server.
// The SDK wraps such answers around a *jsonrpc.Error; but go-sdk v1.8.0 also
// reports failures of its own connection as *jsonrpc.Error ("client is
// closing", -32003, wrapping the read error), so a lost connection is
// checked first.
func ErrorCode(err error) (int64, bool) {
	if connectionLost(err) {
		return 0, false
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return werr.Code, true
	}
	return 0, false
}

func isWireError(err error) bool {
	_, ok := ErrorCode(err)
	return ok
}

// connectionLost reports whether err says that the connection to the
// server is gone: closed, or read to its end.
func connectionLost(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isExitError reports whether err only says that the server exited with a
// non-zero status, which Close reports for a server that already died: the
// error that mattered was returned by the request that found it dead.
func isExitError(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit)
}

// describeError adds the JSON-RPC code and data to an error answer.
func describeError(err error) string {
	var werr *jsonrpc.Error
	if _, ok := ErrorCode(err); ok && errors.As(err, &werr) {
		s := fmt.Sprintf("%s (JSON-RPC error %d", printable(err.Error()), werr.Code)
		if len(werr.Data) > 0 {
			s += ", data " + printable(string(werr.Data))
		}
		return s + ")"
	}
	return printable(err.Error())
}

// printable returns s as it is when every rune is graphic, and quoted
// otherwise: names, URIs and messages come from the server, and an ANSI
// escape sequence in them must not reach the terminal.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == unicode.ReplacementChar {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// Print writes the summary for a person to read.
func (s *Summary) Print(w io.Writer) {
	if s.Server != "" {
		fmt.Fprintf(w, "server: %s, protocol %s\n", printable(s.Server), printable(s.ProtocolVersion))
	}
	if s.ResourcePages > 0 {
		fmt.Fprintf(w, "resources: %d on %d pages\n", len(s.Resources), s.ResourcePages)
	}
	if s.TemplatePages > 0 {
		fmt.Fprintf(w, "templates: %d on %d pages\n", len(s.Templates), s.TemplatePages)
		for _, t := range s.Templates {
			fmt.Fprintf(w, "  %s\n", printable(t.URITemplate))
		}
	}
	for _, r := range s.Reads {
		if r.Err != nil {
			fmt.Fprintf(w, "read %s: error: %s\n", printable(r.URI), describeError(r.Err))
			continue
		}
		fmt.Fprintf(w, "read %s:", printable(r.URI))
		if len(r.Contents) == 0 {
			fmt.Fprint(w, " no contents")
		}
		for _, c := range r.Contents {
			kind := "text"
			if c.Blob {
				kind = "blob"
			}
			fmt.Fprintf(w, " %s %d bytes %s", kind, c.Bytes, printable(c.MIMEType))
		}
		fmt.Fprintln(w)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, uri := range s.Updated {
		fmt.Fprintf(w, "notification: resources/updated %s\n", printable(uri))
	}
	if s.ListChanged > 0 {
		fmt.Fprintf(w, "notification: resources/list_changed x%d\n", s.ListChanged)
	}
	if s.Relisted != nil {
		added, removed := diffURIs(s.Resources, s.Relisted)
		fmt.Fprintf(w, "resources after list_changed: %d (added %s; removed %s)\n",
			len(s.Relisted), joinPrintable(added), joinPrintable(removed))
	}
	if n := s.ReadErrors(); len(s.Reads) > 0 {
		fmt.Fprintf(w, "reads: %d ok, %d failed\n", len(s.Reads)-n, n)
	}
}

// diffURIs returns the URIs of after that are not in before, and those of
// before that are not in after.
func diffURIs(before, after []*mcp.Resource) (added, removed []string) {
	in := func(list []*mcp.Resource) map[string]bool {
		m := map[string]bool{}
		for _, r := range list {
			m[r.URI] = true
		}
		return m
	}
	b, a := in(before), in(after)
	for _, r := range after {
		if !b[r.URI] {
			added = append(added, r.URI)
		}
	}
	for _, r := range before {
		if !a[r.URI] {
			removed = append(removed, r.URI)
		}
	}
	return added, removed
}

func joinPrintable(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = printable(s)
	}
	return strings.Join(out, ", ")
}
