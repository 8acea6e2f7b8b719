package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/transcript"
)

// stderrTail keeps the last lines a server wrote to stderr, bounded in count
// and in line length, and counts everything.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
	max   int
	bytes int64
	total int
}

const stderrLineKeep = 512

func (s *stderrTail) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	s.bytes += int64(len(line)) + 1
	if len(line) > stderrLineKeep {
		line = line[:stderrLineKeep] + "…"
	}
	s.lines = append(s.lines, line)
	if len(s.lines) > s.max {
		s.lines = s.lines[len(s.lines)-s.max:]
	}
}

// count returns how many bytes were written, all lines counted.
func (s *stderrTail) count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

func (s *stderrTail) snapshot() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// drainStderr reads stderr until EOF so a chatty server never blocks on a
// full pipe. Only the first lines go to the transcript; all are counted.
func drainStderr(f io.Reader, tail *stderrTail, t *transcript.Transcript, budget int) {
	drainLines(f, tail, t, budget, transcript.Stderr, nil)
}

// drainLines reads a server's output that carries no messages (stderr; the
// stdout of a server spoken to over HTTP) until EOF, recording its first
// lines as entries of dir and keeping the last ones in tail. each, when
// set, is called after every line.
func drainLines(f io.Reader, tail *stderrTail, t *transcript.Transcript, budget int, dir transcript.Dir, each func()) {
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			// Copy now: the next ReadSlice overwrites line.
			s := strings.TrimRight(string(line), "\r\n")
			full, last := len(line), line
			for errors.Is(err, bufio.ErrBufferFull) {
				// Skip the rest of an overlong line without keeping it.
				last, err = r.ReadSlice('\n')
				full += len(last)
			}
			full -= len(last) - len(bytes.TrimRight(last, "\r\n")) // the terminator
			tail.add(s)
			if budget > 0 {
				budget--
				t.Add(transcript.Entry{Dir: dir, Data: []byte(s), Len: full})
			}
			if each != nil {
				each()
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
