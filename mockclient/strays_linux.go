//go:build linux

package mockclient

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// findStrays scans /proc for processes other than this one and its direct
// children that are in process group pgid (and not zombies) or hold one of
// the pipes, named by inode. Direct children are left out: a server this
// process is starting holds every descriptor of its parent between fork and
// exec, and is no stray.
func findStrays(pgid int, pipes map[uint64]string) []Stray {
	self := os.Getpid()
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Stray
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.ppid == self || st.state == 'Z' || st.state == 'X' {
			continue
		}
		var holds []string
		if st.pgid == pgid {
			holds = append(holds, "process group")
		}
		holds = append(holds, pipesHeld(pid, pipes)...)
		if len(holds) > 0 {
			out = append(out, Stray{Pid: pid, Command: cmdline(pid, st.comm), Holds: holds})
		}
	}
	return out
}

type procStat struct {
	state      byte
	ppid, pgid int
	comm       string
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid pgrp ...", where
// comm may itself hold spaces and parentheses.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgid: pgid, comm: string(b[open+1 : end])}, true
}

// pipesHeld names the pipes of the set that pid has among its descriptors.
func pipesHeld(pid int, pipes map[uint64]string) []string {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var held []string
	for _, fd := range fds {
		link, err := os.Readlink(fdDir + fd.Name())
		if err != nil || !strings.HasPrefix(link, "pipe:[") {
			continue
		}
		ino, err := strconv.ParseUint(strings.TrimSuffix(link[len("pipe:["):], "]"), 10, 64)
		if err != nil {
			continue
		}
		if name, ok := pipes[ino]; ok && !seen[name] {
			seen[name] = true
			held = append(held, name)
		}
	}
	return held
}

func cmdline(pid int, comm string) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	s := strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	if err != nil || s == "" {
		s = comm
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// pipeInode returns the inode that names a pipe in /proc/PID/fd.
func pipeInode(f *os.File) (uint64, bool) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}

// alive reports whether pid is a process that has not died yet.
func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// killStray delivers SIGKILL to one process.
func killStray(pid int) bool { return syscall.Kill(pid, syscall.SIGKILL) == nil }
