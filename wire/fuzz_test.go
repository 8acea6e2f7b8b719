package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzLineReader checks the strict line reader against a plain split of
// its input: the same lines with the same lengths, the issues each line
// deserves, bounded retention, and never a panic. The seed corpus is in
// testdata/fuzz/FuzzLineReader.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"), uint16(64), uint8(0))
	f.Add([]byte("banner\r\n\xef\xbb\xbf{}\n\n[1,2]\n\"s\"\n{\"a\":\"\xff\x00\"}\n{\"x"), uint16(6), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, max uint16, mode uint8) {
		limit := int(max % 300)
		lr := NewLineReader(pacedReader(in, mode), limit)
		keep := min(4096, limit)
		want := referenceLines(in)
		for i, w := range want {
			l, err := lr.Next()
			if err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
			checkLine(t, i, l, w, limit, keep)
		}
		if l, err := lr.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after %d lines: got %+v, %v; want io.EOF", len(want), l, err)
		}
		if pending, read := lr.Progress(); pending != 0 || read != int64(len(in)) {
			t.Fatalf("at EOF: %d bytes pending, %d read; want 0 and %d", pending, read, len(in))
		}
	})
}

// pacedReader reads in at once, a byte at a time, or half a read at a
// time, as mode says.
func pacedReader(in []byte, mode uint8) io.Reader {
	var r io.Reader = bytes.NewReader(in)
	switch mode % 3 {
	case 1:
		r = iotest.OneByteReader(r)
	case 2:
		r = iotest.HalfReader(r)
	}
	return r
}

type refLine struct {
	content    []byte
	terminated bool
	crlf       bool
}

// referenceLines splits in the obvious way: on \n, with a final \r taken
// off terminated lines.
func referenceLines(in []byte) []refLine {
	var out []refLine
	for len(in) > 0 {
		i := bytes.IndexByte(in, '\n')
		if i < 0 {
			out = append(out, refLine{content: in})
			break
		}
		l := refLine{content: in[:i], terminated: true}
		if bytes.HasSuffix(l.content, []byte("\r")) {
			l.content, l.crlf = l.content[:len(l.content)-1], true
		}
		out = append(out, l)
		in = in[i+1:]
	}
	return out
}

func checkLine(t *testing.T, i int, l *Line, w refLine, limit, keep int) {
	t.Helper()
	if l.Len != len(w.content) {
		t.Fatalf("line %d: Len %d, want %d", i, l.Len, len(w.content))
	}
	if l.Has(IssueCRLF) != w.crlf {
		t.Fatalf("line %d: crlf %v, want %v", i, l.Has(IssueCRLF), w.crlf)
	}
	if l.Has(IssuePartialEOF) == w.terminated {
		t.Fatalf("line %d: partial-at-eof %v, terminated %v", i, l.Has(IssuePartialEOF), w.terminated)
	}
	if over := len(w.content) > limit; l.Has(IssueOversize) != over {
		t.Fatalf("line %d of %d bytes, max %d: oversize %v", i, len(w.content), limit, l.Has(IssueOversize))
	}
	if l.Has(IssueOversize) {
		if !bytes.Equal(l.Raw, w.content[:min(keep, len(w.content))]) || l.Value != nil {
			t.Fatalf("line %d: oversize line keeps %q, want its first %d bytes and no value", i, l.Raw, keep)
		}
		return
	}
	if !bytes.Equal(l.Raw, w.content) {
		t.Fatalf("line %d: Raw %q, want %q", i, l.Raw, w.content)
	}
	c := w.content
	for _, x := range []struct {
		issue FrameIssue
		want  bool
	}{
		{IssueBOM, bytes.HasPrefix(c, bom)},
		{IssueInvalidUTF8, !utf8.Valid(c)},
		{IssueNUL, bytes.IndexByte(c, 0) >= 0},
		{IssueRawNewline, bytes.Contains(c, []byte("\u2028")) || bytes.Contains(c, []byte("\u2029"))},
		{IssueBlank, len(bytes.TrimSpace(bytes.TrimPrefix(c, bom))) == 0},
	} {
		if l.Has(x.issue) != x.want {
			t.Fatalf("line %d %q: %s is %v, want %v", i, c, x.issue, l.Has(x.issue), x.want)
		}
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(c, bom))
	valid := len(trimmed) > 0 && json.Valid(trimmed)
	if l.Has(IssueNotJSON) != (len(trimmed) > 0 && !valid) {
		t.Fatalf("line %d %q: not-json is %v", i, c, l.Has(IssueNotJSON))
	}
	isMsg := valid && (trimmed[0] == '{' || trimmed[0] == '[')
	if (l.Value != nil) != isMsg || l.Has(IssueNotMessage) != (valid && !isMsg) {
		t.Fatalf("line %d %q: value %q, not-a-message %v", i, c, l.Value, l.Has(IssueNotMessage))
	}
	if isMsg && !bytes.Equal(l.Value, trimmed) {
		t.Fatalf("line %d: Value %q, want %q", i, l.Value, trimmed)
	}
}

// FuzzDecodeMessage checks the in-place decoder against encoding/json: the
// same verdict on every input, the same members with the same bytes, the
// same fields; and decodeLine against a batch split done by encoding/json.
// The seed corpus is in testdata/fuzz/FuzzDecodeMessage.
func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`))
	f.Add([]byte(` [ {"id" : "a\"b" , "result" : [1, {"x": "}"}] } , null , 7 ] `))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := DecodeMessage(in)
		want, wantErr := referenceDecode(in)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("DecodeMessage(%q): error %v, encoding/json says %v", in, err, wantErr)
		}
		if err == nil {
			sameMessage(t, in, got, want)
		}
		if m, ok := SplitObject(in); ok != (err == nil && bytes.TrimSpace(in)[0] == '{') || ok && len(m) != len(want.members) {
			t.Fatalf("SplitObject(%q): %v, %v; DecodeMessage says %v", in, m, ok, err)
		}
		var items []json.RawMessage
		wantArr := json.Unmarshal(in, &items) == nil && bytes.TrimSpace(in)[0] == '['
		if got, ok := SplitArray(in); ok != wantArr || ok && len(got) != len(items) {
			t.Fatalf("SplitArray(%q): %q, %v; encoding/json says %q, %v", in, got, ok, items, wantArr)
		} else {
			for i := range got {
				if !bytes.Equal(got[i], items[i]) {
					t.Fatalf("SplitArray(%q)[%d] = %q, want %q", in, i, got[i], items[i])
				}
			}
		}
		msgs, batch := DecodeLine(in)
		wmsgs, wbatch := referenceDecodeLine(in)
		if batch != wbatch || len(msgs) != len(wmsgs) {
			t.Fatalf("DecodeLine(%q): %d messages, batch %v; want %d, %v", in, len(msgs), batch, len(wmsgs), wbatch)
		}
		for i := range msgs {
			sameMessage(t, in, msgs[i], wmsgs[i])
			msgs[i].Kind()
			msgs[i].DecodeError()
		}
	})
}

func sameMessage(t *testing.T, in []byte, got *Message, want *refMessage) {
	t.Helper()
	names := map[string]bool{}
	for _, m := range got.members {
		names[m.name] = true
	}
	if len(names) != len(want.members) {
		t.Fatalf("%q: members %v, want %q", in, got.members, want.members)
	}
	for k, v := range want.members {
		if g, _ := got.Member(k); !bytes.Equal(g, v) {
			t.Fatalf("%q: member %q is %q, want %q", in, k, g, v)
		}
	}
	if !bytes.Equal(got.ID, want.ID) || got.Method != want.Method || !bytes.Equal(got.Params, want.Params) ||
		!bytes.Equal(got.Result, want.Result) || !bytes.Equal(got.Error, want.Error) {
		t.Fatalf("%q: fields differ: got %+v, want %+v", in, got, want)
	}
}

// refMessage is a message as encoding/json decodes it.
type refMessage struct {
	members                   map[string]json.RawMessage
	ID, Params, Result, Error json.RawMessage
	Method                    string
}

// referenceDecode is DecodeMessage as encoding/json does it, copying.
func referenceDecode(raw []byte) (*refMessage, error) {
	m := &refMessage{}
	if err := json.Unmarshal(raw, &m.members); err != nil {
		return nil, err
	}
	if m.members == nil {
		m.members = map[string]json.RawMessage{}
	}
	m.ID = m.members["id"]
	if v, ok := m.members["method"]; ok {
		var s string
		if json.Unmarshal(v, &s) == nil {
			m.Method = s
		}
	}
	m.Params, m.Result, m.Error = m.members["params"], m.members["result"], m.members["error"]
	return m, nil
}

func referenceDecodeLine(line []byte) (msgs []*refMessage, batch bool) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(trimmed, &items) == nil {
			for _, it := range items {
				if m, err := referenceDecode(it); err == nil {
					msgs = append(msgs, m)
				}
			}
		}
		return msgs, true
	}
	if m, err := referenceDecode(trimmed); err == nil {
		msgs = append(msgs, m)
	}
	return msgs, false
}
