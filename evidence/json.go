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

// Load reads a run saved by Save.
func Load(rd io.Reader) (*Run, error) {
	var r Run
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
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
	r.Bind()
	return &r, nil
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
