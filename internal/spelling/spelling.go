// Package spelling says how close two names are, so that a message about
// a name that does not exist can suggest the one that was meant.
package spelling

import (
	"slices"
	"strings"
)

// Distance is the Levenshtein distance between a and b, in runes: the
// number of runes to insert, delete or replace to turn one into the other.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Nearest returns at most n names of known close to name, closest first:
// those within a few edits (a third of name's length, at least two), else
// those that contain it, shortest first.
func Nearest(name string, known []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var close []scored
	limit := max(2, len(name)/3)
	for _, k := range known {
		if d := Distance(name, k); d <= limit {
			close = append(close, scored{k, d})
		}
	}
	if len(close) == 0 {
		for _, k := range known {
			if strings.Contains(k, name) {
				close = append(close, scored{k, len(k)})
			}
		}
	}
	slices.SortFunc(close, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range close[:min(n, len(close))] {
		out = append(out, c.name)
	}
	return out
}
