package transcript

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/wire"
)

// entryJSON is the serialised form of an Entry. Data is text when it is
// UTF-8 and base64 otherwise; messages are stored only when the line was
// cut (a whole line decodes to them again).
type entryJSON struct {
	Seq    int               `json:"seq"`
	AtUs   int64             `json:"atUs"`
	Dir    Dir               `json:"dir"`
	Text   *string           `json:"text,omitempty"`
	B64    string            `json:"b64,omitempty"`
	Len    int               `json:"len,omitempty"`
	Issues []wire.FrameIssue `json:"issues,omitempty"`
	Batch  bool              `json:"batch,omitempty"`
	Tag    string            `json:"tag,omitempty"`
	Event  *Event            `json:"event,omitempty"`
	Msgs   []json.RawMessage `json:"msgs,omitempty"`
}

// MarshalJSON encodes the entry.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{Seq: e.Seq, AtUs: e.At.Microseconds(), Dir: e.Dir, Issues: e.Issues, Batch: e.Batch, Tag: e.Tag, Event: e.Event}
	if e.Event == nil || e.Dir != Note {
		if utf8.Valid(e.Data) {
			s := string(e.Data)
			j.Text = &s
		} else {
			j.B64 = base64.StdEncoding.EncodeToString(e.Data)
		}
	}
	if e.Len != len(e.Data) {
		j.Len = e.Len
	}
	if e.Clipped() {
		for _, m := range e.Msgs {
			j.Msgs = append(j.Msgs, m.Raw)
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes an entry, decoding its messages again.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Entry{Seq: j.Seq, At: time.Duration(j.AtUs) * time.Microsecond, Dir: j.Dir, Issues: j.Issues, Batch: j.Batch, Tag: j.Tag, Event: j.Event}
	switch {
	case j.Text != nil:
		e.Data = []byte(*j.Text)
	case j.B64 != "":
		d, err := base64.StdEncoding.DecodeString(j.B64)
		if err != nil {
			return errors.New("entry data: " + err.Error())
		}
		e.Data = d
	case j.Event != nil:
		e.Data = []byte(j.Event.String())
	}
	e.Len = len(e.Data)
	if j.Len > 0 {
		e.Len = j.Len
	}
	switch {
	case len(j.Msgs) > 0:
		for _, raw := range j.Msgs {
			m, err := wire.DecodeMessage(raw)
			if err != nil {
				return errors.New("entry message: " + err.Error())
			}
			e.Msgs = append(e.Msgs, m)
		}
	case !e.Clipped():
		e.Msgs = decodeData(e.Dir, e.Data)
	}
	return nil
}

// decodeData decodes the messages of a whole line the way the recorder
// does: a stdout line after its byte order mark and whitespace are removed,
// a client line as written.
func decodeData(dir Dir, data []byte) []*wire.Message {
	switch dir {
	case Recv:
		if v := wire.LineValue(data); v != nil {
			return wire.DecodeValidLine(v)
		}
	case Send:
		msgs, _ := wire.DecodeLine(data)
		return msgs
	}
	return nil
}

// MarshalJSON encodes the transcript as its list of entries.
func (t *Transcript) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.Entries())
}

// UnmarshalJSON decodes a transcript saved by MarshalJSON.
func (t *Transcript) UnmarshalJSON(b []byte) error {
	var entries []Entry
	if err := json.Unmarshal(b, &entries); err != nil {
		return err
	}
	*t = *FromEntries(entries)
	return nil
}
