package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Shard is one part of a target list split n ways (1 ≤ Index ≤ Count);
// the zero Shard is the whole list.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n", as --shard takes it.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("--shard %q: want i/n, e.g. --shard 2/4 for the second of four shards", s)
	case count < 1:
		return Shard{}, fmt.Errorf("--shard %q: n must be at least 1", s)
	case index < 1 || index > count:
		return Shard{}, fmt.Errorf("--shard %q: i counts from 1 to n; write e.g. --shard 1/%d", s, count)
	}
	return Shard{Index: index, Count: count}, nil
}

// String writes the shard as "i/n", or "" for the whole list.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Split is a balanced split of a target list, computed from a previous
// run's durations (Balance), for a CI matrix to follow: each shard's job
// runs the targets listed for it.
type Split struct {
	Shards []SplitShard `json:"shards"`
	// Estimated lists the targets no previous duration was found for:
	// their durations are guesses (the median of the others), not
	// measurements.
	Estimated []string `json:"estimated,omitempty"`
}

// SplitShard is one shard of a Split.
type SplitShard struct {
	Shard   string   `json:"shard"`
	Targets []string `json:"targets"`
	// EstimatedMs is the sum of its targets' durations in the previous
	// run (or their estimates): what the split balanced.
	EstimatedMs int64 `json:"estimatedMs"`
}

// LoadSplit reads a split written by Balance.
func LoadSplit(path string) (*Split, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Split
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i, sh := range s.Shards {
		if want := (Shard{Index: i + 1, Count: len(s.Shards)}).String(); sh.Shard != want {
			return nil, fmt.Errorf("%s: shard %d says %q, want %q", path, i+1, sh.Shard, want)
		}
	}
	return &s, nil
}

// Select returns the ids of shard s of the list's ids, sorted: every id is
// in exactly one shard, whatever n, and the same one on every machine.
// Without a split, the ids sorted are dealt round the shards in turn.
// With one, a shard takes the ids the split lists for it, and the ids the
// split does not know (targets added since) are dealt round as without
// one; the notes say which ids the split lists that the list no longer
// has.
func Select(ids []string, s Shard, split *Split) (selected []string, notes []string, err error) {
	ids = slices.Clone(ids)
	sort.Strings(ids)
	if s.Count == 0 {
		return ids, nil, nil
	}
	unplaced := ids
	var mine []string
	if split != nil {
		if len(split.Shards) != s.Count {
			return nil, nil, fmt.Errorf("the split has %d shards, and --shard %s asks for one of %d", len(split.Shards), s, s.Count)
		}
		known := map[string]bool{}
		for _, id := range ids {
			known[id] = true
		}
		placed := map[string]bool{}
		for i, sh := range split.Shards {
			for _, id := range sh.Targets {
				if !known[id] {
					if i+1 == s.Index {
						notes = append(notes, fmt.Sprintf("the split lists %s, which the target list does not have", id))
					}
					continue
				}
				if placed[id] {
					return nil, nil, fmt.Errorf("the split lists %s in two shards", id)
				}
				placed[id] = true
				if i+1 == s.Index {
					mine = append(mine, id)
				}
			}
		}
		unplaced = nil
		for _, id := range ids {
			if !placed[id] {
				unplaced = append(unplaced, id)
			}
		}
	}
	for k, id := range unplaced {
		if k%s.Count == s.Index-1 {
			mine = append(mine, id)
		}
	}
	sort.Strings(mine)
	return mine, notes, nil
}

// Balance splits ids into n shards of about equal total duration, by the
// durations (milliseconds) of a previous run: the longest target first,
// each to the shard with the least so far (ties to the first shard, ids in
// order, so the split is the same on every machine). A target with no
// previous duration is given the median of the others, and listed as
// estimated.
func Balance(ids []string, durations map[string]int64, n int) *Split {
	var known []int64
	for _, id := range ids {
		if d, ok := durations[id]; ok {
			known = append(known, d)
		}
	}
	guess := int64(1)
	if len(known) > 0 {
		slices.Sort(known)
		guess = max(known[len(known)/2], 1)
	}
	type item struct {
		id string
		ms int64
	}
	items := make([]item, 0, len(ids))
	split := &Split{}
	for _, id := range ids {
		d, ok := durations[id]
		if !ok {
			d = guess
			split.Estimated = append(split.Estimated, id)
		}
		items = append(items, item{id, d})
	}
	sort.Strings(split.Estimated)
	sort.Slice(items, func(i, j int) bool {
		if items[i].ms != items[j].ms {
			return items[i].ms > items[j].ms
		}
		return items[i].id < items[j].id
	})
	split.Shards = make([]SplitShard, n)
	for i := range split.Shards {
		split.Shards[i] = SplitShard{Shard: Shard{Index: i + 1, Count: n}.String(), Targets: []string{}}
	}
	for _, it := range items {
		least := 0
		for i := range split.Shards {
			if split.Shards[i].EstimatedMs < split.Shards[least].EstimatedMs {
				least = i
			}
		}
		split.Shards[least].Targets = append(split.Shards[least].Targets, it.id)
		split.Shards[least].EstimatedMs += it.ms
	}
	for i := range split.Shards {
		sort.Strings(split.Shards[i].Targets)
	}
	return split
}

// Write writes the split as JSON, the file LoadSplit reads (mcpconform
// fleet --split FILE).
func (s *Split) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// SetShard sets Shard from its text, i/n (ParseShard; "" runs the whole
// list), and Split from the balanced split in the file at splitPath (""
// none), which chooses the shard's targets and so needs a shard.
func (o *Options) SetShard(shard, splitPath string) error {
	var err error
	if shard != "" {
		if o.Shard, err = ParseShard(shard); err != nil {
			return err
		}
	}
	if splitPath == "" {
		return nil
	}
	if shard == "" {
		return errors.New("--split needs --shard i/n: the split says which targets each shard runs")
	}
	o.Split, err = LoadSplit(splitPath)
	return err
}
