package transcript

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// TestViewsCannotBeWrittenThrough: Entries is a view of the transcript,
// but an append to it reallocates (its capacity is its length), and
// Slice is a copy, so neither lets a caller write over recorded entries.
func TestViewsCannotBeWrittenThrough(t *testing.T) {
	tr := New(time.Now(), Limits{})
	for _, s := range []string{"a", "b", "c", "d"} {
		tr.Add(Entry{Dir: Recv, Data: []byte(s)})
	}
	all := tr.Entries()
	if cap(all) != len(all) {
		t.Fatalf("Entries has spare capacity %d > %d", cap(all), len(all))
	}
	_ = append(all, Entry{Data: []byte("x")})
	part := tr.Slice(0, 2)
	_ = append(part[:1], Entry{Data: []byte("y")})
	for i, want := range []string{"a", "b", "c", "d"} {
		if got := string(tr.Entries()[i].Data); got != want {
			t.Errorf("entry %d is %q, want %q", i, got, want)
		}
	}
}

// TestSlimLineIsSlimOfTheWholeLine: the messages of a line read squeezed
// (never held whole, because the transcript clips it) are the slim copies
// the transcript makes of the whole line's messages.
func TestSlimLineIsSlimOfTheWholeLine(t *testing.T) {
	long := func(c string) string { return `"` + strings.Repeat(c, wire.SqueezeAbove+10) + `"` }
	many := make([]string, 300)
	for i := range many {
		many[i] = fmt.Sprintf(`{"n":%d,"s":"%s"}`, i, strings.Repeat("m", 5000))
	}
	deep := strings.Repeat(`{"d":[`, 20) + long("d") + strings.Repeat(`]}`, 20)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x:/a","mimeType":"text/plain","text":` + long("t") + `}]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"a":` + long("a") + `,"b":[` + strings.Join(many, ",") + `],"c":` + deep + `,"e":"\u00e9\"` + strings.Repeat("q", 5000) + `"}}`,
		`[{"jsonrpc":"2.0","method":"x","params":{"p":` + long("p") + `}},{"jsonrpc":"2.0","id":"b","result":{}}]`,
		`{"jsonrpc":"2.0","id":3,"result":{"k":` + long("k") + `,"k":"short","n":1e5}}`,
		// Past SqueezeItems items the squeezed line keeps none: the slim
		// copy is the same.
		`{"jsonrpc":"2.0","method":"n","params":{"items":[0` + strings.Repeat(`, -1.5e3,[1,2],"s",{"a":[0,0]}`, 3000) + strings.Repeat(`,`+long("z"), 100) + strings.Repeat(",0", 50000) + `],"m":{` + members(2000) + `},"after":[true]}}`,
	}
	tr := New(time.Now(), Limits{})
	for _, line := range lines {
		line += strings.Repeat(" ", max(0, 1<<20+1-len(line)))
		whole := wire.NewLineReader(strings.NewReader(line+"\n"), 64<<20)
		squeezed := wire.NewLineReader(strings.NewReader(line+"\n"), 64<<20)
		squeezed.ClipPast(func(int64) bool { return false }, tr.ClipTo())
		w, err := whole.Next()
		if err != nil {
			t.Fatal(err)
		}
		s, err := squeezed.Next()
		if err != nil {
			t.Fatal(err)
		}
		if s.Squeezed == nil {
			t.Fatalf("%.40s: not squeezed", line)
		}
		got, batch := tr.SlimLine(s.Squeezed)
		want := wire.DecodeValidLine(w.Value)
		if len(got) != len(want) || batch != (w.Value[0] == '[') {
			t.Fatalf("%.40s: got %d messages (batch %v), want %d", line, len(got), batch, len(want))
		}
		for i := range want {
			ws := Slim(want[i], tr.ClipTo())
			if !wire.Equal(got[i].Raw, ws.Raw) {
				t.Errorf("%.40s: message %d:\ngot  %.300s\nwant %.300s", line, i, got[i].Raw, ws.Raw)
			}
		}
	}
}

// members is n members of a JSON object, without its braces.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":[%d,"v"]`, i, i)
	}
	return b.String()
}

// TestReserveSharesThePool: a line still arriving sets its bytes aside in
// the run's pool, so a line growing at once in another process is refused
// what the first may keep; the bytes come back when the line is added.
func TestReserveSharesThePool(t *testing.T) {
	pool := NewPool(1000, 100<<20)
	a := New(time.Now(), Limits{Pool: pool})
	b := New(time.Now(), Limits{Pool: pool})
	if !a.Reserve(60 << 20) {
		t.Fatal("a 60 MiB line refused in an empty pool of 100 MiB")
	}
	if b.Reserve(60 << 20) {
		t.Error("a second 60 MiB line fits beside the first")
	}
	if !b.Reserve(30 << 20) {
		t.Error("a 30 MiB line refused beside the first 60 MiB")
	}
	b.Reserve(0)
	a.Add(Entry{Dir: Recv, Data: make([]byte, 60<<20)})
	if e := a.Entries()[0]; e.Clipped() {
		t.Error("the reserved line was clipped")
	}
	if got := pool.reserved.Load(); got != 0 {
		t.Errorf("%d bytes still set aside after the line was added", got)
	}
	if b.Reserve(41<<20) || !b.Reserve(40<<20) {
		t.Error("after 60 MiB kept, want 40 MiB left for a line, and no more")
	}
}

// TestRefusedLineKeepsWhatItSetAside: a line refused past its share is
// still held while the reader squeezes what it gathered, so what it set
// aside stays so until Reserve(0), and no other line counts on it.
func TestRefusedLineKeepsWhatItSetAside(t *testing.T) {
	pool := NewPool(1000, 100<<20)
	a, b, c := New(time.Now(), Limits{Pool: pool}), New(time.Now(), Limits{Pool: pool}), New(time.Now(), Limits{Pool: pool})
	if !a.Reserve(60<<20) || !b.Reserve(30<<20) {
		t.Fatal("60 and 30 MiB refused in an empty pool of 100 MiB")
	}
	if b.Reserve(50 << 20) {
		t.Fatal("a line grew past what the pool has left and was not refused")
	}
	if c.Reserve(11 << 20) {
		t.Error("a line counted on what a refused line still holds")
	}
	b.Reserve(0)
	if !c.Reserve(11 << 20) {
		t.Error("what the refused line gave back cannot be set aside")
	}
}

// TestPoolStopsAFloodByWhatItHolds: a flood of small messages is stopped
// by the memory its entries hold, before the pool's count of lines.
func TestPoolStopsAFloodByWhatItHolds(t *testing.T) {
	pool := NewPool(1_000_000, 96<<20)
	pool.MaxHeld = 1 << 20
	tr := New(time.Now(), Limits{Pool: pool})
	line := []byte(`{"jsonrpc":"2.0","method":"notifications/flood","params":{"n":1}}`)
	n := 0
	for ; tr.Flooded() == nil && n < 100_000; n++ {
		msgs, _ := wire.DecodeLine(line)
		tr.Add(Entry{Dir: Recv, Data: bytes.Clone(line), Msgs: msgs})
	}
	f := tr.Flooded()
	if f == nil || !strings.Contains(f.Reason, "1 MiB held") {
		t.Fatalf("after %d lines: got flood %+v, want one over the memory held", n, f)
	}
	if per := (1 << 20) / n; per < 500 || per > 1000 {
		t.Errorf("stopped after %d lines, %d bytes each; want the estimate of a message line", n, per)
	}
}

// TestSlimOfManyItemsCostsItsSlimSize: a slim copy of a 10 MiB message of
// small items reads the 256 items it keeps, and allocates about as much
// as it keeps, not a slice header per item of the line.
func TestSlimOfManyItemsCostsItsSlimSize(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/x","params":{"items":[0`)
	for b.Len() < 10<<20 {
		b.WriteString(",0")
	}
	b.WriteString(`],"tail":{"a":1}}}`)
	m, err := wire.DecodeMessage(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := Slim(m, 1024)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("Slim of a 10 MiB line allocated %d bytes, want under 1 MiB", got)
	}
	items, _ := wire.Array(wire.Object(s.Params)["items"])
	if len(items) != 256 {
		t.Errorf("the slim copy keeps %d items, want 256", len(items))
	}
	if _, ok := wire.Object(s.Params)["tail"]; !ok {
		t.Errorf("the slim copy lost the member after the items: %.200s", s.Raw)
	}
}
