package evidence

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/transcript"
)

// format1 is a run as format 1 wrote it: no transport anywhere.
const format1 = `{"format":1,"tool":"0.9.0","command":["./server"],"nonce":"n","started":"2025-01-01T00:00:00Z","durationNs":1,"versions":["2025-06-18"],"timeoutNs":10000000000,
"sessions":[{"version":"2025-06-18","processes":[1],"requested":"2025-06-18","negotiated":"2025-06-18"}],
"processes":[{"id":1,"pid":42,"role":"shared","version":"2025-06-18","transcript":[
{"seq":0,"atUs":1,"dir":"send","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},
{"seq":1,"atUs":2,"dir":"recv","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"},
{"seq":2,"atUs":3,"dir":"note","event":{"exit":{"stage":"stdin-eof","code":0}}}]}]}`

// TestLoadReadsFormat1AsStdio: a run saved before the evidence named its
// transport is read, and is the stdio run it was.
func TestLoadReadsFormat1AsStdio(t *testing.T) {
	r, err := Load(strings.NewReader(format1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != Format || r.Transport != TransportStdio {
		t.Errorf("got format %d and transport %q, want %d and %q", r.Format, r.Transport, Format, TransportStdio)
	}
	p := r.Process(1)
	if p == nil || p.Transport != TransportStdio || len(p.Entries()) != 3 {
		t.Fatalf("got process %+v, want process 1 over stdio with its 3 entries", p)
	}
	if exit := p.Exit(); exit == nil || exit.Stage != transcript.StdinEOF {
		t.Errorf("got exit %+v, want the one recorded", exit)
	}
	if s := r.Session("2025-06-18"); s == nil || s.Shared() != p {
		t.Error("the session is not bound to its process")
	}
}

// TestSaveLoadKeepsTheTransport: the current format keeps what it names.
func TestSaveLoadKeepsTheTransport(t *testing.T) {
	tr := transcript.New(time.Now(), transcript.Limits{})
	tr.Event(transcript.Event{HTTPResponse: &transcript.HTTPResponse{Exchange: 1, Status: 202}})
	r := &Run{Format: Format, Transport: TransportStdio, Processes: []*Process{{ID: 1, Role: RoleShared, Transport: "stream", Transcript: tr}}}
	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Transport != TransportStdio || back.Processes[0].Transport != "stream" {
		t.Errorf("got transports %q and %q, want %q and stream", back.Transport, back.Processes[0].Transport, TransportStdio)
	}
	if e := back.Processes[0].Entries(); len(e) != 1 || e[0].Event.HTTPResponse == nil || e[0].Event.HTTPResponse.Status != 202 {
		t.Errorf("got entries %+v, want the HTTP response event", e)
	}
}

// TestLoadRefusesWhatItCannotRead: a newer format, or a file with no
// format at all, is refused with a reason a user can act on.
func TestLoadRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"newer", `{"format":99,"tool":"9.9.9"}`, "evidence format 99 is newer than this mcpconform reads (formats 1 to 2): judge it with mcpconform 9.9.9"},
		{"none", `{"tool":"x"}`, "not a file that mcpconform --evidence wrote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
