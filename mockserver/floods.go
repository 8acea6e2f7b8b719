package mockserver

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// The flood faults attack the harness's memory and deadlines once the
// session is initialized: they write until stdout is closed or the
// process is killed.

// hostileDepth is how deep the deep-nesting fault nests its value;
// hugeServerInfo is the size of the huge-server-info fault's description.
const (
	hostileDepth   = 5_000 // past the harness's 512, within what encoding/json writes
	hugeServerInfo = 60 << 20
)

// startFloods starts the flood faults; it runs once, right after the
// initialize response.
func (s *server) startFloods() {
	if s.flooding {
		return
	}
	s.flooding = true
	switch {
	case s.faults.has("notification-flood"):
		go s.flood(func(i int) []byte {
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/mcpconform-flood","params":{"n":%d}}`, i)
		})
	case s.faults.has("stdout-flood"):
		go s.flood(func(int) []byte { return []byte("y") })
	case s.faults.has("request-flood"):
		go s.flood(func(i int) []byte {
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"flood-%d","method":"ping"}`, i)
		})
	case s.faults.has("endless-line"):
		// The start of a message whose string never ends: nothing proves
		// it is no message, it only never arrives.
		go s.conn.endless([]byte(`{"jsonrpc":"2.0","method":"notifications/mcpconform-endless","params":{"text":"`), bytes.Repeat([]byte("endless "), 8<<10), time.Millisecond)
	}
}

// flood writes line(i) for i = 0, 1, ... until a write fails.
func (s *server) flood(line func(i int) []byte) {
	for i := 0; s.conn.failed() == nil; i++ {
		s.conn.raw(line(i), true)
	}
}

// deepValue is a JSON array nested depth levels deep.
func deepValue(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}
