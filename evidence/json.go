package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Save writes the run as JSON.
func (r *Run) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(r)
}

// SaveFile writes the run to a file.
func (r *Run) SaveFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := r.Save(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The bounds of an evidence file, which may come from anywhere: judging it
// must cost no more than the run that could have recorded it.
const (
	// MaxFileBytes is the largest evidence file Load reads.
	MaxFileBytes = 256 << 20
	// MaxDepth is the deepest nesting of arrays and objects it reads: the
	// harness's own cap on a message (512 levels) plus the evidence's own
	// structure around it.
	MaxDepth = 600
)

// Load reads a run saved by Save. It refuses a file larger than
// MaxFileBytes or nested deeper than MaxDepth, and one that lacks what
// every recorded run has (a format, and the processes it started or why
// none started).
func Load(rd io.Reader) (*Run, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading evidence: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("evidence larger than %d MiB: refused, as a run's own budgets would have cut it", MaxFileBytes>>20)
	}
	if d := depth(data); d > MaxDepth {
		return nil, fmt.Errorf("evidence nested deeper than %d levels: refused, as the harness refuses such messages", MaxDepth)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading evidence: %w", err)
	}
	switch {
	case r.Format == 1:
		r.fromFormat1()
	case r.Format == Format:
	case r.Format > Format:
		return nil, fmt.Errorf("evidence format %d is newer than this mcpconform reads (formats 1 to %d): judge it with mcpconform %s, which recorded it, or a later one", r.Format, Format, r.Tool)
	default:
		return nil, fmt.Errorf("no evidence format (%d): not a file that mcpconform --evidence wrote", r.Format)
	}
	if r.Processes == nil && r.Server == nil && r.Fatal == nil {
		return nil, fmt.Errorf("the evidence records no process, no server and no reason why: not a run that mcpconform --evidence wrote")
	}
	r.Bind()
	return &r, nil
}

// depth returns the deepest nesting of arrays and objects in the JSON
// text data, stopping as soon as it passes MaxDepth.
func depth(data []byte) int {
	d, deepest, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			if d > deepest {
				deepest = d
				if d > MaxDepth {
					return d
				}
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// fromFormat1 brings a format 1 run to the current format: every format 1
// run spoke stdio, and no file of it names a transport.
func (r *Run) fromFormat1() {
	r.Format = Format
	r.Transport = TransportStdio
	for _, p := range r.Processes {
		p.Transport = TransportStdio
	}
}

// LoadFile reads a run from a file.
func LoadFile(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
