package suite

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/mcpconform/mcpconform/mockclient"
)

// processChecks judge the server as a process: what it leaves behind.
func processChecks() []*Check {
	return []*Check{
		{
			ID: "no-stray-processes", Requirement: "STDIO-08", Level: "SHOULD", Area: "stdio",
			Spec:        "basic/lifecycle#shutdown",
			Description: "once shut down, a server leaves no process behind: nothing survives in its process group, and no process it moved out of the group (setsid) still holds its stdin, stdout or stderr",
			Run:         checkNoStrays,
		},
	}
}

// checkNoStrays lists the strays every process of the run left (found,
// killed and recorded by the client at Close: see mockclient.Stray).
func checkNoStrays(r *Run) Finding {
	if runtime.GOOS != "linux" {
		return skip("strays are found through /proc, which " + runtime.GOOS + " lacks")
	}
	clients := r.Clients()
	p := &problems{}
	var first *mockclient.Client
	firstSeq := 0
	var actual []any
	for _, c := range clients {
		for _, s := range c.Strays() {
			p.warn("server process %d: %s", c.Pid(), s)
			actual = append(actual, map[string]any{"serverPid": c.Pid(), "pid": s.Pid, "command": s.Command, "holds": s.Holds, "killed": s.Killed})
			if first == nil {
				first, firstSeq = c, strayEventSeq(c, s.Pid)
			}
		}
	}
	if actual != nil {
		p.actual = actual
	}
	f := p.finding(fmt.Sprintf("none of the %d server processes left a process behind", len(clients)))
	if first != nil {
		f.Client, f.From, f.To = first, firstSeq-5, firstSeq+1
	}
	return f
}

// strayEventSeq finds the transcript event recording a stray.
func strayEventSeq(c *mockclient.Client, pid int) int {
	prefix := fmt.Sprintf("stray process: pid %d ", pid)
	for _, e := range c.Transcript().Entries() {
		if e.Dir == mockclient.Event && strings.HasPrefix(string(e.Data), prefix) {
			return e.Seq
		}
	}
	return c.Transcript().Len()
}
