package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/suite"
	"github.com/mcpconform/mcpconform/vectors"
)

// LoadEvidence reads the evidence of a server run saved at path (what
// --evidence writes), for Judge, and says where the vectors that judge it
// come from, for its report's Target.Vectors: those of mcpconform tool,
// or the evidence file's own. The file is input like any other: what
// evidence.LoadFile refuses is an error, a report given in its place is
// named as one, and a vector of the file that would pass whatever the
// server did (and is not this mcpconform's own, word for word) is
// refused, since it forges a pass.
func LoadEvidence(path, tool string) (*evidence.Run, string, error) {
	run, err := evidence.LoadFile(path)
	if err != nil {
		if isReport(path) {
			return nil, "", fmt.Errorf("%s is a report, not an evidence file (write evidence with --evidence)", path)
		}
		return nil, "", err
	}
	source, err := vectorSource(run, path, tool)
	if err != nil {
		return nil, "", err
	}
	return run, source, nil
}

// isReport reports whether the file at path is a JSON report of
// mcpconform (what --json writes) rather than evidence: its top level has
// a summary and results.
func isReport(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var top struct {
		SchemaVersion json.RawMessage `json:"schemaVersion"`
		Summary       json.RawMessage `json:"summary"`
		Results       json.RawMessage `json:"results"`
	}
	if json.NewDecoder(f).Decode(&top) != nil {
		return false
	}
	return top.SchemaVersion != nil && top.Summary != nil && top.Results != nil
}

// vectorSource says where the vectors that judge run come from.
func vectorSource(run *evidence.Run, path, tool string) (string, error) {
	if len(run.Vectors) == 0 {
		return "embedded in mcpconform " + tool, nil
	}
	files, err := suite.VectorFiles(run)
	if err != nil {
		return "", fmt.Errorf("%s: its vectors: %v", path, err)
	}
	own, err := vectors.Embedded()
	if err != nil {
		return "", err
	}
	ours := map[string][]byte{}
	for _, f := range own {
		for _, t := range f.Tests {
			ours[t.ID], _ = json.Marshal(t)
		}
	}
	var forged []string
	for _, f := range files {
		for _, t := range f.Tests {
			if b, _ := json.Marshal(t); bytes.Equal(b, ours[t.ID]) {
				continue // this mcpconform's own test, word for word
			}
			if why := t.AcceptsAnything(); why != "" {
				forged = append(forged, fmt.Sprintf("%s (%s)", t.ID, why))
			}
		}
	}
	if len(forged) > 0 {
		return "", fmt.Errorf("%s: refused: vectors in the evidence pass whatever the server did: %s", path, strings.Join(forged, "; "))
	}
	return fmt.Sprintf("read from the evidence file (%d files, not necessarily this mcpconform's)", len(files)), nil
}
