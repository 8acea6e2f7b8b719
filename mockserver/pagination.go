package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/wire"
)

// The paginated lists.
const (
	listResources = "resources"
	listTemplates = "templates"
	listTools     = "tools"
	listPrompts   = "prompts"
)

// page is one page of a list: items [start, end) and what nextCursor says.
type page struct {
	start, end int
	next       any  // a cursor string, or what a fault puts there
	hasNext    bool // whether nextCursor is present at all
	state      int  // list-order-varies: the rotation of the walk
}

// addTo puts nextCursor into a list result; the last page has none.
func (pg page) addTo(result object) {
	if pg.hasNext {
		result["nextCursor"] = pg.next
	}
}

// encodeCursor makes an opaque cursor: base64 of the list, the offset and
// the fixture tag (and a variant's state, when it keeps one). Cursors are
// stable: the same position always gives the same cursor (PAG-04).
func (s *server) encodeCursor(list string, offset int, state ...int) string {
	plain := "mcpconform-mock:" + list + ":" + strconv.Itoa(offset) + ":" + s.cat.tag
	if len(state) > 0 && state[0] != 0 {
		plain += ":" + strconv.Itoa(state[0])
	}
	c := base64.StdEncoding.EncodeToString([]byte(plain))
	if s.variants.has("odd-cursors") {
		c = oddCursorPrefix + c + oddCursorSuffix
	}
	return c
}

// The wrapping of odd-cursors: spaces, quotes, a backslash, non-ASCII
// characters and length, all of which an opaque string may hold.
const oddCursorPrefix = "cursor \"ü/+=\" \\ 日本 "

var oddCursorSuffix = " " + strings.Repeat("páge·", 400)

// decodeCursor returns the offset (and the variant state) a cursor of list
// stands for.
func (s *server) decodeCursor(list, cursor string, n int) (int, int, bool) {
	if s.variants.has("odd-cursors") {
		if !strings.HasPrefix(cursor, oddCursorPrefix) || !strings.HasSuffix(cursor, oddCursorSuffix) {
			return 0, 0, false
		}
		cursor = strings.TrimSuffix(strings.TrimPrefix(cursor, oddCursorPrefix), oddCursorSuffix)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(cursor)
	if err != nil {
		return 0, 0, false
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 4 && len(parts) != 5 || parts[0] != "mcpconform-mock" || parts[1] != list || parts[3] != s.cat.tag {
		return 0, 0, false
	}
	off, err := strconv.Atoi(parts[2])
	if err != nil || off < 0 || off > n || strconv.Itoa(off) != parts[2] {
		return 0, 0, false
	}
	state := 0
	if len(parts) == 5 {
		state, err = strconv.Atoi(parts[4])
		if err != nil || state <= 0 || strconv.Itoa(state) != parts[4] {
			return 0, 0, false
		}
	}
	return off, state, true
}

// page reads the cursor of a list request and cuts the page. An invalid
// cursor is -32602 (PAG-05). The pagination faults act on resources/list.
func (s *server) page(list string, params json.RawMessage, n, size int) (page, *rpcError) {
	var p struct {
		Cursor json.RawMessage `json:"cursor"`
	}
	if params != nil && json.Unmarshal(params, &p) != nil {
		return page{}, invalidParams("Invalid params: expected an object with an optional cursor.")
	}
	faulty := list == listResources
	offset, state := 0, 0
	hasCursor := len(p.Cursor) > 0 && string(p.Cursor) != "null"
	emptyCursor := s.req != nil && s.variants.has("empty-string-cursor")
	// The start of the last page: its cursor is "" under empty-string-cursor.
	lastStart := max(0, (n-1)/size*size)
	if hasCursor {
		var cursor string
		if json.Unmarshal(p.Cursor, &cursor) != nil {
			return page{}, invalidParams("Invalid params: cursor must be a string.")
		}
		off, st, ok := s.decodeCursor(list, cursor, n)
		if cursor == "" && emptyCursor && n > size {
			off, st, ok = lastStart, 0, true
		}
		state = st
		if !ok {
			accepted := faulty && s.faults.has("invalid-cursor-accepted") ||
				(list == listTools || list == listPrompts) && s.faults.has(list+"-invalid-cursor-accepted")
			if !accepted {
				return page{}, &rpcError{Code: wire.CodeInvalidParams, Message: "Invalid params: unknown cursor.", Data: object{"cursor": cursor}}
			}
			off = 0
		}
		if faulty && s.faults.has("unstable-cursor") {
			s.cursorUses[cursor]++
			if s.cursorUses[cursor] > 1 && off+1 < n {
				off++
			}
		}
		offset = off
	}
	if faulty && s.req != nil {
		s.req.laterPage = offset > 0
	}
	if s.req != nil {
		s.req.pageNumber = offset / size
	}
	if faulty && !hasCursor && s.variants.has("list-order-varies") && n > 0 {
		// A new walk: rotate the list one more place. Its cursors carry
		// the rotation, so the walk stays consistent.
		s.rotation = (s.rotation + 1) % n
		state = s.rotation
	}
	if faulty && params == nil && size > 1 && s.faults.has("no-params-differs") {
		size--
	}
	pg := page{start: offset, end: min(offset+size, n), state: state}
	if pg.end < n {
		pg.next, pg.hasNext = s.encodeCursor(list, pg.end, state), true
		if emptyCursor && pg.end == lastStart {
			pg.next = ""
		}
	}
	if !faulty {
		if list == listTemplates && !pg.hasNext && n > 0 && s.faults.has("templates-cursor-loop") {
			pg.next, pg.hasNext = s.encodeCursor(list, 0), true
		}
		return pg, nil
	}
	last := !pg.hasNext
	switch {
	case last && n > 0 && s.faults.has("cursor-loop"):
		pg.next, pg.hasNext = s.encodeCursor(list, 0), true
	case last && s.faults.has("cursor-null"):
		pg.next, pg.hasNext = nil, true
	case pg.hasNext && s.faults.has("cursor-not-string"):
		pg.next = pg.end
	}
	return pg, nil
}
