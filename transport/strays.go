package transport

import "github.com/mcpconform/mcpconform/transcript"

// Stray is a process that outlived the server's shutdown. It came from the
// server: it was still in the server's process group or session, descended
// from it (a child that moved to a session of its own, a daemon that forked
// twice and was reparented), or held the server's stdin, stdout or stderr
// pipe. Strays are found on Linux only (by scanning /proc); Coverage says
// what the search could see.
type Stray struct {
	Pid int
	// Command is its command line, clipped.
	Command string
	// Holds says what tied it to the server: "process group" (still in the
	// server's group after it was killed), "session" (in the server's session
	// but in a group of its own: setpgid), "descendant" (in its process tree,
	// or reparented to this process after its parent died), and "stdin",
	// "stdout", "stderr" for the server's pipes it held open.
	Holds []string
	// Killed is set when SIGKILL was delivered to it.
	Killed bool
	// Reaped is set when it had become a child of this process (see
	// Coverage), or of the server's supervisor (see SuperviseWith), and its
	// exit status was collected, so it left no zombie.
	Reaped bool
	// OtherServers are the pids of other servers that ran when it started
	// and that it may have come from instead: a process reparented to this
	// one after its parent died, with no ancestry or session left to tell.
	OtherServers []int
	// Coverage says how strays were looked for, and so what could not be seen.
	Coverage string
}

// StrayCoverage says how this build looks for strays: which ties to a
// server it can see, and what stays out of sight.
func StrayCoverage() string { return strayCoverage() }

func (s Stray) String() string { return s.event().String() }

// event is the stray as a transcript event.
func (s Stray) event() transcript.Stray {
	return transcript.Stray{Pid: s.Pid, Command: s.Command, Holds: s.Holds, Killed: s.Killed, Reaped: s.Reaped, OtherServers: s.OtherServers}
}
