package mockserver

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/wire"
)

func TestLineConnFrames(t *testing.T) {
	type line struct {
		Seq     int
		Text    string
		Size    int
		TooLong bool
	}
	input := "short\r\n" + strings.Repeat("x", 20) + "\n" + strings.Repeat("y", 10) + "\n\nlast"
	c := newLineConn(strings.NewReader(input), io.Discard, "stdin", "stdout", faultSet{}, &recorder{})
	c.lines = wire.NewLineReader(strings.NewReader(input), 10) // a limit of 10 bytes, not maxLine
	var got []line
	for {
		f, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		l := line{f.seq, string(f.Raw), f.Len, f.tooLong()}
		if f.tooLong() {
			l.Text = "" // only its start is kept, and nothing reads it
		}
		got = append(got, l)
	}
	want := []line{
		{1, "short", 5, false},
		{2, "", 20, true},
		{3, strings.Repeat("y", 10), 10, false},
		{4, "", 0, false},
		{5, "last", 4, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// TestLineConnErrors: a failed read or write says which side failed.
func TestLineConnErrors(t *testing.T) {
	c := newLineConn(iotest.ErrReader(errors.New("boom")), errWriter{}, "stdin", "stdout", faultSet{}, &recorder{})
	if _, err := c.next(); err == nil || err.Error() != "reading stdin: boom" {
		t.Errorf("next: got %v, want reading stdin: boom", err)
	}
	if err := c.failed(); err != nil {
		t.Errorf("failed before any write: %v", err)
	}
	c.send(outFrame{data: []byte("{}")})
	if err := c.failed(); err == nil || err.Error() != "writing stdout: full" {
		t.Errorf("failed: got %v, want writing stdout: full", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("full") }

func TestLongLine(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes a 64 MiB line; slow under -short and -race")
	}
	// A request line of a little over 64 MiB is read and answered.
	pad := strings.Repeat("a", 64<<20)
	s := start(t, Options{})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"com.example/pad":"` + pad + `"}}}`)
	if m := s.recvMsg(); string(m.Result) != "{}" {
		t.Errorf("64 MiB ping: got %s %+v", m.Result, m.Error)
	}
}

func TestOverlongLineIsSkipped(t *testing.T) {
	var out writeCounter
	s := &server{faults: faultSet{}, conn: newLineConn(strings.NewReader(""), &out, "stdin", "stdout", faultSet{}, &recorder{})}
	s.handleFrame(frame{seq: 1, Line: &wire.Line{Len: maxLine + 10, Issues: []wire.FrameIssue{wire.IssueOversize}}})
	if !strings.Contains(out.String(), `"id":null,"error":{"code":-32600`) {
		t.Errorf("an over-long line was answered %q, want -32600 with id null", out.String())
	}
}
