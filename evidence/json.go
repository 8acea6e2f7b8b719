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
	if r.Format != Format {
		return nil, fmt.Errorf("evidence format %d, this mcpconform reads format %d", r.Format, Format)
	}
	r.Bind()
	return &r, nil
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
