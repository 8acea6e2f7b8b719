package clientrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mcpconform/mcpconform/evidence"
	"github.com/mcpconform/mcpconform/transcript"
	"github.com/mcpconform/mcpconform/wire"
)

// ReadSpawns reads the evidence streams the recording mock wrote into dir,
// one per spawn, in the order the spawns started. A stream cut off in the
// middle of a line (a mock killed while writing) keeps its whole lines.
func ReadSpawns(dir string) ([]*evidence.Spawn, error) {
	files, err := filepath.Glob(filepath.Join(dir, "spawn-*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files) // named by start time, zero-padded
	var out []*evidence.Spawn
	for i, f := range files {
		sp, err := ReadStream(f)
		if err != nil {
			return out, err
		}
		sp.ID = i + 1
		out = append(out, sp)
	}
	return out, nil
}

// ReadStream reads one evidence stream: a header line, then one
// transcript entry per line.
func ReadStream(path string) (*evidence.Spawn, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sp := &evidence.Spawn{}
	var entries []transcript.Entry
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		var head struct {
			Spawn *streamHeader `json:"spawn"`
		}
		if i == 0 && json.Unmarshal(line, &head) == nil && head.Spawn != nil {
			sp.Argv = head.Spawn.Argv
			continue
		}
		var e transcript.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			if i == len(lines)-1 {
				break // the last line, cut off by a kill
			}
			return nil, fmt.Errorf("%s: line %d: %v", filepath.Base(path), i+1, err)
		}
		entries = append(entries, e)
	}
	sp.Transcript = transcript.FromEntries(entries)
	sp.Version = negotiated(entries)
	return sp, nil
}

// negotiated is the protocol version a spawn's traffic used: the
// initialize result's, or else the one the client's 2026-07-28 requests
// name in _meta; "" when nothing says. A client that probes with
// server/discover and falls back to initialize used the latter's.
func negotiated(entries []transcript.Entry) string {
	var initID, modern string
	for _, e := range entries {
		for _, m := range e.Msgs {
			switch {
			case e.Dir == transcript.Send && m.Method == "initialize":
				initID = wire.IDKey(m.ID)
			case e.Dir == transcript.Recv && initID != "" && m.Method == "" && wire.IDKey(m.ID) == initID:
				var res struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(m.Result, &res) == nil && res.ProtocolVersion != "" {
					return res.ProtocolVersion
				}
			case e.Dir == transcript.Send && m.Method != "" && modern == "":
				var p struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				if json.Unmarshal(m.Params, &p) == nil {
					json.Unmarshal(p.Meta[wire.MetaProtocolVersion], &modern)
				}
			}
		}
	}
	if initID != "" {
		return ""
	}
	return modern
}
