package mockserver

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineReader(t *testing.T) {
	type line struct {
		Text    string
		N       int
		TooLong bool
	}
	input := "short\r\n" + strings.Repeat("x", 20) + "\n" + strings.Repeat("y", 10) + "\n\nlast"
	lr := newLineReader(strings.NewReader(input), 10)
	var got []line
	for {
		b, n, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, line{string(b), n, tooLong})
	}
	want := []line{
		{"short\r", 6, false}, // the server strips the "\r" itself
		{"", 20, true},
		{strings.Repeat("y", 10), 10, false},
		{"", 0, false},
		{"last", 4, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

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
	s := &server{faults: faultSet{}, out: &lineWriter{w: &out, faults: faultSet{}}, rec: &recorder{}}
	s.handleLine(nil, maxLine+10, true)
	if !strings.Contains(out.String(), `"id":null,"error":{"code":-32600`) {
		t.Errorf("an over-long line was answered %q, want -32600 with id null", out.String())
	}
}
