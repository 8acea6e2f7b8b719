package mockclient

import (
	"context"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// repeatReader yields n bytes of b repeated, without holding them.
type repeatReader struct {
	b   []byte
	n   int64
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	r.n -= int64(n)
	return n, nil
}

// hugeLine is a reader of one JSON-RPC response whose result holds a string
// of size bytes, then a newline, then a small message.
func hugeLine(size int) io.Reader {
	return io.MultiReader(
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{"text":"`),
		&repeatReader{b: []byte("0123456789abcdef"), n: int64(size)},
		strings.NewReader("\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"),
	)
}

// heapPeak samples the bytes of live and not yet collected heap objects
// until stop is called, and returns the largest sample above the level at
// the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		if v := read(); v > peak {
			peak = v
		}
		if peak < base {
			return 0
		}
		return peak - base
	}
}

// A line far over the maximum is skipped without being held: reading a
// 100 MiB line with a 1 MiB maximum allocates a few MiB, not 100.
func TestOversizeLineMemoryIsBounded(t *testing.T) {
	const size, max = 100 << 20, 1 << 20
	r := io.MultiReader(&repeatReader{b: []byte("garbage!"), n: size}, strings.NewReader("\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"))
	lr := wire.NewLineReader(r, max)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Has(wire.IssueOversize) || l.Len != size || len(l.Raw) != 4096 {
		t.Errorf("got issues %v, Len %d, %d bytes kept; want oversize, %d, 4096", l.Issues, l.Len, len(l.Raw), size)
	}
	t.Logf("reading a %d MiB line with a %d MiB maximum allocated %.1f MiB", size>>20, max>>20, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading the line allocated %d MiB, want at most 8", alloc>>20)
	}
	l, err = lr.Next()
	if err != nil || l.Value == nil || len(l.Issues) != 0 {
		t.Errorf("the line after: got %+v, %v; want a clean message", l, err)
	}
}

// callHuge starts the helper server, calls "huge" once it answers, and
// returns the client, the exchange and the peak heap growth of the call.
func callHuge(t *testing.T, opts Options) (*Client, *Exchange, uint64) {
	t.Helper()
	c := startHelper(t, "huge", opts)
	if x := c.Call(context.Background(), "ping", nil); x.Err != nil {
		t.Fatal(x.Err)
	}
	stop := heapPeak()
	x := c.Call(context.Background(), "huge", nil)
	peak := stop()
	if x.Err != nil {
		t.Fatal(x.Err)
	}
	return c, x, peak
}

// A valid 50 MB response is read, decoded and recorded with a peak heap
// below four times its size (measured: about two).
func TestHugeResponseMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 50 MB through a pipe")
	}
	c, x, peak := callHuge(t, Options{Timeout: time.Minute})
	if n := len(x.Response.Result); n != hugeSize+len(`{"text":""}`) {
		t.Errorf("got a result of %d bytes, want %d", n, hugeSize+len(`{"text":""}`))
	}
	ratio := float64(peak) / hugeSize
	t.Logf("peak heap while reading a %d MiB response: %.1f MiB (%.2f× the response)", hugeSize>>20, float64(peak)/(1<<20), ratio)
	if ratio >= 4 {
		t.Errorf("peak heap is %.2f× the response, want under 4×", ratio)
	}
	// The transcript holds the line once: its messages are slices of it,
	// not copies (the peak above shows no second copy was made).
	for _, e := range c.Transcript().Entries() {
		if e.Dir == transcript.Recv && e.Len > hugeSize {
			if e.Clipped() || len(e.Msgs) != 1 {
				t.Errorf("the transcript holds %d of %d bytes and %d messages; want the line whole, once", len(e.Data), e.Len, len(e.Msgs))
			}
		}
	}
}

// A 50 MB response the transcript will not keep whole (past its budget)
// is never held whole: it is read squeezed, and the waiter gets the slim
// copy the transcript keeps. The peak heap is a small part of the line
// (measured: 4 MiB, the pieces read before the line was known to be too
// long and the reader's buffers).
func TestClippedResponseIsNotHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 50 MB through a pipe")
	}
	c, x, peak := callHuge(t, Options{Timeout: time.Minute, Limits: transcript.Limits{KeepWhole: 4 << 20}})
	if got, want := string(x.Response.Result), `{"text":""}`; got != want {
		t.Errorf("got result %.60s, want the slim copy %s", got, want)
	}
	t.Logf("peak heap while reading a %d MiB response past the budget: %.1f MiB", hugeSize>>20, float64(peak)/(1<<20))
	if peak > hugeSize/2 {
		t.Errorf("peak heap %d MiB, want under half the response", peak>>20)
	}
	for _, e := range c.Transcript().Entries() {
		if e.Dir == transcript.Recv && e.Len > hugeSize {
			if !e.Clipped() || len(e.Msgs) != 1 || string(e.Msgs[0].Result) != `{"text":""}` {
				t.Errorf("the transcript holds %d of %d bytes and %d messages; want it clipped, with its slim message", len(e.Data), e.Len, len(e.Msgs))
			}
		}
	}
}

// BenchmarkReadHugeResponse reads and decodes one 50 MB response line the
// way the client's read loop does, from memory. B/op is everything
// allocated per response; peak/size is the largest heap growth seen.
func BenchmarkReadHugeResponse(b *testing.B) {
	const size = 50 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	var worst uint64
	for b.Loop() {
		stop := heapPeak()
		lr := wire.NewLineReader(hugeLine(size), 64<<20)
		l, err := lr.Next()
		if err != nil || l.Value == nil {
			b.Fatalf("got %v, %v", l, err)
		}
		msgs := wire.DecodeValidLine(l.Value)
		if len(msgs) != 1 || len(msgs[0].Result) < size {
			b.Fatal("the response did not decode")
		}
		tr := transcript.New(time.Now(), transcript.Limits{})
		tr.Add(transcript.Entry{Dir: transcript.Recv, Data: l.Raw, Len: l.Len, Issues: l.Issues, Msgs: append([]*wire.Message(nil), msgs...)})
		runtime.KeepAlive(msgs)
		worst = max(worst, stop())
	}
	b.ReportMetric(float64(worst)/size, "peak/size")
}

// BenchmarkClientHugeResponse is the same through a real pipe from a
// server process, with the whole client in the way.
func BenchmarkClientHugeResponse(b *testing.B) {
	c := startHelper(b, "huge", Options{Timeout: time.Minute})
	b.SetBytes(hugeSize)
	b.ReportAllocs()
	var worst uint64
	for b.Loop() {
		stop := heapPeak()
		x := c.Call(context.Background(), "huge", nil)
		if x.Err != nil {
			b.Fatal(x.Err)
		}
		runtime.KeepAlive(x)
		worst = max(worst, stop())
	}
	b.ReportMetric(float64(worst)/hugeSize, "peak/size")
}
