package reports

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/memtest"
)

// clipJSONWhole is ClipJSON as it was: every string decoded whole, then
// clipped. ClipJSON must give what it gives.
func clipJSONWhole(raw json.RawMessage, maxString, maxTotal int) json.RawMessage {
	if len(raw) <= maxString {
		return raw
	}
	whole := func() json.RawMessage {
		b, _ := json.Marshal(clipString(string(raw), maxString))
		return b
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return whole()
	}
	out, err := json.Marshal(clipStrings(v, maxString, nil))
	if err != nil || len(out) > maxTotal {
		return whole()
	}
	return out
}

// FuzzClipJSON checks that a value with long strings is clipped exactly as
// when every string is decoded whole: escapes, surrogate pairs, invalid
// UTF-8 and member names included.
func FuzzClipJSON(f *testing.F) {
	f.Add([]byte(`{"name":"s","d":"`+strings.Repeat(`ab\u00e9\ud83d\ude00\n`, 40)+`","l":["`+strings.Repeat("x", 300)+`",1]}`), uint8(8))
	f.Add([]byte(`{"`+strings.Repeat("k", 200)+`" : "`+strings.Repeat("\xff\\\\", 100)+`\ud800"}`), uint8(3))
	f.Add([]byte(`["`+strings.Repeat(`\"`, 100)+`\u00","x"]`), uint8(5))
	f.Add([]byte(` "`+strings.Repeat("é", 100)+`" `), uint8(7))
	f.Fuzz(func(t *testing.T, raw []byte, n uint8) {
		maxString := int(n%32) + 1
		want := clipJSONWhole(raw, maxString, 4096)
		if got := ClipJSON(raw, maxString, 4096); string(got) != string(want) {
			t.Fatalf("ClipJSON(%q, %d):\ngot  %s\nwant %s", raw, maxString, got, want)
		}
	})
}

// A serverInfo of 60 MiB is clipped for a report without being decoded:
// what it costs is a small part of its size.
func TestClipJSONLongStringMemory(t *testing.T) {
	const size = 60 << 20
	raw := json.RawMessage(`{"name":"huge","version":"1","description":"` + strings.Repeat("0123456789", size/10) + `"}`)
	var got json.RawMessage
	n := memtest.Allocated(func() { got = ClipJSON(raw, 1<<10, 64<<10) })
	want := `{"description":"` + strings.Repeat("0123456789", 102) + `0123… (62914560 bytes)","name":"huge","version":"1"}`
	if string(got) != want {
		t.Errorf("got %.120s…, want %.120s…", got, want)
	}
	if n > 1<<20 {
		t.Errorf("clipping a %d MiB serverInfo allocated %d KiB, want at most 1 MiB", size>>20, n>>10)
	}
}
