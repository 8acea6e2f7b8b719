package reports

import "strings"

// diffOp marks one line of a line diff.
type diffOp byte

const (
	diffSame diffOp = ' '
	diffDel  diffOp = '-' // only in the first text (Expected)
	diffAdd  diffOp = '+' // only in the second text (Actual)
)

// diffLine is one line of a line diff.
type diffLine struct {
	Op   diffOp
	Text string
}

// diffCells bounds the longest-common-subsequence table. Past it (two texts
// of a few thousand lines each) the diff is the plain "all removed, all
// added", which is still correct, only less helpful.
const diffCells = 4_000_000

// lineDiff returns a line diff that turns a into b: the lines of a longest
// common subsequence kept, the rest deleted or added. Common leading and
// trailing lines are trimmed before the quadratic part.
func lineDiff(a, b string) []diffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	out := make([]diffLine, 0, len(x)+len(y))
	for _, l := range x[:pre] {
		out = append(out, diffLine{diffSame, l})
	}
	out = append(out, lcsDiff(x[pre:len(x)-suf], y[pre:len(y)-suf])...)
	for _, l := range x[len(x)-suf:] {
		out = append(out, diffLine{diffSame, l})
	}
	return out
}

func lcsDiff(x, y []string) []diffLine {
	var out []diffLine
	n, m := len(x), len(y)
	if n == 0 || m == 0 || n*m > diffCells {
		for _, l := range x {
			out = append(out, diffLine{diffDel, l})
		}
		for _, l := range y {
			out = append(out, diffLine{diffAdd, l})
		}
		return out
	}
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			out = append(out, diffLine{diffSame, x[i]})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, diffLine{diffDel, x[i]})
			i++
		default:
			out = append(out, diffLine{diffAdd, y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{diffDel, x[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{diffAdd, y[j]})
	}
	return out
}
