package clientrun

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// The test binary is also the recording mock: `<test binary>
// recording-mock FLAGS` runs MockMain, and `<test binary> fake-client
// BEHAVIOUR` a small client of the contract (see fakeclient_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "recording-mock":
			os.Exit(MockMain(os.Args[2:]))
		case "fake-client":
			os.Exit(fakeClient(os.Args[2:]))
		case "fake-http-client":
			os.Exit(fakeHTTPClient(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// startMock starts the recording mock with args, its stdin and stdout
// piped.
func startMock(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	return startMockArgv(t, os.Args[0], append([]string{"recording-mock"}, args...))
}

// startMockArgv starts the mock command with its stdin and stdout piped.
func startMockArgv(t *testing.T, command string, args []string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(command, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, in, bufio.NewReader(out)
}

func TestRecordingMockKeepsRawBytesAndEvents(t *testing.T) {
	dir := t.TempDir()
	cmd, in, out := startMock(t, "--scenario", "tools_call", "--evidence", dir, "--protocol-version", "2025-06-18")
	io.WriteString(in, initLine+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("no initialize response: %v", err)
	}
	io.WriteString(in, "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\ncaf\xe9\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mock: %v", err)
	}
	spawns, err := ReadSpawns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(spawns) != 1 {
		t.Fatalf("got %d spawns, want 1", len(spawns))
	}
	sp := spawns[0]
	if !slices.Contains(sp.Argv, "tools_call") {
		t.Errorf("argv %q does not name the scenario", sp.Argv)
	}
	var sends [][]wire.FrameIssue
	var recv string
	var eof, exit bool
	for _, e := range sp.Transcript.Entries() {
		switch {
		case e.Dir == transcript.Send:
			sends = append(sends, e.Issues)
		case e.Dir == transcript.Recv && recv == "":
			recv = string(e.Data)
		case e.Event != nil && e.Event.Received != nil && e.Event.Received.EOF:
			eof = true
		case e.Event != nil && e.Event.Exit != nil:
			exit = true
		}
	}
	if len(sends) != 3 || len(sends[0]) != 0 || !slices.Contains(sends[1], wire.IssueBOM) || !slices.Contains(sends[2], wire.IssueInvalidUTF8) {
		t.Errorf("sent lines' issues %v, want none, then bom, then invalid-utf8", sends)
	}
	if !strings.Contains(recv, "mcpconform-everything-add-numbers") {
		t.Errorf("first line from the mock %q is not the tools_call fixture's initialize result", recv)
	}
	if !eof || !exit {
		t.Errorf("stdin EOF recorded %v, exit recorded %v; want both", eof, exit)
	}
}

func TestRecordingMockStreamSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	cmd, in, out := startMock(t, "--scenario", "initialize", "--evidence", dir)
	io.WriteString(in, initLine+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("no initialize response: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	spawns, err := ReadSpawns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(spawns) != 1 {
		t.Fatalf("got %d spawns, want 1", len(spawns))
	}
	var dirs []transcript.Dir
	for _, e := range spawns[0].Transcript.Entries() {
		dirs = append(dirs, e.Dir)
	}
	if want := []transcript.Dir{transcript.Send, transcript.Recv}; !slices.Equal(dirs, want) {
		t.Errorf("entries %v, want %v", dirs, want)
	}
}

func TestRecordingMockRecordsSIGTERM(t *testing.T) {
	dir := t.TempDir()
	cmd, in, out := startMock(t, "--scenario", "initialize", "--evidence", dir)
	io.WriteString(in, initLine+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("no initialize response: %v", err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("mock ended with %v, want exit status 143", err)
	}
	spawns, err := ReadSpawns(dir)
	if err != nil || len(spawns) != 1 {
		t.Fatalf("got %d spawns (%v), want 1", len(spawns), err)
	}
	var got []string
	for _, e := range spawns[0].Transcript.Entries() {
		if e.Event != nil {
			got = append(got, e.Event.String())
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "SIGTERM") || !strings.Contains(got[1], "SIGTERM") {
		t.Errorf("events %q, want the signal received, then the exit it caused", got)
	}
}

func TestRecordingMockRefusesUnknownScenario(t *testing.T) {
	cmd := exec.Command(os.Args[0], "recording-mock", "--scenario", "nope", "--evidence", t.TempDir())
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("got %v, want exit status 2", err)
	}
}

// TestRecordingMockHoldsAnswersWhileAsking: with --hold-answers, the
// response to a request the client wrote after initialized goes out only
// once the mock's own request is answered, or once stdin ends.
func TestRecordingMockHoldsAnswersWhileAsking(t *testing.T) {
	for _, answer := range []bool{true, false} {
		dir := t.TempDir()
		cmd, in, out := startMock(t, "--evidence", dir, "--ask", "ping", "--hold-answers")
		io.WriteString(in, initLine+"\n")
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatalf("no initialize response: %v", err)
		}
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
		line, err := out.ReadString('\n')
		if err != nil || !strings.Contains(line, `"rec-1"`) {
			t.Fatalf("got %q (%v), want the mock's ping", line, err)
		}
		if answer {
			io.WriteString(in, `{"jsonrpc":"2.0","id":"rec-1","result":{}}`+"\n")
			if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"tools"`) {
				t.Fatalf("got %q (%v), want the tools/list result", line, err)
			}
		}
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		spawns, err := ReadSpawns(dir)
		if err != nil || len(spawns) != 1 {
			t.Fatalf("%d spawns (%v)", len(spawns), err)
		}
		// Where the tools/list result is, against the ping's answer (when
		// given) and stdin EOF (when not).
		var order []string
		for _, e := range spawns[0].Transcript.Entries() {
			switch {
			case e.Dir == transcript.Send && strings.Contains(string(e.Data), `"rec-1"`):
				order = append(order, "answer")
			case e.Dir == transcript.Recv && strings.Contains(string(e.Data), `"id":2`):
				order = append(order, "result")
			case e.Event != nil && e.Event.Received != nil && e.Event.Received.EOF:
				order = append(order, "eof")
			}
		}
		want := []string{"answer", "result", "eof"}
		if !answer {
			want = []string{"eof", "result"}
		}
		if !slices.Equal(order, want) {
			t.Errorf("answered %v: order %q, want %q", answer, order, want)
		}
	}
}
