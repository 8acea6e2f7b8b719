package checks

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/internal/memtest"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// A line of tens of megabytes kept whole is judged and shown where it
// lies: judging whether it is a fragment of a message, and the excerpt of
// the transcript a report shows, copy none of it.
func TestLongLineIsNotCopied(t *testing.T) {
	const size = 16 << 20
	garbage := bytes.Repeat([]byte("garbage "), size/8)
	fragment := []byte(`  {"a": [1, 2, "` + strings.Repeat("x", size) + `  `)
	var isFragment, garbageFragment bool
	if n := memtest.Allocated(func() {
		isFragment, garbageFragment = looksLikeFragment(fragment), looksLikeFragment(garbage)
	}); n > 64<<10 {
		t.Errorf("judging a %d MiB line as a fragment allocated %d KiB, want it read in place", size>>20, n>>10)
	}
	if !isFragment || garbageFragment {
		t.Errorf("got fragment %v and %v, want true for JSON tokens and false for words", isFragment, garbageFragment)
	}

	tr := transcript.New(time.Now(), transcript.Limits{})
	tr.Add(transcript.Entry{Dir: transcript.Recv, Data: garbage, Len: len(garbage), Issues: []wire.FrameIssue{wire.IssueNotJSON}})
	p := &evidence.Process{ID: 1, Transcript: tr}
	var lines int
	var text string
	if n := memtest.Allocated(func() {
		ex := Excerpt(p, 0, 1)
		lines, text = len(ex), ex[0].Text
	}); n > 64<<10 {
		t.Errorf("the excerpt of a %d MiB line allocated %d KiB, want only what it shows", size>>20, n>>10)
	}
	if want := string(garbage[:2000]) + "… (16777216 bytes)"; lines != 1 || text != want {
		t.Errorf("got %d lines, %.40q…; want the line's first 2000 bytes and its size", lines, text)
	}
}
