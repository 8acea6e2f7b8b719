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

// The shapes that cost a harness far more than their size: many arrays
// nested just within its depth, and long lines of tiny items.
const (
	nestedCount     = 64
	nestedDepth     = 500
	smallItemsSize  = 10 << 20
	smallItemsCount = 30
	smallItemsLine  = 60 << 20
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
	// Written before the next request is read: the harness meets them
	// whatever the run's length.
	case s.faults.has("small-items-flood"):
		s.smallItems(smallItemsCount, smallItemsSize)
	case s.faults.has("small-items-line"):
		s.smallItems(1, smallItemsLine)
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

// smallItems writes count notifications of about size bytes each, their
// params an array of zeros.
func (s *server) smallItems(count, size int) {
	head := `{"jsonrpc":"2.0","method":"notifications/mcpconform-items","params":{"items":[0`
	line := make([]byte, 0, size+64)
	line = append(line, head...)
	for len(line) < size {
		line = append(line, ",0"...)
	}
	line = append(line, "]}}"...)
	for range count {
		if s.conn.failed() != nil {
			return
		}
		s.conn.raw(line, true)
	}
}

// nestedValue is count arrays, each nested depth levels deep, in one array.
func nestedValue(count, depth int) string {
	one := deepValue(depth)
	return "[" + strings.TrimSuffix(strings.Repeat(one+",", count), ",") + "]"
}

// deepValue is a JSON array nested depth levels deep.
func deepValue(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}
