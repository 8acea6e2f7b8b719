package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/wire"
)

// The text form of a transcript is one entry per line, for test cases and
// for people:
//
//	> {"jsonrpc":"2.0","id":1,"method":"ping"}            the client wrote
//	>@discover/resources/list {"jsonrpc":...}             ... with a tag
//	< {"jsonrpc":"2.0","id":1,"result":{}}                the server wrote
//	<!crlf {"jsonrpc":...}                                ... with framing issues the bytes cannot show
//	<~ "\xff\xfe"                                         ... bytes given as a Go string literal
//	2 a line of stderr
//	1 a line of stdout that carries no messages (a server spoken to over HTTP)
//	# {"exit":{"stage":"before-shutdown","code":1}}       a harness event (JSON)
//	# a plain note
//
// Framing issues that the bytes show (a blank line, a BOM, invalid UTF-8,
// a NUL, not JSON) are found again when the text is parsed; only crlf,
// partial-at-eof and oversize have to be written.

// ParseText reads the text form. Blank lines and lines starting with "//"
// are ignored.
func ParseText(text string) (*Transcript, error) {
	var entries []Entry
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "//") {
			continue
		}
		e, err := parseTextLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		e.At = time.Duration(len(entries)) * time.Millisecond
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return FromEntries(entries), nil
}

func parseTextLine(line string) (Entry, error) {
	head, data, _ := strings.Cut(line, " ")
	var e Entry
	switch head[0] {
	case '>':
		e.Dir = Send
	case '<':
		e.Dir = Recv
	case '2':
		e.Dir = Stderr
	case '1':
		e.Dir = Stdout
	case '#':
		e.Dir = Note
	default:
		return e, fmt.Errorf("an entry starts with >, <, 1, 2 or #, not %q", head[:1])
	}
	quoted := false
	var issues []wire.FrameIssue
	for _, part := range splitHead(head[1:]) {
		switch {
		case part == "~":
			quoted = true
		case strings.HasPrefix(part, "@"):
			e.Tag = part[1:]
		case strings.HasPrefix(part, "!"):
			issues = append(issues, wire.FrameIssue(part[1:]))
		case part != "":
			return e, fmt.Errorf("unknown header part %q", part)
		}
	}
	raw := []byte(data)
	if quoted {
		s, err := strconv.Unquote(data)
		if err != nil {
			return e, fmt.Errorf("quoted data: %v", err)
		}
		raw = []byte(s)
	}
	switch e.Dir {
	case Note:
		if strings.HasPrefix(data, "{") {
			var ev Event
			if err := json.Unmarshal(raw, &ev); err != nil {
				return e, fmt.Errorf("event: %v", err)
			}
			e.Event = &ev
			raw = []byte(ev.String())
		} else {
			e.Event = &Event{Text: data}
		}
		e.Data, e.Len = raw, len(raw)
	case Recv:
		e = classifyRecv(e, raw, issues)
	case Send:
		// What the client wrote: in client mode the recording mock notes
		// its framing issues as it reads them.
		e.Data, e.Len, e.Issues = raw, len(raw), issues
		e.Msgs, e.Batch = wire.DecodeLine(raw)
	default:
		e.Data, e.Len = raw, len(raw)
	}
	return e, nil
}

// splitHead splits "@tag!crlf~" into "@tag", "!crlf", "~".
func splitHead(h string) []string {
	var parts []string
	start := 0
	for i := 1; i <= len(h); i++ {
		if i == len(h) || h[i] == '@' || h[i] == '!' || h[i] == '~' {
			parts = append(parts, h[start:i])
			start = i
		}
	}
	return parts
}

// classifyRecv runs the strict line reader over the data with the
// terminator the issues call for, so a parsed entry carries exactly the
// issues a live one would.
//
// Data holding a newline cannot be a stdio line: it is a frame of a
// transport that delimits messages itself (an HTTP body, the data of a
// server-sent event), classified whole.
func classifyRecv(e Entry, data []byte, given []wire.FrameIssue) Entry {
	if bytes.IndexByte(data, '\n') >= 0 && len(given) == 0 {
		l := wire.FrameOf(data, len(data), len(data))
		e.Data, e.Len, e.Issues = data, l.Len, l.Issues
		if l.Value != nil {
			e.Msgs, e.Batch = wire.DecodeValidLine(l.Value), l.Value[0] == '['
		}
		return e
	}
	term := []byte("\n")
	max := len(data) + 2
	for _, i := range given {
		switch i {
		case wire.IssueCRLF:
			term = []byte("\r\n")
		case wire.IssuePartialEOF:
			term = nil
		case wire.IssueOversize:
			max = len(data) - 1
		}
	}
	lr := wire.NewLineReader(bytes.NewReader(append(bytes.Clone(data), term...)), max)
	l, err := lr.Next()
	if err != nil {
		e.Data, e.Len = data, len(data)
		return e
	}
	e.Data, e.Len, e.Issues = data, l.Len, l.Issues
	if l.Value != nil {
		e.Msgs, e.Batch = wire.DecodeValidLine(l.Value), l.Value[0] == '['
	}
	return e
}

// FormatText writes entries in the text form.
func FormatText(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		switch e.Dir {
		case Send:
			b.WriteString(">")
		case Recv:
			b.WriteString("<")
		case Stderr:
			b.WriteString("2")
		case Stdout:
			b.WriteString("1")
		case Note:
			b.WriteString("#")
		}
		if e.Tag != "" {
			b.WriteString("@" + e.Tag)
		}
		for _, i := range e.Issues {
			if i == wire.IssueCRLF || i == wire.IssuePartialEOF || i == wire.IssueOversize {
				b.WriteString("!" + string(i))
			}
		}
		data := string(e.Data)
		switch {
		case e.Dir == Note && e.Event != nil && e.Event.Text == "":
			j, _ := json.Marshal(e.Event)
			data = string(j)
		case e.Dir != Note && (!utf8Valid(e.Data) || bytes.ContainsAny(e.Data, "\x00\r\n")):
			b.WriteString("~")
			data = strconv.Quote(data)
		}
		b.WriteString(" " + data + "\n")
	}
	return b.String()
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }
