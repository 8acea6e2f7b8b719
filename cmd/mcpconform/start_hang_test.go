package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSilentServerEndsAtStartTimeout: a server that never writes a byte
// and ignores SIGTERM. Once the shared session's initialize meets
// --start-timeout, nothing more is started and every process still open
// is ended at once: no shutdown waits out its graces (10 s here), so the
// run takes the start-up deadline and a hurried shutdown, not the
// deadline plus a shutdown after a shutdown. The evidence says how each
// process ended; the test counts the waits, not the time.
func TestSilentServerEndsAtStartTimeout(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the server is a shell script")
	}
	dir := t.TempDir()
	r := runCLIIn(t, dir, "--quiet", "--start-timeout", "2s", "--grace", "10s", "--evidence", "run.json", "--",
		"sh", "-c", "trap '' TERM; exec sleep 600")
	if r.code != exitTarget {
		t.Fatalf("got exit %d, want %d\n%v", r.code, exitTarget, r)
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Processes []struct {
			ID         int
			Transcript []struct {
				Event *struct {
					Exit *struct {
						Stage   string
						Hurried bool
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Processes) == 0 {
		t.Fatal("no process in the evidence")
	}
	for _, p := range run.Processes {
		ended := false
		for _, e := range p.Transcript {
			if e.Event == nil || e.Event.Exit == nil {
				continue
			}
			ended = true
			if !e.Event.Exit.Hurried {
				t.Errorf("process %d: its shutdown waited out its graces (ended at %s)", p.ID, e.Event.Exit.Stage)
			}
		}
		if !ended {
			t.Errorf("process %d: no exit recorded", p.ID)
		}
	}
}
