package wire

import (
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`{}`:                          1,
		`{"a":[1,{"b":[]}]}`:          4,
		`{"s":"[[[[{{{{"}`:            1,
		`{"s":"\"[[["}`:               1,
		`{"s":"\\"}`:                  1,
		`[[[`:                         3,
		`x`:                           0,
		strings.Repeat("[", 600) + "": 600,
	} {
		if got := Depth([]byte(in)); got != want {
			t.Errorf("Depth(%.40q) = %d, want %d", in, got, want)
		}
	}
	deep := []byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))
	if LineValue(deep) != nil {
		t.Error("a value past MaxDepth is decoded")
	}
	lr := NewLineReader(strings.NewReader(string(deep)+"\n"), 1<<20)
	l, err := lr.Next()
	if err != nil || !l.Has(IssueTooDeep) || l.Value != nil {
		t.Errorf("line past MaxDepth: %v, issues %v, value %.20q", err, l.Issues, l.Value)
	}
}
