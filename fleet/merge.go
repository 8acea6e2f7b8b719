package fleet

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/reports"
)

// Part is one fleet report given to Merge, and where it came from (a
// report directory).
type Part struct {
	Dir   string
	Fleet *reports.Fleet
}

// ReadPart reads the fleet report of a report directory (its fleet.json).
func ReadPart(dir string) (Part, error) {
	f, err := os.Open(filepath.Join(dir, reports.FleetJSONFile))
	if err != nil {
		return Part{}, fmt.Errorf("%s: %v (a fleet's --report-dir holds %s)", dir, err, reports.FleetJSONFile)
	}
	defer f.Close()
	fl, err := reports.ReadFleetJSON(f)
	if err == nil {
		for _, t := range fl.Targets {
			if !validID.MatchString(t.ID) {
				err = fmt.Errorf("the target id %q is none a target list accepts", t.ID)
				break
			}
		}
	}
	if err != nil {
		return Part{}, fmt.Errorf("%s: %v", filepath.Join(dir, reports.FleetJSONFile), err)
	}
	return Part{Dir: dir, Fleet: fl}, nil
}

// A result's key in a merge: the check judged under a protocol version.
// The target id and the tool version, the other parts of the key, are
// the same within one target's report.
type resultKey struct{ version, check string }

// Merge builds one fleet report from the reports of a list's shards.
// Targets are keyed by id, and a target's results by (protocol version,
// check id), all of one tool version: a target in two parts is kept once
// when both say the same (a shard run twice), and refused when they
// conflict (another class, another verdict, another set of results, or
// another tool version). The merged report says which shards it holds and
// which of the same split are missing (its class is then at least
// incomplete).
func Merge(parts []Part) (*reports.Fleet, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge: give the report directories of the shards")
	}
	out := &reports.Fleet{SchemaVersion: reports.FleetSchemaVersion, Kind: "fleet", Targets: []reports.FleetTarget{}}
	tool := parts[0].Fleet.Tool
	var end time.Time
	from := map[string]string{} // target id → the part it came from
	index := map[string]int{}
	shards := map[string]bool{}
	count := 0
	for _, p := range parts {
		fl := p.Fleet
		if fl.Tool.Version != tool.Version {
			return nil, fmt.Errorf("%s was written by mcpconform %q and %s by %q: shards of one merge come from one version of the tool", parts[0].Dir, tool.Version, p.Dir, fl.Tool.Version)
		}
		if out.StartedAt.IsZero() || fl.StartedAt.Before(out.StartedAt) {
			out.StartedAt = fl.StartedAt
		}
		if e := fl.StartedAt.Add(time.Duration(fl.DurationMs) * time.Millisecond); e.After(end) {
			end = e
		}
		given := fl.Merged
		if fl.Shard != "" {
			given = []string{fl.Shard}
		}
		for _, s := range given {
			sh, err := ParseShard(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.Dir, err)
			}
			if count != 0 && sh.Count != count {
				return nil, fmt.Errorf("%s holds shard %s, and another part a shard of %d: the parts come from different splits", p.Dir, s, count)
			}
			count = sh.Count
			shards[s] = true
		}
		for _, n := range fl.Notes {
			out.Notes = append(out.Notes, p.Dir+": "+n)
		}
		for _, t := range fl.Targets {
			if i, dup := index[t.ID]; dup {
				if why := conflict(out.Targets[i], t); why != "" {
					return nil, fmt.Errorf("target %s is in %s and in %s, and they conflict: %s", t.ID, from[t.ID], p.Dir, why)
				}
				out.Notes = append(out.Notes, fmt.Sprintf("target %s is in %s and in %s with the same results: kept once", t.ID, from[t.ID], p.Dir))
				continue
			}
			index[t.ID], from[t.ID] = len(out.Targets), p.Dir
			out.Targets = append(out.Targets, t)
		}
	}
	out.Tool = tool
	out.DurationMs = end.Sub(out.StartedAt).Milliseconds()
	for s := range shards {
		out.Merged = append(out.Merged, s)
	}
	sortShards(out.Merged)
	for i := 1; i <= count; i++ {
		if s := (Shard{Index: i, Count: count}).String(); !shards[s] {
			out.Missing = append(out.Missing, s)
		}
	}
	if err := Finish(out); err != nil {
		return nil, err
	}
	return out, nil
}

// conflict says how two reports of one target differ in what they judged,
// or "" when they agree: times, notes and messages may differ between two
// runs; class and verdicts may not.
func conflict(a, b reports.FleetTarget) string {
	if a.Class != b.Class {
		return fmt.Sprintf("one is %s, the other %s", a.Class, b.Class)
	}
	va, vb := verdicts(a), verdicts(b)
	var keys []resultKey
	for k := range va {
		keys = append(keys, k)
	}
	for k := range vb {
		if _, ok := va[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].check != keys[j].check {
			return keys[i].check < keys[j].check
		}
		return keys[i].version < keys[j].version
	})
	for _, k := range keys {
		x, inA := va[k]
		y, inB := vb[k]
		name := k.check
		if k.version != "" {
			name += " under " + k.version
		}
		switch {
		case !inA || !inB:
			return fmt.Sprintf("%s is judged in one and not in the other", name)
		case x != y:
			return fmt.Sprintf("%s is %s in one and %s in the other", name, x, y)
		}
	}
	return ""
}

func verdicts(t reports.FleetTarget) map[resultKey]reports.Verdict {
	out := map[resultKey]reports.Verdict{}
	if t.Report != nil {
		for _, r := range t.Report.Results {
			out[resultKey{r.ProtocolVersion, r.ID}] = r.Verdict
		}
	}
	return out
}

// sortShards orders "i/n" strings by i.
func sortShards(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		x, _ := ParseShard(a)
		y, _ := ParseShard(b)
		return x.Index - y.Index
	})
}

// CopyTargetReports copies the folder of reports of every target of fl
// from the part it came from into dir/targets, so that a merged report
// directory is complete.
func CopyTargetReports(fl *reports.Fleet, parts []Part, dir string) error {
	src := map[string]string{}
	for _, p := range parts {
		for _, t := range p.Fleet.Targets {
			if _, ok := src[t.ID]; !ok && t.Dir != "" {
				src[t.ID] = filepath.Join(p.Dir, filepath.FromSlash(t.Dir))
			}
		}
	}
	for i, t := range fl.Targets {
		from, ok := src[t.ID]
		if !ok {
			fl.Targets[i].Dir = ""
			continue
		}
		to := filepath.Join(dir, TargetsDir, t.ID)
		if err := copyDir(from, to); err != nil {
			return fmt.Errorf("copying the reports of %s: %v", t.ID, err)
		}
		fl.Targets[i].Dir = TargetsDir + "/" + t.ID
	}
	return nil
}

func copyDir(from, to string) error {
	if same, err := samePath(from, to); err != nil || same {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := copyFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func samePath(a, b string) (bool, error) {
	x, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	y, err := filepath.Abs(b)
	return x == y, err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Durations returns each target's duration in fl (its setup and its run),
// in milliseconds: what Balance splits by.
func Durations(fl *reports.Fleet) map[string]int64 {
	out := map[string]int64{}
	for _, t := range fl.Targets {
		d := t.DurationMs
		if t.Setup != nil {
			d += t.Setup.DurationMs
		}
		out[t.ID] = d
	}
	return out
}

// AddAbsent adds to a merged fleet, as incomplete, every id of the target
// list that no part holds (a shard that never wrote its report), so that
// the merged report says what it lacks.
func AddAbsent(fl *reports.Fleet, ids []string) error {
	have := map[string]bool{}
	for _, t := range fl.Targets {
		have[t.ID] = true
	}
	for _, id := range ids {
		if have[id] {
			continue
		}
		const why = "not in any shard's report: its shard did not run or did not write its report"
		fl.Targets = append(fl.Targets, reports.FleetTarget{
			ID: id, Class: reports.ClassIncomplete, Reason: why,
			Report: &reports.Report{SchemaVersion: reports.SchemaVersion, Tool: fl.Tool, Results: []reports.Result{}, Interrupted: why, Summary: reports.Summary{Verdict: reports.ErrorVerdict}},
		})
	}
	return Finish(fl)
}

// MergeDirs merges the fleet reports of the report directories dirs
// (Merge). With a target list, the list's targets no directory holds are
// added as incomplete (AddAbsent); with reportDir, each target's folder of
// reports is copied into it (CopyTargetReports).
func MergeDirs(dirs []string, list *File, reportDir string) (*reports.Fleet, error) {
	parts, err := readParts(dirs)
	if err != nil {
		return nil, err
	}
	fl, err := Merge(parts)
	if err == nil && list != nil {
		err = AddAbsent(fl, list.IDs())
	}
	switch {
	case err != nil:
	case reportDir != "":
		err = CopyTargetReports(fl, parts, reportDir)
	default:
		// The folders named are the parts', not beside this report.
		for i := range fl.Targets {
			fl.Targets[i].Dir = ""
		}
	}
	return fl, err
}

// BalanceDirs splits the list's targets (or, without a list, those of the
// reports) into n shards by the durations the fleet reports of dirs give
// them (Balance). With no directory every duration is estimated: the
// split then deals the ids round.
func BalanceDirs(dirs []string, list *File, n int) (*Split, error) {
	parts, err := readParts(dirs)
	if err != nil {
		return nil, err
	}
	durations := map[string]int64{}
	for _, p := range parts {
		for id, d := range Durations(p.Fleet) {
			durations[id] = d
		}
	}
	var ids []string
	if list != nil {
		ids = list.IDs()
	} else {
		for id := range durations {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("nothing to split: give the report directories of a previous run, or the target list")
	}
	return Balance(ids, durations, n), nil
}

func readParts(dirs []string) ([]Part, error) {
	var parts []Part
	for _, dir := range dirs {
		p, err := ReadPart(dir)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}
