//go:build linux

package transport

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procStat is one process as /proc/PID/stat shows it.
type procStat struct {
	pid             int
	state           byte
	ppid, pgid, sid int
	// start is when it started, in clock ticks after boot: with the pid it
	// names one process for good, whatever later reuses the pid.
	start uint64
	comm  string
}

func (p procStat) dead() bool { return p.state == 'Z' || p.state == 'X' }

type procKey struct {
	pid   int
	start uint64
}

func (p procStat) key() procKey { return procKey{p.pid, p.start} }

// tracked is a server this process started, from its start to the end of
// the sweep at its Close.
type tracked struct {
	pid   int
	start uint64
	// group is the process group the server leads: pid, or under a
	// supervisor (pid) the server's own, within the supervisor's session.
	group int
	pipes map[uint64]string
	// closing is set once its shutdown began: orphans it may share with
	// other servers are no longer kept for them while they still run.
	closing bool
}

// reg is the one registry of the servers this process runs and of what came
// from each: it is global because the subreaper is, every orphan of every
// server becoming a child of this one process.
var reg = struct {
	mu sync.Mutex
	// servers are the servers started and not yet swept, by pid.
	servers map[int]*tracked
	// owner is the server each process seen so far came from.
	owner map[procKey]*tracked
	// leader is the server of each session or group led by one of those
	// processes: a daemon's session outlives the child that made it.
	leader map[int]*tracked
	// deferred and claimedFrom name the other servers an orphan may have
	// come from; see claimOrphansLocked.
	deferred    map[procKey][]int
	claimedFrom map[procKey][]int
	// swept holds each server's strays from its sweep until findStrays.
	swept map[int][]Stray
	// handled are the strays the sweep signalled (and maybe reaped), so
	// that killStray never signals their pid again: it may be reused.
	handled map[int]handled
}{
	servers:     map[int]*tracked{},
	owner:       map[procKey]*tracked{},
	leader:      map[int]*tracked{},
	deferred:    map[procKey][]int{},
	claimedFrom: map[procKey][]int{},
	swept:       map[int][]Stray{},
	handled:     map[int]handled{},
}

type handled struct {
	start  uint64
	killed bool
}

func lockRegistry()   { reg.mu.Lock() }
func unlockRegistry() { reg.mu.Unlock() }

// registerLocked records a server just started.
func registerLocked(pid int, pipes map[uint64]string) *tracked {
	st, _ := readStat(pid) // readable even if it died: nothing has reaped it yet
	t := &tracked{pid: pid, start: st.start, group: pid, pipes: pipes}
	reg.servers[pid] = t
	return t
}

// regroup records that t's pid is the server's supervisor, and group the
// group the server leads.
func regroup(t *tracked, group int) {
	if t == nil {
		return
	}
	reg.mu.Lock()
	t.group = group
	reg.mu.Unlock()
}

// supervisedLocked reports whether t's pid is the server's supervisor,
// which must outlive the sweep: its group is never killed whole.
func (t *tracked) supervisedLocked() bool { return t.group != t.pid }

func isServerLocked(p procStat) bool {
	s := reg.servers[p.pid]
	return s != nil && s.start == p.start
}

// sessionOwnerLocked is the server whose session or group id is id.
func sessionOwnerLocked(id int) *tracked {
	if s := reg.servers[id]; s != nil {
		// A session or group id stays reserved while it has members, so
		// this is the server's own, even after the server itself is gone.
		return s
	}
	return reg.leader[id]
}

// ownersLocked tells which server each process of snap came from, nil for
// none known: the server it was seen to come from before, the server
// whose session or group (or a descendant's) it is in, or else that of its
// nearest ancestor with one. The servers themselves have none.
func ownersLocked(snap map[int]procStat, self int) map[int]*tracked {
	own := make(map[int]*tracked, len(snap))
	done := make(map[int]bool, len(snap))
	var chain []int
	for pid := range snap {
		chain = chain[:0]
		var o *tracked
		for cur := pid; ; {
			if done[cur] {
				o = own[cur]
				break
			}
			p, ok := snap[cur]
			if !ok || cur == self || isServerLocked(p) || slices.Contains(chain, cur) {
				break // the top, or a cycle read across a reparenting
			}
			chain = append(chain, cur)
			if o = reg.owner[p.key()]; o != nil {
				break
			}
			if o = sessionOwnerLocked(p.sid); o != nil {
				break
			}
			if o = sessionOwnerLocked(p.pgid); o != nil {
				break
			}
			if p.ppid == self || p.ppid <= 1 {
				break // an orphan: see claimOrphansLocked
			}
			if s := reg.servers[p.ppid]; s != nil {
				if pp, ok := snap[p.ppid]; ok && pp.start == s.start {
					o = s
					break
				}
			}
			cur = p.ppid
		}
		for _, c := range chain {
			own[c], done[c] = o, true
		}
	}
	return own
}

// claimOrphansLocked decides, for the sweep of t, whose are the processes
// reparented to this process whose ancestry was never seen (a daemon whose
// middle process died at once). One that holds a server's pipe is that
// server's. Else only its start time tells: it came from one of the
// servers that had started by then. If t is the only one, it is t's. If
// another of them still runs, it is left alone (it may be that server's
// live helper) and taken by the last of them to close, with the others
// named in Stray.OtherServers. A child of this process in its own session
// (sid) is the only thing taken for an orphan: servers and their
// descendants are never in it. It reports whether it claimed any.
func claimOrphansLocked(t *tracked, snap map[int]procStat, own map[int]*tracked, self int) bool {
	selfSid := -1
	if me, ok := snap[self]; ok {
		selfSid = me.sid
	}
	claimed := false
	for pid, p := range snap {
		if own[pid] != nil || p.ppid != self || p.sid == selfSid || isServerLocked(p) {
			continue
		}
		if o := pipeOwnerLocked(p); o != nil {
			reg.owner[p.key()] = o
			claimed = true
			continue
		}
		others := slices.Clone(reg.deferred[p.key()])
		mine, running := false, false
		for _, s := range reg.servers {
			if s.start > p.start {
				continue
			}
			if s == t {
				mine = true
				continue
			}
			running = running || !s.closing
			if !slices.Contains(others, s.pid) {
				others = append(others, s.pid)
			}
		}
		if !mine {
			continue
		}
		if running {
			if !slices.Contains(others, t.pid) {
				others = append(others, t.pid)
			}
			reg.deferred[p.key()] = others
			continue
		}
		others = slices.DeleteFunc(others, func(pid int) bool { return pid == t.pid })
		slices.Sort(others)
		reg.owner[p.key()] = t
		reg.claimedFrom[p.key()] = others
		claimed = true
	}
	return claimed
}

// pipeOwnerLocked is the registered server one of whose pipes p holds.
func pipeOwnerLocked(p procStat) *tracked {
	if p.dead() {
		return nil
	}
	held := heldPipes(p.pid)
	for _, s := range reg.servers {
		for _, ino := range held {
			if _, ok := s.pipes[ino]; ok {
				return s
			}
		}
	}
	return nil
}

// claimedFromLocked names the other servers p may have come from: those of
// the orphan of uncertain origin it is, or descends from.
func claimedFromLocked(p procStat, snap map[int]procStat, t *tracked) []int {
	for range 1000 {
		if reg.owner[p.key()] != t {
			return nil
		}
		if others, ok := reg.claimedFrom[p.key()]; ok {
			return others
		}
		parent, ok := snap[p.ppid]
		if !ok {
			return nil
		}
		p = parent
	}
	return nil
}

// noteLocked remembers the owners found, and forgets processes gone.
func noteLocked(snap map[int]procStat, own map[int]*tracked) {
	for pid, o := range own {
		if o == nil {
			continue
		}
		p := snap[pid]
		reg.owner[p.key()] = o
		if p.sid == p.pid || p.pgid == p.pid {
			reg.leader[p.pid] = o
		}
	}
	for k := range reg.owner {
		if p, ok := snap[k.pid]; !ok || p.start != k.start {
			delete(reg.owner, k)
			delete(reg.claimedFrom, k)
		}
	}
	for k := range reg.deferred {
		if p, ok := snap[k.pid]; !ok || p.start != k.start {
			delete(reg.deferred, k)
		}
	}
	if len(reg.leader) > 0 {
		inUse := map[int]bool{}
		for _, p := range snap {
			inUse[p.pid], inUse[p.sid], inUse[p.pgid] = true, true, true
		}
		for id := range reg.leader {
			if !inUse[id] {
				delete(reg.leader, id)
			}
		}
	}
}

// zombiesLocked lists the dead children of this process that came from a
// server: orphans reparented here. Servers are left to os/exec, and so is
// any child whose origin is unknown, which some other code may wait for.
// So are those of a server being swept by another than sweeper (nil for
// none): that sweep counts them (see sweep).
func zombiesLocked(snap map[int]procStat, own map[int]*tracked, self int, sweeper *tracked) []int {
	var out []int
	for pid, o := range own {
		p := snap[pid]
		if o == nil || !p.dead() || p.ppid != self || isServerLocked(p) {
			continue
		}
		if o != sweeper && o.closing && reg.servers[o.pid] == o {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// reap collects the exit status of one child: by its pid, never with
// wait4(-1), which would take the statuses os/exec waits for.
func reap(pid int) bool {
	var ws unix.WaitStatus
	got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	return err == nil && got == pid
}

// observe notes which server each process comes from while their parents
// still live, and reaps the orphans that died since the last look.
func observe() {
	self := os.Getpid()
	snap := scanProcs()
	reg.mu.Lock()
	own := ownersLocked(snap, self)
	noteLocked(snap, own)
	zombies := zombiesLocked(snap, own, self, nil)
	reg.mu.Unlock()
	for _, pid := range zombies {
		reap(pid)
	}
}

// sweepRounds bounds the rounds of a sweep, killWait its time.
const sweepRounds = 500

// sweep kills everything that came from t, which has just been shut down
// (its group killed): look, kill what is alive, reap what died, until
// nothing is left. A process that forks as fast as it is killed is caught
// over the rounds, its new children being reparented here; a process stuck
// in the kernel ends the sweep at the deadline. What it found is kept for
// findStrays, and t is forgotten (under a supervisor, once that is gone:
// see forget).
func sweep(t *tracked) {
	if t == nil {
		return
	}
	self := os.Getpid()
	reg.mu.Lock()
	t.closing = true
	reg.mu.Unlock()
	var found []Stray
	index := map[procKey]int{}
	reaped := map[int]bool{}
	// adopted are the processes seen as children of the server's
	// supervisor, which reaps them.
	adopted := map[procKey]bool{}
	var group int
	deadline := time.Now().Add(killWait)
	pause := time.Millisecond
	for round := 0; round < sweepRounds; round++ {
		snap := scanProcs()
		selfSid, selfPgid := -1, -1
		if me, ok := snap[self]; ok {
			selfSid, selfPgid = me.sid, me.pgid
		}
		reg.mu.Lock()
		own := ownersLocked(snap, self)
		if claimOrphansLocked(t, snap, own, self) {
			own = ownersLocked(snap, self)
		}
		noteLocked(snap, own)
		zombies := zombiesLocked(snap, own, self, t)
		var live []procStat
		dying := 0
		for _, pid := range zombies {
			if own[pid] == t {
				dying++
			}
		}
		group = t.group
		supervised := t.supervisedLocked()
		for pid, o := range own {
			// The supervisor's orphans are its to reap: a zombie waits
			// for it, as one of this process's does for the loop below.
			if p := snap[pid]; o == t && supervised && p.ppid == t.pid {
				adopted[p.key()] = true
				if p.dead() {
					dying++
				}
			}
		}
		for pid, o := range own {
			// Nothing in this process's own session is ever a server's.
			if p := snap[pid]; o == t && !p.dead() && p.sid != selfSid {
				live = append(live, p)
			}
		}
		others := map[int][]int{}
		groups := map[int]bool{}
		for _, p := range live {
			others[p.pid] = claimedFromLocked(p, snap, t)
			// A group is within a session, and every session here was made
			// by the server or its descendants: killing the whole group
			// also takes a child forked after the look.
			// The supervisor's group is left out: it stays until released.
			if s := reg.servers[p.pgid]; p.pgid > 1 && p.pgid != selfPgid && (s == nil || s == t && !supervised) {
				groups[p.pgid] = true
			}
		}
		reg.mu.Unlock()
		for _, pid := range zombies {
			if reap(pid) {
				reaped[pid] = true
			}
		}
		// Only a quiet look ends the sweep. The listing of /proc is no
		// snapshot: a child forked while it is read may be missed while its
		// parent, read later, has died. That parent is a zombie of this
		// process (the subreaper), so the next look comes after it died and
		// lists the child. And the leader of a process shows as a zombie
		// while its other threads still exit, not to be reaped till they are
		// gone: such a zombie is waited for like a live process.
		if len(live) == 0 && dying == 0 {
			break
		}
		for _, p := range live {
			i, seen := index[p.key()]
			var s Stray
			if !seen {
				// Read before the kill: a dead process has no command line
				// and no descriptors left.
				s = Stray{Pid: p.pid, Command: cmdline(p.pid, p.comm), Holds: ties(p, t.pid, group, t.pipes), OtherServers: others[p.pid]}
			}
			err := syscall.Kill(p.pid, syscall.SIGKILL)
			if !seen {
				if errors.Is(err, syscall.ESRCH) {
					continue // it ended on its own between the look and the signal
				}
				found = append(found, s)
				i = len(found) - 1
				index[p.key()] = i
			}
			if err == nil {
				found[i].Killed = true
			}
		}
		for g := range groups {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			break
		}
		// Processes take a moment to die of SIGKILL: look again soon.
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
	for k := range adopted {
		if st, ok := readStat(k.pid); !ok || st.start != k.start {
			reaped[k.pid] = true
		}
	}
	coverage := strayCoverage()
	kept := found[:0]
	for _, s := range found {
		s.Reaped = reaped[s.Pid]
		// A member of the server's group dead now died of the group's
		// SIGKILL, with the server: no stray.
		if slices.Contains(s.Holds, "process group") && (s.Reaped || !alive(s.Pid)) {
			continue
		}
		s.Coverage = coverage
		kept = append(kept, s)
	}
	reg.mu.Lock()
	if len(kept) > 0 {
		reg.swept[t.pid] = kept
	}
	for k, i := range index {
		if found[i].Killed || reaped[k.pid] {
			reg.handled[k.pid] = handled{start: k.start, killed: found[i].Killed}
		}
	}
	// A supervisor lives on until released: unregistered while it does,
	// it would look like an orphan to the sweeps of other servers.
	if reg.servers[t.pid] == t && !t.supervisedLocked() {
		delete(reg.servers, t.pid)
	}
	reg.mu.Unlock()
}

// forget drops t, whose supervisor has been waited for.
func forget(t *tracked) {
	if t == nil {
		return
	}
	reg.mu.Lock()
	if reg.servers[t.pid] == t {
		delete(reg.servers, t.pid)
	}
	reg.mu.Unlock()
}

// ties says what tied p to the server whose session is sid and group
// group, and whose pipes are pipes.
func ties(p procStat, sid, group int, pipes map[uint64]string) []string {
	var holds []string
	switch {
	case p.pgid == group:
		holds = append(holds, "process group")
	case p.sid == sid:
		holds = append(holds, "session")
	default:
		holds = append(holds, "descendant")
	}
	return append(holds, pipesHeld(p.pid, pipes)...)
}

// findStrays returns what the sweep of the server started as server (its
// supervisor's, if it has one) found, then scans /proc for processes other
// than this one and its direct children that are in the server's process
// group pgid (and not zombies) or hold one of the pipes, named by inode: a
// process the server handed a pipe to, which is no descendant of it.
// Direct children are left out: a server this process is starting holds
// every descriptor of its parent between fork and exec, and is no stray;
// nor is a supervisor.
func findStrays(server, pgid int, pipes map[uint64]string) []Stray {
	reg.mu.Lock()
	out := reg.swept[server]
	delete(reg.swept, server)
	reg.mu.Unlock()
	self := os.Getpid()
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self || slices.ContainsFunc(out, func(s Stray) bool { return s.Pid == pid }) {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.ppid == self || st.dead() {
			continue
		}
		var holds []string
		if st.pgid == pgid {
			holds = append(holds, "process group")
		}
		holds = append(holds, pipesHeld(pid, pipes)...)
		if len(holds) > 0 {
			out = append(out, Stray{Pid: pid, Command: cmdline(pid, st.comm), Holds: holds, Coverage: strayCoverage()})
			reg.mu.Lock()
			if h, ok := reg.handled[pid]; ok && h.start != st.start {
				delete(reg.handled, pid) // an earlier stray's, whose pid this one reuses
			}
			reg.mu.Unlock()
		}
	}
	return out
}

func strayCoverage() string {
	if err := subreaperErr(); err != nil {
		return "Linux /proc: the server's process group and session, its process tree while each parent lives, " +
			"and processes holding its pipes; without a child subreaper (" + err.Error() + ") a descendant " +
			"that left the session and lost its parent (a daemon) is out of sight"
	}
	return "Linux /proc: the server's process group and session, its process tree, every orphaned descendant " +
		"(reparented to the harness, a child subreaper), and processes holding its pipes; an orphan whose ancestry " +
		"was not seen is put down to the servers running when it started; processes that other services start " +
		"for the server are out of sight"
}

// scanProcs reads every process's stat.
func scanProcs() map[int]procStat {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	snap := make(map[int]procStat, len(dir))
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			snap[pid] = st
		}
	}
	return snap
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid pgrp session ...",
// where comm may itself hold spaces and parentheses. Sweeps read it for
// every process on the machine, several times per server: one read into a
// stack buffer, and only the fields needed are parsed.
func readStat(pid int) (procStat, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, false
	}
	var buf [1024]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return procStat{}, false
	}
	b := buf[:n]
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	// Fields from the state on: field 3 of proc(5) is the first, starttime
	// (field 22) the twentieth.
	var f [20][]byte
	rest := b[end+1:]
	for i := range f {
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexByte(rest, ' ')
		if j < 0 {
			j = len(rest)
		}
		if j == 0 {
			return procStat{}, false
		}
		f[i], rest = rest[:j], rest[j:]
	}
	if len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	sid, err3 := strconv.Atoi(string(f[3]))
	start, err4 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, state: f[0][0], ppid: ppid, pgid: pgid, sid: sid, start: start, comm: string(b[open+1 : end])}, true
}

// heldPipes lists the inodes of the pipes among pid's descriptors.
func heldPipes(pid int) []uint64 {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil
	}
	var out []uint64
	for _, fd := range fds {
		link, err := os.Readlink(fdDir + fd.Name())
		if err != nil || !strings.HasPrefix(link, "pipe:[") {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(link[len("pipe:["):], "]"), 10, 64); err == nil {
			out = append(out, ino)
		}
	}
	return out
}

// pipesHeld names the pipes of the set that pid has among its descriptors.
func pipesHeld(pid int, pipes map[uint64]string) []string {
	var held []string
	for _, ino := range heldPipes(pid) {
		if name, ok := pipes[ino]; ok && !slices.Contains(held, name) {
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
	return ok && !st.dead()
}

// killStray delivers SIGKILL to one process. A stray the sweep already
// signalled is not signalled again: once reaped, its pid may name another
// process.
func killStray(pid int) bool {
	reg.mu.Lock()
	h, ok := reg.handled[pid]
	delete(reg.handled, pid)
	reg.mu.Unlock()
	if ok {
		return h.killed
	}
	return syscall.Kill(pid, syscall.SIGKILL) == nil
}
