package mockclient

import "sync"

// stallLimit is how many consecutive timeouts make a method count as hung.
const stallLimit = 2

// Stalls remembers methods that went unanswered, across the clients of a
// run. Within one process, stallLimit consecutive timeouts of a method
// make it hung there; a method hung in stallLimit processes is hung for
// the whole run, so a server that hangs on one method costs a few request
// deadlines, not one per process. A process that stops answering
// everything (wedged by a malformed line) does not make its methods hung
// elsewhere on its own.
type Stalls struct {
	mu   sync.Mutex
	n    map[stallKey]int // consecutive timeouts per client and method
	hung map[string]map[*Client]bool
}

type stallKey struct {
	c      *Client
	method string
}

// NewStalls returns an empty record.
func NewStalls() *Stalls {
	return &Stalls{n: map[stallKey]int{}, hung: map[string]map[*Client]bool{}}
}

// isHung reports whether method is hung for c: in c itself, or in
// stallLimit processes of the run.
func (s *Stalls) isHung(c *Client, method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[stallKey{c, method}] >= stallLimit || len(s.hung[method]) >= stallLimit
}

func (s *Stalls) add(c *Client, method string, answered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := stallKey{c, method}
	if answered {
		s.n[k] = 0
		return
	}
	s.n[k]++
	if s.n[k] >= stallLimit {
		if s.hung[method] == nil {
			s.hung[method] = map[*Client]bool{}
		}
		s.hung[method][c] = true
	}
}
