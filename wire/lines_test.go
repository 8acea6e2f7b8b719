package wire

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
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

func TestTopLevelMember(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":` + deep + `}`, `7`, true},
		{`{"result":{"id":1,"x":` + deep + `},"id":"a\"b","jsonrpc":"2.0"}`, `"a\"b"`, true},
		{` {"id" : null , "error":{}}`, `null`, true},
		{`{"result":{"id":3}}`, ``, false},
		{`{"id":{"x":1}}`, ``, false},
		{`["id",1]`, ``, false},
		{`{"i\u0064":5}`, `5`, true},
	} {
		got, ok := TopLevelMember([]byte(tc.in), "id")
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%.60s: got %s %v, want %s %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestValidRemembersOnlyWhatItChecked: a large value is remembered as
// valid by its bytes' address and length; an invalid one never is, and a
// slice of another length at the same address is checked afresh.
func TestValidRemembersOnlyWhatItChecked(t *testing.T) {
	big := []byte(`{"a":"` + strings.Repeat("x", validMemoMin) + `"}`)
	if !valid(big) || !valid(big) {
		t.Fatal("a valid value is not valid")
	}
	if valid(big[:len(big)-1]) {
		t.Error("a cut value at the same address passes as valid")
	}
	bad := []byte(`{"a":"` + strings.Repeat("x", validMemoMin) + `}`)
	if valid(bad) || valid(bad) {
		t.Error("an invalid value passes as valid")
	}
}

// TestValidKeepsNothingAlive: remembering a large value as valid does not
// keep its bytes alive; a clipped 50 MB read would otherwise stay in
// memory until four more large values were checked.
func TestValidKeepsNothingAlive(t *testing.T) {
	big := []byte(`{"a":"` + strings.Repeat("x", validMemoMin) + `"}`)
	if !valid(big) {
		t.Fatal("a valid value is not valid")
	}
	w := weak.Make(unsafe.SliceData(big))
	big = nil
	for range 5 {
		runtime.GC()
		if w.Value() == nil {
			return
		}
	}
	t.Error("the remembered value was not collected")
}
