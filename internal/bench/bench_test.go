package bench_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/testservers"
	"github.com/mcpconform/mcpconform/mockclient"
	"github.com/mcpconform/mcpconform/mockserver"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/suite/execute"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/transport"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/wire"
)

// The test binary doubles as a server, chosen by MCPCONFORM_BENCH_SERVE:
// "mock" is the reference server (what `mcpconform mock` runs), "blob" a
// tiny server whose one resource is a blobSize-byte blob. No build needed.
const serveVar = "MCPCONFORM_BENCH_SERVE"

// itemsVar is how many resources the "many" server lists, all on one page.
const itemsVar = "MCPCONFORM_BENCH_ITEMS"

func TestMain(m *testing.M) {
	switch os.Getenv(serveVar) {
	case "mock":
		opts := mockserver.Options{}
		if f := os.Getenv("MCPCONFORM_BENCH_FAULTS"); f != "" {
			opts.Faults = strings.Split(f, ",")
		}
		if err := mockserver.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, opts); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	case "blob":
		serveBlob()
		os.Exit(0)
	case "many":
		n, _ := strconv.Atoi(os.Getenv(itemsVar))
		serveMany(n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// self returns the argv and environment that run this test binary as the
// named server.
func self(tb testing.TB, server string, extraEnv ...string) ([]string, []string) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return []string{exe}, transport.Environment(append([]string{serveVar + "=" + server}, extraEnv...), false)
}

// BenchmarkFullRun times a whole default run (Execute, then Judge), as
// `mcpconform COMMAND` does it, against the reference server and against
// the go-sdk server, and reports the peak resident set of the harness
// (this process; the servers are children).
func BenchmarkFullRun(b *testing.B) {
	b.Run("mock", func(b *testing.B) {
		argv, env := self(b, "mock")
		benchRun(b, argv, env)
	})
	b.Run("gosdk", func(b *testing.B) {
		benchRun(b, testservers.GoServer(b, "gosdk"), transport.Environment(nil, false))
	})
}

func benchRun(b *testing.B, argv, env []string) {
	b.ReportAllocs()
	var procs, results int
	runtime.GC()
	resetPeakRSS()
	for b.Loop() {
		run, files := executeRun(b, argv, env)
		results = len(suite.Judge(run, files))
		procs = len(run.Processes)
	}
	b.ReportMetric(float64(procs), "processes/run")
	b.ReportMetric(float64(results), "checks/run")
	if rss := readPeakRSS(); rss > 0 {
		// The harness's own peak: the servers are other processes.
		b.ReportMetric(float64(rss)/1e6, "peak-RSS-MB")
	}
}

// executeRun executes a default run against the server and returns it
// with the vector files it used.
func executeRun(b *testing.B, argv, env []string) (*evidence.Run, []*vectors.File) {
	b.Helper()
	run, err := execute.Execute(context.Background(), execute.Config{Command: argv, Env: env})
	if err != nil {
		b.Fatal(err)
	}
	if run.Fatal != nil {
		b.Fatalf("the server did not start: %s", run.Fatal.Message)
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		b.Fatal(err)
	}
	return run, files
}

// BenchmarkHostileRun is a whole run (Execute, then Judge) against the
// reference server with a fault that attacks the harness's memory, and
// reports the peak resident set of the harness, as the last part of
// scripts/timerun.sh measures it for the mcpconform command. The memory
// limit mcpconform sets in main is set here too.
func BenchmarkHostileRun(b *testing.B) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(112 << 20))
	for i, fault := range []string{"notification-flood", "huge-response", "nested-arrays", "small-items-flood", "small-items-line", "huge-line", "huge-server-info"} {
		b.Run(fault, func(b *testing.B) {
			skipHeavy(b, i)
			argv, env := self(b, "mock", "MCPCONFORM_BENCH_FAULTS="+fault)
			benchRun(b, argv, env)
		})
	}
}

// BenchmarkReadRoundTrip sends sequential resources/read requests for a
// small text resource through mockclient, one at a time, and reports how
// many complete per second: against the reference server and, side by
// side, the go-sdk server.
func BenchmarkReadRoundTrip(b *testing.B) {
	b.Run("mock", func(b *testing.B) {
		argv, env := self(b, "mock")
		benchReads(b, argv, env, "test://static/hello.txt")
	})
	b.Run("gosdk", func(b *testing.B) {
		benchReads(b, testservers.GoServer(b, "gosdk"), transport.Environment(nil, false), "test://static/note.txt")
	})
}

func benchReads(b *testing.B, argv, env []string, uri string) {
	c := startInitialized(b, argv, env)
	params := json.RawMessage(`{"uri":` + strconv.Quote(uri) + `}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		x := c.Call(ctx, "resources/read", params)
		if !x.OK() || x.Response.Result == nil {
			b.Fatalf("resources/read %s: %v %s", uri, x.Err, x.Sent)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

// startInitialized starts a server and completes the handshake; the
// process is shut down when the benchmark ends.
func startInitialized(tb testing.TB, argv, env []string) *mockclient.Client {
	tb.Helper()
	c := initialized(tb, argv, env)
	tb.Cleanup(func() { c.Close() })
	return c
}

// initialized starts a server and completes the handshake; the caller
// closes it.
func initialized(tb testing.TB, argv, env []string) *mockclient.Client {
	tb.Helper()
	// A benchmark makes far more requests than a run: the transcript's
	// flood limit (20,000 lines) would stop the server midway.
	limits := transcript.Limits{MaxEntries: 1 << 30}
	c, err := mockclient.Start(mockclient.Options{Command: argv, Env: env, Timeout: 20 * time.Second, Limits: limits})
	if err != nil {
		tb.Fatal(err)
	}
	x := c.Call(context.Background(), "initialize", map[string]any{
		"protocolVersion": wire.Newest,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpconform-bench", "version": "0"},
	})
	if x.Response == nil || x.Response.Result == nil {
		c.Close()
		tb.Fatalf("initialize: %v", x.Err)
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		c.Close()
		tb.Fatal(err)
	}
	return c
}

// blobSize is the size of the blob BenchmarkReadHuge reads: 50 MB, whose
// base64 line (66.7 MB) fits the client's default 64 MiB message limit.
const blobSize = 50_000_000

// BenchmarkReadHuge reads one huge resource through mockclient and reports
// the benchmark process's peak memory during the read: the resident set
// (VmHWM, reset before each read, Linux only) and the Go heap (sampled).
// "blob" is a 50 MB blob from a tiny server of this binary; "mock-text" is
// the reference server's huge-response fault, 50 MiB of text.
func BenchmarkReadHuge(b *testing.B) {
	b.Run("blob", func(b *testing.B) {
		argv, env := self(b, "blob")
		benchHuge(b, argv, env, blobURI, blobSize)
	})
	b.Run("mock-text", func(b *testing.B) {
		skipHeavy(b, 1)
		argv, env := self(b, "mock", "MCPCONFORM_BENCH_FAULTS=huge-response")
		benchHuge(b, argv, env, "test://mcpconform-mock/huge.txt", 50<<20)
	})
}

func benchHuge(b *testing.B, argv, env []string, uri string, size int) {
	params := json.RawMessage(`{"uri":` + strconv.Quote(uri) + `}`)
	ctx := context.Background()
	var peakRSS, peakHeap uint64
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		// A process per read: a client keeps one huge answer whole, and
		// reads the same answer again squeezed (it would be clipped).
		b.StopTimer()
		c := initialized(b, argv, env)
		runtime.GC()
		resetPeakRSS()
		stop := sampleHeap()
		b.StartTimer()
		x := c.Call(ctx, "resources/read", params)
		b.StopTimer()
		heap := stop()
		if x.Response == nil || x.Response.Result == nil {
			b.Fatalf("resources/read %s: %v", uri, x.Err)
		}
		if n := len(x.Response.Result); n < size {
			b.Fatalf("resources/read %s: a result of %d bytes, want over %d", uri, n, size)
		}
		peakHeap = max(peakHeap, heap)
		peakRSS = max(peakRSS, readPeakRSS())
		c.Close()
		b.StartTimer()
	}
	if peakRSS > 0 {
		b.ReportMetric(float64(peakRSS)/1e6, "peak-RSS-MB")
		b.ReportMetric(float64(peakRSS)/float64(size), "peak-RSS/size")
	}
	b.ReportMetric(float64(peakHeap)/1e6, "peak-heap-MB")
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident set ("5" to clear_refs); it does nothing where that is not
// supported.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// readPeakRSS returns VmHWM, the peak resident set in bytes (0 if unknown).
func readPeakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// sampleHeap samples the Go heap every millisecond until the returned
// function is called, which returns the largest value seen.
func sampleHeap() func() uint64 {
	const name = "/memory/classes/heap/objects:bytes"
	var (
		peak uint64
		wg   sync.WaitGroup
	)
	done := make(chan struct{})
	s := []metrics.Sample{{Name: name}}
	read := func() {
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			peak = max(peak, s[0].Value.Uint64())
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

const blobURI = "test://bench/blob"

// serveBlob is a minimal MCP server over stdio with one resource, a
// blobSize-byte blob: enough for the client to read a huge response.
func serveBlob() {
	data := make([]byte, blobSize)
	for i := range data {
		data[i] = byte(i)
	}
	b64 := base64.StdEncoding.EncodeToString(data)
	data = nil
	serveLines(func(method string, params json.RawMessage) (string, bool) {
		switch method {
		case "initialize":
			return initializeResult(params, "mcpconform-bench-blob"), true
		case "resources/list":
			return `{"resources":[{"uri":"` + blobURI + `","name":"blob","mimeType":"application/octet-stream","size":` + strconv.Itoa(blobSize) + `}]}`, true
		case "resources/read":
			return `{"contents":[{"uri":"` + blobURI + `","mimeType":"application/octet-stream","blob":"` + b64 + `"}]}`, true
		case "ping":
			return `{}`, true
		}
		return "", false
	})
}

// serveMany is a minimal MCP server over stdio listing n small text
// resources on one page, each readable: a big but plausible server.
func serveMany(n int) {
	var list strings.Builder
	list.WriteString(`{"resources":[`)
	for i := range n {
		if i > 0 {
			list.WriteByte(',')
		}
		fmt.Fprintf(&list, `{"uri":"test://many/item-%07d.txt","name":"item-%07d","mimeType":"text/plain"}`, i, i)
	}
	list.WriteString(`]}`)
	serveLines(func(method string, params json.RawMessage) (string, bool) {
		switch method {
		case "initialize":
			return initializeResult(params, "mcpconform-bench-many"), true
		case "resources/list":
			return list.String(), true
		case "resources/read":
			var p struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(params, &p)
			if !strings.HasPrefix(p.URI, "test://many/item-") {
				return "", false
			}
			return `{"contents":[{"uri":` + strconv.Quote(p.URI) + `,"mimeType":"text/plain","text":"x"}]}`, true
		case "ping":
			return `{}`, true
		}
		return "", false
	})
}

// initializeResult accepts the version the initialize params offer and
// declares resources.
func initializeResult(params json.RawMessage, name string) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	return `{"protocolVersion":` + strconv.Quote(p.ProtocolVersion) +
		`,"capabilities":{"resources":{}},"serverInfo":{"name":` + strconv.Quote(name) + `,"version":"0"}}`
}

// serveLines answers each request read from stdin with what answer
// returns for its method and params, or with an error when it returns
// false; notifications are ignored.
func serveLines(answer func(method string, params json.RawMessage) (string, bool)) {
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(line, &req) == nil && req.ID != nil {
				out.WriteString(`{"jsonrpc":"2.0","id":`)
				out.Write(req.ID)
				if result, ok := answer(req.Method, req.Params); ok {
					out.WriteString(`,"result":`)
					out.WriteString(result)
				} else {
					out.WriteString(`,"error":{"code":-32601,"message":"not served"}`)
				}
				out.WriteString("}\n")
				out.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// BenchmarkJudgeMany judges, again and again, one recorded run against a
// server listing 10k, 100k and 1M resources on one page: judging must
// grow linearly with what was recorded.
func BenchmarkJudgeMany(b *testing.B) {
	for i, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			skipHeavy(b, i)
			argv, env := self(b, "many", itemsVar+"="+strconv.Itoa(n))
			run, files := executeRun(b, argv, env)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				suite.Judge(run, files)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
		})
	}
}

// skipHeavy skips, under -short, every case of a benchmark but its first
// (i == 0): .ci/run runs each benchmark once to keep it working, and the
// first case does that; the costly ones are for measuring.
func skipHeavy(b *testing.B, i int) {
	b.Helper()
	if i > 0 && testing.Short() {
		b.Skip("a costly case: measured without -short")
	}
}
