package mockclient

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/transcript"
)

// Stray is a process that outlived the server's shutdown: one still in the
// server's process group after it was killed, or one holding the server's
// stdin, stdout or stderr pipe, typically a child the server moved to a
// session of its own (setsid) so that killing the group missed it. Strays
// are found on Linux only (by scanning /proc).
type Stray struct {
	Pid int
	// Command is its command line, clipped.
	Command string
	// Holds says what tied it to the server: "stdin", "stdout", "stderr"
	// (pipes it holds open) or "process group".
	Holds []string
	// Killed is set when SIGKILL was delivered to it.
	Killed bool
}

func (s Stray) String() string {
	var ties []string
	var pipes []string
	for _, h := range s.Holds {
		if h == "process group" {
			ties = append(ties, "was still in its process group")
		} else {
			pipes = append(pipes, h)
		}
	}
	if len(pipes) > 0 {
		ties = append(ties, "held its "+strings.Join(pipes, ", "))
	}
	verdict := "killed"
	if !s.Killed {
		verdict = "could not be killed"
	}
	return fmt.Sprintf("pid %d (%s) %s after the server's shutdown; %s", s.Pid, s.Command, strings.Join(ties, " and "), verdict)
}

// event is the stray as a transcript event.
func (s Stray) event() transcript.Stray {
	return transcript.Stray{Pid: s.Pid, Command: s.Command, Holds: s.Holds, Killed: s.Killed}
}
